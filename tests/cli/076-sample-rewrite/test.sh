#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto slow sample stats san
# --rewrite under --sample: the rewritten files' new extents are estimated
# as a total of their own, with an interval (rewrite_change_ci95), the old
# extents freed exactly.  On a subvolume of system files with a big file
# mixing text and compressed runs, a reflinked copy, hard links and a
# read-only snapshot nested in it (whose files defragment -r does not
# rewrite: they count 0), the full estimate's rewrite_change is the truth:
# over SEEDS seeds at 10% the interval holds it at least MIN_HIT times for
# each setting (with 60 seeds a right 95% interval holds 57 +- 1.7 times;
# 51 or fewer has probability 0.4%), every run says the half-width in
# JSON, CSV and the table's Rewrite cell, and without --sample there is
# none.  The coverage is counted under make check-stats; make check
# draws 4 seeds (pick_seeds, common.sh), and the first the same on
# --walk.
. "$(dirname "$0")/../common.sh"

pick_seeds 60 4
MIN_HIT=${MIN_HIT:-52}
SETTINGS=zstd:3,compress-force=lzo
bin=$COMPSIZE

setup_fs compress=zstd:1 -U 5a3b1e00-0076-4c0f-8e5a-c0ffee000076
btrfs -q subvolume create sv
# 4,000 files of /usr/include and /usr/share/doc in a fixed tree
# (corpus.py), and 800 headers written after the snapshot
mkdir sv/a
python3 "$_CLI_DIR/corpus.py" sv/a 4000 262144 /usr/include /usr/share/doc
# 16 MiB alternating 3 MiB of headers and 1 MiB of compressed files
for i in 0 1 2 3; do
	find /usr/include -type f -name '*.h' 2>/dev/null | sort | xargs cat 2>/dev/null |
		tail -c +$((i * 3145728 + 1)) | head -c 3145728 || true
	find /usr/share/doc -type f -name '*.gz' 2>/dev/null | sort | xargs cat 2>/dev/null |
		tail -c +$((i * 1048576 + 1)) | head -c 1048576 || true
done >sv/mixed.bin
cp -a --reflink=always sv/a/g0 sv/copy
ln sv/mixed.bin sv/mixed.link
sync
btrfs -q subvolume snapshot -r sv sv/snap
# written after the snapshot: its old extents are what the rewrite frees
mkdir sv/new
python3 "$_CLI_DIR/corpus.py" sv/new 800 262144 /usr/include
sync

run_prog full "$bin" -b -e "$SETTINGS" --rewrite --format=json sv
[ "$(cat "$OUT/full.rc")" = 0 ] || fail "full estimate: $(cat "$OUT/full.err")"
CHECKS=$((CHECKS + 1))
jq -e '.estimates | all(has("rewrite_change") and (has("rewrite_change_ci95") | not))' \
	"$OUT/full.out" >/dev/null || fail "full estimate: $(jq -c .estimates "$OUT/full.out")"
declare -A want=() hit=() width=()
while read -r s d; do
	want[$s]=$d
	hit[$s]=0
	width[$s]=0
done < <(jq -r '.estimates[] | "\(.setting) \(.rewrite_change)"' "$OUT/full.out")

for seed in $(seq 1 "$SEEDS"); do
	run_prog s "$bin" -b -e "$SETTINGS" --rewrite --sample=10% --seed="$seed" \
		--format=json sv
	[ "$seed" != 1 ] ||
		walk_twin s -b -e "$SETTINGS" --rewrite --sample=10% --seed="$seed" \
			--format=json sv
	[ "$(cat "$OUT/s.rc")" = 0 ] || fail "seed $seed: exit $(cat "$OUT/s.rc"): $(cat "$OUT/s.err")"
	while read -r s c ci; do
		CHECKS=$((CHECKS + 1))
		[ "$ci" != null ] && [ "$ci" -gt 0 ] ||
			fail "seed $seed: $s: no rewrite_change_ci95 ($ci)"
		t=${want[$s]}
		width[$s]=$((${width[$s]} + ci))
		if [ $((c - ci)) -le "$t" ] && [ "$t" -le $((c + ci)) ]; then
			hit[$s]=$((hit[$s] + 1))
		fi
	done < <(jq -r '.estimates[] | "\(.setting) \(.rewrite_change) \(.rewrite_change_ci95 // "null" | if type == "number" then round else . end)"' "$OUT/s.out")
done
for s in "${!want[@]}"; do
	echo "$s: rewrite_change ${want[$s]}; the 10% interval held it in ${hit[$s]} of $SEEDS, mean half-width $((${width[$s]} / SEEDS)) bytes"
	[ "$COUNT" = 1 ] || continue
	CHECKS=$((CHECKS + 1))
	[ "${hit[$s]}" -ge "$MIN_HIT" ] ||
		fail "$s: the interval held rewrite_change ${hit[$s]} of $SEEDS times, under $MIN_HIT"
done

# the same half-width in CSV and in the table's Rewrite cell
run_prog csv "$bin" -b -e zstd:3 --rewrite --sample=10% --seed=1 --format=csv sv
run_prog js "$bin" -b -e zstd:3 --rewrite --sample=10% --seed=1 --format=json sv
run_prog tab "$bin" -b -e zstd:3 --rewrite --sample=10% --seed=1 sv
ci=$(jq -r '.estimates[0].rewrite_change_ci95 | round' "$OUT/js.out")
ch=$(jq -r '.estimates[0].rewrite_change' "$OUT/js.out")
CHECKS=$((CHECKS + 1))
python3 - "$OUT/csv.out" "$ci" <<'EOF' || fail "CSV: no rewrite_change_ci95 of $ci"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] == "estimate"]
sys.exit(0 if rows and int(rows[0]["rewrite_change_ci95"]) == int(sys.argv[2]) else 1)
EOF
[ "$ch" -gt 0 ] && ch=+$ch
CHECKS=$((CHECKS + 1))
grep -q -- "^compress=zstd:3 .* $ch±$ci " "$OUT/tab.out" ||
	fail "table: no Rewrite cell $ch±$ci: $(grep '^compress=' "$OUT/tab.out")"
