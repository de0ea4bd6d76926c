#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report kernel san
# --histogram: the extents by type and size class (uncompressed length),
# each extent once, against the filesystem tree dumped by btrfs-progs
# (dump-tree: every EXTENT_DATA item, each disk extent once, every inline
# item) and the per-type totals of compsize 1.5.  Files: one written
# sequentially, 4 KiB direct writes (one extent each), a file overwritten
# in place by random 4 KiB direct writes, zstd-compressed text (extents of
# at most 128 KiB by design), preallocated space, inline data plain and
# compressed, a reflink and a snapshot (their extents once).  JSON read
# with jq, CSV with python's csv, the table's lines; the options it
# refuses.
. "$(dirname "$0")/../common.sh"

setup_fs
random_data 8M >seq
for i in $(seq 0 31); do
	random_data 4K | dd of=scattered bs=4K seek=$((2 * i)) oflag=direct \
		conv=notrunc status=none
done
random_data 1M >overwritten
sync
for off in 3 17 40 41 99 150 200 201 202 255; do
	random_data 4K | dd of=overwritten bs=4K seek=$off oflag=direct \
		conv=notrunc status=none
done
mkdir z
btrfs property set z compression zstd
text_data 1M >z/text
text_data 3000 >z/inline
echo hello >inline
fallocate -l 3M prealloc
cp --reflink=always seq seq-copy
btrfs subvolume snapshot -r . snap >/dev/null
random_data 64K >after-snap
sync

run_ours json --histogram --format=json -b .
run_ours csv --histogram --format=csv .
run_ours table --histogram .
"$ORACLE" -b . >"$OUT/oracle.out"

# The oracle's classes: type, longest length of the class, extents,
# inline extents, disk bytes, uncompressed bytes.
# The top-level tree and the snapshot's (every item again: its extents
# once, its inline extents each time, as the report counts them).
snap=$(btrfs inspect-internal rootid snap)
{ btrfs inspect-internal dump-tree -t 5 "$TESTDIR/img0"
  btrfs inspect-internal dump-tree -t "$snap" "$TESTDIR/img0"; } | python3 -c '
import re, sys
names = {0: "none", 1: "zlib", 2: "lzo", 3: "zstd"}
def cls(ram):
    m = 4096
    while ram > m:
        m *= 2
    return m
seen, h, kind = set(), {}, None
for line in sys.stdin:
    m = re.search(r"generation \d+ type (\d)", line)
    if m:
        kind = int(m.group(1))
        continue
    m = re.search(r"inline extent data size (\d+) ram_bytes (\d+) compression (\d+)", line)
    if m:
        size, ram, comp = map(int, m.groups())
        k = (names.get(comp, "?%d" % comp), cls(ram))
        c = h.setdefault(k, [0, 0, 0, 0])
        c[1] += 1; c[2] += size; c[3] += ram
        continue
    m = re.search(r"prealloc data disk byte (\d+) nr (\d+)", line)
    if m:
        # dump-tree shows no ram_bytes of prealloc: the kernel writes its
        # disk length there (insert_prealloc_file_extent())
        disk, nr = map(int, m.groups())
        if disk not in seen:
            seen.add(disk)
            c = h.setdefault(("prealloc", cls(nr)), [0, 0, 0, 0])
            c[0] += 1; c[2] += nr; c[3] += nr
        continue
    m = re.search(r"extent data disk byte (\d+) nr (\d+)", line)
    if m:
        disk, nr = map(int, m.groups())
        continue
    m = re.search(r"extent data offset \d+ nr \d+ ram (\d+)", line)
    if m:
        ram = int(m.group(1))
        continue
    m = re.search(r"extent compression (\d+)", line)
    if m and disk and disk not in seen:
        seen.add(disk)
        comp = int(m.group(1))
        t = "prealloc" if kind == 2 else names.get(comp, "?%d" % comp)
        c = h.setdefault((t, cls(ram)), [0, 0, 0, 0])
        c[0] += 1; c[2] += nr; c[3] += ram
order = ["none", "zlib", "lzo", "zstd", "prealloc"]
for (t, m), c in sorted(h.items(), key=lambda x: (order.index(x[0][0]), x[0][1])):
    print(t, m, *c)
