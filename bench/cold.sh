#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A full --estimate of files not in the page cache, against reading the
# same files with 16 parallel cats (the device's speed) and against the
# estimate of the same files cached (the codecs' speed on every core).
# Issue #16's target: cold at least 90% of the throughput of the slower
# of the two, i.e. cold time <= max(cats, warm) / 0.9.
#
# Usage: bench/cold.sh [COMPSIZE] > result.md   (root: it drops caches)
# Environment:
#   TREES     cases separated by spaces, each LABEL=DIR[+DIR...] (default:
#             /usr/include and /usr/share/doc on the root filesystem, and
#             a copy of them on a loop-mounted btrfs image without
#             compression)
#   SETTINGS  the --estimate lists, separated by spaces (default
#             "zstd:1 zstd:3 zstd:1,zstd:3,lzo")
#   RUNS      timed runs of each (default 5; the median is reported)
#   BEFORE    another compsize binary to time cold in the same run
# Every run's predicted sizes must equal the first run's (cold and warm
# alike; JSON without the measured speeds).

set -u
export LC_ALL=C
ours=$(realpath "${1:-./compsize}")
SETTINGS=${SETTINGS:-zstd:1 zstd:3 zstd:1,zstd:3,lzo}
RUNS=${RUNS:-5}
BEFORE=${BEFORE:-}
[ "$(id -u)" = 0 ] || { echo "cold.sh: needs root (drop_caches)" >&2; exit 2; }

work=$(mktemp -d /var/tmp/compsize-cold.XXXXXX)
mnt=$work/mnt
cleanup()
{
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${TREES:-}" ]; then
	truncate -s 2G "$work/img"
	mkfs.btrfs -q "$work/img" >/dev/null
	mkdir "$mnt"
	mount -o loop "$work/img" "$mnt"
	cp -a /usr/include "$mnt/include"
	cp -a /usr/share/doc "$mnt/doc"
	sync
	TREES="root-fs:include+doc=/usr/include+/usr/share/doc btrfs:include+doc=$mnt/include+$mnt/doc"
fi

drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
# secs CMD...: wall seconds of CMD, its stdout to $work/out
secs()
{
	local t0 t1
	t0=$(date +%s%N)
	"$@" >"$work/out" 2>/dev/null
	t1=$(date +%s%N)
	echo "scale=3; ($t1 - $t0) / 1000000000" | bc
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cats() { find "$@" -type f -print0 | xargs -0 -P16 -n 64 cat >/dev/null; }
# the estimates' sizes, not the speeds measured
sizes() { jq -c '[.estimates[] | {setting, input, disk, uncompressed, disk_fresh}]' "$1"; }
same()
{
	[ "$(sizes "$work/out")" = "$(sizes "$work/ref")" ] ||
		{ echo "cold.sh: $1: the report differs from the first run" >&2; sizes "$work/ref" >&2; sizes "$work/out" >&2; exit 1; }
}

echo "Cold --estimate, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, kernel $(uname -r), medians of $RUNS"
echo
echo "| tree | settings | 16 cats cold | estimate warm | estimate cold | target (max / 0.9) | cold / bound |${BEFORE:+ before cold |}"
echo "|---|---|---:|---:|---:|---:|---:|${BEFORE:+---:|}"
for t in $TREES; do
	label=${t%%=*}
	IFS=+ read -r -a dirs <<<"${t#*=}"
	files=$(find "${dirs[@]}" -type f | wc -l)
	for s in $SETTINGS; do
		c=() w=() o=() b=()
		drop
		"$ours" -e "$s" --format=json "${dirs[@]}" >"$work/ref" 2>/dev/null
		for ((i = 0; i < RUNS; i++)); do
			drop
			c+=("$(secs cats "${dirs[@]}")")
			# cached: every file read first (the estimate then keeps them)
			cats "${dirs[@]}"
			w+=("$(secs "$ours" -e "$s" --format=json "${dirs[@]}")")
			same "warm $s"
			drop
			o+=("$(secs "$ours" -e "$s" --format=json "${dirs[@]}")")
			same "cold $s"
			if [ -n "$BEFORE" ]; then
				drop
				b+=("$(secs "$BEFORE" -e "$s" --format=json "${dirs[@]}")")
			fi
		done
		cm=$(echo "${c[*]}" | median) wm=$(echo "${w[*]}" | median)
		om=$(echo "${o[*]}" | median)
		bound=$(echo "if ($cm > $wm) $cm else $wm" | bc)
		printf '| %s (%d files) | %s | %s s | %s s | %s s | %s s | %s |%s\n' \
			"$label" "$files" "$s" "$cm" "$wm" "$om" \
			"$(echo "scale=3; $bound / 0.9" | bc)" \
			"$(echo "scale=2; $om / $bound" | bc)" \
			"${BEFORE:+ $(echo "${b[*]}" | median) s |}"
		echo "  $label $s: cats ${c[*]}; warm ${w[*]}; cold ${o[*]}${BEFORE:+; before ${b[*]}}" >&2
	done
done
