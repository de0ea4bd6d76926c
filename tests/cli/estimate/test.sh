#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto estimate kernel slow san
#
# Kernel oracle for --estimate: build a mixed corpus, copy it onto fresh
# loop-mounted btrfs images with each compress option, measure the real disk
# usage with compsize 1.5 and compare with what
# `compsize --estimate=... --format=json -j 2` predicted.  A second run with
# --sample=30% must hold the kernel's value within its interval.
#
# Usage (as root): bash tests/cli/estimate/test.sh [SETTING...]
# Environment: COMPSIZE (default: ./compsize of this tree, built if
# needed), SANITIZED=1 (four settings by default), JOBS (default 2),
# ESTIMATE (instead of the CLI, a program taking "SETTINGS PATH" and
# printing "name disk uncompressed input files comp-MB/s dec-MB/s" lines,
# such as tests/cli/estimate/est-driver: the estimate module alone; no
# sampled run then), ORACLE (default /usr/sbin/compsize),
# CORPUS_MB (approximate size, default 30), KEEP=1 keeps the corpus.
# Exit status: 0 all targets met, 1 a target missed, 2 setup failure.

set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
ORACLE=${ORACLE:-/usr/sbin/compsize}
CORPUS_MB=${CORPUS_MB:-30}

die()
{
	echo "estimate/test.sh: FATAL: $*" >&2
	exit 2
}

[ "$(id -u)" = 0 ] || die "needs root (loop devices, mount)"
[ -x "$ORACLE" ] || die "oracle $ORACLE (compsize 1.5) is not installed"
for tool in mkfs.btrfs mount umount truncate gzip xz; do
	command -v "$tool" >/dev/null || die "$tool is not installed"
done

JOBS=${JOBS:-2}
if [ -z "${ESTIMATE:-}" ]; then
	if [ -z "${COMPSIZE:-}" ]; then
		make -s -C "$root" compsize >&2 || die "cannot build compsize"
		COMPSIZE=$root/compsize
	fi
	[ -x "$COMPSIZE" ] || die "$COMPSIZE is not executable"
	command -v jq >/dev/null || die "jq is not installed"
fi

tmp=$(mktemp -d "${CLI_TMPROOT:-/tmp}/compsize-est.XXXXXX") || die "mktemp failed"
mnt=$tmp/mnt

