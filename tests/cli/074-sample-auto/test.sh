#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --sample=auto and --precision: on a copy of system files, each run stops with every setting's 95%
# half-width within the precision asked (or makes the full estimate, then
# exact), says so in one line on standard error, and over SEEDS seeds its
# interval holds the full estimate at least MIN_HIT times per setting
# (with 40 seeds a right 95% interval holds 38 +- 1.4 times; 33 or fewer
# has probability 0.1%).  The option's misuses are usage errors.
. "$(dirname "$0")/../common.sh"

SEEDS=${SEEDS:-40}
MIN_HIT=${MIN_HIT:-34}
SETTINGS=zstd:1,compress=lzo
PREC=${PREC:-3}

setup_fs compress=zstd:1
# /usr/include and /usr/share/doc: some 200 MB of headers, documents and
# compressed changelogs, enough for a sample to stop short of the whole
mkdir t
cp -a /usr/include t/include
cp -a /usr/share/doc t/doc 2>/dev/null || true
sync

# the usage errors
for bad in "--sample=auto" "--precision=2%" "-e zstd:1 --precision=2% --sample=5%" \
	"-e zstd:1 --precision=0%" "-e zstd:1 --precision=100%" "-e zstd:1 --precision=2"; do
	# shellcheck disable=SC2086
	run_prog bad "$COMPSIZE" $bad t
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$OUT/bad.rc")" = 2 ] && [ "$(wc -l <"$OUT/bad.err")" = 1 ] &&
		grep -q '^compsize: .*\(--sample\|--precision\)' "$OUT/bad.err" ||
		fail "$bad: exit $(cat "$OUT/bad.rc"), not 2 with one line: $(cat "$OUT/bad.err")"
done

run_prog full "$COMPSIZE" -b -e "$SETTINGS" --format=json t
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
	echo "--precision=$PREC%: $s: the interval held the full estimate in ${hit[$s]} of $SEEDS runs ($full full estimates in all)"
	CHECKS=$((CHECKS + 1))
	[ "${hit[$s]}" -ge "$MIN_HIT" ] ||
		fail "$s: coverage ${hit[$s]} of $SEEDS, under $MIN_HIT"
done
echo "stopped at: $(grep -o 'round [0-9]*[:a-z ]*' "$OUT/rounds" | sed 's/ read//' | sort | uniq -c | tr -s ' \n' ' ')"
