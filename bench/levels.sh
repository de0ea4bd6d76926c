#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --levels against the kernel (issue #58): a loop-mounted image with a
# directory per setting (compress= zstd 1, 3, 9, 15, -5, zlib 1, 6, 9;
# compress-force= zstd:9, zlib:6), each MIB MiB of system files' bytes
# (text, then shared libraries) written under it, remounted and synced
# between them, a part of each reflinked and a hole punched in it.  Prints
# the confusion matrix (each setting's extents by the set of levels told),
# how many were told and the sets' mean size, then the time of --levels on
# the whole tree against --estimate of one setting (median of RUNS, warm)
# and both as MB/s of the compressed extents' data.
#
#   sudo bench/levels.sh                 # this build's ./compsize
#   COMPSIZE=/other/build/compsize MIB=2 RUNS=3 sudo bench/levels.sh
set -eu -o pipefail
cd "$(dirname "$0")/.."
. bench/common.sh
COMPSIZE=${COMPSIZE:-$PWD/compsize}
MIB=${MIB:-2}
RUNS=${RUNS:-3}
T=$(mktemp -d /tmp/compsize-bench-levels.XXXXXX)
cleanup() { umount "$T/mnt" 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT

{
	find /usr/share/doc -name copyright -type f | sort | xargs cat |
		head -c $((MIB << 19)) || true
	find /usr/lib/x86_64-linux-gnu -maxdepth 1 -name '*.so*' -type f |
		sort | xargs cat || true
} 2>/dev/null | head -c $((10 * MIB << 20)) >"$T/data"
truncate -s 2G "$T/img"
mkfs.btrfs -q -f "$T/img" >/dev/null
mkdir "$T/mnt"
mount -o loop,compress=zstd:3 "$T/img" "$T/mnt"
CASES="compress=zstd:1 compress=zstd:3 compress=zstd:9 compress=zstd:15
compress=zstd:-5 compress=zlib:1 compress=zlib:6 compress=zlib:9
compress-force=zstd:9 compress-force=zlib:6"
i=0
for opt in $CASES; do
	mount -o "remount,$opt" "$T/mnt"
	d=$T/mnt/${opt//[=:]/_}
	mkdir "$d"
	# the data's i-th part: text for the first settings, libraries after
	dd if="$T/data" of="$d/f" bs=1M skip=$((i * MIB)) count="$MIB" \
		status=none
	dd if="$T/data" of="$d/small" bs=4K skip=$((i * 7)) count=3 status=none
	sync
	cp --reflink=always "$d/f" "$d/copy"
	fallocate --punch-hole -o 300000 -l 200000 "$d/f"
	sync
	i=$((i + 1))
done
mount -o remount,compress=zstd:3 "$T/mnt"

echo "# $(date -u '+%F %H:%M') UTC, $(uname -r), loadavg $(loadavg), $COMPSIZE"
echo "| written with | extents | told | sets (extents) |"
echo "|---|---:|---:|---|"
all=0 told=0 levels=0
for opt in $CASES; do
	d=$T/mnt/${opt//[=:]/_}
	alg=${opt#*=}
	alg=${alg%%:*}
	"$COMPSIZE" --levels --format=json "$d" 2>/dev/null >"$T/out.json"
	read -r a t l m < <(jq -r --arg a "$alg" '[.levels[] | select(.type == $a)] |
		[([.[].extents] | add // 0),
		 ([.[] | select(.set != []) | .extents] | add // 0),
		 ([.[] | .extents * (.set | length)] | add // 0),
		 ([.[] | "\(.levels): \(.extents)"] | join(", "))] | @tsv' \
		"$T/out.json")
	echo "| $opt | $a | $t | $m |"
	all=$((all + a)) told=$((told + t)) levels=$((levels + l))
done
echo "told: $told of $all extents; mean set $(awk -v l=$levels -v t=$told \
	'BEGIN { printf "%.2f", t ? l / t : 0 }') levels"
"$COMPSIZE" --levels "$T/mnt" 2>&1 >/dev/null | sed 's/^/stderr: /'

# the compressed extents' data: what --levels decompresses and compresses
data=$("$COMPSIZE" --format=json "$T/mnt" |
	jq '[.types[] | select(.type == "zstd" or .type == "zlib") |
	     .uncompressed] | add')
time_of()
{
	local r t0
	for r in $(seq "$RUNS"); do
		t0=$(now_us)
		"$@" >/dev/null 2>&1
		echo $(($(now_us) - t0))
	done | median
}
cat "$T/mnt"/*/* >/dev/null
lv=$(RUNS=1 time_of "$COMPSIZE" --levels "$T/mnt")
es=$(time_of "$COMPSIZE" --estimate=zstd:3 --no-sample --no-progress -j 1 "$T/mnt")
awk -v d="$data" -v lv="$lv" -v es="$es" 'BEGIN {
	printf "data of compressed extents: %.1f MB\n", d / 1e6
	printf "--levels: %.2f s, %.2f MB/s\n", lv / 1e6, d / lv
	printf "--estimate=zstd:3 -j 1: %.2f s, %.1f MB/s (of the same data)\n", es / 1e6, d / es
	printf "--levels / --estimate: %.0fx\n", lv / es }'
echo "loadavg after: $(loadavg)"
