#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The usage report without root (FIEMAP, docs/rootless.md) against
# --estimate of the one setting the data was written with, both as
# nobody, on a loop-mounted compress-force=zstd:3 image: a tree of system
# files (all of it compressed) and the same tree beside as many bytes of
# random data (stored raw: the rootless report reads none of it, the
# estimate all).  Each report's Disk Usage against compsize 1.5's as root.
# Medians of RUNS warm runs (the data cached); prints markdown.
#
#   bench/rootless.sh [COMPSIZE]      (as root: loop devices, mount)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bin=$(realpath "${1:-./compsize}")
RUNS=${RUNS:-5}
FILES=${FILES:-12000}
ORACLE=${ORACLE:-/usr/sbin/compsize}

work=$(mktemp -d /tmp/compsize-rootless.XXXXXX)
cleanup() { umount "$work/mnt" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
chmod 755 "$work"
cp "$bin" "$(dirname "$bin")/compsize-estimate.so" "$work/"
truncate -s 3G "$work/img"
mkfs.btrfs -q -f "$work/img" >/dev/null
mkdir "$work/mnt"
mount -o loop,compress-force=zstd:3 "$work/img" "$work/mnt"
python3 "$here/../tests/cli/corpus.py" "$work/mnt/text" "$FILES" 4000000 \
	/usr/share /usr/include /usr/lib >/dev/null
mkdir "$work/mnt/mixed"
cp -r "$work/mnt/text" "$work/mnt/mixed/text"
text_bytes=$(du -sb --apparent-size "$work/mnt/text" | cut -f1)
head -c "$text_bytes" /dev/urandom >"$work/mnt/mixed/random"
sync
chmod -R a+rX "$work/mnt"

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$work/compsize" "$@"; }

# time_med ARGS...: the median wall seconds of RUNS runs as nobody
time_med()
{
	local i t0 t1
	# the data cached whole (the estimator keeps a file cached whole)
	find "$work/mnt" -type f -exec cat {} + >/dev/null
	for ((i = 0; i < RUNS; i++)); do
		t0=$(now_us)
		nobody "$@" >/dev/null 2>&1 || true
		t1=$(now_us)
		echo "$(( (t1 - t0) / 1000 ))"
	done | median | awk '{ printf "%.2f", $1 / 1000 }'
}

disk() { awk '$1 == "TOTAL" { print $3 }'; }

# peak RSS (KiB) of a report: as nobody (FIEMAP) or as root (the search)
rss_nobody() { /usr/bin/time -f %M setpriv --reuid=65534 --regid=65534 --clear-groups "$work/compsize" "$@" 2>&1 >/dev/null | tail -n1; }
rss_root() { /usr/bin/time -f %M "$work/compsize" "$@" 2>&1 >/dev/null | tail -n1; }

echo "| tree | data | compressed on disk | rootless report | --estimate=compress-force=zstd:3 | -j1 estimate | rootless / estimate | Disk Usage rootless / root | peak RSS rootless / root (KiB) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for t in text mixed; do
	dir=$work/mnt/$t
	data=$(du -sb --apparent-size "$dir" | cut -f1)
	root_disk=$("$ORACLE" -b "$dir" | disk)
	ours_disk=$(nobody -b "$dir" 2>/dev/null | disk)
	comp=$("$ORACLE" -b "$dir" | awk '$1 == "zstd" { print $3 }')
	r=$(time_med "$dir")
	e=$(time_med -e compress-force=zstd:3 --no-progress "$dir")
	e1=$(time_med -j1 -e compress-force=zstd:3 --no-progress "$dir")
	printf '| %s | %d MB | %d MB | %s s | %s s | %s s | %.2fx | %d / %d (%+.3f%%) | %s / %s |\n' \
		"$t" $((data / 1000000)) $((comp / 1000000)) "$r" "$e" "$e1" \
		"$(echo "$r / $e" | bc -l)" "$ours_disk" "$root_disk" \
		"$(echo "100 * ($ours_disk - $root_disk) / $root_disk" | bc -l)" \
		"$(rss_nobody "$dir")" "$(rss_root "$dir")"
done
echo
echo "loadavg after: $(loadavg); $(nproc) CPUs; $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"
