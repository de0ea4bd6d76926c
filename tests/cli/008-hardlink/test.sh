#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Hard links: every name is a processed file, extents are counted once.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir a b
text_data 2M >a/file
random_data 1M >a/rand
text_data 500 >a/tiny
ln a/file b/link1
ln a/file b/link2
ln a/rand b/rand
ln a/tiny b/tiny
compare a
compare b
compare a/file b/link1 b/link2
compare b/tiny a/tiny
compare .
