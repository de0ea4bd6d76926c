#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report kernel errors san
# --compare=OLD.json: two runs on an unchanged filesystem give the same
# JSON bytes and every change 0; after the kernel writes and deletes known
# files, each row's, type's and the total's change is what compsize 1.5
# says those files use (added and removed rows too); --sort=delta's order;
# a name not UTF-8 matched by its bytes (path_bytes); --subvolumes' rows
# (a subvolume grown, a snapshot added); the JSON's schema and filesystems
# (blkid's UUID); CSV read by python's csv; the table's first part still
# compsize 1.5's.  Bad files: missing, a directory, empty, truncated, not
# JSON, not compsize's, another schema, another filesystem, a hostile file
# name: one line, exit 2, no stdout.
. "$(dirname "$0")/../common.sh"

setup_fs compress=zstd
mkdir a b d $'odd\xff\e[1m'
text_data 2M >a/text
text_data 20K >$'odd\xff\e[1m/f'
random_data 300K >b/old
random_data 200K >b/kept
text_data 64K >d/gone
sync

run_ours j1 --format=json --depth=1 .
run_ours j2 --format=json --depth=1 .
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/j1.out" "$OUT/j2.out" || fail "two runs gave other JSON"
cp "$OUT/j1.out" "$TESTDIR/before.json"
jq -e --arg u "$(blkid -s UUID -o value "$TESTDIR/img0")" \
	'.schema == 1 and .filesystems == [$u]' "$OUT/j1.out" >/dev/null ||
	fail "schema or filesystems: $(jq -c '{schema, filesystems}' "$OUT/j1.out")"

