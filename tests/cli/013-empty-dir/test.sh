#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# No regular file at all: "No files." and exit 1.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir empty nest nest/a nest/a/b
compare empty
compare nest
compare empty nest/a/b
compare .
btrfs -q subvolume create sv >/dev/null
compare sv
compare_x .
