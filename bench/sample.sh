#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The --sample benchmark (issue #16): on seven trees of a loop-mounted btrfs
# image (mounted compress=zstd:1, so files carry a current ratio), one full
# pass computes every file's estimate and every unit's (bench/sample-sim.c);
# compsize's sampler (sample/: its pre-pass, plan and draws) is then run
# over SEEDS seeds at each of PCTS, as root (current ratios) and as
# without root (the names' kinds), and compared with the full estimate.  Then compsize itself: the full estimate's time against a 1%
# sample's and the usage scan alone, per tree and on the whole image
# (COST=0 skips it; COST_TREES chooses, "all" being the whole image; SIMULATE=0
# skips the simulation; BEFORE=<another compsize> times its 1% sample in
# the same runs).  Root; the image is cached in $BENCH_DIR (delete it to
# rebuild).
#
#   bench/sample.sh [COMPSIZE] > result.md
set -eu
COMPSIZE=$(realpath "${1:-./compsize}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-/var/tmp/compsize-sample-bench}
SEEDS=${SEEDS:-200}
PCTS=${PCTS:-1,5,20}
SETTINGS=${SETTINGS:-zstd:1,zstd:3,compress-force=zstd:3,lzo,compress-force=zlib:3}
TREES=${TREES:-usr-share lib-bin home few-big tiny force mixed}
COST=${COST:-1}
SIMULATE=${SIMULATE:-1}
IMG=$BENCH_DIR/btrfs.img
MNT=$BENCH_DIR/mnt
LAYOUT=4

mkdir -p "$BENCH_DIR" "$MNT"
cleanup() { mountpoint -q "$MNT" && umount "$MNT"; true; }
trap cleanup EXIT

log() { echo "sample.sh: $*" >&2; }

# Text of about $1 MiB: documentation and headers, read from a random
# place on and numbered per pass, so that no two pieces are alike.
TEXT_LIST=$(find /usr/share/doc /usr/include -type f \( -name '*.h' -o \
	-name '*.txt' -o -name 'copyright' -o -name '*.md' \) -size -256k \
	2>/dev/null | sort)
text_mib() {
	local n=0
	while :; do
		n=$((n + 1))
		echo "$TEXT_LIST" | xargs cat 2>/dev/null |
			tail -c +$((RANDOM * 1000 + 1)) | sed "s/^/$n /" || break
	done | head -c "$(($1 << 20))"
}

build() {
	log "building the image (one time)"
	cleanup
	rm -f "$IMG"
	truncate -s 10G "$IMG"
	mkfs.btrfs -q "$IMG"
	mount -o loop,compress=zstd:1 "$IMG" "$MNT"
	mkdir -p "$MNT/usr-share" "$MNT/lib-bin" "$MNT/home" "$MNT/few-big"
	cp -a /usr/share/. "$MNT/usr-share/"
	mkdir -p "$MNT/lib-bin/lib"
	cp -a /usr/lib/x86_64-linux-gnu /usr/lib/python3.11 /usr/lib/python3 \
		/usr/lib/git-core "$MNT/lib-bin/lib/"
	cp -a /usr/bin "$MNT/lib-bin/"
	# home-like: three big files hold most of the bytes, beside ~20k
	# small ones (documents, sources, settings)
	mkdir -p "$MNT/home/src" "$MNT/home/docs"
	cp -a /usr/include/. "$MNT/home/src/"
	cp -a /usr/share/doc/. "$MNT/home/docs/"
	# a disk image: binaries, text and zeros in runs of a few MiB
	find /usr/lib/x86_64-linux-gnu -type f -size +1M | sort | head -150 |
		xargs cat | head -c 300M >"$MNT/home/disk.img.part"
	{ head -c 100M "$MNT/home/disk.img.part"; text_mib 60; head -c 64M /dev/zero;
	  tail -c 200M "$MNT/home/disk.img.part"; } >"$MNT/home/disk.img"
	rm "$MNT/home/disk.img.part"
	# a video: incompressible
	head -c 250M /dev/urandom >"$MNT/home/video.mkv"
	# a mailbox: text
	text_mib 150 >"$MNT/home/mail.mbox"
	# few-big: nearly all bytes in two files; one mixes text and random
	# in 3 MiB / 1 MiB blocks (the issue's compress= case)
	for i in $(seq 1 100); do
		text_mib 3
		head -c 1M /dev/urandom
	done >"$MNT/few-big/mixed.bin"
	find /usr/lib/x86_64-linux-gnu -type f -size +1M | sort | tail -100 |
		xargs cat | head -c 150M >"$MNT/few-big/libs.bin"
	mkdir -p "$MNT/few-big/etc"
	find /etc -maxdepth 1 -type f -size -64k 2>/dev/null | head -50 |
		xargs -I{} cp {} "$MNT/few-big/etc/" 2>/dev/null || true
	# tiny: 25k small files, most of them manual pages (.gz of 1-4 KiB,
	# on both sides of the inline bound)
	mkdir -p "$MNT/tiny/inc" "$MNT/tiny/man"
	cp -a /usr/share/doc "$MNT/tiny/"
	cp -a /usr/include/linux "$MNT/tiny/inc/"
	cp -a /usr/share/man/man1 "$MNT/tiny/man/"
	# force: written under compress-force=zstd:3 (a remount), sampled
	# under compress=zstd:1 like the rest: parts stored compressed that
	# compress= would leave raw after NOCOMPRESS (the libraries' and the
	# mixed file's tails), the case SAMPLE_CUR_KAPPA (sample.c) is for
	sync
	mount -o remount,compress-force=zstd:3 "$MNT"
	mkdir -p "$MNT/force/lib"
	cp -a /usr/include "$MNT/force/include"
	cp -a /usr/share/doc "$MNT/force/doc"
	find /usr/lib/x86_64-linux-gnu -type f -size +200k -name '*.so*' |
		sort | head -150 | xargs cp --backup=numbered -t "$MNT/force/lib/"
	for i in $(seq 1 8); do
		text_mib 3
		head -c 1M /dev/urandom
	done >"$MNT/force/mixed.bin"
	# mixed: written in four times under four settings, as on a
	# filesystem whose compression was changed over the years: text
	# under lzo, libraries under zlib:9, archives and manual pages (.xz,
	# .gz) under compress-force=zstd:1, and programs, a sparse file and
	# a preallocated one without compression; under half of its data is
	# stored raw, and that half mixes what nothing asked to compress
	# with what the kernel would not compress
	sync
	mount -o remount,compress=lzo "$MNT"
	mkdir -p "$MNT/mixed/text" "$MNT/mixed/lib" "$MNT/mixed/packed" \
		"$MNT/mixed/bin"
	cp -a /usr/share/doc /usr/include "$MNT/mixed/text/"
	sync
	mount -o remount,compress=zlib:9 "$MNT"
	find /usr/lib/x86_64-linux-gnu -maxdepth 1 -type f | sort | head -400 |
		xargs cp -a -t "$MNT/mixed/lib/"
	sync
	mount -o remount,compress-force=zstd:1 "$MNT"
	find /usr/src -maxdepth 1 -type f -name '*.tar.xz' -size +1M |
		sort | head -4 | xargs -r cp -t "$MNT/mixed/packed/"
	cp -a /usr/share/man "$MNT/mixed/packed/"
	sync
	mount -o remount,compress=no "$MNT"
	cp -a /usr/bin "$MNT/mixed/bin/"
	truncate -s 100M "$MNT/mixed/bin/sparse"
	dd if=/usr/bin/bash of="$MNT/mixed/bin/sparse" bs=64k seek=300 \
		conv=notrunc status=none
	fallocate -l 50M "$MNT/mixed/bin/prealloc"
	head -c 640k /usr/share/dict/words 2>/dev/null |
		dd of="$MNT/mixed/bin/prealloc" bs=64k seek=100 conv=notrunc \
			status=none
	sync
	mount -o remount,compress=zstd:1 "$MNT"
	echo "$LAYOUT" >"$BENCH_DIR/layout"
	umount "$MNT"
}

if [ ! -f "$IMG" ] || [ "$(cat "$BENCH_DIR/layout" 2>/dev/null)" != "$LAYOUT" ]; then
	build
fi
mountpoint -q "$MNT" || mount -o loop,compress=zstd:1 "$IMG" "$MNT"

SIM=$BENCH_DIR/sample-sim
log "building sample-sim"
# from the sources, not the tree's objects: a build or test running there
# at the same time is left alone
# (the sampler, sample/*.c, and what it needs)
(cd "$ROOT" && cc -O2 -std=gnu11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -I. \
	-DCOMPSIZE_VERSION='"bench"' -o "$SIM" bench/sample-sim.c sample/*.c \
	walk/walk.c walk/walkorder.c scan/search.c scan/extent.c seen.c \
	estimate/setting.c estimate/load.c estimate/plugin/*.c \
	$(pkg-config --cflags --libs libzstd lzo2 zlib libbtrfsutil) -pthread)

echo "# --sample on real trees ($(date -u +%F), $(git -C "$ROOT" rev-parse --short HEAD))"
echo
echo "Settings: $SETTINGS; $SEEDS seeds per cell; truth: the full estimate."
for t in $([ "$SIMULATE" = 1 ] && echo "$TREES"); do
	# (.units2: files named by st_dev and st_ino, as the pre-pass keys
	# them)
	units=$BENCH_DIR/$t.units2
	if [ ! -s "$units" ] || [ "$units" -ot "$IMG" ]; then
		log "$t: full pass"
		/usr/bin/time -f "%e s" -o "$BENCH_DIR/$t.time" \
			"$SIM" units "$SETTINGS" "$MNT/$t" >"$units.tmp"
		mv "$units.tmp" "$units"
	fi
	# bands: as root on btrfs; kind: as without root
	for strata in kind bands; do
		echo
		echo "## $t, strata by $strata"
		echo
		"$SIM" sim "$SEEDS" "$PCTS" $strata "$MNT/$t" <"$units"
	done
done

[ "$COST" = 1 ] || exit 0
# median of $1 runs of the rest, wall seconds
median() {
	local n=$1 i
	shift
	for i in $(seq 1 "$n"); do
		{ /usr/bin/time -f %e "$@" >/dev/null; } 2>&1 | tail -1
	done | sort -n | sed -n "$(((n + 1) / 2))p"
}
RUNS=${RUNS:-3}
echo
echo "## Cost: compsize -e $SETTINGS (-j $(nproc), page cache warm, median of $RUNS)"
echo
echo "| tree | files | usage scan s | full estimate s | --sample=1% s | (1% - usage) / full | target 2% |${BEFORE:+ 1% before s | (1% - usage) / full before |}"
echo "|---|---:|---:|---:|---:|---:|---|${BEFORE:+---:|---:|}"
for t in ${COST_TREES:-$TREES all}; do
	d=$MNT/$t
	[ "$t" = all ] && d=$MNT
	tar -cf - "$d" 2>/dev/null | cat >/dev/null
	files=$(find "$d" -type f | wc -l)
	us=$(median "$RUNS" "$COMPSIZE" "$d")
	full=$(median "$RUNS" "$COMPSIZE" -e "$SETTINGS" --no-sample "$d")
	one=$(median "$RUNS" "$COMPSIZE" -e "$SETTINGS" --sample=1% "$d")
	pct=$(echo "scale=1; 100 * ($one - $us) / $full" | bc)
	ok=$(echo "$pct <= 2" | bc)
	before=
	if [ -n "${BEFORE:-}" ]; then
		b=$(median "$RUNS" "$BEFORE" -e "$SETTINGS" --sample=1% "$d")
		before=" $b | $(echo "scale=1; 100 * ($b - $us) / $full" | bc)% |"
	fi
	echo "| $t | $files | $us | $full | $one | $pct% | $([ "$ok" = 1 ] && echo ok || echo missed) |$before"
done
