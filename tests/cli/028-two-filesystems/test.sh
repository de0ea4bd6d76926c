#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Arguments on two btrfs filesystems at once.
#
# compsize 1.5 identifies an extent by its disk bytenr alone, so extents of
# two filesystems that start at the same logical address are counted once:
# two fresh filesystems put their first data extent at the same address.
# Ours keeps one set of counted extents per filesystem (by fsid): a report
# on several filesystems is the sum of the reports on each.  On one
# filesystem, snapshots and reflinks still share.
. "$(dirname "$0")/../common.sh"

setup_fs ""
random_data 1M >first
text_data 2M >second
fs0=$MNT
setup_fs ""
random_data 1M >first
random_data 3M >second
fs1=$MNT
setup_fs compress-force=zstd:3
text_data 3M >first
fs2=$MNT
sync

# Ours on ARGS together must equal the sum of ours on each alone.
check_sum()
{
	local a want="0 0 0 0 0 0 0" got
	for a in "$@"; do
		run_ours ours -b "$a"
		want=$(sum_numbers "$want" "$(numbers ours | tr '\n' ' ')")
	done
	expect_ours 0 '' -b "$@"
	got=$(numbers ours | tr '\n' ' ')
	[ "$want" = "$(echo $got)" ] ||
		fail "compsize -b $*: got '$got', want the sum of separate runs '$want'"
}

check_sum "$fs0/first" "$fs1/first"
check_sum "$fs0" "$fs1"
check_sum "$fs1" "$fs0/second"
check_sum "$fs2" "$fs0"
check_sum "$fs0" "$fs1" "$fs2"

# Within one filesystem a reflink still counts once.
cp --reflink=always "$fs0/first" "$fs0/copy"
sync
compare "$fs0/first" "$fs0/copy"
