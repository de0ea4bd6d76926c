#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto sample serial san
# Alone (group serial): it reads changes not yet committed (commit=600):
#   another test's sync would commit them
# A sample drawn through the fast scan's pre-pass is the sample, estimate
# and interval of the walk of every file (--walk), on random trees of
# every kind of file (tree.py: inline, sparse and preallocated files,
# files that outgrew an inline extent, reflinks, hard links, files partly
# overwritten in later transactions, nested subvolumes, snapshots), as
# written back and after the commit, under compress-force= and compress=.
# The fast path leaves out what a file not drawn need not be asked (its
# extents, its directory's walk): what the same layout takes from a
# file's extents whether it is drawn or not (preallocated space, the
# writes of a file written in steps) must not be among it.
. "$(dirname "$0")/../common.sh"

[ -n "$PYTHON" ] || skip "no python3"
tree=$(cd "$(dirname "$0")" && pwd)/tree.py
sel='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95,
	disk_fresh, sample_units_read, sample_units}]'

# check PATH ARGS...: the fast pre-pass's sample against --walk's
check()
{
	local p=$1
	shift
	expect_ours 0 '' -b "$@" --format=json "$p"
	jq -c "$sel" "$OUT/ours.out" >"$OUT/fast"
	expect_ours 0 '' -b "$@" --walk --format=json "$p"
	jq -c "$sel" "$OUT/ours.out" >"$OUT/walked"
	cmp -s "$OUT/fast" "$OUT/walked" ||
		fail "$p $*: the sample differs from --walk's: $(diff "$OUT/fast" "$OUT/walked")"
}

# seed, files, mount options
for run in "1 500 compress-force=zstd:1" "3 800 compress=zstd:1,commit=600"; do
	read -r seed n opts <<<"$run"
	setup_fs "$opts"
	btrfs -q subvolume create top
	"$PYTHON" "$tree" "$PWD/top" "$seed" "$n" >/dev/null ||
		fail "tree.py $seed failed"
	# as written back, not committed (commit=600), then committed
	for state in written committed; do
		if [ $state = written ]; then
			settle
		else
			sync
		fi
		for s in 1 2; do
			check . -e zstd:3 --sample=1% --seed=$s
			check top -e lzo,zstd:1 --sample=5% --seed=$s
		done
	done
	cd /
done
true
