#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# Small files stored inline: compressed on a compress-force mount, raw on a
# plain one; a file just above max_inline gets a regular extent.
. "$(dirname "$0")/../common.sh"

make_small_files()
{
	mkdir small
	text_data 100 >small/text100
	text_data 1000 >small/text1000
	text_data 2048 >small/text2048
	text_data 3000 >small/text3000
	random_data 100 >small/rand100
	random_data 2000 >small/rand2000
	printf x >small/one-byte
	: >small/empty
}

setup_fs compress-force=zstd:3
make_small_files
compare small
compare small/text100
compare small/rand2000
compare small/text100 small/rand100
compare .

setup_fs ""
make_small_files
compare small
compare small/text1000
compare small/empty small/one-byte
compare "${FS_MNTS[0]}" "$MNT"
