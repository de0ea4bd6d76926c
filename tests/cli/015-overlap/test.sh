#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Overlapping arguments: the same files reached several times count as
# several files, their extents once.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p dir/sub/deeper
text_data 2M >dir/top
random_data 256K >dir/sub/file
text_data 1500 >dir/sub/inline
text_data 1M >dir/sub/deeper/file
compare dir dir/sub dir/sub/file
compare dir/sub/file dir/sub dir
compare dir/sub/file dir/sub/file
compare dir/sub/inline dir/sub/inline
compare dir dir
compare dir/sub/deeper . dir
