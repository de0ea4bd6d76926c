#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rows-mem.sh [COMPSIZE]: what a scan holds per file and per extent, and
# its peak RSS extrapolated to 10 and 100 million files (issue #60).
#
# Builds (once, cached in BENCH_DIR) a loop-mounted btrfs with max_inline=0
# whose files each have one extent of their own: a/ with N1 files, b/ with
# N2 - N1 more.  Each case runs on a/ (N1 files) and on a/ b/ (N2), its
# exact peak RSS read by peak-rss.c; the growth between the two over the
# N2 - N1 files is its cost a file (and, here, an extent), which the
# extrapolation adds to the N2 run.  Then the extent set (seen-mem.c) on
# 10,000,000 simulated extents, where a real 10M-extent tree is not built.
# Memory figures: the machine's load does not move them.
#
#   N1, N2      files (default 50000, 200000)
#   BENCH_DIR   cache: the image and helpers (/var/tmp/compsize-rows-bench)
#   SEEN_KEYS   extents for seen-mem (10000000)
# Markdown to stdout, progress to stderr.  Root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
. "$here/common.sh"
COMPSIZE=$(realpath "${1:-$root/compsize}")
N1=${N1:-50000}
N2=${N2:-200000}
SEEN_KEYS=${SEEN_KEYS:-10000000}
BENCH_DIR=${BENCH_DIR:-/var/tmp/compsize-rows-bench}
LAYOUT=1
img=$BENCH_DIR/img
MNT=$BENCH_DIR/mnt
OWN_MNT=0

note() { echo "rows-mem: $*" >&2; }
die() { note "$*"; exit 2; }
cleanup() { cd /; [ "$OWN_MNT" = 0 ] || umount "$MNT" || true; }
trap cleanup EXIT

mkdir -p "$BENCH_DIR/bin"
exec 9>"$BENCH_DIR/lock"
flock -n 9 || die "another bench/rows-mem.sh is using $BENCH_DIR"
cc -O2 -o "$BENCH_DIR/bin/peak-rss" "$here/peak-rss.c"
cc -O2 -o "$BENCH_DIR/bin/qgroup-gen" "$here/qgroup-gen.c"
make -s -C "$root" seen.o >&2
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$root" -o "$BENCH_DIR/bin/seen-mem" \
	"$here/seen-mem.c" "$root/seen.o"

mkdir -p "$MNT"
if [ -f "$img" ]; then
	mount -o loop,max_inline=0 "$img" "$MNT"
	OWN_MNT=1
fi
if [ "$(cat "$MNT/.layout" 2>/dev/null)" != "$LAYOUT $N1 $N2" ]; then
	[ "$OWN_MNT" = 0 ] || umount "$MNT"
	OWN_MNT=0
	note "building $img: $N2 files of one extent each (one time)"
	rm -f "$img"
	truncate -s 8G "$img"
	mkfs.btrfs -q -f "$img" >/dev/null
	mount -o loop,max_inline=0 "$img" "$MNT"
	OWN_MNT=1
	"$BENCH_DIR/bin/qgroup-gen" "$MNT/a" $((N1 / 1000)) 1000 1
	"$BENCH_DIR/bin/qgroup-gen" "$MNT/b" $(((N2 - N1) / 1000)) 1000 2
	echo "$LAYOUT $N1 $N2" >"$MNT/.layout"
	sync
fi

# rss ARGS...: our peak RSS in KiB on ARGS
rss()
{
	"$BENCH_DIR/bin/peak-rss" -o "$BENCH_DIR/rss" "$COMPSIZE" "$@" \
		>/dev/null 2>"$BENCH_DIR/err" || die "compsize $*: $(cat "$BENCH_DIR/err")"
	cat "$BENCH_DIR/rss"
}

cd "$MNT"
echo "## Memory a file and an extent (\`bench/rows-mem.sh\`)"
echo
echo "$N1 and $N2 files of one 4 KiB extent each (max_inline=0), peak RSS"
echo "(\`peak-rss\`); a file's cost is the growth between the two over the"
echo "$((N2 - N1)) files; 10M and 100M: the $N2-file run plus that cost a file."
echo "Load average at the start: $(loadavg)."
echo
echo "| case | peak RSS, $N1 files | $N2 files | bytes a file | 10M files | 100M files |"
echo "|---|---:|---:|---:|---:|---:|"
while IFS='|' read -r name args; do
	note "$name"
	# shellcheck disable=SC2086
	r1=$(rss $args a)
	# shellcheck disable=SC2086
	r2=$(rss $args a b)
	awk -v n="$name" -v r1="$r1" -v r2="$r2" -v n1="$N1" -v n2="$N2" 'BEGIN {
		b = (r2 - r1) * 1024 / (n2 - n1); if (b < 0) b = 0
		printf "| %s | %.1f MiB | %.1f MiB | %.0f | %.0f MiB | %.1f GiB |\n",
			n, r1 / 1024, r2 / 1024, b,
			(r2 * 1024 + b * (1e7 - n2)) / 1048576,
			(r2 * 1024 + b * (1e8 - n2)) / 1073741824 }'
done <<'EOF'
usage report (fast scan)|
usage report, --walk|--walk
--depth=1 --format=json|--depth=1 --format=json
--per-file --format=json (streamed)|--per-file --format=json
--per-file --format=csv (streamed)|--per-file --format=csv
--per-file --format=json --sort=name (kept)|--per-file --format=json --sort=name
--per-file --top=100|--per-file --top=100
--exclusive|--exclusive
--format=ncdu|--format=ncdu
EOF
echo
echo "The extent set alone (\`seen-mem $SEEN_KEYS\`, simulated extents):"
echo
echo "| keys | bytes an extent (\`seen_memory()\`) | peak RSS growth an extent |"
echo "|---|---:|---:|"
for layout in scattered sequential; do
	"$BENCH_DIR/bin/seen-mem" "$SEEN_KEYS" "$layout" |
		awk '{ printf "| %s | %.1f | %.1f |\n", $1, $2, $4 }'
done
echo
echo "Load average at the end: $(loadavg)."
