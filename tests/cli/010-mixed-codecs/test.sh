#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# zlib, lzo, zstd and uncompressed extents in one tree (defragment -c), and
# in one file.
. "$(dirname "$0")/../common.sh"

setup_fs ""
mkdir tree
for c in none zlib lzo zstd; do
	text_data 3M >tree/$c
	text_data 1500 >tree/inline-$c
done
text_data 4M >tree/mixed
random_data 1M >tree/random
sync
for c in zlib lzo zstd; do
	btrfs filesystem defragment -c$c tree/$c tree/inline-$c
done
btrfs filesystem defragment -czlib tree/mixed
sync
text_data 1M | dd of=tree/mixed bs=1M seek=1 conv=notrunc status=none
sync
remount_fs compress-force=lzo
text_data 512K | dd of=tree/mixed bs=512K seek=6 conv=notrunc status=none
remount_fs compress-force=zstd
text_data 512K | dd of=tree/mixed bs=512K seek=3 conv=notrunc status=none
sync
compare tree
compare tree/mixed
for c in none zlib lzo zstd; do
	compare tree/$c
done
compare tree/zlib tree/lzo tree/zstd tree/random
