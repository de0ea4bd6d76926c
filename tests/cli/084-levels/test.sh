#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto kernel report
# --levels against the kernel (issue #58): files written at known levels,
# the filesystem remounted with compress= or compress-force= and synced
# between them (zstd 1, 3, 9, 15, -5; zlib 1, 6, 9), each level's files in
# a directory of their own: 192 KiB of system files' bytes, a file of
# 12 KiB (one piece, zstd's small-input parameters), 3000 bytes (inline,
# compressed), a reflinked part of
# the first, and a hole punched in the middle of its first extent (whose
# data no file then reads whole: bookends).
# The report's row of each directory (--depth=1) must put no extent under
# a set without the level the kernel wrote it with (the oracle), the sets hold at most 2
# levels on average, zstd's fast levels (1, -5), which libzstd writes
# alike in every version since 1.5.0, are told for at least 95% of their
# extents, and an extent no level reproduces (another codec version wrote
# it) is "?" with one line on stderr naming the codec.  The counts, each
# level's row of the confusion matrix, go to the log.  Every run has its
# --walk twin.
. "$(dirname "$0")/../common.sh"

command -v jq >/dev/null || skip "jq is needed"
command -v fallocate >/dev/null || skip "fallocate is needed"
DATA=$TESTDIR/data
# text, then shared libraries: the system's files in a fixed order
{
	find /usr/share/doc -name copyright -type f | sort | head -400 |
		xargs cat | head -c 1M || true
	find /usr/lib/x86_64-linux-gnu /usr/lib -maxdepth 1 -name '*.so*' \
		-type f | sort | xargs cat || true
} 2>/dev/null | head -c 2M >"$DATA"
[ "$(stat -c %s "$DATA")" -eq $((2 << 20)) ] ||
	skip "fewer than 2 MiB of system files"

# clone SRC SOFF DST DOFF LEN: FICLONERANGE
clone()
{
	"$PYTHON" - "$@" <<'PY'
import fcntl, os, struct, sys
src, soff, dst, doff, n = sys.argv[1], *map(int, sys.argv[2:3]), sys.argv[3], *map(int, sys.argv[4:6])
s = os.open(src, os.O_RDONLY)
d = os.open(dst, os.O_RDWR | os.O_CREAT, 0o644)
fcntl.ioctl(d, 0x4020940d, struct.pack("=qQQQ", s, soff, n, doff))
PY
}

