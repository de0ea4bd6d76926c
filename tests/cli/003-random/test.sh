#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Incompressible data: compress-force falls back to uncompressed extents;
# and the same on a plain mount, mixed with compressible data.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
random_data 8M >rand
text_data 4M >text
random_data 300K >rand-small
compare rand
compare rand text
compare .

setup_fs ""
random_data 8M >rand
text_data 1M >text
compare rand
compare .

setup_fs compress=zstd
random_data 2M >rand
# compress (not -force) gives up on the inode after a bad ratio: NOCOMPRESS
cat rand >both
text_data 2M >>both
text_data 2M >text
compare .
