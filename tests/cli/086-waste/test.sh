#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto kernel exclusive
# --waste (issue #57): the disk bytes of the files' extents no reference
# anywhere reaches.  Exact on built cases (a 128 MiB file with ranges
# overwritten, a partial reflink and a snapshot keeping some; compressed
# and raw extents of zstd) against the hand count and against btrfs-progs'
# dump-tree of every tree (waste.py: each extent's disk bytes times the
# part of its range no item maps), per file and in total, from the extent
# items where they say all and through the backref walk alone
# (COMPSIZE_WASTE=backref) alike; and a real
# `btrfs filesystem defragment` of files no snapshot holds lowers Data
# used by what --waste said, within 1%.
. "$(dirname "$0")/../common.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
M=1048576
IMAGE_SIZE=768M
setup_fs
IMG=$TESTDIR/img0

data_used()
{
	btrfs filesystem sync "$MNT"
	btrfs filesystem usage -b "$MNT" 2>/dev/null |
		sed -n 's/^Data,[^:]*: *Size:[0-9]*, *Used:\([0-9]*\).*/\1/p'
}

# overwrite FILE OFFSET BYTES: random bytes in place
overwrite()
{
	random_data "$3" | dd of="$1" bs=4096 seek=$(($2 / 4096)) conv=notrunc \
		status=none
}

btrfs -q subvolume create sv
random_data $((128 * M)) >sv/big
sync
# part keeps [9M, 17M) of big's extents, the snapshot what it held then
"$PYTHON" "$HERE/waste.py" clone sv/big sv/part $((9 * M)) $((8 * M)) 0
overwrite sv/big $((10 * M)) $M
# (an old extent wholly overwritten is freed, not waste: small pieces,
# inside the extents a busy writeback still makes megabytes long)
for off in 50 51 52 53; do
	overwrite sv/big $((off * M)) 65536
done
sync
btrfs -q subvolume snapshot -r sv snap >/dev/null
overwrite sv/big $((80 * M)) $((2 * M))
sync
mount -o remount,compress-force=zstd:3 "$MNT"
text_data $((3 * M)) >sv/text
random_data $M >sv/rnd
sync
overwrite sv/text $((100 * 1024)) 8192
overwrite sv/text $((M + 4096)) 16384
overwrite sv/rnd 8192 4096
cp --reflink=always sv/rnd sv/rnd-clone
overwrite sv/rnd-clone $((512 * 1024)) 65536
ln sv/rnd-clone sv/clone-link
sync

# by hand: of big's overwrites, only the four at 50M-53M are in nothing
# else
run_ours big --waste --format=json sv/big
got=$(jq .total.waste "$OUT/big.out")
CHECKS=$((CHECKS + 1))
[ "$got" = $((4 * 65536)) ] || fail "sv/big: waste $got, want $((4 * 65536))"

# against dump-tree, per file and in total, for several sets
trees="5 $(btrfs subvolume list "$MNT" | awk '{print $2}')"
check_set()
{
	local label=$1 f want got
	shift
	local keys=()
	for f in "$@"; do
		[ -f "$f" ] || continue
		# (rootid opens a file for writing: its directory)
		keys+=("$f=$(btrfs inspect-internal rootid "$(dirname "$f")"):$(stat -c %i "$f")")
	done
	run_ours "$label" --waste --per-file --format=json "$@"
	# the backref walk alone, for every extent covered in part, agrees
	COMPSIZE_WASTE=backref run_prog "$label-walk" "$COMPSIZE" --waste \
		--per-file --format=json "$@"
	CHECKS=$((CHECKS + 1))
	cmp -s "$OUT/$label.out" "$OUT/$label-walk.out" ||
		fail "waste of $*: another figure with COMPSIZE_WASTE=backref"
	# shellcheck disable=SC2086
	"$PYTHON" "$HERE/waste.py" oracle "$IMG" $trees -- "${keys[@]}" \
		>"$OUT/$label.want"
	{
		jq -r '"total \(.total.waste)"' "$OUT/$label.out"
		jq -r '.paths[] | "\(.path) \(.total.waste)"' "$OUT/$label.out" |
			sort
	} >"$OUT/$label.got"
	CHECKS=$((CHECKS + 1))
	if ! cmp -s "$OUT/$label.want" "$OUT/$label.got"; then
		fail "waste of $*: not dump-tree's (total, then each file)"
		diff -u "$OUT/$label.want" "$OUT/$label.got" >&2 || true
	elif [ "${VERBOSE:-0}" = 1 ]; then
		echo "ok: $label: $(tr '\n' ' ' <"$OUT/$label.got")"
	fi
}
check_set all sv/big sv/part sv/text sv/rnd sv/rnd-clone
check_set snap snap/big snap/part sv/big
check_set text sv/text sv/rnd-clone
# a file with two names in the set is one reference of its extents
check_set link sv/rnd-clone sv/clone-link

# the table's column, and --sort=waste
run_ours table --waste sv
CHECKS=$((CHECKS + 1))
grep -q '^Type .* Waste$' "$OUT/table.out" || fail "--waste: no Waste column"
run_ours sorted -b --sort=waste --top=1 --per-file sv
CHECKS=$((CHECKS + 1))
grep -q '^ *[0-9].* sv/big$' "$OUT/sorted.out" ||
	fail "--sort=waste --top=1: not sv/big first"

# the kernel: defragment files no snapshot or reflink holds
btrfs -q subvolume create k
random_data $((6 * M)) >k/r
random_data $((2 * M)) >k/r2
sync
for off in 4096 300000 1000000 2500000 5000000; do
	overwrite k/r $((off / 4096 * 4096)) 12288
done
overwrite k/r2 $((512 * 1024)) $M
sync
run_ours kern --waste --format=json k
waste=$(jq .total.waste "$OUT/kern.out")
before=$(data_used)
btrfs filesystem defragment -r -czstd k
sync
after=$(data_used)
drop=$((before - after))
CHECKS=$((CHECKS + 1))
if [ "$waste" -le 0 ] || [ $((100 * (drop - waste))) -gt "$waste" ] ||
   [ $((100 * (waste - drop))) -gt "$waste" ]; then
	fail "defragment freed $drop, --waste said $waste (not within 1%)"
elif [ "${VERBOSE:-0}" = 1 ]; then
	echo "ok: defragment freed $drop, --waste said $waste"
fi
run_ours after --waste --format=json k
CHECKS=$((CHECKS + 1))
[ "$(jq .total.waste "$OUT/after.out")" = 0 ] ||
	fail "after the defragment: waste $(jq .total.waste "$OUT/after.out")"
