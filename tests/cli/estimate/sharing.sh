#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto estimate kernel san
#
# Kernel oracle for the estimate's two models on shared data (layout.h):
#
# - same layout: a filesystem with a subvolume, hard links, a reflinked
#   copy and a read-only snapshot is built by one sequence of commands
#   (build()) under setting A.  `compsize -e A,B...` on it must predict
#   for A the usage it has now, and for each B the usage of the same
#   sequence replayed on a fresh filesystem mounted with B (measured by
#   compsize 1.5 on the whole filesystem).
# - fresh copy: `cp -a` of the whole set (hard links kept, reflinks and
#   snapshots unshared) onto a fresh filesystem mounted with B.
#
# Targets as in test.sh: 0.5% for compress-force with zstd or lzo, 1%
# otherwise.  Lean on purpose: a corpus of ~6 MB, written 4 times.
#
# Usage (as root): bash tests/cli/estimate/sharing.sh
# Environment: COMPSIZE (default ./compsize of this tree), ORACLE (default
# /usr/sbin/compsize), KEEP=1 keeps the work directory.
# Exit status: 0 all targets met, 1 a target missed, 2 setup failure.

NAME=sharing.sh
. "$(dirname "$0")/lib.sh"
A=compress=zstd:1
BS=(compress=zstd:3 compress-force=zstd:3 compress=lzo compress-force=zlib:3)

