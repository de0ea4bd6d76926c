#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --sample of a given size against the full estimate, compsize itself
# (issue #16; bench/sample.sh simulates the design instead): on any tree,
# one full estimate under SETTINGS (the truth, and the files cached), then
# for each of PCTS and each seed a sample; per setting and size, how often
# the 95% interval held the full estimate, for the same layout (disk) and
# the fresh copy, the mean half-width and mean |error| (of the full
# estimate), the mean signed error, and the share of the data read.  With
# BEFORE=<another compsize> the same seeds alternate between the two
# builds.
#
#   bench/sample-real.sh [COMPSIZE] PATH SETTINGS > result.md
#
# Environment: SEEDS (default 100), PCTS (default 1,5,20), BEFORE.
set -eu

# shellcheck source=bench/sample-common.sh
. "$(dirname "$0")/sample-common.sh"
sample_setup 100 "$@"
PCTS=${PCTS:-1,5,20}

# one sample: appends one line per setting to $2
# [pct, setting, error, half-width, fresh error, fresh half-width, read]
# (relative to the full estimate)
one()
{
	"$1" -b -e "$SETTINGS" --sample="$3%" --seed="$4" --format=json \
		"$TREE" 2>/dev/null |
	jq -c --arg pct "$3" --slurpfile t "$work/full.json" '
		($t[0].estimates | map({key: .setting, value: .}) |
		 from_entries) as $f |
		.estimates[] | $f[.setting] as $w |
		[($pct | tonumber), .setting,
		 (.disk - $w.disk) / $w.disk, .disk_ci95 / $w.disk,
		 (.disk_fresh - $w.disk_fresh) / $w.disk_fresh,
		 .disk_fresh_ci95 / $w.disk_fresh,
		 .sample_data_read / .sample_data]' >>"$2"
}

for pct in ${PCTS//,/ }; do
	for seed in $(seq 1 "$SEEDS"); do
		one "$COMPSIZE" "$work/now" "$pct" "$seed"
		[ -z "$BEFORE" ] || one "$BEFORE" "$work/before" "$pct" "$seed"
	done
done

summary()
{
	jq -rs --arg name "$1" '
		def pct: . * 10000 | round / 100 | if . == 0 then 0 else . end;
		group_by(.[0], .[1])[] |
		"| \($name) | \(.[0][0])% | \(.[0][1]) | \(length) | " +
		"\(map(select((.[2] | fabs) <= .[3])) | length) | " +
		"\(map(select((.[4] | fabs) <= .[5])) | length) | " +
		"\(map(.[3]) | add / length | pct)% | " +
		"\(map(.[2] | fabs) | add / length | pct)% | " +
		"\(map(.[2]) | add / length | pct)% | " +
		"\(map(.[6]) | add / length | pct)% |"' "$2"
}

echo "$TREE, $SETTINGS, $SEEDS seeds; truth: the full estimate"
echo
echo "| build | sample | setting | runs | held | fresh copy held | mean half-width | mean \|error\| | mean error | data read |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
[ -z "$BEFORE" ] || summary "$BEFORE" "$work/before"
summary "$COMPSIZE" "$work/now"