# Unchanged: every change 0, every row and type kept.
run_ours same --compare="$TESTDIR/before.json" --format=json --depth=1 .
CHECKS=$((CHECKS + 1))
[ "$(cat "$OUT/same.rc")" = 0 ] || fail "unchanged: exit $(cat "$OUT/same.rc")"
jq -e '[.. | objects | select(has("status"))] as $o |
	($o | length) > 8 and
	($o | all(.status == "kept" and .disk_change == 0 and
		  .uncompressed_change == 0 and .referenced_change == 0 and
		  (.files_change // 0) == 0))' "$OUT/same.out" >/dev/null ||
	fail "unchanged: a change that is not 0"

# What compsize 1.5 says the files to be deleted use, then the changes.
disk15() { "$ORACLE" -b "$@" | awk '$1 == "TOTAL" { print $3 }'; }
old=$(disk15 b/old)
gone=$(disk15 d)
total0=$(disk15 .)
rm b/old
rm -r d
random_data 1M >a/new
mkdir c
text_data 100K >c/added
sync
new=$(disk15 a/new)
added=$(disk15 c)
total1=$(disk15 .)
[ "${VERBOSE:-0}" = 1 ] && echo "old $old gone $gone new $new added $added total $total0 -> $total1" >&2

run_ours after --compare="$TESTDIR/before.json" --format=json --depth=1 .
CHECKS=$((CHECKS + 1))
got=$(jq -r '[.disk_change, .files_change] | @tsv' "$OUT/after.out")
[ "$got" = "$((total1 - total0))	0" ] ||
	fail "total change $got, compsize 1.5: $((total1 - total0)) (files 0)"
[ "$((total1 - total0))" = "$((new + added - old - gone))" ] ||
	fail "compsize 1.5's totals moved by more than the files"
row() { jq -r --arg p "$1" '.paths[] | select(.path == $p) |
	[.status, .disk_change, .files_change] | @tsv' "$OUT/after.out"; }
[ "$(row ./a)" = "kept	$new	1" ] || fail "./a: $(row ./a), want kept $new 1"
[ "$(row ./b)" = "kept	-$old	-1" ] || fail "./b: $(row ./b), want kept -$old -1"
[ "$(row ./c)" = "added	$added	1" ] || fail "./c: $(row ./c), want added $added 1"
[ "$(row ./d)" = "removed	-$gone	-1" ] || fail "./d: $(row ./d), want removed -$gone -1"
# a name that is not UTF-8: matched by its bytes (path_bytes), kept
jq -e '[.paths[] | select(.path_bytes) | [.status, .disk_change]] ==
	[["kept", 0]]' "$OUT/after.out" >/dev/null ||
	fail "the odd name's row: $(jq -c '[.paths[] | select(.path_bytes)]' "$OUT/after.out")"
jq -e '.paths[] | select(.path == "./d") | .total.disk == 0 and
	.types == [{"type":"zstd","disk":0,"uncompressed":0,"referenced":0,
		    "status":"removed","disk_change":(-'"$gone"'),
		    "uncompressed_change":(-65536),
		    "referenced_change":(-65536)}]' "$OUT/after.out" >/dev/null ||
	fail "./d's types: $(jq -c '.paths[] | select(.path == "./d") | .types' "$OUT/after.out")"
# a type's change is its bytes now less then, type by type
jq -e --slurpfile b "$TESTDIR/before.json" '
	($b[0].types | map({(.type): .disk}) | add) as $was |
	all(.types[]; .disk_change == .disk - ($was[.type] // 0))' \
	"$OUT/after.out" >/dev/null || fail "a type's change is not now less then"

# --sort=delta: the largest change of disk usage first, whatever its sign
run_ours delta --compare="$TESTDIR/before.json" --format=json --depth=1 \
	--sort=delta .
CHECKS=$((CHECKS + 1))
jq -e '[.paths[].disk_change | fabs] as $d | $d == ($d | sort | reverse) and
	($d | length) == 6' "$OUT/delta.out" >/dev/null ||
	fail "--sort=delta: $(jq -c '[.paths[] | [.path, .disk_change]]' "$OUT/delta.out")"
run_ours top --compare="$TESTDIR/before.json" --format=json --depth=1 \
	--sort=delta --top=2 .
jq -e --slurpfile d "$OUT/delta.out" '[.paths[].path] == [$d[0].paths[:2][].path]' \
	"$OUT/top.out" >/dev/null || fail "--top=2 with --sort=delta"

# CSV: the same changes, read by python's csv.
run_ours csv --compare="$TESTDIR/before.json" --format=csv --depth=1 .
CHECKS=$((CHECKS + 1))
python3 -c '
import base64, csv, json, sys
sys.path.insert(0, sys.argv[3])
from table_escape import table_escape
rows = list(csv.DictReader(open(sys.argv[1])))
j = json.load(open(sys.argv[2]))
# CSV escapes a name as the table does: from its bytes
for p in j["paths"]:
    p["path"] = table_escape(base64.b64decode(p["path_bytes"]) if "path_bytes" in p
                             else p["path"].encode())
want = {("", "TOTAL"): (j["status"], j["disk_change"], j["files_change"])}
for t in j["types"]:
    want[("", t["type"])] = (t["status"], t["disk_change"], None)
for p in j["paths"]:
    want[(p["path"], "TOTAL")] = (p["status"], p["disk_change"], p["files_change"])
    for t in p["types"]:
        want[(p["path"], t["type"])] = (t["status"], t["disk_change"], None)
got = {}
for r in rows:
    f = r["files_change"]
    got[(r["path"], r["type"])] = (r["status"], int(r["disk_change"]),
                                   int(f) if f else None)
assert got == want, (got, want)
' "$OUT/csv.out" "$OUT/after.out" "$_CLI_DIR" ||
	fail "CSV's changes are not JSON's"

# The table: compsize 1.5's report, then the changes.
run_ours table --compare="$TESTDIR/before.json" .
CHECKS=$((CHECKS + 1))
"$ORACLE" . >"$OUT/oracle.out"
head -n "$(wc -l <"$OUT/oracle.out")" "$OUT/table.out" | cmp -s - "$OUT/oracle.out" ||
	fail "the table does not begin with compsize 1.5's"
grep -q "^Change since .*before.json:$" "$OUT/table.out" || fail "no Change since"
grep -Eq "^TOTAL +kept +[-+]" "$OUT/table.out" || fail "no TOTAL change line"

# --subvolumes: a subvolume's row kept with what was written in it, a
# snapshot taken since added.
btrfs subvolume create sv >/dev/null
text_data 50K >sv/f
sync
run_ours sv1 --subvolumes --format=json .
cp "$OUT/sv1.out" "$TESTDIR/sv.json"
random_data 40K >sv/g
btrfs subvolume snapshot -r sv snap >/dev/null
sync
g=$(disk15 sv/g)
run_ours sv2 --subvolumes --compare="$TESTDIR/sv.json" --format=json .
CHECKS=$((CHECKS + 1))
got=$(jq -r '.subvolumes[] | "\(.path) \(.status) \(.disk_change) \(.files_change)"' \
	"$OUT/sv2.out" | sort | tr '\n' ' ')
[ "$got" = "/ kept 0 0 /snap added $(disk15 snap) 2 /sv kept $g 1 " ] ||
	fail "--subvolumes: $got (sv/g: $g)"

# Refused files: one line naming the file, exit 2, nothing on stdout.
bad()
{
	local file=$1 re=$2
	shift 2
	expect_ours 2 '*' --compare="$file" --format=json "$@" .
	CHECKS=$((CHECKS + 1))
	[ ! -s "$OUT/ours.out" ] || fail "--compare=$file: stdout not empty"
	[ "$(wc -l <"$OUT/ours.err")" = 1 ] && grep -Eq -- "$re" "$OUT/ours.err" ||
		fail "--compare=$file: stderr $(cat -v "$OUT/ours.err"), want /$re/"
}
bad "$TESTDIR/missing.json" "^compsize: $TESTDIR/missing.json: No such file or directory$"
bad "$TESTDIR" "^compsize: $TESTDIR: Is a directory$"
: >"$TESTDIR/empty.json"
bad "$TESTDIR/empty.json" ": empty, not a JSON report$"
head -c 300 "$TESTDIR/before.json" >"$TESTDIR/cut.json"
bad "$TESTDIR/cut.json" "cut.json: byte 300: truncated: "
echo 'Processed 3 files' >"$TESTDIR/text.json"
bad "$TESTDIR/text.json" "text.json: byte 0: expected a value$"
echo '{"files":1}' >"$TESTDIR/other.json"
bad "$TESTDIR/other.json" "other.json: not a compsize JSON report \(no schema\)$"
jq -c '.schema = 2' "$TESTDIR/before.json" >"$TESTDIR/v2.json"
bad "$TESTDIR/v2.json" "v2.json: schema 2; this compsize reads schema 1$"
jq -c 'del(.total.disk)' "$TESTDIR/before.json" >"$TESTDIR/nodisk.json"
bad "$TESTDIR/nodisk.json" 'nodisk.json: "disk": missing$'
hostile=$TESTDIR/$'x\e[31m\n.json'
cp "$TESTDIR/cut.json" "$hostile"
bad "$hostile" "x\\\\x1b\[31m\\\\n\.json: byte 300"
uuid=$(jq -r '.filesystems[0]' "$TESTDIR/before.json")
setup_fs
text_data 10K >f
sync
bad "$TESTDIR/before.json" ": a report of filesystem $uuid; these files are on $(blkid -s UUID -o value "$TESTDIR/img1")$"

expect_ours 2 '*' --sort=delta --depth=1 .
ours_stderr_is "compsize: --sort=delta needs --compare"
expect_ours 2 '*' --compare="$TESTDIR/before.json" -e zstd:1 .
ours_stderr_is "compsize: --compare goes with --format=table, json or csv, without --estimate"