cleanup()
{
	if mountpoint -q "$mnt" 2>/dev/null; then
		umount "$mnt" 2>/dev/null || umount -l "$mnt"
	fi
	if [ "${KEEP:-0}" = 1 ]; then
		echo "kept $tmp" >&2
	else
		rm -rf --one-file-system "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# ---- corpus (on the host filesystem, so cp cannot reflink) ----
c=$tmp/corpus
mkdir -p "$c"/text "$c"/bin "$c"/random "$c"/packed "$c"/half "$c"/sparse \
	"$c"/tiny "$mnt" || die "mkdir failed"
budget=$((CORPUS_MB * 1024 * 1024))

# Copy files from a tree until about $3 bytes are taken.
take()
{
	local src=$1 dst=$2 limit=$3 sum=0 f sz
	while IFS= read -r -d '' f; do
		sz=$(stat -c %s "$f")
		[ "$sz" -gt 0 ] || continue
		cp -- "$f" "$dst/$(echo "$f" | tr / _)" 2>/dev/null || continue
		sum=$((sum + sz))
		[ $sum -lt "$limit" ] || break
	done < <(find "$src" -type f -size -8M -print0 2>/dev/null | sort -z)
}

take /usr/share/doc "$c/text" $((budget * 15 / 100))
take /usr/include "$c/text" $((budget * 15 / 100))
take /usr/bin "$c/bin" $((budget * 25 / 100))
head -c $((budget * 10 / 100)) /dev/urandom >"$c/random/big" || die "urandom"
for n in 1 5 77 4095 4096 4097 65536 131071 131073 600000; do
	head -c $n /dev/urandom >"$c/random/r$n"
done
cat "$c"/text/* 2>/dev/null | head -c $((budget * 5 / 100)) |
	gzip -6 >"$c/packed/t.gz"
cat "$c"/bin/* 2>/dev/null | head -c $((budget * 5 / 100)) |
	xz -1 -T1 >"$c/packed/b.xz"
# Compressible then random: the failure rule and NOCOMPRESS at work.
i=0
for half in 65536 131072 262144 524288 1048576 3000000; do
	i=$((i + 1))
	{ cat "$c"/text/* | head -c $half; head -c $half /dev/urandom; } \
		>"$c/half/h$i"
	{ head -c $half /dev/urandom; cat "$c"/text/* | head -c $half; } \
		>"$c/half/rh$i"
done
# 128K text, 128K random, 256K text: one 512K async chunk.
{ cat "$c"/text/* | head -c 131072; head -c 131072 /dev/urandom
  cat "$c"/bin/* | head -c 262144; } >"$c/half/chunk-tail"
# Sparse: data runs at odd places, a hole at the end.
truncate -s 40M "$c/sparse/s1"
cat "$c"/text/* | head -c 300000 | dd of="$c/sparse/s1" bs=4096 seek=1000 \
	conv=notrunc status=none
cat "$c"/bin/* | head -c 1000000 | dd of="$c/sparse/s1" bs=4096 seek=5000 \
	conv=notrunc status=none
head -c 5000 /dev/urandom | dd of="$c/sparse/s1" bs=4096 seek=9000 \
	conv=notrunc status=none
# ~1000 tiny files: inline or not, text or random, 1 byte to 2 sectors.
sizes=(1 2 15 16 17 100 500 1000 1500 2000 2047 2048 2049 3000 4000 4095 \
	4096 4097 6000 8192)
cat "$c"/text/* | head -c 4000000 >"$tmp/pool"
n=0
for ((k = 0; k < 50; k++)); do
	for sz in "${sizes[@]}"; do
		if [ $((n % 5)) = 4 ]; then
			head -c "$sz" /dev/urandom >"$c/tiny/f$n"
		else
			tail -c +$((n * 3001 + 1)) "$tmp/pool" | head -c "$sz" \
				>"$c/tiny/f$n"
		fi
		n=$((n + 1))
	done
done
: >"$c/tiny/empty"
rm -f "$tmp/pool"
sync
corpus_bytes=$(du -sb --apparent-size "$c" | cut -f1)
echo "corpus: $(find "$c" -type f | wc -l) files, $corpus_bytes bytes"

# ---- settings and targets (percent) ----
# With no argument, fourteen settings; in a build with sanitizers
# (SANITIZED=1), which checks memory more than figures, four of them:
# each codec and both modes.
if [ $# -gt 0 ]; then
	settings=("$@")
elif [ "${SANITIZED:-0}" = 1 ]; then
	settings=(compress=zstd:3 compress-force=zstd:-5 compress=lzo
		compress-force=zlib:9)
else
	settings=()
	for opt in compress compress-force; do
		for alg in zstd:1 zstd:3 zstd:15 zstd:-5 lzo zlib:3 zlib:9; do
			settings+=("$opt=$alg")
		done
	done
fi
target()
{
	case $1 in
	compress=*) echo 1.0 ;;
	*zlib*) echo 1.0 ;;
	*) echo 0.5 ;;
	esac
}

# predict OUT [OPTION...]: one line a setting in OUT: name disk uncompressed
# input ci95 comp-MB/s dec-MB/s (ci95 0 unless sampled).
predict()
{
	local out=$1
	shift
	if [ -n "${ESTIMATE:-}" ]; then
		"$ESTIMATE" "$list" "$c" | awk '{ $5 = 0; print }' >"$out"
		return
	fi
	"$COMPSIZE" --estimate="$list" --format=json -j "$JOBS" "$@" "$c" \
		>"$tmp/est.json" 2>"$tmp/est.err" ||
		{ cat "$tmp/est.err" >&2; return 1; }
	[ -s "$tmp/est.err" ] && { cat "$tmp/est.err" >&2; return 1; }
	jq -r '.estimates[] | [.setting, .disk, .uncompressed, .input,
		(.disk_ci95 // 0), .compress_mbps, .decompress_mbps] | @tsv' \
		"$tmp/est.json" >"$out"
}

list=$(IFS=,; echo "${settings[*]}")
t0=$(date +%s.%N)
predict "$tmp/predicted" || die "estimator failed"
t1=$(date +%s.%N)
echo "estimate of ${#settings[@]} settings (-j $JOBS): $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
sampled=0
if [ -z "${ESTIMATE:-}" ]; then
	t0=$(date +%s.%N)
	predict "$tmp/sampled" --sample=30% || die "sampled estimate failed"
	t1=$(date +%s.%N)
	echo "estimate of a 30% sample: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	sampled=1
fi

failed=0
printf '%-26s %12s %12s %8s %6s %9s %9s %s\n' setting predicted kernel \
	error target comp-MB/s dec-MB/s result
[ "$sampled" = 1 ] && : >"$tmp/sampled.report"
for s in "${settings[@]}"; do
	img=$tmp/img
	rm -f "$img"
	truncate -s 1G "$img" || die "truncate failed"
	mkfs.btrfs -q -f "$img" >"$tmp/mkfs.log" 2>&1 ||
		{ cat "$tmp/mkfs.log" >&2; die "mkfs.btrfs failed"; }
	mount -o "loop,$s" "$img" "$mnt" 2>"$tmp/mount.log" ||
		{ cat "$tmp/mount.log" >&2; die "mount -o $s failed"; }
	cp -a "$c" "$mnt/" || die "cp failed"
	sync
	actual=$("$ORACLE" -b "$mnt/corpus" | awk '$1 == "TOTAL" { print $3 }')
	umount "$mnt" || die "umount failed"
	rm -f "$img"
	# the estimator prints the canonical name; match on it
	canon=$s
	case $canon in
	*=zstd) canon=$canon:3 ;; *=zlib) canon=$canon:3 ;;
	esac
	read -r _ pred _ _ _ cmbps dmbps < <(awk -v s="$canon" '$1 == s' \
		"$tmp/predicted")
	[ -n "${pred:-}" ] && [ -n "$actual" ] ||
		die "no numbers for $s (predicted '${pred:-}', kernel '$actual')"
	tgt=$(target "$s")
	err=$(awk -v p="$pred" -v a="$actual" 'BEGIN { printf "%.4f", (p - a) * 100 / a }')
	ok=$(awk -v e="$err" -v t="$tgt" 'BEGIN { if (e < 0) e = -e; print (e <= t) ? 1 : 0 }')
	res=ok
	[ "$ok" = 1 ] || { res=MISS; failed=1; }
	printf '%-26s %12s %12s %7.3f%% %5s%% %9s %9s %s\n' "$s" "$pred" \
		"$actual" "$err" "$tgt" "$cmbps" "$dmbps" "$res"
	[ "$sampled" = 1 ] || continue
	# The interval is for the sampling error alone; the model's own error
	# (the target above) comes on top.  This corpus is hard to sample: a
	# few multi-megabyte incompressible files weigh as much as thousands
	# of small ones, and over 100 seeds the plain interval held the full
	# estimate 83-89% of the time, 1.5 times it 94-99%, 2 times 99%.
	# The 14 settings come from one sample and pass or fail together, so
	# allow 2.5 times the interval: this catches a biased estimator (the
	# st_size-scaled one was 65% off), not the last few percent of
	# coverage, which the unit tests check on a controlled population.
	# The plain 95% hits are counted too.
	read -r _ spred _ _ sci _ _ < <(awk -v s="$canon" '$1 == s' \
		"$tmp/sampled")
	awk -v s="$s" -v p="$spred" -v ci="$sci" -v a="$actual" -v t="$tgt" \
		'BEGIN { d = p - a; if (d < 0) d = -d
		in95 = d <= ci + a * t / 100
		ok = d <= 2.5 * ci + a * t / 100
		printf "%-26s %12d %12s +-%10.0f %7.3f%% %s %s\n", s, p, a, ci,
			(p - a) * 100 / a, in95 ? "in-95%" : "out-95%",
			ok ? "ok" : "MISS" }' >>"$tmp/sampled.report"
done
if [ "$sampled" = 1 ]; then
	echo
	echo "--sample=30% (the kernel's value against the reported interval):"
	printf '%-26s %12s %12s %12s %8s\n' setting sampled kernel ci95 error
	cat "$tmp/sampled.report"
	grep -q ' MISS$' "$tmp/sampled.report" && failed=1
	echo "within the 95% interval: $(grep -c ' in-95%' "$tmp/sampled.report") of $(wc -l <"$tmp/sampled.report")"
fi
exit $failed