# ---- corpus, on the host filesystem ----
c=$tmp/corpus
mkdir -p "$c/bin" "$tmp/copy" || die "mkdir failed"
text_files "$c/text" 300
cat "$c"/text/* | head -c 2000000 >"$c/big-text"
head -c 1500000 /usr/bin/bash >"$c/bin/bash-head" ||
	die "no /usr/bin/bash"
head -c 700000 /dev/urandom >"$c/random"
{ head -c 300000 "$c/big-text"; head -c 300000 /dev/urandom; } >"$c/half"
head -c 1000 "$c/big-text" >"$c/tiny"
# random data whose bytes the heuristic samples (16 of every 256) are
# letters: it passes btrfs_compress_heuristic() (a byte set under 64) and
# does not compress, so the kernel sets NOCOMPRESS on a file it starts
python3 -c 'import os, sys
b = bytearray(os.urandom(300000))
for k in range(0, len(b), 256):
    b[k:k + 16] = bytes(65 + x % 26 for x in b[k:k + 16])
sys.stdout.buffer.write(b)' >"$tmp/passes" || die "python3 failed"
sync

# build MNT: the sequence of writes, replayed under each setting.
build()
{
	local m=$1
	btrfs -q subvolume create "$m/sv" >/dev/null || return 1
	cp -a "$c" "$m/sv/a" || return 1
	# hard links: cp -a and rsync -H keep them
	ln "$m/sv/a/bin/bash-head" "$m/sv/a/bash.l1" &&
		ln "$m/sv/a/bin/bash-head" "$m/sv/a/bash.l2" &&
		ln "$m/sv/a/big-text" "$m/sv/big-text.l" || return 1
	# a reflinked copy, a reflink of one file
	cp -a --reflink=always "$m/sv/a" "$m/sv/b" &&
		cp --reflink=always "$m/sv/a/random" "$m/sv/random.ref" ||
		return 1
	# NOCOMPRESS set by the kernel under compress=, then text over the
	# data: raw in place, compressed in a copy (a new inode)
	cp "$tmp/passes" "$m/sv/flagged" && sync &&
		dd if="$c/big-text" of="$m/sv/flagged" bs=300000 count=1 \
			conv=notrunc status=none || return 1
	# text, then preallocated up to 2 MB: cp -a writes the zeros (a file
	# with as many blocks as its size)
	head -c 200000 "$c/big-text" >"$m/sv/prealloc" &&
		fallocate -l 2000000 "$m/sv/prealloc" || return 1
	# one sector of text at 0, then text after a hole: the lone
	# sector is raw and sets no NOCOMPRESS
	truncate -s 1000000 "$m/sv/lone" &&
		dd if="$c/big-text" of="$m/sv/lone" bs=4096 count=1 \
			conv=notrunc status=none &&
		dd if="$c/big-text" of="$m/sv/lone" bs=4096 seek=40 \
			count=30 conv=notrunc status=none || return 1
	# a page of text stored inline, then pages after it (a database
	# grown a page at a time), and text stored inline, then
	# preallocated space after it, cut back: the inline extents stay
	head -c 4096 "$c/big-text" >"$m/sv/db" &&
		head -c 2049 "$c/big-text" >"$m/sv/grown" && sync &&
		dd if="$c/big-text" of="$m/sv/db" bs=4096 seek=1 skip=5 \
			count=2 conv=notrunc status=none &&
		fallocate -l 1504096 "$m/sv/grown" && sync &&
		truncate -s 52155 "$m/sv/grown" || return 1
	# sparse, with blocks of zeros written inside its data: cp leaves
	# them holes too
	truncate -s 3000000 "$m/sv/zeros" &&
		{ head -c 100000 "$c/big-text"; head -c 40960 /dev/zero
		  head -c 100000 "$c/random"; } |
		dd of="$m/sv/zeros" bs=4096 seek=100 conv=notrunc \
			status=none || return 1
	sync
	btrfs -q subvolume snapshot -r "$m/sv" "$m/snap" >/dev/null || return 1
	sync
}

fs "$tmp/img" "$mnt" "$A" || die "cannot mount a btrfs image"
build "$mnt" || die "building the layout failed"
list=$(IFS=,; echo "$A,${BS[*]}")
"$COMPSIZE" -e "$list" --format=json "$mnt" >"$tmp/est.json" \
	2>"$tmp/est.err" || { cat "$tmp/est.err" >&2; die "compsize failed"; }
[ -s "$tmp/est.err" ] && { cat "$tmp/est.err" >&2; die "compsize warned"; }
jq -e '.estimates | all(.model == "same-layout")' "$tmp/est.json" \
	>/dev/null || die "not the same-layout model on btrfs as root"
# the whole set, for the fresh copies (snapshot and subvolume)
mkdir -p "$tmp/set" && cp -a "$mnt/sv" "$mnt/snap" "$tmp/set" ||
	die "copying the set out failed"
umount "$mnt"

pred()
{
	jq -r --arg s "$1" '.estimates[] | select(.setting == $s) | .'"$2" \
		"$tmp/est.json"
}

printf '%-12s %-24s %10s %10s %9s\n' model setting predicted kernel error
mount -o "loop,$A" "$tmp/img" "$mnt" || die "remount failed"
check same-layout "$A" "$(pred "$A" disk)" "$(usage "$mnt")"
umount "$mnt"
for b in "$A" "${BS[@]}"; do
	if [ "$b" != "$A" ]; then
		fs "$tmp/img" "$mnt" "$b" || die "mount with $b failed"
		build "$mnt" || die "replaying the layout under $b failed"
		check same-layout "$b" "$(pred "$b" disk)" "$(usage "$mnt")"
		umount "$mnt"
	fi
	# The kernel's figure for the same copy varies now and then: one CI
	# run of 7 gave 15,984,616 bytes under compress=zstd:1 where the
	# others, and 20 runs of this test alone, gave 15,792,104.  So the
	# kernel copies again, up to 3 times, while the prediction misses
	# its figure, and every figure it gave is printed: a prediction the
	# kernel does not give in 3 copies fails.
	seen=
	for n in 1 2 3; do
		fs "$tmp/img2" "$tmp/copy" "$b" || die "mount with $b failed"
		cp -a "$tmp/set/sv" "$tmp/set/snap" "$tmp/copy" ||
			die "fresh copy failed"
		sync
		k=$(usage "$tmp/copy")
		umount "$tmp/copy"
		seen="$seen${seen:+, }$k"
		within "$(pred "$b" disk_fresh)" "$k" "$b" && break
	done
	[ "$n" = 1 ] || echo "(the kernel's fresh copies under $b: $seen)"
	check fresh-copy "$b" "$(pred "$b" disk_fresh)" "$k"
done
echo "sharing: $checks checks, $failed failed"
[ $failed = 0 ]
