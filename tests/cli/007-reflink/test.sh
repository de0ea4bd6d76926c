#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Reflinked copies share extents: counted once in Disk Usage, every reference
# in Referenced.
. "$(dirname "$0")/../common.sh"

for opts in "" compress-force=zstd:3; do
	setup_fs "$opts"
	mkdir orig copy
	text_data 6M >orig/text
	random_data 3M >orig/rand
	text_data 1000 >orig/inline
	sync
	cp --reflink=always orig/text orig/rand orig/inline copy/
	cp --reflink=always orig/text copy/text2
	sync
	random_data 64K | dd of=copy/text bs=64K seek=5 conv=notrunc status=none
	compare orig
	compare copy
	compare copy/text2
	compare orig copy
	compare copy orig
	compare copy/text orig/text
	compare .
done
