#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto report
# Files with hundreds to thousands of extent items, around the sizes where
# one TREE_SEARCH_V2 call (64 KiB buffer: 771 items) is not enough.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:1
mkdir n
# N extents: 8 KiB of text (compressed) every 16 KiB, holes between (no
# hole items: no-holes is mkfs's default), N extent items in a file.
text_data 8192 >"$TESTDIR/t8k"
for n in 511 512 513 770 771 772 1542 1543 1600; do
	python3 - "$TESTDIR/t8k" "n/$n" "$n" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
for i in range(int(sys.argv[3])):
    os.pwrite(fd, data, i * 16384)
os.close(fd)
PY
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
