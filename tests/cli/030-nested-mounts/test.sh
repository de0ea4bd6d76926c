#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# btrfs mounted inside a btrfs tree: a bind mount of the same filesystem
# (same st_dev: crossed even with -x, files counted twice, extents once) and
# another btrfs filesystem (crossed, or skipped with -x, like a subvolume).
. "$(dirname "$0")/../common.sh"

setup_fs ""
inner=$MNT
random_data 2M >inner-rand
text_data 1M >inner-text
text_data 900 >inner-inline

setup_fs compress-force=zstd:3
mkdir -p src d/bind d/inner d/sub
text_data 2M >src/text
random_data 512K >src/rand
text_data 4M >d/file
text_data 300 >d/sub/tiny
mount --bind src d/bind
mount --bind "$inner" d/inner
sync
# Where the inner filesystem is included, compsize 1.5 merges its extents
# with the outer one's at equal disk addresses (028-two-filesystems); ours
# must report the outer part (1.5 with -x, which crosses the bind mount but
# not the other filesystem) plus the inner filesystem alone.
with_inner()
{
	local want got
	run_prog oracle "$ORACLE" -b -x "$@"
	run_ours ours -b "$inner"
	want=$(sum_numbers "$(numbers oracle | tr '\n' ' ')" "$(numbers ours | tr '\n' ' ')")
	expect_ours 0 '' -b "$@"
	got=$(numbers ours | tr '\n' ' ')
	[ "$want" = "$(echo $got)" ] ||
		fail "compsize -b $*: got '$got', want outer + inner '$want'"
	compare -x "$@"
}
with_inner d
compare_x d/bind
compare_x d/inner
with_inner d src
with_inner .
# a read-only bind mount of a single file
: >d/sub/filemount
mount --bind -o ro src/text d/sub/filemount
compare_x d/sub
compare_x d/sub/filemount
