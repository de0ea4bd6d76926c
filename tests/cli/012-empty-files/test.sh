#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Only empty files: "All empty or still-delalloced files." and exit 1.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir d d/sub
: >d/a
: >d/sub/b
: >d/sub/c
truncate -s 1M d/sub/sparse
compare d/a
compare d
compare d/sub
compare d/a d/sub/b
compare d/sub/sparse
# the same plus one non-empty file
text_data 10 >d/sub/ten
compare d
