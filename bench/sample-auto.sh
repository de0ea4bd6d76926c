#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --sample=auto against the full estimate (issue #16): for each seed, the
# rounds a run took, its wall-clock time, and whether its interval held
# the full estimate, per setting; with BEFORE=<another compsize> the same
# seeds alternate between the two builds.  Files should be cached (the
# first full estimate reads them).
#
#   bench/sample-auto.sh [COMPSIZE] PATH SETTINGS > result.md
#
# Environment: SEEDS (default 20), PRECISION (a percentage, default the
# program's 2), BEFORE.
set -eu

# shellcheck source=bench/sample-common.sh
. "$(dirname "$0")/sample-common.sh"
sample_setup 20 "$@"
opt=()
[ -z "${PRECISION:-}" ] || opt=(--precision="$PRECISION%")

now() { date +%s.%N; }

# the full estimate's "setting disk" lines
jq -r '.estimates[] | "\(.setting) \(.disk)"' "$work/full.json" >"$work/want"

# one run: appends "rounds seconds held..." to $2
one()
{
	local bin=$1 out=$2 seed=$3 t0 t1 rounds held="" s d ci t

	t0=$(now)
	"$bin" -b -e "$SETTINGS" --sample=auto "${opt[@]}" --seed="$seed" \
		--format=json "$TREE" >"$work/s.json" 2>"$work/s.err"
	t1=$(now)
	rounds=$(grep -o 'round [0-9]*' "$work/s.err" | tail -1 | cut -d' ' -f2)
	while read -r s d ci; do
		t=$(awk -v s="$s" '$1 == s { print $2 }' "$work/want")
		[ "$ci" = null ] && ci=0
		if [ $((d - ci)) -le "$t" ] && [ "$t" -le $((d + ci)) ]; then
			held="$held 1"
		else
			held="$held 0"
		fi
	done < <(jq -r '.estimates[] | "\(.setting) \(.disk) \(.disk_ci95)"' "$work/s.json")
	echo "$rounds $(echo "$t1 - $t0" | bc)$held" >>"$out"
}

for seed in $(seq 1 "$SEEDS"); do
	one "$COMPSIZE" "$work/now" "$seed"
	[ -z "$BEFORE" ] || one "$BEFORE" "$work/before" "$seed"
done

summary()
{
	awk -v name="$1" '
		{ r[$1]++; t += $2; n++
		  for (i = 3; i <= NF; i++) h[i - 2] += $i; k = NF - 2 }
		END {
			printf "| %s | %d |", name, n
			for (x in r) printf " %d: %d,", x, r[x]
			printf " | %.2f s |", t / n
			for (i = 1; i <= k; i++) printf " %d", h[i]
			printf " |\n"
		}' "$2"
}

echo "$TREE, $SETTINGS${PRECISION:+, --precision=$PRECISION%}; held per setting in the order $(cut -d' ' -f1 "$work/want" | tr '\n' ' ')"
echo
echo "| build | seeds | runs by rounds | mean time | held |"
echo "|---|---:|---|---:|---|"
[ -z "$BEFORE" ] || summary "$BEFORE" "$work/before"
summary "$COMPSIZE" "$work/now"
