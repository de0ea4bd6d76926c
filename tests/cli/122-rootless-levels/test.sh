#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Issue #59, what the report without root cannot know (docs/rootless.md),
# against compsize 1.5 as root: data written at another level than the
# one assumed (the setting named on the first line of stderr, the
# difference measured; --assume puts it right), and a bookend, the part
# of an extent no file references any more, which the tree search counts
# and FIEMAP does not show.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../rootless.sh"

setup_fs compress-force=zstd:1
chmod 755 .

# Mixed levels: half written at zstd:1, then mounted zstd:15.  Assumed
# zstd:15 (said), the difference measured; --assume=zstd:1 on the first
# half is right again.
mktree a 3 20
remount_fs compress-force=zstd:15
mktree b 4 20
check_tree a 100 100
stderr_says 'at zstd:15 (the mount option)'
# zstd:15 packs the data written at zstd:1 tighter: ours below root's
CHECKS=$((CHECKS + 1))
od=$(awk '$1 == "zstd" { print $3 }' "$OUT/oracle.out")
wd=$(awk '$1 == "zstd" { print $3 }' "$OUT/ours.out")
echo "written at zstd:1, assumed zstd:15: zstd disk $wd, root's $od" >&2
[ "$wd" -lt "$od" ] || fail "assumed zstd:15: $wd not under root's $od"
check_tree a 1 2 --assume=zstd:1
stderr_says 'at zstd:1 (--assume)'

# A bookend: what no file references any more of an extent, which the tree
# search counts and FIEMAP does not show (docs/rootless.md).  Random data
# is stored raw in 128 KiB extents; rewriting [64K, 192K) leaves half of
# the first two unreferenced: ours is 128 KiB under root's, Referenced equal.
random_data 1M >bookend
sync
random_data 128K | dd of=bookend bs=64K seek=1 conv=notrunc status=none
sync
chmod a+r bookend
run_prog oracle "$ORACLE" -b bookend
COMPSIZE=$NOBODY run_ours ours -b bookend
CHECKS=$((CHECKS + 1))
read -r od ou orf < <(awk '$1 == "TOTAL" { print $3, $4, $5 }' "$OUT/oracle.out")
read -r wd wu wrf < <(awk '$1 == "TOTAL" { print $3, $4, $5 }' "$OUT/ours.out")
[ $((od - wd)) = 131072 ] && [ $((ou - wu)) = 131072 ] && [ "$orf" = "$wrf" ] ||
	fail "bookend: ours $wd/$wu/$wrf, root's $od/$ou/$orf (want 128 KiB less on disk)"
