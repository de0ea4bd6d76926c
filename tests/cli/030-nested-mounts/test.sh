#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
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
compare_x d
compare_x d/bind
compare_x d/inner
compare_x d src
compare_x .
# a read-only bind mount of a single file
: >d/sub/filemount
mount --bind -o ro src/text d/sub/filemount
compare_x d/sub
compare_x d/sub/filemount
