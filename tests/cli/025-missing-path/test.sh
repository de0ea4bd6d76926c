#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick errors
# Deliberate improvement: a missing path is reported and the run goes on;
# exit 1.  compsize 1.5 silently ignores ENOENT.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir d
text_data 1M >d/file

expect_ours 1 '*' nonexistent d
ours_stderr_is "compsize: nonexistent: No such file or directory"
ours_stdout_matches_oracle d

expect_ours 1 '*' -b d d/missing
ours_stderr_is "compsize: d/missing: No such file or directory"
ours_stdout_matches_oracle -b d

expect_ours 1 '*' d/no1 d/file d/no2
ours_stderr_is "compsize: d/no1: No such file or directory
compsize: d/no2: No such file or directory"
ours_stdout_matches_oracle d/file

# After "--", "-b" is a path, here a missing one.
expect_ours 1 '*' d -- -b
ours_stderr_is "compsize: -b: No such file or directory"
ours_stdout_matches_oracle d

# Only missing paths: the error line, no report, exit 1.
expect_ours 1 '^compsize: gone: No such file or directory$' gone
ours_stdout_is ""

# A path through a regular file: compsize 1.5 dies with
# 'open("d/file/x"): Not a directory' (exit 1, no report); ours may go on,
# but must fail and name the path and the cause.
expect_ours 1 'd/file/x.*Not a directory' d/file/x

# A dangling symlink is a symlink, not a missing path: ignored like 1.5.
ln -s nowhere d/dangling
compare d/dangling d
