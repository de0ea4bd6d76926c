#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick errors
# A non-btrfs mount inside the tree.  compsize 1.5 dies on the first file in
# it ("Not btrfs (or SEARCH_V2 unsupported).", exit 1, no report).
# Deliberate improvement: ours warns once per mount point, reports the rest
# of the tree exactly as the oracle reports it without that mount (= the
# oracle's -x report here: no subvolume in this tree), and exits 0.
# With -x nothing is crossed: ours must match the oracle exactly.
. "$(dirname "$0")/../common.sh"

setup_fs compress-force=zstd:3
mkdir -p d/sub d/tmp
text_data 3M >d/file
random_data 200K >d/sub/rand
text_data 600 >d/sub/inline
tmpfs_at d/tmp
text_data 1M >d/tmp/file-on-tmpfs
mkdir d/tmp/dir
echo hello >d/tmp/dir/hello

compare -x d
compare -x .

expect_ours 0 '*' d
ours_stderr_is "compsize: d/tmp: skipped: not a btrfs filesystem"
ours_stdout_matches_oracle -x d

expect_ours 0 '*' -b d/
ours_stderr_is "compsize: d/tmp: skipped: not a btrfs filesystem"
ours_stdout_matches_oracle -x -b d/

expect_ours 0 '*' .
ours_stderr_is "compsize: ./d/tmp: skipped: not a btrfs filesystem"
ours_stdout_matches_oracle -x .

# A tmpfs with nothing in it is still a non-btrfs mount.
tmpfs_at d/sub/empty-tmpfs
expect_ours 0 '*' d/sub
ours_stderr_is "compsize: d/sub/empty-tmpfs: skipped: not a btrfs filesystem"
ours_stdout_matches_oracle -x d/sub

# Two non-btrfs mounts: one line each, in walk (readdir) order, which is not
# creation order on btrfs: compare sorted.
tmpfs_at d/sub/deeper/tmp2
echo x >d/sub/deeper/tmp2/x
expect_ours 0 '*' d
CHECKS=$((CHECKS + 1))
if ! diff -u <(printf '%s\n' "compsize: d/sub/deeper/tmp2: skipped: not a btrfs filesystem" \
	"compsize: d/sub/empty-tmpfs: skipped: not a btrfs filesystem" \
	"compsize: d/tmp: skipped: not a btrfs filesystem") <(sort "$OUT/ours.err") >&2; then
	fail "compsize d: expected one warning per non-btrfs mount"
fi
ours_stdout_matches_oracle -x d
