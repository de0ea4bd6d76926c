#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The spread of --estimate's speed figures from run to run (issue #60):
# RUNS runs of [COMPSIZE] -e SETTINGS on PATH, each setting's compress
# and decompress MB/s (one thread's, JSON), their median, min..max and
# (max - min) / median.  Files warm (a first run unseen).  Root not
# needed; -j 1 unless JOBS is set.
#
#   bench/speed-spread.sh [COMPSIZE] PATH [SETTINGS]
#   RUNS=5 (default)
set -e
. "$(dirname "$0")/common.sh"
COMPSIZE=./compsize
if [ $# -ge 2 ] && [ -x "$1" ] && [ ! -d "$1" ]; then
	COMPSIZE=$1
	shift
fi
[ $# -ge 1 ] || { echo "usage: $0 [COMPSIZE] PATH [SETTINGS]" >&2; exit 2; }
TREE=$1
SETTINGS=${2:-zstd:1,zstd:3,lzo,zlib:3}
RUNS=${RUNS:-5}
JOBS=${JOBS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$COMPSIZE" -b -j "$JOBS" -e "$SETTINGS" --format=json "$TREE" >/dev/null 2>&1
echo "$COMPSIZE -j $JOBS -e $SETTINGS $TREE, $RUNS runs (load $(loadavg))"
for r in $(seq "$RUNS"); do
	"$COMPSIZE" -b -j "$JOBS" -e "$SETTINGS" --format=json "$TREE" \
		2>/dev/null | jq -r '.estimates[] |
		"\(.setting) \(.compress_mbps) \(.decompress_mbps)"' \
		>"$work/run$r"
done
echo "| setting | compress MB/s: median, min..max, spread | decompress MB/s: median, min..max, spread |"
echo "|---|---|---|"
for s in $(awk '{ print $1 }' "$work/run1"); do
	line="| $s"
	for col in 2 3; do
		cat "$work"/run* | awk -v s="$s" -v c=$col '$1 == s { print $c }' \
			>"$work/v"
		m=$(median <"$work/v")
		line="$line | $(sort -n "$work/v" | awk -v m="$m" '
			NR == 1 { lo = $1 } { hi = $1 }
			END { printf "%.0f, %.0f..%.0f, %.0f%%", m, lo, hi,
			      (m > 0 ? 100 * (hi - lo) / m : 0) }')"
	done
	echo "$line |"
done
echo "(load after: $(loadavg))"
