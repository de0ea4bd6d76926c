#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Preallocated extents: fully fallocated, fallocated then partly written,
# preallocated beyond EOF (keep-size).
. "$(dirname "$0")/../common.sh"

for opts in "" compress-force=zstd:3; do
	setup_fs "$opts"
	fallocate -l 8M full
	compare full
	fallocate -l 8M partly
	sync
	text_data 1M | dd of=partly bs=64K seek=32 conv=notrunc status=none
	compare partly
	random_data 100K >keepsize
	fallocate -n -o 100K -l 4M keepsize
	compare keepsize
	fallocate -l 1M small
	dd if=/dev/zero of=small bs=4K count=1 conv=notrunc status=none
	compare small
	compare .
done
