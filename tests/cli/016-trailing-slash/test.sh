#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Trailing and doubled slashes, "." and "..": only the path spelling differs.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p dir/sub
text_data 1M >dir/file
text_data 100 >dir/sub/inline
compare dir/
compare dir//
compare dir///sub//
compare ./dir/./sub/../
compare "$MNT/"
compare "$MNT//dir/"
cd dir/sub
compare ..
compare ../
compare .
compare ./