' >"$OUT/dump.hist"
jq -r '.histogram[] | "\(.type) \(.size_max) \(.extents) \(.inline) \(.disk) \(.uncompressed)"' \
	"$OUT/json.out" >"$OUT/json.hist"
CHECKS=$((CHECKS + 1))
diff -u --label dump-tree --label ours "$OUT/dump.hist" "$OUT/json.hist" ||
	fail "the histogram is not the extents dump-tree lists"
[ "${VERBOSE:-0}" = 1 ] && cat "$OUT/dump.hist"

# What the case is for: 4 KiB extents, compressed ones of 128 KiB, an
# extent of megabytes (one, though reflinked and snapshotted), prealloc,
# inline (in the file and its snapshot), every type.
CHECKS=$((CHECKS + 1))
for want in "^none 4096 [0-9]" "^none 8388608 1 " "^zstd 131072 8 0 " \
	"^zstd 4096 0 2 " "^none 4096 [0-9]+ 2 " "^prealloc 4194304 1 0 "; do
	grep -Eq "$want" "$OUT/dump.hist" || fail "the case has no class /$want/"
done
n=$(awk '$1 == "none" && $2 == 4096 { print $3 }' "$OUT/dump.hist")
[ "${n:-0}" -ge 42 ] || fail "only ${n:-0} extents of 4 KiB, expected 32 + 10"
jq -e '[.histogram[] | select(.type != "none" and .type != "prealloc") |
	select(.size_max > 131072)] == []' "$OUT/json.out" >/dev/null ||
	fail "a compressed extent over 128 KiB"

# Each type's classes add up to compsize 1.5's row of that type.
CHECKS=$((CHECKS + 1))
awk 'NR > 2 && $1 != "TOTAL" { print $1, $3, $4 }' "$OUT/oracle.out" |
	sort >"$OUT/oracle.types"
jq -r '[.histogram[] | {type, disk, uncompressed}] | group_by(.type)[] |
	"\(.[0].type) \(map(.disk) | add) \(map(.uncompressed) | add)"' \
	"$OUT/json.out" | sort >"$OUT/json.types"
diff -u --label "compsize 1.5" --label "histogram sums" \
	"$OUT/oracle.types" "$OUT/json.types" ||
	fail "the histogram's sums are not compsize 1.5's types"

# CSV: the same classes, the report's columns and size_max at the end.
CHECKS=$((CHECKS + 1))
python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert list(rows[0])[-1] == "size_max", list(rows[0])
for r in rows:
    if r["kind"] == "histogram":
        print(r["type"], r["size_max"], r["extents"], r["inline"], r["disk"], r["uncompressed"])
' "$OUT/csv.out" >"$OUT/csv.hist" || fail "CSV not read"
diff -u --label json --label csv "$OUT/json.hist" "$OUT/csv.hist" ||
	fail "CSV's histogram is not JSON's"

# The table: a line per class after compsize 1.5's table, and the note.
CHECKS=$((CHECKS + 1))
head -n "$(wc -l <"$OUT/oracle.out")" "$OUT/table.out" >"$OUT/table.head"
"$ORACLE" . >"$OUT/oracle15.out"
cmp -s "$OUT/oracle15.out" "$OUT/table.head" ||
	fail "the table does not begin with compsize 1.5's"
[ "$(grep -c '^Extent sizes' "$OUT/table.out")" = 1 ] || fail "no Extent sizes"
n=$(sed -n '/^Extent sizes/,$p' "$OUT/table.out" | grep -Ec '^(none|zstd|prealloc) ')
[ "$n" = "$(wc -l <"$OUT/dump.hist")" ] || fail "table: $n class lines"
grep -q '^zstd .* 128K ' "$OUT/table.out" || fail "table: no zstd 128K line"
grep -q 'at most 128K of data by design' "$OUT/table.out" ||
	fail "table: no note on compressed extents"

# Without --histogram nothing changes: no member, no column.
run_ours plain --format=json .
CHECKS=$((CHECKS + 1))
jq -e 'has("histogram") | not' "$OUT/plain.out" >/dev/null ||
	fail "a histogram without --histogram"

expect_ours 2 '*' --histogram --format=prometheus .
ours_stderr_is "compsize: --histogram goes with --format=table, json or csv"
expect_ours 2 '*' --histogram --format=ncdu .
ours_stderr_is "compsize: --histogram goes with --format=table, json or csv"
