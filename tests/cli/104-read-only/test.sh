#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick robust
# compsize must never modify what it analyzes.  On a strictatime mount every
# read of a directory or a file updates its atime, so: record atime, mtime
# and ctime of every file and directory (stat reads neither), run compsize in
# every mode, and nothing may have changed.  The superblock generation must
# not move either: not one transaction was caused by the runs.
. "$(dirname "$0")/../common.sh"

setup_fs strictatime,compress-force=zstd:3
mkdir -p a/b/c empty
text_data 300K >a/text
random_data 100K >a/b/random
text_data 1K >a/b/c/inline
fallocate -l 1M a/prealloc
truncate -s 10M a/sparse
cp --reflink=always a/text a/b/reflink
ln a/text a/b/hardlink
ln -s text a/symlink
mkfifo a/fifo
btrfs -q subvolume create sub
text_data 50K >sub/file
btrfs -q subvolume snapshot sub snap
touch a/empty
# Deeper than the walk keeps open: it reopens directories through "..".
(cd a && for ((i = 0; i < 40; i++)); do mkdir d; echo "$i" >d/f; cd d; done)

# The list is made once: find reads directories, which moves their atime.
find . -xdev -print0 >"$TESTDIR/list"
snapshot()
{
	xargs -0 stat -c '%n %X.%x %Y.%y %Z.%z %s %b' <"$TESTDIR/list"
}
generation()
{
	sync
	btrfs inspect-internal dump-super "$TESTDIR/img0" |
		awk '$1 == "generation" { print $2 }'
}
runs=(". " "-b ." "-x ." "a/text a/b a/fifo" "a/symlink a/prealloc"
	"--bytes sub snap")
# The path walk too, where the default is to read metadata.
if "$COMPSIZE" --walk a/text >/dev/null 2>&1; then
	runs+=("--walk ." "--walk -x a")
fi
before=$(snapshot)
gen_before=$(generation)

for args in "${runs[@]}"; do
	# shellcheck disable=SC2086
	expect_ours 0 '' $args
done

after=$(snapshot)
CHECKS=$((CHECKS + 1))
if [ "$before" != "$after" ]; then
	fail "compsize changed timestamps or sizes:"
	diff <(echo "$before") <(echo "$after") >&2 || true
fi
CHECKS=$((CHECKS + 1))
gen_after=$(generation)
[ "$gen_before" = "$gen_after" ] ||
	fail "the filesystem generation moved from $gen_before to $gen_after"
