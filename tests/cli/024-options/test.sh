#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Option spellings and positions that compsize 1.5 accepts (GNU getopt
# permutes options after paths; "--" ends options).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p d
text_data 2M >d/text
random_data 100K >d/rand
btrfs -q subvolume create d/sv >/dev/null
text_data 1M >d/sv/file
text_data 300K >./-x
compare_once d -b
compare_once --bytes d
compare_once d --bytes -x
compare_once -bx d
compare_once -xb d
compare_once --one-file-system d
compare_once --one-file-system --bytes d d/sv
compare_once --byt d
compare_once --one d
compare_once -- d
compare_once -b -- d
# after "--", "-x" is the file ./-x
compare_once d -- -x
compare_once -b -- -x d
