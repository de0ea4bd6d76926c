#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick estimate san
# --estimate answers the decision (issue #15): the setting mounted now is
# marked, each setting's all-core speeds and CPU cost per GB are given,
# --device-speed adds the file data each setting moves through such a
# device (the device on the stored bytes or the CPUs, whichever is
# slower), rows carry each setting's prediction in the table, and --plot
# writes an SVG that a real renderer draws.
. "$(dirname "$0")/../common.sh"

setup_fs compress=zstd:1
mkdir -p d/text d/rand
text_data 2M >d/text/a
text_data 300K >d/text/b
random_data 1M >d/rand/r

# The current setting, in JSON, CSV and the table.
expect_ours 0 '' -b -e zstd:3,zstd:1,lzo --format=json d
jq -e '[.estimates[].current] == [false, true, false]' "$OUT/ours.out" \
	>/dev/null || fail "current setting: $(jq -c '[.estimates[] | [.setting, .current]]' "$OUT/ours.out")"
cpus=$(nproc)
jq -e --argjson n "$cpus" '.estimates | all(.cpus == $n and
	(.compress_mbps_all - .compress_mbps * $n | fabs) < 0.5 and
	(.cpu_s_per_gb_write * .compress_mbps / 1000 - 1 | fabs) < 0.01 and
	(has("write_mbps") | not))' "$OUT/ours.out" >/dev/null ||
	fail "all-core figures: $(jq -c .estimates "$OUT/ours.out")"
expect_ours 0 '' -e zstd:3,zstd:1 d
grep -Eq '^compress=zstd:1\* ' "$OUT/ours.out" ||
	fail "table: compress=zstd:1 not marked: $(cat "$OUT/ours.out")"
grep -q '^\* the setting the filesystem is mounted with now$' "$OUT/ours.out" ||
	fail "table: no legend for the mark"
grep -Eq "^Setting +Compress x$cpus +Decompress x$cpus +CPU write +CPU read *$" \
	"$OUT/ours.out" || fail "table: no decision table: $(cat "$OUT/ours.out")"

# --device-speed: min(device * uncompressed / disk, all-core speed).
expect_ours 0 '' -b -e zstd:1,lzo --device-speed=50,4000 --format=json d
jq -e '.estimates | all(
	(.write_mbps - ([50 * .uncompressed / .disk, .compress_mbps_all] | min) | fabs) < 0.1 and
	(.read_mbps - ([4000 * .uncompressed / .disk, .decompress_mbps_all] | min) | fabs) < 0.1)' \
	"$OUT/ours.out" >/dev/null ||
	fail "device speed: $(jq -c .estimates "$OUT/ours.out")"
expect_ours 0 '' -e zstd:1 --device-speed=100 d
grep -Eq '^compress=zstd:1 .* [0-9]+MB/s (dev|cpu) +[0-9]+MB/s (dev|cpu) *$' \
	"$OUT/ours.out" || fail "table: no device columns: $(cat "$OUT/ours.out")"
expect_ours 0 '' -e zstd:1 --device-speed=100 --format=csv d
python3 - "$OUT/ours.out" <<'PY' || fail "CSV decision columns"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
assert all(len(r) == len(h) for r in rows), "ragged CSV"
e = [dict(zip(h, r)) for r in rows[1:] if r[0] == "estimate"][0]
assert e["current"] == "1" and float(e["write_mbps"]) > 0, e
PY
for bad in 0 -1 abc 100, ,100 1,2,3; do
	expect_ours 2 "invalid --device-speed '$bad'" -e zstd:1 --device-speed="$bad" d
done
expect_ours 2 'need --estimate' --device-speed=100 d
expect_ours 2 'need --estimate' --plot=x.svg d

# Rows: each setting's prediction in the table, the JSON's numbers.
expect_ours 0 '' -b -e zstd:1,compress-force=lzo --depth=1 d
grep -Eq '^Perc +Disk Usage +Uncompressed +Referenced +zstd:1 +force=lzo +Path$' \
	"$OUT/ours.out" || fail "rows table header: $(head -1 "$OUT/ours.out")"
