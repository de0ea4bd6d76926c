#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto exclusive kernel san
# --subvolumes against the kernel's qgroups (issue #56): every subvolume's
# exclusive and qgroup_referenced equal the excl and rfer of its level-0
# qgroup after a rescan, to the byte (ours first with quotas off, then
# btrfs quota enable + rescan -w, then quotas off again: qgroup.sh); and
# exclusive_data + exclusive_metadata == exclusive.  The cases: snapshots
# between changes (edits, deletes and adds of inline files, bookends, a
# file of 3000 extents rewritten in part, compressed and preallocated
# extents), a nested subvolume, a writable snapshot changed after,
# reflinks inside a subvolume, across subvolumes and from a snapshot, hard
# links, a file deleted while open (an orphan inode: its extents are still
# the subvolume's); a snapshot deleted and not yet cleaned (its row being
# deleted, path "", with the figures it had alive; the others counted
# with it, as the kernel's rescan does), then cleaned; and a filesystem of
# 4 KiB nodes (trees of height 3 from 3000 inline files: implied
# references through two levels of shared nodes).
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../qgroup.sh"

# round LABEL MNT: ours, then the kernel, compared; leaves $OUT/LABEL.ours
# and $OUT/LABEL.kernel
round()
{
	ours_subvols "$OUT/$1.ours" "$2"
	kernel_qgroups "$OUT/$1.kernel" "$2"
	check_qgroups "$1" "$OUT/$1.ours" "$OUT/$1.kernel" "$2"
}

# The cleaner drops a deleted subvolume when woken: by the transaction
# kthread every commit= seconds, by btrfs filesystem sync (BTRFS_IOC_SYNC),
# by a delayed iput (data written back).  commit=300 and nothing but reads,
# sync (syncfs) and quota ioctls between the deletion and its checks hold
# it back; dead_roots tells whether it held.
IMAGE_SIZE=1G
setup_fs compress=zstd,commit=300

btrfs -q subvolume create sv
btrfs -q subvolume create B
small_files sv/small 2500 1
random_data 8M >sv/rand
text_data 8M >sv/text
poke sv/frag 0 2 3000 2                 # 3000 one-block extents
random_data 16M >sv/big
ln sv/rand sv/rand-link                 # hard links: one inode
cp --reflink=always sv/rand sv/rand-clone   # a reflink inside sv
fallocate -l 1M sv/prealloc             # preallocated, then half written
poke sv/prealloc 0 1 128 12
mkdir sv/hl
ln sv/small/f1 sv/hl/f1-link
btrfs -q subvolume create sv/nested     # not in sv's snapshots
small_files sv/nested/d 500 3
random_data 2M >sv/nested/n
sync
btrfs -q subvolume snapshot -r sv snap1
for i in $(seq 0 50 2499); do echo edit >>sv/small/f$i; done
rm sv/small/f1*
poke sv/big 1 97 42 4                   # bookends: the 16 MiB extent stays
poke sv/frag 0 40 150 5                 # every 20th extent replaced
rm sv/text
text_data 4M >sv/text2
sync
btrfs -q subvolume snapshot -r sv snap2
small_files sv/added 400 6
random_data 3M >sv/r3
cp --reflink=always sv/rand B/rand-ref
cp --reflink=always snap1/frag B/frag-from-snap1
cp --reflink=always snap1/text B/text-from-snap1
poke B/rand-ref 100 1 256 7             # 1 MiB of B's copy rewritten
random_data 1M >B/own
sync
btrfs -q subvolume snapshot sv wsnap    # writable, changed after
rm wsnap/small/f2*
small_files wsnap/own 300 8
poke wsnap/big 7 301 13 9
echo z >>wsnap/small/f5
cp --reflink=always snap2/text2 wsnap/text2-from-snap2
random_data 2M >sv/for-snapd
sync
btrfs -q subvolume snapshot -r sv snapd  # deleted below
rm sv/r3 sv/small/f3* sv/for-snapd
small_files sv/late 200 10
echo late >>sv/small/f7
# deleted while open: an orphan inode, its extents still in sv's tree
random_data 1M >sv/orphan
exec 3<sv/orphan
rm sv/orphan
sync

