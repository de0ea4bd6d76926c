#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --sample's same layout under sharing (docs/sampling.md, The same layout):
# on a loop-mounted btrfs image (compress=zstd:1), four subvolumes built
# from system files:
#   copies  a home-like tree (a 24 MiB file of 3 MiB text and 1 MiB
#           compressed runs, 8 MiB of libraries, 300 small files), a
#           reflinked copy of it and a snapshot of both;
#   snaps   the home-like tree beside five read-only snapshots of it;
#   steps   copies, then the copy's big file overwritten in its middle and
#           30 of its small files appended to after the snapshot (files
#           written in steps: docs/sampling.md, What the interval covers);
#   vm      a disk image's like (the home-like tree's 24 MiB file) beside
#           four read-only snapshots in .snapshots, 96 blocks of 4 KiB and
#           16 writes of 8-64 KiB rewritten at random places between each
#           two (a VM image or a database under snapper).
# For each tree and setting, SEEDS samples of PCT%: how often the 95%
# interval held the full estimate (disk, the same layout as root), the
# mean error, the root mean square error and the mean half-width, for
# COMPSIZE and, in the same run, BEFORE (another compsize); TREES picks
# some of them.  Root.
#
#   bench/sample-shared.sh [COMPSIZE] > result.md
set -eu
COMPSIZE=$(realpath "${1:-./compsize}")
BENCH_DIR=${BENCH_DIR:-/var/tmp/compsize-shared-bench}
SEEDS=${SEEDS:-200}
PCT=${PCT:-10}
SETTINGS=${SETTINGS:-zstd:1 compress-force=zstd:3 lzo}
IMG=$BENCH_DIR/btrfs.img
MNT=$BENCH_DIR/mnt

mkdir -p "$BENCH_DIR" "$MNT"
cleanup() { if mountpoint -q "$MNT"; then umount "$MNT" || true; fi; }
trap cleanup EXIT
log() { echo "sample-shared.sh: $*" >&2; }

incompressible() {
	find /usr/share -type f \( -name '*.gz' -o -name '*.xz' \) -size +8k \
		2>/dev/null | sort | xargs cat 2>/dev/null | head -c "$1" || true
}
text() {
	find /usr/share/doc /usr/include -type f -name '*.h' -o -name copyright \
		2>/dev/null | sort | xargs cat 2>/dev/null |
		tail -c +$(($2 * 3145728 + 1)) | head -c "$1" || true
}
# home DIR: the home-like tree
home() {
	local i f
	mkdir -p "$1/small"
	for i in 0 1 2 3 4 5; do
		text 3145728 "$i"
		incompressible 1048576
	done >"$1/mixed.bin"
	find /usr/lib -type f -name '*.so*' -size +100k 2>/dev/null | sort |
		head -40 | xargs cat 2>/dev/null | head -c 8388608 >"$1/libs.bin" || true
	find /usr/share/doc -type f -size -64k 2>/dev/null | sort | head -300 |
		while read -r f; do
			cp "$f" "$1/small/$(echo "$f" | md5sum | cut -c1-12)"
		done
}

build() {
	local i
	log "building the image (one time)"
	cleanup
	rm -f "$IMG"
	truncate -s 2G "$IMG"
	mkfs.btrfs -q "$IMG"
	mount -o loop,compress=zstd:1 "$IMG" "$MNT"
	btrfs -q subvolume create "$MNT/copies"
	home "$MNT/copies/home"
	sync
	cp -r --reflink=always "$MNT/copies/home" "$MNT/copies/copy"
	sync
	btrfs -q subvolume snapshot "$MNT/copies" "$MNT/copies/snap"
	btrfs -q subvolume create "$MNT/snaps"
	cp -r --reflink=always "$MNT/copies/home" "$MNT/snaps/home"
	mkdir "$MNT/snaps/s"
	sync
	for i in 1 2 3 4 5; do
		btrfs -q subvolume snapshot -r "$MNT/snaps" "$MNT/snaps/s/$i"
	done
	btrfs -q subvolume create "$MNT/steps"
	cp -r --reflink=always "$MNT/copies/home" "$MNT/steps/home"
	cp -r --reflink=always "$MNT/steps/home" "$MNT/steps/copy"
	sync
	btrfs -q subvolume snapshot "$MNT/steps" "$MNT/steps/snap"
	text 2097152 7 | dd of="$MNT/steps/copy/mixed.bin" bs=1M seek=5 \
		conv=notrunc status=none
	for i in $(ls "$MNT/steps/copy/small" | head -30); do
		cat /usr/include/stdio.h >>"$MNT/steps/copy/small/$i"
	done
	sync
	build_vm
	umount "$MNT"
}

# build_vm: the vm tree (added to an image built before it)
build_vm() {
	local i
	btrfs -q subvolume create "$MNT/vm"
	mkdir "$MNT/vm/.snapshots"
	cp "$MNT/copies/home/mixed.bin" "$MNT/vm/disk.img"
	sync
	for i in 1 2 3 4; do
		btrfs -q subvolume snapshot -r "$MNT/vm" "$MNT/vm/.snapshots/$i"
		python3 - "$MNT/vm/disk.img" "$i" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[2]))
text = open("/usr/include/stdio.h", "rb").read() * 20
with open(sys.argv[1], "r+b") as f:
    size = f.seek(0, 2)
    for n in [4096] * 96 + [rng.choice((8, 16, 32, 64)) << 10
                            for _ in range(16)]:
        f.seek(rng.randrange((size - n) >> 12) << 12)
        f.write(rng.randbytes(n) if rng.random() < 0.5 else
                text[:n])
PY
		sync
	done
}

[ -s "$IMG" ] || build
mountpoint -q "$MNT" || mount -o loop,compress=zstd:1 "$IMG" "$MNT"
[ -d "$MNT/vm" ] || build_vm

# cell BIN TREE SETTING: seeds held, mean error, rms error, mean half-width
cell() {
	local t
	t=$("$1" -b -e "$3" --format=json "$MNT/$2" | jq '.estimates[0].disk')
	for seed in $(seq 1 "$SEEDS"); do
		"$1" -b -e "$3" --sample="$PCT%" --seed="$seed" --format=json \
			"$MNT/$2" | jq -r '.estimates[0] | "\(.disk) \(.disk_ci95)"'
	done | awk -v t="$t" '
		{ s += $1; ss += ($1 - t) ^ 2; h += $2; n++
		  if ($1 - $2 <= t && t <= $1 + $2) c++ }
		END { printf "%.1f%% | %+.2f%% | %.2f%% | %.2f%%", 100 * c / n,
		      100 * (s / n - t) / t, 100 * sqrt(ss / n) / t,
		      100 * h / n / t }'
}

echo "# --sample's same layout under sharing ($(date -u +%F), $PCT%, $SEEDS seeds)"
echo
echo "| tree | setting | held | mean error | rms error | mean half-width |${BEFORE:+ before: held | mean error | rms error | mean half-width |}"
echo "|---|---|---:|---:|---:|---:|${BEFORE:+---:|---:|---:|---:|}"
for tree in ${TREES:-copies snaps steps vm}; do
	for s in $SETTINGS; do
		line="| $tree | $s | $(cell "$COMPSIZE" "$tree" "$s") |"
		[ -n "${BEFORE:-}" ] && line="$line $(cell "$BEFORE" "$tree" "$s") |"
		echo "$line"
	done
done