table=$(awk '$NF == "d/rand" { print $5, $6 }' "$OUT/ours.out")
expect_ours 0 '' -b -e zstd:1,compress-force=lzo --depth=1 --format=json d
json=$(jq -r '.paths[] | select(.path == "d/rand") |
	"\(.estimates[0].disk) \(.estimates[1].disk)"' "$OUT/ours.out")
[ "$table" = "$json" ] || fail "row d/rand: table '$table', JSON '$json'"

# --plot: valid SVG, drawn by a real renderer.
expect_ours 0 '' -e zstd:1,zstd:3,lzo --depth=1 --plot="$TESTDIR/p.svg" d
CHECKS=$((CHECKS + 1))
if ! command -v xmllint >/dev/null || ! command -v rsvg-convert >/dev/null; then
	fail "xmllint or rsvg-convert missing: make deps (libxml2-utils, librsvg2-bin)"
else
	xmllint --noout "$TESTDIR/p.svg" || fail "--plot: not well-formed XML"
	rsvg-convert "$TESTDIR/p.svg" -o "$TESTDIR/p.png" ||
		fail "--plot: rsvg-convert cannot draw it"
	[ -s "$TESTDIR/p.png" ] || fail "--plot: empty PNG"
	# one series per row and the total: 4 legend entries, 3 settings
	[ "$(grep -c 'class="pt"' "$TESTDIR/p.svg")" = $(( (1 + 3) * 3 * 2 )) ] ||
		fail "--plot: $(grep -c 'class="pt"' "$TESTDIR/p.svg") points"
	[ "$(grep -c 'class="key"' "$TESTDIR/p.svg")" = 4 ] ||
		fail "--plot: $(grep -c 'class="key"' "$TESTDIR/p.svg") series in the legend"
fi
ls "$TESTDIR"/p.svg.* 2>/dev/null && fail "--plot left a temporary file"
# A directory that can't take the file: a usage error before any work,
# one line naming it, nothing on stdout (issue #60).
expect_ours 2 "^compsize: --plot: $TESTDIR/no/such: No such file or directory\$" \
	-e zstd:1 --plot="$TESTDIR/no/such/p.svg" d
ours_stdout_is ''
tmpfs_at "$TESTDIR/ro"
mount -o remount,ro "$TESTDIR/ro"
expect_ours 2 "^compsize: --plot: $TESTDIR/ro: Read-only file system\$" \
	-e zstd:1 --plot="$TESTDIR/ro/p.svg" d
ours_stdout_is ''
# The temporary file is made with O_EXCL (issue #60): a symlink planted
# at the name compsize 2.0.0 used (FILE.PID.tmp; exec keeps the PID) is
# not followed, its target is left alone, and FILE is the chart.
CHECKS=$((CHECKS + 1))
echo keep >"$TESTDIR/victim"
rm -f "$TESTDIR/p.svg"
bash -c 'ln -s "$1" "$2.$$.tmp" && exec "$3" -e zstd:1 --plot="$2" d' _ \
	"$TESTDIR/victim" "$TESTDIR/p.svg" "$COMPSIZE" >"$OUT/plant.out" 2>&1 ||
	fail "--plot beside a planted symlink: exit $?: $(head -n 3 "$OUT/plant.out")"
[ "$(cat "$TESTDIR/victim")" = keep ] ||
	fail "--plot wrote through a planted symlink: $(head -c 80 "$TESTDIR/victim")"
grep -q '<svg' "$TESTDIR/p.svg" 2>/dev/null || fail "--plot: no SVG beside a planted symlink"
[ "$(stat -c %a "$TESTDIR/p.svg" 2>/dev/null)" = "$(printf '%o' $((0666 & ~$(umask))))" ] ||
	fail "--plot: mode $(stat -c %a "$TESTDIR/p.svg" 2>/dev/null), not 0666 less the umask"

# --rewrite: the change defrag -c would make (its kernel oracle is
# estimate/rewrite.sh); the table's Rewrite column and CSV agree with JSON.
expect_ours 0 '' -b -e zstd:1,compress-force=lzo --rewrite --format=json d
jq -e '.estimates | length == 2 and all(has("rewrite_change"))' \
	"$OUT/ours.out" >/dev/null || fail "--rewrite: $(jq -c .estimates "$OUT/ours.out")"
json=$(jq -r '.estimates[1].rewrite_change' "$OUT/ours.out")
expect_ours 0 '' -b -e zstd:1,compress-force=lzo --rewrite d
grep -Eq '^Setting +Perc +Disk Usage +Change +Fresh copy +Rewrite +Compress' \
	"$OUT/ours.out" || fail "--rewrite: no Rewrite column"
table=$(awk '$1 == "compress-force=lzo" { print $6 }' "$OUT/ours.out")
[ "$table" = "$json" ] || [ "$table" = "+$json" ] ||
	fail "--rewrite: table '$table', JSON '$json'"
expect_ours 0 '' -b -e zstd:1 --rewrite --format=csv d
python3 - "$OUT/ours.out" <<'PY' || fail "--rewrite: CSV column"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
e = [dict(zip(h, r)) for r in rows[1:] if r[0] == "estimate"][0]
int(e["rewrite_change"])
PY
