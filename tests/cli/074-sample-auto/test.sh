#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto slow sample stats san
# --sample=auto and --precision: on a copy of system files, each run
# stops with every setting's 95% half-width within the precision asked
# (or makes the full estimate, then exact), says so in one line on
# standard error, and over SEEDS seeds its interval holds the full
# estimate at least MIN_HIT times per setting (with 40 seeds a right 95%
# interval holds 38 +- 1.4 times; 32 or fewer has probability 0.07%),
# counted under make check-stats; make check draws 5 seeds with every
# other check (pick_seeds, common.sh), the first also on --walk.  The
# option's misuses are usage errors.  Without any sample option, an
# estimate foretold to take more than a minute (one thread, fourteen
# settings: well over a minute for 300 MiB) samples instead and
# says so; a short one does not.
. "$(dirname "$0")/../common.sh"

MIN_HIT=${MIN_HIT:-33}
pick_seeds 40 5
SETTINGS=zstd:1,compress=lzo
PREC=${PREC:-3}

setup_fs compress=zstd:1 -U 5a3b1e00-0074-4c0f-8e5a-c0ffee000074
# 6,000 files of /usr/include and /usr/share/doc (corpus.py: 60-70 MB of
# headers, documents and compressed changelogs in a fixed tree), enough
# for a sample to stop short of the whole
mkdir t
python3 "$_CLI_DIR/corpus.py" t 6000 262144 /usr/include /usr/share/doc
# x: 300 files of 1 MiB of random bytes (a seeded generator) beside a
# reflinked copy of t, whose full estimate under many slow settings on
# one thread is foretold at over a minute (run.c's cost per GB of each
# setting, whatever the data) while the scan of its many files is under
# way; the compress= settings' heuristic passes over random bytes
# quickly, so that sampling them is cheap (under the sanitizers too)
mkdir -p x/big
cp -r --reflink=always t x/t
python3 - <<'PY'
import random
rng = random.Random(74)
for n in range(300):
    with open("x/big/f%03d.bin" % n, "wb") as f:
        f.write(rng.randbytes(1 << 20))
PY
sync

# the usage errors
for bad in "--sample=auto" "--precision=2%" "-e zstd:1 --precision=2% --sample=5%" \
	"-e zstd:1 --precision=0%" "-e zstd:1 --precision=100%" "-e zstd:1 --precision=2" \
	"--no-sample" "-e zstd:1 --no-sample --sample=5%" "-e zstd:1 --no-sample --precision=5%"; do
	# shellcheck disable=SC2086
	run_ours bad $bad t
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$OUT/bad.rc")" = 2 ] && [ "$(wc -l <"$OUT/bad.err")" = 1 ] &&
		grep -q '^compsize: .*\(--sample\|--precision\|--no-sample\)' "$OUT/bad.err" ||
		fail "$bad: exit $(cat "$OUT/bad.rc"), not 2 with one line: $(cat "$OUT/bad.err")"
done

run_ours full -b -e "$SETTINGS" --format=json t
[ "$(cat "$OUT/full.rc")" = 0 ] || fail "full estimate: $(cat "$OUT/full.err")"
declare -A want=() hit=()
while read -r s d; do
	want[$s]=$d
	hit[$s]=0
done < <(jq -r '.estimates[] | "\(.setting) \(.disk)"' "$OUT/full.out")

full=0
for seed in $(seq 1 "$SEEDS"); do
	# --precision alone implies --sample=auto
	if [ $((seed % 2)) = 0 ]; then
		opt=(--sample=auto --precision=$PREC%)
	else
		opt=(--precision=$PREC%)
	fi
	run_prog s "$COMPSIZE" -b -e "$SETTINGS" "${opt[@]}" --seed="$seed" \
		--format=json t
	[ "$seed" != 1 ] ||
		walk_twin s -b -e "$SETTINGS" "${opt[@]}" --seed="$seed" \
			--format=json t
	[ "$(cat "$OUT/s.rc")" = 0 ] || fail "seed $seed: exit $(cat "$OUT/s.rc"): $(cat "$OUT/s.err")"
	CHECKS=$((CHECKS + 1))
	grep -E "^compsize: --sample=auto: round" "$OUT/s.err" >>"$OUT/rounds"
	grep -Eq "^compsize: --sample=auto: round [0-9]+" "$OUT/s.err" ||
		fail "seed $seed: no line on the rounds: $(cat "$OUT/s.err")"
	while read -r s d ci; do
		t=${want[$s]}
		if [ "$ci" = null ]; then
			# the full estimate: exact
			full=$((full + 1))
			CHECKS=$((CHECKS + 1))
			[ "$d" = "$t" ] || fail "seed $seed $s: full estimate $d, not $t"
			hit[$s]=$((hit[$s] + 1))
			continue
		fi
		CHECKS=$((CHECKS + 1))
		[ $((ci * 100)) -le $((d * PREC)) ] ||
			fail "seed $seed $s: half-width $ci of $d, more than $PREC%"
		if [ $((d - ci)) -le "$t" ] && [ "$t" -le $((d + ci)) ]; then
			hit[$s]=$((hit[$s] + 1))
		fi
	done < <(jq -r '.estimates[] | "\(.setting) \(.disk) \(.disk_ci95)"' "$OUT/s.out")
