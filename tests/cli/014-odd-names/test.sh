#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Odd file names: spaces, newline, leading dash, UTF-8, invalid UTF-8, as
# arguments and inside the tree.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir 'd i r' 'd i r/sub dir'
text_data 200K >'d i r/with space'
text_data 100K >"d i r/new"$'\n'"line"
text_data 1K >'d i r/-dash'
text_data 300K >'d i r/-b'
text_data 50K >'d i r/sub dir/żółć ünïcödé ✓'
random_data 64K >"d i r/sub dir/bad"$'\xff\xfe'"utf8"
mkdir $'\x01ctl\t'
text_data 10K >$'\x01ctl\t/\x7f'
compare 'd i r'
compare 'd i r/with space'
compare "d i r/new"$'\n'"line"
compare 'd i r/sub dir/żółć ünïcödé ✓'
compare "d i r/sub dir/bad"$'\xff\xfe'"utf8"
compare $'\x01ctl\t'
compare .

cd 'd i r'
compare -- -dash
compare ./-dash
compare -- -b
compare -- -dash -b
compare ./-b 'sub dir'
