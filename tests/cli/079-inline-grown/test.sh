#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto quick estimate kernel
# Files that outgrew an inline extent the kernel kept: a page of text
# stored inline, then pages written after it (a database grown a page at
# a time); text stored inline, then preallocated space after it, cut
# back; a few bytes stored inline, then a page written past a hole.  The
# same layout writes the inline part as the small file it was: for the
# setting they were written with it is the usage compsize 1.5 reports,
# exactly, with a snapshot of them too; for another setting, what the
# same writes use on a filesystem mounted with it.  --rewrite, which
# defragment writes in one go, against the real defragment.
. "$(dirname "$0")/../common.sh"

# build: the writes, in the current directory
build()
{
	text_data 4096 >db
	text_data 2049 >grown
	text_data 100 >hole
	sync
	text_data 8192 | dd of=db bs=4096 seek=1 conv=notrunc status=none
	fallocate -l 1504096 grown
	text_data 4096 | dd of=hole bs=4096 seek=2 conv=notrunc status=none
	sync
	truncate -s 52155 grown
	sync
}

# disk PATH...: compsize 1.5's Disk Usage of PATH..., in bytes
disk()
{
	"$ORACLE" -b "$@" | awk '$1 == "TOTAL" { print $3 }'
}

# pred SETTING PATH...: the same layout's prediction, into P (not in a
# subshell: the checks and failures count)
pred()
{
	local s=$1
	shift
	expect_ours 0 '' -b -e "$s" --format=json "$@"
	P=$(jq -r '.estimates[0].disk' "$OUT/ours.out")
}

sets=(zstd:1 lzo zlib:3 compress-force=zstd:3)
for a in "${sets[@]}"; do
	opt=$a
	[[ $a == compress-force=* ]] || opt=compress=$a
	setup_fs "$opt"
	build
	for f in db grown hole; do
		pred "$a" "$f"
		[ "$P" = "$(disk "$f")" ] ||
			fail "$a, $f: predicted $P, uses $(disk "$f")"
	done
	btrfs -q subvolume snapshot . snap >/dev/null
	sync
	pred "$a" .
	[ "$P" = "$(disk .)" ] ||
		fail "$a, with a snapshot: predicted $P, uses $(disk .)"
	# every other setting, to be checked against the same writes under it
	: >"$TESTDIR/pred.$a"
	for b in "${sets[@]}"; do
		[ "$b" = "$a" ] && continue
		for f in db grown hole; do
			pred "$b" "$f"
			echo "$b $f $P" >>"$TESTDIR/pred.$a"
		done
	done
done
# the images of the loop above, each the writes under that setting
i=0
for b in "${sets[@]}"; do
	cd "${FS_MNTS[$i]}" || fail "no image for $b"
	for a in "${sets[@]}"; do
		[ "$b" = "$a" ] && continue
		while read -r s f p; do
			[ "$s" = "$b" ] || continue
			CHECKS=$((CHECKS + 1))
			[ "$p" = "$(disk "$f")" ] ||
				fail "$f written under $a, predicted $p under $b; the same writes under $b use $(disk "$f")"
		done <"$TESTDIR/pred.$a"
	done
	i=$((i + 1))
done
# defragment writes each file in one go, its inline extent with the rest:
# --rewrite against the real one (-czstd: zstd:3 with btrfs-progs 6.2)
setup_fs compress=zstd:1
build
expect_ours 0 '' -b -e zstd:3 --rewrite --format=json db grown hole
want=$(jq -r '.estimates[0].rewrite_change' "$OUT/ours.out")
before=$(disk .)
btrfs filesystem defragment -czstd db grown hole
sync
CHECKS=$((CHECKS + 1))
[ "$want" = "$(($(disk .) - before))" ] ||
	fail "--rewrite: predicted $want, defragment changed $(($(disk .) - before))"
true
