#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto slow robust
# One directory of 100,000 entries (many getdents batches, a large btrfs
# dir index): 99,000 small inline files, 900 files with regular extents,
# 100 subdirectories; compared with the oracle.
. "$(dirname "$0")/../common.sh"

IMAGE_SIZE=1G
setup_fs compress-force=zstd:3
mkdir big
(
	cd big
	# Shell loops in a few processes: a fork per file would take minutes.
	seq 1 99000 | xargs -n 5000 sh -c 'for f; do echo "$f" >"file-$f"; done' _
	text_data 8K >"$TESTDIR/t8k"
	seq 1 900 | xargs -n 300 sh -c 'for f; do cp "$0" "ext-$f"; done' "$TESTDIR/t8k"
	seq 1 100 | xargs -n 100 sh -c 'for f; do mkdir "sub-$f"; echo "$f" >"sub-$f/in"; done' _
)
[ "$(ls -f big | wc -l)" = 100002 ] || fail "expected 100,000 entries: $(ls -f big | wc -l)"
# (compare: on the fast scan and on the path walk, --walk)
compare big
compare big/sub-7 big
