#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Partly overwritten extents: the old extent stays on disk, only part of it is
# referenced.
. "$(dirname "$0")/../common.sh"

for opts in "" compress-force=zstd:3; do
	setup_fs "$opts"
	random_data 1M >rand
	text_data 1M >text
	text_data 8M >big
	sync
	random_data 4K | dd of=rand bs=4K seek=100 conv=notrunc status=none
	random_data 4K | dd of=text bs=4K seek=100 conv=notrunc status=none
	sync
	random_data 4K | dd of=text bs=4K seek=10 conv=notrunc status=none
	text_data 1M | dd of=big bs=1M seek=3 conv=notrunc status=none
	compare rand
	compare text
	compare big
	compare .
	# Truncate away the tail of an extent.
	truncate -s 300K rand
	compare rand
done