CHECKS=$((CHECKS + 1))
n=$("$ORACLE" -b sv/frag | sed -n 's/.*file, \([0-9]*\) regular extents.*/\1/p')
[ "$n" -ge 3000 ] || fail "sv/frag: $n extents, not 3000"
round live "$MNT"
snapd=$(btrfs inspect-internal rootid snapd)
read -r _ snapd_excl snapd_rfer < <(row "$OUT/live.kernel" "$snapd")
[ "${VERBOSE:-0}" = 0 ] || echo "snapd (id $snapd): kernel excl $snapd_excl rfer $snapd_rfer"
exec 3<&-
sync

# Deleted with quotas off, committed (sync: not the ioctl, which would wake
# the cleaner), not yet cleaned.
btrfs -q subvolume delete snapd
sync
[ "$(dead_roots "$MNT")" = "$snapd" ] ||
	fail "the cleaner dropped snapd before the check (dead: '$(dead_roots "$MNT")')"
round dead "$MNT"
CHECKS=$((CHECKS + 1))
read -r id excl rfer d m dead path < <(row "$OUT/dead.ours" "$snapd") || true
if [ -z "$id" ]; then
	fail "dead: no row for subvolume $snapd, being deleted"
elif [ "$dead" != true ] || [[ $path != '""' && $path != - ]]; then
	fail "dead: subvolume $snapd: being_deleted $dead, path $path (want true, \"\")"
elif [ "$excl" != "$snapd_excl" ] || [ "$rfer" != "$snapd_rfer" ]; then
	fail "dead: subvolume $snapd being deleted: exclusive $excl qgroup_referenced $rfer, the kernel's alive: $snapd_excl $snapd_rfer"
fi
CHECKS=$((CHECKS + 1))
[ "$(dead_roots "$MNT")" = "$snapd" ] ||
	fail "the cleaner ran during the dead round: not the state compared (dead: '$(dead_roots "$MNT")')"
# Cleaned: what snapd shared with one other subvolume is now its alone
btrfs filesystem sync "$MNT"
btrfs subvolume sync "$MNT" >/dev/null
round cleaned "$MNT"
CHECKS=$((CHECKS + 1))
[ -z "$(row "$OUT/cleaned.ours" "$snapd")" ] || fail "cleaned: a row for $snapd, deleted and cleaned"
CHECKS=$((CHECKS + 1))
cmp -s "$OUT/dead.kernel" "$OUT/cleaned.kernel" &&
	fail "cleaned: no qgroup changed when snapd was cleaned: the case does not test it"

# 4 KiB nodes: 3000 inline files, trees of height 3
setup_fs commit=300 -n 4096
btrfs -q subvolume create sv
small_files sv/a 3000 11 10 1500
sync
btrfs -q subvolume snapshot -r sv s1
for i in $(seq 0 30 2999); do echo edit >>sv/a/f$i; done
rm sv/a/f2*
small_files sv/b 200 12 10 1500
sync
btrfs -q subvolume snapshot -r sv s2
rm -r sv/a/f5*
btrfs -q subvolume snapshot sv w
small_files w/own 100 13
echo w >>w/a/f1
rm w/a/f6*
sync
round small-nodes "$MNT"
# the case is what it says: sv's tree of height 3 at least, s1's too
for t in 256 257; do
	CHECKS=$((CHECKS + 1))
	level=$(btrfs inspect-internal dump-tree -t "$t" "$TESTDIR/img1" |
		awk '$1 == "node" && l == "" {
			for (i = 2; i < NF; i++) if ($i == "level") l = $(i + 1) }
			END { print l + 0 }')
	[ "${VERBOSE:-0}" = 0 ] || echo "small nodes: tree $t's root at level $level"
	[ "$level" -ge 2 ] || fail "small nodes: tree $t's root at level $level, not 2 or more"
done
