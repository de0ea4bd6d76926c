#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick exclusive san
# The "which snapshot should I delete?" example of README.md and the man
# page, run as written (/mnt replaced by a test filesystem) on the same
# story, smaller: every row against the definition, sorted by exclusive.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../exclusive.sh"

top=$(cd "$(dirname "$0")/../../.." && pwd)
setup_fs compress=zstd:1
snapshot_story

readme_cmd=$(sed -n 's/^    # \(compsize --exclusive .*\)/\1/p' "$top/README.md")
man_cmd=$(sed -n 's/^# \(compsize \\-\\-exclusive .*\)/\1/p' "$top/man/compsize.8" |
	sed 's/\\-/-/g')
CHECKS=$((CHECKS + 1))
[ -n "$readme_cmd" ] && [ "$readme_cmd" = "$man_cmd" ] ||
	fail "README ($readme_cmd) and man page ($man_cmd) examples differ"
read -r -a args <<<"${readme_cmd//\/mnt/$MNT}"
# args: compsize OPTIONS... PATH
path=${args[-1]}
check_rows "${args[@]:1:${#args[@]}-2}" -- "${path#"$MNT"/}"
# as written: a table whose rows are sorted by the Exclusive column
run_ours example -b "${args[@]:1}"
CHECKS=$((CHECKS + 1))
head -1 "$OUT/example.out" | grep -q 'Referenced   Exclusive    Path$' ||
	fail "example header: $(head -1 "$OUT/example.out")"
awk '!NF { exit } NR > 1 { print $5 }' "$OUT/example.out" >"$OUT/excl.col"
[ "$(wc -l <"$OUT/excl.col")" = 4 ] || fail "example: 4 rows expected"
sort -rn "$OUT/excl.col" | cmp -s - "$OUT/excl.col" || fail "example rows not sorted by exclusive"
# the story: tuesday frees most (the VM image), all three more than any one
jq -r '.paths[] | "\(.path) \(.total.exclusive)"' "$OUT/rows.json" >"$OUT/rows.txt"
[ "$(awk 'NR == 2 { print $1 }' "$OUT/rows.txt")" = snapshots/tuesday ] ||
	fail "tuesday should come first: $(cat "$OUT/rows.txt")"
