#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto report
# Files with hundreds to thousands of extent items, around the sizes where
# one TREE_SEARCH_V2 call (64 KiB buffer: 771 items) is not enough.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:1
mkdir n
# compress-force splits writes into 128 KiB extents: N*128K -> N extents.
for n in 511 512 513 770 771 772 1542 1543 1600; do
	text_data $((n * 128 * 1024)) >n/$n
done
for n in 511 512 513 770 771 772 1542 1543 1600; do
	compare n/$n
done
compare n

setup_fs ""
# Separate synchronous writes: one extent each (random: no merging).
random_data 4M | dd of=dsync bs=4K oflag=dsync status=none
# One extent split into ~1000 references by punching every other block.
random_data 8M >punched
sync
for i in $(seq 1 2 2047); do
	fallocate -p -o $((i * 4096)) -l 4096 punched
done
compare dsync
compare punched
compare .
