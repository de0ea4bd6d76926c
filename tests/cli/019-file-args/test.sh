#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Files given directly as arguments, alone, several, and mixed with
# directories.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir d
text_data 5M >d/text
random_data 1M >d/rand
text_data 10 >d/tiny
compare d/text
compare d/rand
compare d/tiny
compare d/text d/rand d/tiny
compare d/rand d
compare "$MNT/d/text"
# Arguments on two filesystems: see 028-two-filesystems.
