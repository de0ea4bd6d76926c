#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick errors
# Deliberate improvement: an argument that is not on btrfs is reported and
# the run goes on; exit 1.  compsize 1.5 dies on a file ("PATH: Not btrfs (or
# SEARCH_V2 unsupported).") and says nothing about a directory.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir d
text_data 1M >d/file
tmpfs_at "$TESTDIR/tmpfs"
echo data >"$TESTDIR/tmpfs/file"
mkdir "$TESTDIR/tmpfs/dir"
echo more >"$TESTDIR/tmpfs/dir/file"

expect_ours 1 '*' /proc/version d
ours_stderr_is "compsize: /proc/version: not on a btrfs filesystem"
ours_stdout_matches_oracle d

expect_ours 1 '*' d "$TESTDIR/tmpfs/file"
ours_stderr_is "compsize: $TESTDIR/tmpfs/file: not on a btrfs filesystem"
ours_stdout_matches_oracle d

expect_ours 1 '*' -b "$TESTDIR/tmpfs/dir" d/file
ours_stderr_is "compsize: $TESTDIR/tmpfs/dir: not on a btrfs filesystem"
ours_stdout_matches_oracle -b d/file

# Nothing else: the error line, no report, exit 1.
expect_ours 1 '^compsize: /proc/version: not on a btrfs filesystem$' /proc/version
ours_stdout_is ""
