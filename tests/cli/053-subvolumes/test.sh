#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick exclusive kernel san
# --subvolumes: a row per subvolume and snapshot of the whole filesystem,
# mounted or not.  Each row's files, Disk, Uncompressed and Referenced are
# compsize 1.5 -x on that subvolume; its exclusive bytes and referenced
# are the kernel's qgroup excl and rfer.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../exclusive.sh"

setup_fs compress-force=zstd:3
text_data 300K >top-file
btrfs -q subvolume create home >/dev/null
mkdir home/dir
text_data 2M >home/text
random_data 512K >home/rand
text_data 900 >home/dir/inline
ln home/text home/dir/text-link
btrfs -q subvolume create home/nested >/dev/null
random_data 256K >home/nested/n
sync
mkdir snaps
btrfs -q subvolume snapshot -r home snaps/one >/dev/null
random_data 128K | dd of=home/text bs=128K seek=2 conv=notrunc status=none
random_data 384K >home/new
sync
btrfs -q subvolume snapshot home snaps/two >/dev/null
rm home/rand
cp --reflink=always snaps/one/rand snaps/two/rand-back
random_data 64K >snaps/two/own
btrfs -q subvolume create lonely >/dev/null
random_data 200K >lonely/data
sync
# mounted elsewhere or not at all: a second mount of one subvolume changes
# nothing, and any path on the filesystem lists all of them
mkdir "$TESTDIR/other"
mount -o subvol=home "$(findmnt -no SOURCE "$MNT")" "$TESTDIR/other"

run_ours sv --subvolumes --format=json "$TESTDIR/other/dir"
mv "$OUT/sv.out" "$OUT/sv.json"
run_ours sv2 --subvolumes --format=json .
mv "$OUT/sv2.out" "$OUT/sv2.json"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/sv.json" "$OUT/sv2.json" || fail "--subvolumes depends on the path given"
CHECKS=$((CHECKS + 1))
[ "$(jq -r '[.subvolumes[].path] | join(" ")' "$OUT/sv.json")" = \
  "/ /home /lonely /home/nested /snaps/one /snaps/two" ] ||
	[ "$(jq '.subvolumes | length' "$OUT/sv.json")" = 6 ] ||
	fail "rows: $(jq -c '[.subvolumes[].path]' "$OUT/sv.json")"
CHECKS=$((CHECKS + 1))
[ "$(jq -r '.subvolumes[] | select(.path == "/snaps/one") | .readonly' "$OUT/sv.json")" = true ] &&
[ "$(jq -r '.subvolumes[] | select(.path == "/snaps/two") | .readonly' "$OUT/sv.json")" = false ] ||
	fail "read-only flags"
# exclusive and qgroup_referenced: the kernel's qgroup excl and rfer
# (quotas enabled and rescanned after ours ran, then disabled)
btrfs quota enable "$MNT"
btrfs quota rescan -w "$MNT" >/dev/null
btrfs qgroup show --raw "$MNT" |
	awk '$1 ~ /^0\// { sub(/^0\//, "", $1); print $1, $2, $3 }' | sort -n >"$OUT/kernel"
btrfs quota disable "$MNT"
jq -r '.subvolumes[] | "\(.id) \(.total.qgroup_referenced) \(.total.exclusive)"' \
	"$OUT/sv.json" | sort -n >"$OUT/ours"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/kernel" "$OUT/ours" ||
	fail "qgroups: kernel (id rfer excl) $(tr '\n' ';' <"$OUT/kernel"), ours $(tr '\n' ';' <"$OUT/ours")"
CHECKS=$((CHECKS + 1))
[ "$(jq '[.subvolumes[].total | select(.exclusive != .exclusive_data + .exclusive_metadata)] | length' \
	"$OUT/sv.json")" = 0 ] || fail "exclusive is not exclusive_data + exclusive_metadata"
