#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick report rows
# --find (issue #57): every predicate, alone and together, gives exactly
# the files a brute-force reading of the --per-file JSON (--exclusive,
# --waste, -e zstd) gives (brute.py), in the walk's order, on a tree of
# every kind of file: raw, zstd, lzo and zlib, random, inline, prealloc,
# many extents, reflinks, a read-only snapshot, bookends.  -0 puts a NUL
# after each path; --sort and --top apply; JSON and CSV have the same
# files as rows; a bad predicate is named on one line, exit 2, nothing on
# stdout.
. "$(dirname "$0")/../common.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
K=1024
M=1048576
setup_fs
btrfs -q subvolume create sv
mkdir sv/d
text_data $((3 * M)) >sv/plain
random_data $((2 * M)) >sv/rand
text_data 100 >sv/tiny
fallocate -l $M sv/d/pre
for i in $(seq 20); do
	random_data $((64 * K)) >>sv/d/frag
	sync
done
random_data $((4 * M)) >sv/d/book
sync
random_data $M | dd of=sv/d/book bs=$M seek=1 conv=notrunc status=none
cp --reflink=always sv/rand sv/d/rand-clone
mount -o remount,compress-force=zstd:3 "$MNT"
text_data $((2 * M)) >sv/z
random_data $((512 * K)) >sv/d/zr
mount -o remount,compress=lzo "$MNT"
text_data $M >sv/d/lzo
mount -o remount,compress=zlib "$MNT"
text_data $M >sv/zlib
text_data $M >sv/gone
sync
btrfs -q subvolume snapshot -r sv snap >/dev/null
mount -o remount,compress=no "$MNT"
text_data $((256 * K)) | dd of=sv/plain bs=$((256 * K)) seek=2 conv=notrunc \
	status=none
rm sv/gone
text_data $((512 * K)) >sv/late
sync

run_prog all "$COMPSIZE" --per-file --exclusive --waste -e zstd \
	--format=json sv
CHECKS=$((CHECKS + 1))
[ "$(jq '.paths | length' "$OUT/all.out")" = 12 ] ||
	fail "the tree: $(jq '.paths | length' "$OUT/all.out") files, not 12"

# check P [OPTIONS...]: --find=P prints what brute.py finds, in order
n=0
check()
{
	local p=$1
	shift
	n=$((n + 1))
	run_ours "find$n" "$@" --find="$p" sv
	"$PYTHON" "$HERE/brute.py" "$OUT/all.out" "$p" >"$OUT/want$n"
	CHECKS=$((CHECKS + 1))
	if [ "$(cat "$OUT/find$n.rc")" != 0 ] || [ -s "$OUT/find$n.err" ]; then
		fail "--find='$p': exit $(cat "$OUT/find$n.rc"): $(cat "$OUT/find$n.err")"
	elif ! cmp -s "$OUT/want$n" "$OUT/find$n.out"; then
		fail "--find='$p': not the brute force's files"
		diff -u "$OUT/want$n" "$OUT/find$n.out" >&2 || true
	elif [ "${VERBOSE:-0}" = 1 ]; then
		echo "ok: $p: $(wc -l <"$OUT/want$n") files"
	fi
	# a predicate that matches nothing or everything tests little
	[ "$(wc -l <"$OUT/want$n")" -ge 1 ] || fail "--find='$p' matches nothing here"
}
for t in none zstd lzo zlib prealloc inline; do
	check "type=$t"
done
for p in 'type!=none' 'ratio<0.5' 'ratio>=1' 'ratio=1' 'size>1M' \
	 'size<=64K' 'size=1M' 'disk>=2M' 'disk<1M' 'disk!=0' 'extents>5' \
	 'extents<=2' 'avg-extent<128K' 'avg-extent>=1M' \
	 'shared>0' 'exclusive>256K' 'exclusive=0' 'waste>0' \
	 'type=none,size>1M,ratio>0.9' 'type!=zstd,shared=0,disk>0' \
	 'extents>=2,waste=0'; do
	check "$p"
done
check 'gain>100K' -e zstd
check 'type=none,gain<=0' -e zstd

# -0: the same paths, each followed by a NUL
run_ours nul -0 --find=type=none sv
"$PYTHON" "$HERE/brute.py" "$OUT/all.out" type=none | tr '\n' '\0' >"$OUT/nul.want"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/nul.want" "$OUT/nul.out" || fail "-0: not the paths each with a NUL"

# --sort and --top: the matching rows sorted, the first N
run_ours top --find='disk>0' --sort=disk --top=3 sv
jq -r '[.paths[] | select(.total.disk > 0)] | to_entries |
	sort_by(-.value.total.disk, .key) | .[:3][] | .value.path' \
	"$OUT/all.out" >"$OUT/top.want"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/top.want" "$OUT/top.out" || fail "--sort=disk --top=3: not the 3 largest"

# JSON and CSV: the same files as --per-file rows
run_ours json --find='type=none' --format=json sv
run_ours csv --find='type=none' --format=csv sv
CHECKS=$((CHECKS + 1))
[ "$(jq -r '.paths[].path' "$OUT/json.out")" = "$(cat "$OUT/find1.out")" ] ||
	fail "--format=json: not the files --find prints"
CHECKS=$((CHECKS + 1))
[ "$(awk -F, '$1 == "path" && $3 == "TOTAL" { print $2 }' "$OUT/csv.out")" = \
  "$(cat "$OUT/find1.out")" ] || fail "--format=csv: not the files --find prints"

# errors: the bad predicate named, exit 2, nothing on stdout
for p in 'bogus=1' 'ratio<x' 'size>1Q' 'type<zstd' 'type=gzip' 'size' \
	 'disk>=' 'extents>1.5' 'ratio<0.5,,size>1M' ''; do
	run_prog bad "$COMPSIZE" --find="$p" sv
	CHECKS=$((CHECKS + 1))
	[ "$(cat "$OUT/bad.rc")" = 2 ] && [ ! -s "$OUT/bad.out" ] &&
		[ "$(wc -l <"$OUT/bad.err")" = 1 ] &&
		grep -qF "compsize: invalid --find predicate '$p': " "$OUT/bad.err" ||
		fail "--find='$p': $(cat "$OUT/bad.rc") $(cat "$OUT/bad.err")"
done
expect_ours 2 "^compsize: invalid --find predicate 'gain>1M': gain needs --estimate$" \
	--find='size>0,gain>1M' sv
expect_ours 2 '^compsize: --find lists files: not with' --find=type=none --depth=1 sv
expect_ours 2 '^compsize: -0/--null goes with --find$' -0 sv
