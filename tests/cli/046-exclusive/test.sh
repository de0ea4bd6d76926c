#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto exclusive san
# --exclusive: what deleting a set of files would free, against the
# definition computed with compsize 1.5 (tests/cli/exclusive.sh), exactly:
# snapshots between changes, reflinks across subvolumes, partly overwritten
# shared extents, deleted originals, read-only snapshots, nested
# subvolumes, hard links inside and outside the set, prealloc, inline, a
# file deleted while still open.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../exclusive.sh"

setup_fs compress-force=zstd:3
btrfs -q subvolume create sv >/dev/null
mkdir sv/dir sv/other
text_data 3M >sv/text
random_data 1M >sv/rand
text_data 600 >sv/dir/inline
random_data 300 >sv/dir/inline-raw
text_data 1M >sv/dir/file
random_data 512K >sv/dir/gone
fallocate -l 1M sv/dir/prealloc
# hard links: both names in sv/dir; one in sv/dir, one in sv/other
text_data 200K >sv/dir/h1
ln sv/dir/h1 sv/dir/h1b
random_data 64K >sv/dir/h2
ln sv/dir/h2 sv/other/h2
# a reflink inside the set
cp --reflink=always sv/dir/file sv/dir/file-clone
btrfs -q subvolume create sv/nested >/dev/null
text_data 700K >sv/nested/n1
sync
btrfs -q subvolume snapshot sv snap1 >/dev/null
# changes after the snapshot: a part overwritten (bookends), an original
# deleted, new files
random_data 128K | dd of=sv/text bs=128K seek=5 conv=notrunc status=none
rm sv/dir/gone
random_data 256K >sv/dir/new
sync
btrfs -q subvolume snapshot -r sv snap2 >/dev/null
random_data 64K | dd of=sv/rand bs=64K seek=2 conv=notrunc status=none
# reflinks across subvolumes
btrfs -q subvolume create other >/dev/null
cp --reflink=always sv/dir/new other/new
cp --reflink=always snap1/dir/gone other/gone-copy
text_data 100K >other/own
mkdir plain
random_data 96K >plain/file
sync

# each exact method alone (reading the other subvolumes, the kernel's
# backref walk) and the measured mix of both
for s in sv sv/dir sv/other sv/nested sv/dir/h1 sv/dir/h2 snap1 snap2 \
	 other plain . "sv snap1" "snap1 snap2" "sv snap1 snap2" \
	 "sv/dir other" "sv/dir/file sv/dir/file-clone"; do
	# shellcheck disable=SC2086
	check_exclusive_each $s
done
# deleted while open, and committed: an orphan, which no path reaches, so
# its copy's extent is exclusive (each method)
random_data 80K >plain/held
cp --reflink=always plain/held plain/held-copy
exec {held_fd}<plain/held
rm plain/held
sync
check_exclusive_each plain/held-copy
check_exclusive_each plain other
exec {held_fd}<&-
# the walk and the fast scan agree
check_exclusive --walk -- sv
check_exclusive --walk -- sv/dir
check_exclusive --walk -- "sv/dir" "sv/other"
# -x: the nested subvolume stays outside the set
mapfile -d '' outside < <(outside_paths sv)
outside+=("$MNT/sv/nested")
oracle_types all "$MNT"
oracle_types out "${outside[@]}"
want=$(awk 'NR == FNR { o[$1] = $2; next } $1 == "TOTAL" { print $2 - o[$1] }' \
	"$OUT/out.types" "$OUT/all.types")
run_ours x -x --exclusive --format=json sv
got=$(jq .total.exclusive "$OUT/x.out")
[ "$got" = "$want" ] || fail "-x sv: ours $got, definition $want"

# rows: each against the whole filesystem
check_rows --depth=1 -- sv
check_rows --depth=2 -- .
check_rows --per-file -- sv/dir
check_rows --depth=0 -- sv snap1 snap2

# the table, CSV and JSON say the same; the default output is unchanged
run_ours t -b --exclusive sv
run_ours tj --exclusive --format=json sv
mv "$OUT/tj.out" "$OUT/t.json"
run_ours tc --exclusive --format=csv sv
mv "$OUT/tc.out" "$OUT/t.csv"
a=$(awk '$1 == "TOTAL" { print $6 }' "$OUT/t.out")
b=$(jq .total.exclusive "$OUT/t.json")
c=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "exclusive") col = i }
	$1 == "total" && $3 == "TOTAL" { print $col }' "$OUT/t.csv")
[ "$a" = "$b" ] && [ "$b" = "$c" ] || fail "table $a, json $b, csv $c"
head -1 "$OUT/t.out" | grep -q '^Processed' || fail "table header"
grep -q '^Type  *Perc  *Disk Usage  *Uncompressed Referenced   Exclusive$' \
	"$OUT/t.out" || fail "table column header: $(sed -n 2p "$OUT/t.out")"
compare sv
