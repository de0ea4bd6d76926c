#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Sparse files: all-hole files, holes in the middle, with the no-holes feature
# (default) and with explicit hole extents (-O ^no-holes).
. "$(dirname "$0")/../common.sh"

make_sparse()
{
	truncate -s 1G onlyhole
	truncate -s 10M tail-hole
	text_data 64K | dd of=tail-hole conv=notrunc status=none
	text_data 64K | dd of=middle bs=64K count=1 status=none
	text_data 64K | dd of=middle bs=64K seek=100 status=none
	random_data 8K | dd of=rmiddle bs=4K seek=1000 status=none
	random_data 4K >>rmiddle
	dd if=/dev/zero of=zeros bs=1M count=2 status=none
}

for mkfsopt in "" "-O ^no-holes"; do
	for opts in "" compress-force=zstd:3; do
		# shellcheck disable=SC2086
		setup_fs "$opts" $mkfsopt
		make_sparse
		compare onlyhole
		compare onlyhole tail-hole
		compare middle
		compare rmiddle
		compare zeros
		compare .
	done
done
