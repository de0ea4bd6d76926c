#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Arguments on two btrfs filesystems at once.
#
# compsize 1.5 identifies an extent by its disk bytenr alone, so extents of
# two filesystems that start at the same logical address are counted once:
# two fresh filesystems put their first data extent at the same address.
# We keep that behaviour for byte-for-byte compatibility; should we fix it
# one day, turn these compare calls into expect_ours assertions.
. "$(dirname "$0")/../common.sh"

setup_fs ""
random_data 1M >first
text_data 2M >second
fs0=$MNT
setup_fs ""
random_data 1M >first
random_data 3M >second
fs1=$MNT
setup_fs compress-force=zstd:3
text_data 3M >first
fs2=$MNT
compare "$fs0/first" "$fs1/first"
compare "$fs0" "$fs1"
compare "$fs1" "$fs0/second"
compare "$fs2" "$fs0"
compare "$fs0" "$fs1" "$fs2"
