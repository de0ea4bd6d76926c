#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto estimate kernel san
#
# Kernel oracle for the same-layout model on partly overwritten shared
# files (layout.h): files of mixed compressible and incompressible data
# are written under setting A, snapshotted and reflinked, then parts of
# them are overwritten (compressible and incompressible data, written
# after the snapshot in separate transactions).  `compsize -e A,B...` on
# it must predict for A the usage it has now and for each B the usage of
# the same sequence replayed on a fresh filesystem mounted with B.  Under
# compress= (no force) the kernel's heuristic and the NOCOMPRESS flag
# depend on the order the data was written in, so each write must be
# emulated as written (docs/estimate.md).
#
# Targets (lib.sh check()): as in test.sh, 0.5% for compress-force with
# zstd or lzo, 1% otherwise, where every first write is held as written by
# a file among the paths; where none is (sv2, sv4: the prediction is then
# partly extrapolated, disk_extrapolated), the kernel's figure must lie
# within the reported bounds (lib.sh bounds(): disk_min, disk_max), for
# each set and each of its files alone.
#
# Usage (as root): bash tests/cli/estimate/overwrite.sh [A [B...]]
# (default: compress=zstd:3, compress-force=zstd:3 and compress=lzo as A,
# each with some others as B).  Environment as for sharing.sh.
# Exit status: 0 all targets met, 1 a target missed, 2 setup failure.

NAME=overwrite.sh
CHECK_W=34
. "$(dirname "$0")/lib.sh"

