#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick sample serial
# Alone (group serial): it reads changes not yet committed (commit=600):
#   another test's sync would commit them
# A sample's pre-pass decides which of the files that share an extent, or
# hold the same inline bytes, counts it: the first the walk meets
# (readdir: each directory's entries in DIR_INDEX order, depth first).
# The fast scan streams a committed subvolume whole and learns that order
# from its DIR_INDEX items.  It lists a directory below a subvolume's root,
# and a subvolume with changes not yet committed (any inode update, an
# atime's included, until the next commit), through their names instead,
# where btrfs delays new DIR_INDEX items: the order then comes from the
# INODE_REF items, which a link, an unlink or a rename changes at once.
# Taken as the order listed instead, the pre-pass drew another sample
# than the walk (--walk, which reads every directory): on the bench
# tree with an atime not yet committed, 527 units where the walk and the
# committed tree drew 495.
# Here: directories whose inode order is not the walk's (one made first
# and renamed), inline copies and reflinked copies across them, a hard
# link; the fast scan's sample, estimates and intervals must be the walk's
# on the subvolume and on directories below its root, committed, then
# with changes not yet committed (commit=600 keeps the window open):
# files renamed within and across directories, new copies, a new link.
. "$(dirname "$0")/../common.sh"

treesearch=$(cd "$(dirname "$0")/.." && pwd)/treesearch.py
TRIES=10

setup_fs compress=zstd:1,commit=600
btrfs -q subvolume create sv
# b made before a, renamed after it: the walk meets a first, the inode
# order z (was b) first
mkdir -p sv/top/b sv/top/a
mv sv/top/b sv/top/z
for i in $(seq 1 24); do
	# 1.3-3.7 KiB, inline under zstd:1
	{ text_data $((i * 97 + 1200)); random_data $((i * 41 % 700 + 100)); } \
		>"sv/top/z/s$i"
	text_data $((i * 313 % 9000 + 5000)) >"sv/top/z/t$i"
done
{ text_data 2M; random_data 512K; } >sv/top/z/big
mkdir sv/top/z/deep
text_data 300K >sv/top/z/deep/d
sync
# copies the walk meets before their sources: the same inline bytes, and
# the same extents
for i in $(seq 1 24 | shuf --random-source=<(yes)); do
	cp "sv/top/z/s$i" "sv/top/a/c$i"
done
cp --reflink=always sv/top/z/big sv/top/a/big
cp --reflink=always sv/top/z/deep/d sv/top/a/d
ln sv/top/z/t3 sv/top/a/t3.link
sync

SEL='[.estimates[] | {setting, disk, uncompressed, input, disk_ci95,
	disk_fresh, sample_units_read, sample_units}]'

# same_as_walk WHEN PATH...: for each PATH, a sample's estimates and
# intervals are the walk's, for a few sizes, seeds and settings.  No sync:
# the caller commits or not.
same_as_walk()
{
	local when=$1 p a
	shift
	for p in "$@"; do
		for a in "--sample=10% --seed=1 -e zstd:3" \
			"--sample=20% --seed=3 -e zstd:1,compress-force=zstd:3" \
			"--sample=50% --seed=5 -e lzo"; do
			CHECKS=$((CHECKS + 1))
			# shellcheck disable=SC2086
			if ! "$COMPSIZE" -b $a --format=json "$p" \
				>"$OUT/fast.json" 2>"$OUT/fast.err" ||
				! "$COMPSIZE" -b $a --walk --format=json "$p" \
					>"$OUT/walk.json" 2>"$OUT/walk.err"; then
				fail "$when: $a $p: exit status: $(cat "$OUT/fast.err" "$OUT/walk.err" 2>/dev/null)"
				continue
			fi
			cmp -s <(jq -c "$SEL" "$OUT/fast.json") \
				<(jq -c "$SEL" "$OUT/walk.json") ||
				fail "$when: $a $p: the fast pre-pass's sample differs from the walk's: $(diff <(jq -c "$SEL" "$OUT/fast.json") <(jq -c "$SEL" "$OUT/walk.json"))"
		done
	done
}

same_as_walk committed sv sv/top sv/top/a

# Not yet committed: a rename within a (a new index: the walk meets it
# last), one across directories, a new link and new copies; checked only
# while the tree search still lags readdir (DIR_INDEX items delayed) and
# no commit came before the checks were done.
done_pending=0
for ((try = 1; try <= TRIES; try++)); do
	btrfs -q filesystem sync "$MNT"
	gen=$(super_generation)
	mv sv/top/a/c1 sv/top/a/c1.moved
	mv sv/top/z/s2 sv/top/a/s2.moved
	ln sv/top/z/t5 "sv/top/a/t5.link$try"
	cp sv/top/z/s7 "sv/top/a/n7.$try"
	cp --reflink=always sv/top/z/t9 "sv/top/a/n9.$try"
	find sv -type f -exec filefrag -s {} + >/dev/null
	if "$PYTHON" "$treesearch" index sv/top/a; then
		n=$CHECKS
		same_as_walk "not committed" sv sv/top sv/top/a
		if [ "$(super_generation)" = "$gen" ]; then
			done_pending=1
			break
		fi
		# a commit came: those checks saw a committed tree (they
		# count), again for the state meant
		CHECKS=$n
	fi
	mv sv/top/a/c1.moved sv/top/a/c1
	mv sv/top/a/s2.moved sv/top/z/s2
done
CHECKS=$((CHECKS + 1))
[ "$done_pending" = 1 ] ||
	fail "no state with changes not yet committed in $TRIES tries (something commits all the time)"

true
