#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# A large compressible file on compress-force mounts (one per codec): many
# 128K compressed extents.
. "$(dirname "$0")/../common.sh"

for codec in zstd:3 zlib lzo; do
	setup_fs "compress-force=$codec"
	text_data 20M >big
	mkdir d
	text_data 3M >d/medium
	compare big
	compare d
	compare .
done
# Several filesystems in one run: 028-two-filesystems (1.5 merges their
# extents at equal disk addresses; ours counts each filesystem apart).