c=$tmp/corpus
mkdir -p "$c" || die "mkdir failed"
text_files "$c/t" 120
cat "$c"/t/* | head -c 2000000 >"$c/big-text"
head -c 1500000 /usr/bin/bash >"$c/bin" || die "no /usr/bin/bash"
{ head -c 300000 "$c/big-text"; head -c 300000 /dev/urandom;
  tail -c 700000 "$c/big-text"; } >"$c/mixed"
# hex digits pass the heuristic (few byte values) but lzo, without an
# entropy stage, cannot shrink them: the inode gets NOCOMPRESS there, and
# text appended later is written raw (one chunk: the kernel compresses
# the chunks of one range in parallel, docs/estimate.md)
{ head -c 200000 "$c/big-text"; head -c 100000 /dev/urandom | od -An -tx1 |
  tr -d ' \n' | head -c 200000; } >"$c/hex"
# 64 KiB of text and of random data in turn; random data then text
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
	head -c $((i * 65536)) "$c/big-text" | tail -c 65536
	head -c 65536 /dev/urandom
done >"$c/blocks"
{ head -c 400000 /dev/urandom; head -c 900000 "$c/big-text"; } >"$c/rhead"
head -c 200000 /dev/urandom >"$c/r1"
head -c 100000 /dev/urandom >"$c/r2"
tail -c 300000 "$c/big-text" >"$c/t1"
sync

# build MNT: the sequence of writes, replayed under each setting.  sv
# and sv3 hold overwritten files whose first writes another file still
# holds as written (a snapshot, a reflinked copy); sv2 those that nothing
# else holds.
build()
{
	local m=$1
	btrfs -q subvolume create "$m/sv" >/dev/null &&
		btrfs -q subvolume create "$m/sv3" >/dev/null || return 1
	mkdir "$m/sv/a" && cp "$c/big-text" "$c/bin" "$c/mixed" "$c/hex" \
		"$m/sv/a" && cp -r "$c/t" "$m/sv/a/t" || return 1
	cp --reflink=always "$m/sv/a/mixed" "$m/sv/mixed.ref" &&
		cp "$c/mixed" "$c/big-text" "$m/sv3" &&
		cp --reflink=always "$m/sv3/mixed" "$m/sv3/mixed.ref" &&
		cp --reflink=always "$m/sv3/big-text" "$m/sv3/big-text.ref" ||
		return 1
	sync
	btrfs -q subvolume snapshot -r "$m/sv" "$m/snap" >/dev/null || return 1
	# overwrites after the snapshot: random data in the middle of text,
	# text over random data, a reflinked copy partly rewritten, text
	# after where NOCOMPRESS was set
	dd if="$c/r1" of="$m/sv/a/big-text" bs=100000 seek=7 conv=notrunc \
		status=none &&
		dd if="$c/r1" of="$m/sv/a/bin" bs=100000 seek=5 conv=notrunc \
			status=none &&
		dd if="$c/t1" of="$m/sv/a/mixed" bs=100000 seek=3 \
			conv=notrunc status=none &&
		cat "$c/t1" >>"$m/sv/a/hex" &&
		dd if="$c/t1" of="$m/sv3/mixed" bs=100000 seek=3 \
			conv=notrunc status=none &&
		dd if="$c/r1" of="$m/sv3/big-text" bs=100000 seek=7 \
			conv=notrunc status=none || return 1
	btrfs -q subvolume create "$m/sv2" >/dev/null &&
		cp "$c/mixed" "$c/big-text" "$c/hex" "$m/sv2" || return 1
	sync
	dd if="$c/r2" of="$m/sv/mixed.ref" bs=100000 seek=1 conv=notrunc \
		status=none &&
		dd if="$c/t1" of="$m/sv/a/big-text" bs=100000 seek=15 \
			conv=notrunc status=none &&
		dd if="$c/t1" of="$m/sv2/mixed" bs=100000 seek=3 \
			conv=notrunc status=none &&
		dd if="$c/r1" of="$m/sv2/big-text" bs=100000 seek=7 \
			conv=notrunc status=none &&
		cat "$c/t1" >>"$m/sv2/hex" &&
		cat "$c/t1" >>"$m/sv/a/bin" || return 1
	sync
	# sv4: more of the class nothing else holds: other data mixes and
	# patterns, over several generations (a sync each)
	btrfs -q subvolume create "$m/sv4" >/dev/null &&
		cp "$c/blocks" "$c/rhead" "$c/bin" "$c/hex" "$c/big-text" \
			"$m/sv4" || return 1
	sync
	# the middle of blocks, the head of rhead (the write's start gone),
	# the tail of big-text, small writes all over bin
	dd if="$c/t1" of="$m/sv4/blocks" bs=4096 seek=50 count=40 \
		conv=notrunc status=none &&
		dd if="$c/t1" of="$m/sv4/rhead" bs=4096 count=30 \
			conv=notrunc status=none &&
		dd if="$c/r1" of="$m/sv4/big-text" bs=4096 seek=440 \
			conv=notrunc status=none || return 1
	for o in 3 40 77 150 290; do
		dd if="$c/r2" of="$m/sv4/bin" bs=4096 seek=$o count=2 \
			conv=notrunc status=none || return 1
	done
	sync
	# again, over the first overwrites and what they left
	dd if="$c/r2" of="$m/sv4/blocks" bs=4096 seek=70 count=60 \
		conv=notrunc status=none &&
		dd if="$c/t1" of="$m/sv4/hex" bs=4096 seek=30 count=20 \
			conv=notrunc status=none &&
		dd if="$c/t1" of="$m/sv4/big-text" bs=4096 seek=300 count=10 \
			conv=notrunc status=none &&
		cat "$c/r2" >>"$m/sv4/rhead" || return 1
	sync
	dd if="$c/t1" of="$m/sv4/blocks" bs=4096 seek=10 count=5 \
		conv=notrunc status=none &&
		dd if="$c/r1" of="$m/sv4/hex" bs=4096 seek=60 count=10 \
			conv=notrunc status=none || return 1
	sync
}

# jf SET: where est() keeps SET's estimates
jf()
{
	local f=${1// /+}
	echo "$tmp/${f//\//_}.json"
}

# est SET A BS...: the estimates of SET (paths under $mnt) into $(jf SET)
est()
{
	local set=$1 list p paths=()
	shift
	for p in $set; do paths+=("$mnt/$p"); done
	list=$(IFS=,; echo "$*")
	"$COMPSIZE" -e "$list" --format=json "${paths[@]}" \
		>"$(jf "$set")" 2>"$tmp/est.err" ||
		{ cat "$tmp/est.err" >&2; die "compsize failed"; }
}

# kernel SET: compsize 1.5's Disk Usage of SET's paths together
kernel()
{
	local p paths=()
	for p in $1; do paths+=("$mnt/$p"); done
	"$ORACLE" -b "${paths[@]}" | awk '$1 == "TOTAL" { print $3 }'
}

# one A BS...: built under A, estimated for A and each B.  The held set
# must meet the targets; the alone sets (history partly gone: docs/
# estimate.md), together and each file alone, must lie within their
# bounds (disk_min, disk_max).
SETS=("sv snap sv3" "sv2" "sv4" sv2/mixed sv2/big-text sv2/hex sv4/blocks
      sv4/rhead sv4/bin sv4/hex sv4/big-text)
one()
{
	local a=$1 b set cur=$1
	fs "$tmp/img" "$mnt" "$a" || die "cannot mount a btrfs image"
	build "$mnt" || die "building the layout failed"
	for set in "${SETS[@]}"; do est "$set" "$@"; done
	for b in "$@"; do
		if [ "$b" != "$cur" ]; then
			cur=$b
			umount "$mnt"
			fs "$tmp/img" "$mnt" "$b" || die "mount with $b failed"
			build "$mnt" || die "replaying the layout under $b failed"
		fi
		for set in "${SETS[@]}"; do
			x=$(jq -r --arg s "$b" '.estimates[] |
				select(.setting == $s) |
				"\(.disk) \(.disk_extrapolated // 0)"' \
				"$(jf "$set")")
			# the held set: every first write held as written
			if [ "$set" = "${SETS[0]}" ] && [ "${x#* }" != 0 ]; then
				echo "${set// /+} from $a: $b: ${x#* } bytes extrapolated, none expected"
				failed=$((failed + 1))
			fi
			if [ "${x#* }" = 0 ]; then
				check "${set// /+} from $a" "$b" "${x% *}" \
					"$(kernel "$set")"
			else
				bounds "${set// /+} from $a" "$b" "$(kernel "$set")" \
					"$(jf "$set")"
			fi
		done
	done
	umount "$mnt"
}

printf '%-34s %-24s %10s %10s %9s\n' layout setting predicted kernel error
if [ $# -gt 0 ]; then
	one "$@"
else
	one compress=zstd:3 compress=zstd:1 compress=lzo compress-force=zstd:3
	one compress-force=zstd:3 compress=zstd:3 compress=zlib:3
	one compress=lzo compress=zstd:3
	one compress=zlib:3 compress-force=lzo compress=zstd:1
fi
echo "overwrite: $checks checks, $failed failed"
[ $failed = 0 ]
