#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto report errors estimate
# Issue #59: without root the usage report comes from FIEMAP, the disk
# bytes of compressed extents re-derived from their data.  The oracle is
# compsize 1.5's report as root on the same tree: on plain copies written
# with one setting (compress-force=zstd:3; compress=zlib, lzo by property),
# files, inline extents, Uncompressed and Referenced equal, TOTAL's Disk
# Usage within 1% and each type's within 2% (122: other levels, a
# bookend).  Unreadable files listed, the rest counted; JSON's method;
# --estimate without root compares with this report (issue #60: no 0B
# rows, no false Change for the setting in use); --exclusive still needs
# root.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../rootless.sh"

# compress-force=zstd:3 with reflinks, hard links, prealloc, a sparse file
# and parts of raw extents cloned
setup_fs compress-force=zstd:3
chmod 755 .
mktree t 1 32
cp --reflink=always t/d0/f00 t/d1/reflink
ln t/d2/f02 t/d3/hardlink
fallocate -l 1M t/prealloc
# raw extents side by side on disk, all of them shared: FIEMAP merges
# them in the file, and each clone shows a part of that range
random_data 2M >t/dedup
sync
"$PYTHON" "$_CLI_DIR/clone.py" t/dedup t/dedup-tail $((1 << 20)) $((1 << 20))
"$PYTHON" "$_CLI_DIR/clone.py" t/dedup t/dedup-head 0 $((1 << 20))
"$PYTHON" "$_CLI_DIR/clone.py" t/dedup t/dedup-mid $((768 << 10)) $((512 << 10))
truncate -s 8M t/sparse
text_data 200K | dd of=t/sparse bs=64K seek=50 conv=notrunc status=none
chmod a+r t/*
check_tree t 1 2
stderr_says 'not root: usage from FIEMAP.* at zstd:3 (the mount option)'
COMPSIZE=$NOBODY run_ours json --format=json t
CHECKS=$((CHECKS + 1))
[ "$(jq -r .method "$OUT/json.out")" = fiemap ] || fail "JSON method: $(jq -c .method "$OUT/json.out")"
run_prog rootjson "$COMPSIZE" --format=json t
CHECKS=$((CHECKS + 1))
[ "$(jq -r .method "$OUT/rootjson.out")" = search ] || fail "JSON method as root"

# Rows: each file's (--per-file) as nobody against ours as root, whose
# report is compsize 1.5's: the same rows and Referenced, Disk Usage
# within 1% or 16 bytes (a compressed inline payload); but dedup-mid,
# which references parts of two extents (the whole of each counted as
# root, only those parts without: docs/rootless.md), below
run_prog rootrows "$COMPSIZE" --per-file --format=json t
COMPSIZE=$NOBODY run_ours rows --per-file --format=json t
CHECKS=$((CHECKS + 1))
"$PYTHON" - "$OUT/rootrows.out" "$OUT/rows.out" <<'EOS' || fail "--per-file rows as nobody"
import json, sys
root, ours = (json.load(open(f))["paths"] for f in sys.argv[1:])
assert [r["path"] for r in root] == [r["path"] for r in ours], "rows differ"
for r, o in zip(root, ours):
    rd, od = r["total"]["disk"], o["total"]["disk"]
    assert r["total"]["referenced"] == o["total"]["referenced"], (r, o)
    if r["path"] == "t/dedup-mid":
        assert od == 512 << 10 < rd, (r["path"], rd, od)
        continue
    assert abs(rd - od) <= max(16, rd / 100), (r["path"], rd, od)
EOS

# Unreadable: a private directory and a file only root reads are listed,
# the rest counted (what compsize 1.5 counts of the rest, as root).
mkdir t/private
text_data 300K >t/private/secret
chmod 700 t/private
chmod 600 t/d0/f04
COMPSIZE=$NOBODY expect_ours 1 '*' -b t
ours_stderr_is "$(printf '%s\n' \
	'compsize: t: not root: usage from FIEMAP; the disk bytes of compressed extents re-derived from their data at zstd:3 (the mount option)' \
	'compsize: t/d0/f04: Permission denied' \
	'compsize: t/private: Permission denied')"
mv t/private t/d0/f04 ..
check_tree t 1 2
mv ../private ../f04 t/d0/ 2>/dev/null || true

# --estimate without root: against this report, the same layout unknown
# (a fresh copy's), no row 0B, the setting in use changing little
COMPSIZE=$NOBODY run_ours est -b --depth=1 -e compress-force=zstd:3 --format=json t/d1 t/d2
CHECKS=$((CHECKS + 1))
jq -e '.total.disk > 0 and ([.paths[] | select(.total.disk == 0)] | length == 0)' \
	"$OUT/est.out" >/dev/null || fail "--estimate without root: a 0 row: $(cat "$OUT/est.out")"
CHECKS=$((CHECKS + 1))
jq -e '.estimates[0].current and ((.estimates[0].disk - .total.disk) | fabs) < 0.02 * .total.disk' "$OUT/est.out" >/dev/null ||
	fail "--estimate without root: Change of the setting in use: $(jq -c '[.total.disk, .estimates[0]]' "$OUT/est.out")"

# what needs the extents' items or the whole filesystem's metadata
COMPSIZE=$NOBODY expect_ours 1 '--exclusive: reading btrfs metadata needs root \(CAP_SYS_ADMIN\)' --exclusive t
COMPSIZE=$NOBODY expect_ours 1 '--subvolumes: reading btrfs metadata needs root \(CAP_SYS_ADMIN\)' --subvolumes t
for opt in --find=size\>0 --waste --histogram --levels; do
	COMPSIZE=$NOBODY expect_ours 1 "${opt%%=*}: reading btrfs metadata needs root \\(CAP_SYS_ADMIN\\)" "$opt" t
done

# compress=zlib, and a directory whose property says lzo (its files
# inherit it): each file's codec from its property, else the mount's;
# a subvolume and its snapshot
setup_fs compress=zlib
chmod 755 .
mkdir l
btrfs property set l compression lzo
mktree z 2 24
mktree l 5 24
# a subvolume and its snapshot: each its own st_dev, the extents shared
btrfs subvolume create sv >/dev/null
mktree sv/t 6 12
btrfs subvolume snapshot -r sv snap >/dev/null
check_tree . 1 2
stderr_says 'at zlib:3 (the mount option)'