setup_fs compress=zstd:3
i=0
CASES="compress=zstd:1 compress=zstd:3 compress=zstd:9 compress=zstd:15
compress=zstd:-5 compress=zlib:1 compress=zlib:6 compress=zlib:9
compress-force=zstd:9 compress-force=zlib:6"
for opt in $CASES; do
	remount_fs "$opt"
	d=$MNT/${opt//[=:]/_}
	mkdir "$d"
	# each level its own part of the data: no two levels write the
	# same bytes
	dd if="$DATA" of="$d/big" bs=64K skip=$((i * 3)) count=3 status=none
	dd if="$DATA" of="$d/small" bs=4K skip=$((i * 3 + 400)) count=3 \
		status=none
	# 3000 bytes of text: inline in metadata, compressed
	dd if="$DATA" of="$d/inline" bs=1000 skip=$((i * 7)) count=3 \
		status=none
	sync
	clone "$d/big" 131072 "$d/part" 0 65536
	fallocate --punch-hole -o 32768 -l 65536 "$d/big"
	sync
	i=$((i + 1))
done
remount_fs compress=zstd:3

# One run, a row per directory (--depth=1): each row's levels against
# the level its directory was written with
run_ours rows --levels --depth=1 --format=json "$MNT"
CHECKS=$((CHECKS + 1))
[ "$(cat "$OUT/rows.rc")" = 0 ] || fail "exit $(cat "$OUT/rows.rc")"

# check OPT: OPT's row against its level
TOTAL=0 TOLD=0 SETSUM=0
check()
{
	local opt=$1 alg level label rows told all wrong sets
	alg=${opt#*=}
	level=${alg#*:}
	alg=${alg%%:*}
	label=${opt//[=:]/_}
	rows=$(jq -c --arg p "$MNT/$label" --arg a "$alg" \
		'.paths[] | select(.path == $p) | [.levels[] | select(.type == $a)]' \
		"$OUT/rows.out")
	all=$(jq '[.[].extents] | add // 0' <<<"$rows")
	told=$(jq '[.[] | select(.set != []) | .extents] | add // 0' <<<"$rows")
	wrong=$(jq --argjson l "$level" \
		'[.[] | select(.set != [] and (.set | index($l) | not))] | length' \
		<<<"$rows")
	sets=$(jq '[.[] | select(.set != []) | .extents * (.set | length)] | add // 0' \
		<<<"$rows")
	echo "$opt: $told of $all extents told, sets $sets levels; $(jq -c \
		'[.[] | "\(.levels): \(.extents)"]' <<<"$rows")"
	CHECKS=$((CHECKS + 1))
	[ "$all" -gt 0 ] || fail "$opt: no $alg extents found"
	[ "$wrong" -eq 0 ] || fail "$opt: extents under a set without $level"
	[ "$(jq --arg p "$MNT/$label" --arg a "$alg" \
		'[.paths[] | select(.path == $p) | .levels[] | select(.type != $a)] | length' \
		"$OUT/rows.out")" -eq 0 ] ||
		fail "$opt: extents of another algorithm"
	TOTAL=$((TOTAL + all)) TOLD=$((TOLD + told)) SETSUM=$((SETSUM + sets))
	echo "$all $told" >"$OUT/$label.counts"
}
for opt in $CASES; do
	check "$opt"
done
# the grand total: the rows' extents, each once
CHECKS=$((CHECKS + 1))
[ "$(jq '[.levels[].extents] | add' "$OUT/rows.out")" -eq "$TOTAL" ] ||
	fail "the total's extents are not its rows'"
# "?" exactly where stderr names the codec that could not, by algorithm
for alg in zstd zlib; do
	n=$(jq --arg a "$alg" '[.levels[] | select(.type == $a and .set == []) | .extents] | add // 0' \
		"$OUT/rows.out")
	CHECKS=$((CHECKS + 1))
	if [ "$n" -gt 0 ]; then
		grep -Eq "^compsize: --levels: no level of [a-z]+ [0-9.]+ reproduces $n $alg extents? \(" \
			"$OUT/rows.err" || fail "no line on the $n $alg extents not told"
	else
		! grep -q " $alg extent" "$OUT/rows.err" ||
			fail "a line on $alg extents, all told"
	fi
done

# zstd's fast strategy writes the same bytes in libzstd 1.5.4 as in the
# kernel's 1.5.7: at least 95% of those extents told
for opt in compress=zstd:1 compress=zstd:-5; do
	read -r all told <"$OUT/${opt//[=:]/_}.counts"
	CHECKS=$((CHECKS + 1))
	[ $((told * 100)) -ge $((all * 95)) ] ||
		fail "$opt: $told of $all extents told, under 95%"
done
CHECKS=$((CHECKS + 1))
[ "$TOLD" -gt 0 ] && [ "$SETSUM" -le $((2 * TOLD)) ] ||
	fail "sets of $SETSUM levels for $TOLD extents: more than 2 on average"
echo "all: $TOLD of $TOTAL extents told, $SETSUM levels in their sets"

# Each extent once: big's two, small's and inline's (part is big's
# second)
CHECKS=$((CHECKS + 1))
[ "$TOTAL" -le $((4 * $(wc -w <<<"$CASES"))) ] ||
	fail "$TOTAL extents: one counted twice"
# A row per file: the reflinked part's row has big's second extent
run_ours files --levels --per-file --format=json "$MNT/compress_zstd_1"
CHECKS=$((CHECKS + 1))
[ "$(jq -c --arg p "$MNT/compress_zstd_1/part" \
	'.paths[] | select(.path == $p) | [.levels[] | .levels, .extents]' \
	"$OUT/files.out")" = '["1",1]' ] || fail "--per-file: part's levels"

# The table; without root; options it refuses
run_ours table --levels "$MNT/compress_zstd_1"
CHECKS=$((CHECKS + 1))
grep -q '^zstd:1  *[0-9]' "$OUT/table.out" || fail "no zstd:1 row in the table"
expect_ours 2 '^compsize: --levels reads .*: not with --subvolumes or --format=csv, ncdu or prometheus$' \
	--levels --format=csv "$MNT"
NOBODY=$(as_nobody "$COMPSIZE")
run_prog nobody "$NOBODY" --levels "$MNT"
CHECKS=$((CHECKS + 1))
[ "$(cat "$OUT/nobody.rc")" = 1 ] &&
	grep -q "needs root" "$OUT/nobody.err" || fail "--levels as nobody"

true
