#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick kernel report
# --find end to end (issue #57): the uncompressed files zstd would
# shrink, found with -e zstd --find, piped through the real `xargs -0`
# to the real `btrfs filesystem defragment -czstd`, are compressed
# afterwards (compsize 1.5 says so, file by file) and the others are
# untouched; names with spaces and a newline survive -0, and without it
# a newline in a name splits it over two lines, as the man page says.
. "$(dirname "$0")/../common.sh"

K=1024
setup_fs
mkdir d
text_data $((2048 * K)) >"d/text one"
text_data $((512 * K)) >"d/new
line"
random_data $((1024 * K)) >d/rand
text_data $((256 * K)) >d/small
mount -o remount,compress-force=zstd:3 "$MNT"
text_data $((512 * K)) >d/zstd
sync

pred='type=none,gain>=64K'
run_ours found -e zstd -0 --find="$pred" d
printf 'd/text one\0d/new\nline\0d/small\0' >"$OUT/found.want"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/found.want" "$OUT/found.out" ||
	fail "-0 --find='$pred': not the three uncompressed text files"
# without -0: raw paths, one a line, the newline in a name as it is
run_ours lines -e zstd --find="$pred" d
CHECKS=$((CHECKS + 1))
[ "$(wc -l <"$OUT/lines.out")" = 4 ] ||
	fail "--find without -0: $(wc -l <"$OUT/lines.out") lines, not 4"

# the real thing: every file found is compressed, the rest untouched
xargs -0 btrfs filesystem defragment -czstd <"$OUT/found.out"
sync
for f in "d/text one" "d/new
line" d/small; do
	CHECKS=$((CHECKS + 1))
	"$ORACLE" "$f" | grep -q '^zstd ' ||
		fail "after the defragment, compsize 1.5 sees no zstd in $f"
	"$ORACLE" "$f" | grep -q '^none ' &&
		fail "after the defragment, compsize 1.5 sees raw bytes in $f"
done
run_ours after -e zstd -0 --find="$pred" d
CHECKS=$((CHECKS + 1))
[ ! -s "$OUT/after.out" ] || fail "after the defragment, --find still finds files"
run_ours raw -0 --find=type=none d
CHECKS=$((CHECKS + 1))
[ "$(tr '\0' '\n' <"$OUT/raw.out")" = d/rand ] ||
	fail "after the defragment: raw files $(tr '\0' ' ' <"$OUT/raw.out"), not d/rand"