mapfile -t paths < <(jq -r '.subvolumes[].path' "$OUT/sv.json")
for p in "${paths[@]}"; do
	CHECKS=$((CHECKS + 1))
	rel=${p#/}
	[ -n "$rel" ] || rel=.
	# the oracle on the subvolume alone
	"$ORACLE" -x -b "$MNT/$rel" >"$OUT/o.out" 2>&1 || true
	want=$(awk '/^Processed/ { f = $2 } $1 == "TOTAL" { print f, $3, $4, $5 }' "$OUT/o.out")
	[ -n "$want" ] || want="0 0 0 0"
	got=$(jq -r --arg p "$p" '.subvolumes[] | select(.path == $p) |
		"\(.files) \(.total.disk) \(.total.uncompressed) \(.total.referenced)"' "$OUT/sv.json")
	[ "$got" = "$want" ] || fail "$p: ours $got, compsize 1.5 -x $want"
done

# --sort=exclusive and --top; the table's columns
run_ours top --subvolumes --sort=exclusive --top=2 --format=json .
mv "$OUT/top.out" "$OUT/top.json"
CHECKS=$((CHECKS + 1))
[ "$(jq -c '[.subvolumes[].total.exclusive]' "$OUT/top.json")" = \
  "$(jq -c '[.subvolumes[].total.exclusive] | sort | reverse | .[:2]' "$OUT/sv.json")" ] ||
	fail "--sort=exclusive --top=2: $(jq -c '[.subvolumes[].total.exclusive]' "$OUT/top.json")"
run_ours t -b --subvolumes .
CHECKS=$((CHECKS + 1))
head -1 "$OUT/t.out" | grep -q '^ID  *Flags  *Files  *Perc  *Disk Usage  *Uncompressed *Referenced  *Exclusive  *Path$' ||
	fail "table header: $(head -1 "$OUT/t.out")"
grep -q '^[0-9]*  *readonly  *[0-9]* .* /snaps/one$' "$OUT/t.out" || fail "table row of /snaps/one"
grep -q '^[0-9]*  *-  *[0-9]* .* /snaps/two$' "$OUT/t.out" || fail "table row of /snaps/two"
run_ours tc --subvolumes --format=csv .
mv "$OUT/tc.out" "$OUT/t.csv"
CHECKS=$((CHECKS + 1))
[ "$(head -1 "$OUT/t.csv" | awk -F, '{ print $(NF - 6), $(NF - 5), $(NF - 4), $(NF - 3), $(NF - 2), $(NF - 1), $NF }')" = \
  "exclusive exclusive_data exclusive_metadata qgroup_referenced id readonly being_deleted" ] &&
[ "$(grep -c '^subvolume,.*,TOTAL,' "$OUT/t.csv")" = 6 ] || fail "CSV: $(head -3 "$OUT/t.csv")"
expect_ours 2 'not with --depth' --subvolumes --depth=1 .
expect_ours 1 '/proc: not on a btrfs filesystem' --subvolumes /proc

# Several snapshots together with --exclusive: the data deleting all of
# them frees, by the definition over the files with data extents
# (FIEMAP: not inline; inline data is metadata)
data_files()
{
	find "$@" -type f -print0 | while IFS= read -r -d '' f; do
		filefrag -v "$f" 2>/dev/null | grep -q 'inline' || printf '%s\0' "$f"
	done
}
run_ours both --exclusive --format=json snaps/one snaps/two
mv "$OUT/both.out" "$OUT/both.json"
mapfile -d '' every < <(data_files "$MNT")
outside=()
for f in "${every[@]}"; do
	[[ $f == "$MNT"/snaps/one/* || $f == "$MNT"/snaps/two/* ]] || outside+=("$f")
done
oracle_types all "${every[@]}"
oracle_types out "${outside[@]}"
want=$(awk 'FILENAME == ARGV[1] { o[$1] = $2; next } $1 == "TOTAL" { print $2 - o[$1] }' \
	"$OUT/out.types" "$OUT/all.types")
CHECKS=$((CHECKS + 1))
[ "$(jq .total.exclusive_data "$OUT/both.json")" = "$want" ] ||
	fail "snaps/one + snaps/two exclusive_data: ours $(jq .total.exclusive_data "$OUT/both.json"), definition $want"

# A real deletion of the snapshot frees its exclusive_data in Data used
# (its tree blocks are metadata: tests 054 and 055)
btrfs -q subvolume create base >/dev/null
random_data 600K >base/a
text_data 1M >base/b
sync
btrfs -q subvolume snapshot base base-snap >/dev/null
random_data 300K | dd of=base/a bs=100K seek=1 conv=notrunc status=none
random_data 500K >base-snap/own
rm base/b
btrfs filesystem sync "$MNT"
data_used()
{
	btrfs filesystem sync "$MNT"
	btrfs filesystem usage -b "$MNT" 2>/dev/null |
		sed -n 's/^Data,[^:]*: *Size:[0-9]*, *Used:\([0-9]*\).*/\1/p'
}
run_ours excl --subvolumes --format=json .
excl=$(jq '.subvolumes[] | select(.path == "/base-snap") | .total.exclusive_data' \
	"$OUT/excl.out")
before=$(data_used)
btrfs -q subvolume delete base-snap >/dev/null
btrfs filesystem sync "$MNT"
btrfs subvolume sync "$MNT" >/dev/null
after=$(data_used)
for i in 1 2 3 4 5; do
	sleep 0.2
	[ "$(data_used)" = "$after" ] && break
	after=$(data_used)
done
CHECKS=$((CHECKS + 1))
if [ -z "$excl" ] || [ "$excl" = null ] || [ "$excl" -le 0 ]; then
	fail "base-snap: no exclusive figure ('$excl')"
elif [ $((before - after)) != "$excl" ]; then
	fail "deleting base-snap freed $((before - after)), --subvolumes said $excl"
fi
