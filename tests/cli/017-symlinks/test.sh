#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Symlinks are never followed: ignored inside the tree and as arguments, but
# a trailing slash on an argument resolves it.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p tree/dir target
text_data 1M >tree/file
text_data 2M >target/big
random_data 128K >target/rand
ln -s file tree/link-to-file
ln -s ../../target tree/dir/link-to-dir
ln -s "$MNT/target/big" tree/abs-link
ln -s nowhere tree/dangling
ln -s loop1 tree/loop2
ln -s loop2 tree/loop1
compare tree
compare tree/link-to-file
compare tree/dir/link-to-dir
compare tree/dangling
compare tree/loop1
compare tree/link-to-file tree/file
compare tree/dir/link-to-dir tree
compare tree/dir/link-to-dir/
compare tree/dir/link-to-dir/ target
