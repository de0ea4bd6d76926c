#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick exclusive kernel
# A real deletion frees what --exclusive said it would: the Data "Used" of
# `btrfs filesystem usage` drops by exactly the exclusive bytes reported
# before (the files here have no inline data, which lives in metadata).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3

# data_used: the Data block groups' used bytes, after a commit
data_used()
{
	btrfs filesystem sync "$MNT"
	btrfs filesystem usage -b "$MNT" 2>/dev/null |
		sed -n 's/^Data,[^:]*: *Size:[0-9]*, *Used:\([0-9]*\).*/\1/p'
}

# check_delete WHAT PATH...: the drop of Data used when the paths are
# deleted (WHAT: files or subvolume) equals their exclusive bytes.
check_delete()
{
	local what=$1 excl before after
	shift
	CHECKS=$((CHECKS + 1))
	sync
	run_ours excl --exclusive --format=json "$@"
	excl=$(jq .total.exclusive "$OUT/excl.out")
	before=$(data_used)
	if [ "$what" = subvolume ]; then
		btrfs -q subvolume delete "$@" >/dev/null
		# a commit wakes the cleaner, which drops the trees
		btrfs filesystem sync "$MNT"
		btrfs subvolume sync "$MNT" >/dev/null
	else
		rm -rf "$@"
	fi
	sync
	after=$(data_used)
	# the cleaner may still be freeing: wait for the figure to settle
	local i
	for i in 1 2 3 4 5; do
		sleep 0.2
		[ "$(data_used)" = "$after" ] && break
		after=$(data_used)
	done
	if [ -z "$before" ] || [ -z "$excl" ] || [ "$excl" = null ]; then
		fail "delete $*: no figures (before '$before', exclusive '$excl')"
	elif [ $((before - after)) != "$excl" ]; then
		fail "delete $what $*: Data used dropped by $((before - after)), --exclusive said $excl"
	elif [ "${VERBOSE:-0}" = 1 ]; then
		echo "ok: delete $what $*: freed $excl"
	fi
}

btrfs -q subvolume create sv >/dev/null
mkdir sv/dir sv/keep
text_data 3M >sv/text
random_data 1M >sv/rand
text_data 1M >sv/dir/a
random_data 700K >sv/dir/b
fallocate -l 512K sv/dir/prealloc
random_data 200K >sv/keep/c
ln sv/dir/a sv/keep/a-link
cp --reflink=always sv/dir/b sv/dir/b-clone
sync
btrfs -q subvolume snapshot sv snap1 >/dev/null
random_data 128K | dd of=sv/text bs=128K seek=3 conv=notrunc status=none
random_data 300K >sv/dir/new
rm sv/rand
sync
btrfs -q subvolume snapshot -r sv snap2 >/dev/null
random_data 64K | dd of=sv/text bs=64K seek=20 conv=notrunc status=none
text_data 2M >sv/dir/late
random_data 400K >sv/dir/late-raw
cp --reflink=always sv/dir/late-raw sv/dir/late-clone
random_data 100K >sv/keep/d
btrfs -q subvolume create other >/dev/null
cp --reflink=always sv/dir/new other/new
random_data 256K >other/own
sync

check_delete files sv/dir
check_delete subvolume snap1
check_delete files other/new sv/keep
check_delete files sv/text
check_delete subvolume snap2 other
