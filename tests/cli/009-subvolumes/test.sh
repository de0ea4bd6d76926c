#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Subvolumes, nested subvolumes and snapshots, with and without -x (every
# subvolume has its own st_dev).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir top
text_data 3M >top/text
btrfs -q subvolume create sv >/dev/null
text_data 2M >sv/text
random_data 1M >sv/rand
mkdir sv/dir
text_data 700 >sv/dir/inline
btrfs -q subvolume create sv/nested >/dev/null
text_data 1M >sv/nested/file
btrfs -q subvolume create sv/nested/deeper >/dev/null
random_data 256K >sv/nested/deeper/file
sync
btrfs -q subvolume snapshot sv snap >/dev/null
btrfs -q subvolume snapshot -r sv rosnap >/dev/null
random_data 128K | dd of=snap/text bs=128K seek=3 conv=notrunc status=none
compare_x .
compare_x sv
compare_x sv/nested
compare_x snap
compare_x rosnap
# the nested subvolume shows up as an empty directory inside a snapshot
compare_x snap/nested
compare_x sv snap
compare_x sv/nested sv

# the same subvolume mounted a second time, below the first mount
mkdir top/svmount
mount -o subvol=sv "$(findmnt -no SOURCE "$MNT")" top/svmount
compare_x top
compare_x top/svmount
compare_x top sv
