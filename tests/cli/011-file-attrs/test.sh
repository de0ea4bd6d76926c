#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report
# chattr +m (no compression) and +C (nodatacow, never compressed) files on
# compress and compress-force mounts.
. "$(dirname "$0")/../common.sh"

for opts in compress=zstd compress-force=zlib; do
	setup_fs "$opts"
	mkdir d
	: >d/nocomp
	chattr +m d/nocomp
	text_data 2M >>d/nocomp
	: >d/nocow
	chattr +C d/nocow
	text_data 2M >>d/nocow
	text_data 2M >d/normal
	mkdir nocomp-dir
	chattr +m nocomp-dir
	text_data 1M >nocomp-dir/inherited
	text_data 900 >nocomp-dir/tiny
	compare d/nocomp
	compare d/nocow
	compare d
	compare nocomp-dir
	compare .
done
