#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report san
# A few thousand files in a few directories (many searches, many directory
# entries; inline, regular and empty files mixed).
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p many/inline many/regular many/empty many/mixed/a/b/c
(cd many/inline && text_data 1500K | split -a 4 -b 1000 - f)
(cd many/regular && text_data 20M | split -a 4 -b 20K - r)
(cd many/mixed/a/b/c && random_data 4M | split -a 4 -b 5000 - x)
(cd many/empty && touch $(seq -f 'e%g' 1 500))
compare many
compare many/inline many/regular
compare many/empty
compare .