done
for s in "${!want[@]}"; do
	[ "$COUNT" = 1 ] || break
	echo "--precision=$PREC%: $s: the interval held the full estimate in ${hit[$s]} of $SEEDS runs ($full full estimates in all)"
	CHECKS=$((CHECKS + 1))
	[ "${hit[$s]}" -ge "$MIN_HIT" ] ||
		fail "$s: coverage ${hit[$s]} of $SEEDS, under $MIN_HIT"
done
echo "stopped at: $(grep -o 'round [0-9]*[:a-z ]*' "$OUT/rounds" | sed 's/ read//' | sort | uniq -c | tr -s ' \n' ' ')"

# A first round that reads several times 1% (the floors) foretells that 16
# times 1% falls short: the next round asks for more, up to half of the
# data, where that is foretold to do: most runs stop at round 2, and
# some of them read 25% or more there (a round 2 held to 16 times would
# read less and need a third).
if [ "$COUNT" = 1 ]; then
	two=0 big=0
	for seed in 1 2 3 4 5 6 7 8; do
		run_prog p1 "$COMPSIZE" -b -e "$SETTINGS" --precision=1% \
			--seed="$seed" --format=json t
		CHECKS=$((CHECKS + 1))
		[ "$(cat "$OUT/p1.rc")" = 0 ] ||
			fail "--precision=1% seed $seed: exit $(cat "$OUT/p1.rc"): $(cat "$OUT/p1.err")"
		r=$(sed -n 's/^compsize: --sample=auto: round 2 read \([0-9]*\)[.0-9]*% of the data ([0-9.]*% with the rounds before); .*within the 1% asked$/\1/p' \
			"$OUT/p1.err")
		[ -n "$r" ] || continue
		two=$((two + 1))
		[ "$r" -lt 25 ] || big=$((big + 1))
	done
	echo "--precision=1%: $two of 8 runs stopped at round 2, $big of them having read 25% or more"
	CHECKS=$((CHECKS + 1))
	[ "$big" -ge 1 ] || fail "--precision=1%: no run stopped at round 2 having read 25% or more ($two at round 2)"
fi

# the default: sampling where the full estimate would take over a minute
# (some seconds of sampling)
TIMEOUT=300 run_prog big "$COMPSIZE" -b -j1 -e all,zstd:10..14 --format=json x
CHECKS=$((CHECKS + 1))
[ "$(cat "$OUT/big.rc")" = 0 ] &&
	grep -q '^compsize: --estimate: the full estimate of .* would take about [0-9]* minutes here: sampling instead' "$OUT/big.err" &&
	grep -q '^compsize: --sample=auto: round' "$OUT/big.err" &&
	[ "$(jq '[.estimates[] | select(.disk_ci95 != null)] | length' "$OUT/big.out")" = 14 ] ||
	fail "-j1 -e all,zstd:10..14: exit $(cat "$OUT/big.rc"), no sample: $(cat "$OUT/big.err") $(head -c 600 "$OUT/big.out")"
# ... not where it would not, nor with --no-sample
for o in "" --no-sample; do
	run_ours small -b -e zstd:1 $o --format=json t
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$OUT/small.rc")" = 0 ] && [ ! -s "$OUT/small.err" ] &&
		[ "$(jq '.estimates[0].disk_ci95' "$OUT/small.out")" = null ] ||
		fail "-e zstd:1 $o: exit $(cat "$OUT/small.rc"), sampled or said: $(cat "$OUT/small.err")"
done
