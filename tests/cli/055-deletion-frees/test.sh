#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto exclusive kernel
# Exclusive is what a deletion frees (issue #56), the kernel's own count
# of space (btrfs filesystem usage -b: the Data and Metadata block groups'
# Used, a tree block once whatever the DUP: qgroup.sh, fs_used).
#
# (a) Subvolumes: the snapshot --subvolumes ranks first by exclusive is
#     deleted for real (btrfs subvolume delete, then the cleaner: btrfs
#     subvolume sync); between the two its row, being deleted, keeps its
#     figures.  Data Used drops by exactly its exclusive_data; Metadata
#     Used by exactly its exclusive_metadata plus what the trees that are
#     no subvolume's shrank by (counted with dump-tree before and after):
#     the extent tree loses an item a tree block and a data extent freed,
#     the csum tree 4 bytes a 4 KiB sector of data (crc32c), and no qgroup
#     counts either.  Data + Metadata Used thus drop by exclusive and that
#     shrink, which is bounded: at most a tree block per 4 MiB of data
#     freed (4 KiB of checksums there: a quarter of a 16 KiB leaf), per 128
#     tree blocks freed (their 58-byte items: half a leaf) and 2 more for
#     leaves merged, never less than 0.  A case of inline files only (no
#     data: the extent tree still shrinks by a leaf or two) and a case
#     with data (30 MiB, compressed and bookended extents).
# (b) Sets of paths: --exclusive of a directory (and of two paths in two
#     subvolumes) with hard links inside and outside it, reflinks inside,
#     outside and across subvolumes, bookends, files shared with a writable
#     snapshot; rm -rf of the set lowers Data Used by exactly its
#     exclusive_data.  Its exclusive_metadata (the inline data of its files
#     in leaves no other subvolume shares) is at most the inline data of
#     the files the deletion removes, and all of it in a subvolume nothing
#     shares.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../qgroup.sh"

IMAGE_SIZE=1G

# delete_largest LABEL SNAPSHOT...: delete the snapshot of the largest
# exclusive, check its row while it waits for the cleaner, and what its
# cleaning freed.  Leaves fd, the data freed.
delete_largest()
{
	local label=$1 s id best=$2 bestx=-1 line
	local excl rfer d m dead path bd bm ad am bo ao bt at fm fo dx ns tol
	shift
	ours_subvols "$OUT/$label.live" "$MNT"
	for s in "$@"; do
		id=$(btrfs inspect-internal rootid "$s")
		read -r _ excl _ < <(row "$OUT/$label.live" "$id") || true
		if [ "${excl:--1}" -gt "$bestx" ]; then
			best=$s
			bestx=$excl
		fi
	done
	id=$(btrfs inspect-internal rootid "$best")
	line=$(row "$OUT/$label.live" "$id")
	read -r _ excl rfer d m dead path <<<"$line"
	[ "${VERBOSE:-0}" = 0 ] || echo "$label: deleting $best: $line"
	read -r bd bm < <(fs_used "$MNT")
	read -r bo bt < <(other_blocks "$MNT")

	btrfs -q subvolume delete "$best"
	sync    # committed; btrfs filesystem sync would wake the cleaner
	ours_subvols "$OUT/$label.dead" "$MNT"
	CHECKS=$((CHECKS + 1))
	[ "$(dead_roots "$MNT")" = "$id" ] ||
		fail "$label: the cleaner dropped $best before the check (dead: '$(dead_roots "$MNT")')"
	CHECKS=$((CHECKS + 1))
	read -r _ dx _ _ _ dead path < <(row "$OUT/$label.dead" "$id") || true
	[ "${dx:-}" = "$excl" ] && [ "${dead:-}" = true ] && [[ $path == '""' || $path == - ]] ||
		fail "$label: $best being deleted: row '$(row "$OUT/$label.dead" "$id")', alive: '$line'"

	btrfs filesystem sync "$MNT"
	btrfs subvolume sync "$MNT" >/dev/null
	read -r ad am < <(fs_used "$MNT")
	read -r ao at < <(other_blocks "$MNT")
	ns=$(fs_nodesize "$MNT")
	fd=$((bd - ad))
	fm=$((bm - am))
	fo=$(((bo - ao) * ns))
	echo "$label: deleted $best (id $id): exclusive $excl (data $d, metadata $m); freed $((fd + fm)) (data $fd, metadata $fm, of which $fo in trees no qgroup counts: blocks of root extent dev csum uuid free-space block-group data-reloc [$bt] -> [$at])"
	CHECKS=$((CHECKS + 1))
	[ "$d" = - ] || [ "$fd" = "$d" ] ||
		fail "$label: deleting $best freed $fd bytes of data, exclusive_data $d"
	CHECKS=$((CHECKS + 1))
	[ "$m" = - ] || [ $((fm - fo)) = "$m" ] ||
		fail "$label: deleting $best freed $((fm - fo)) bytes of subvolume tree blocks, exclusive_metadata $m"
	CHECKS=$((CHECKS + 1))
	[ $((fd + fm - fo)) = "$excl" ] ||
		fail "$label: deleting $best freed $((fd + fm - fo)) bytes of data and subvolume tree blocks, exclusive $excl"
	# that shrink, bounded (see the top): a block per 4 MiB of data freed,
	# per 128 tree blocks freed (skinny extent items, 58 bytes each), 2
	CHECKS=$((CHECKS + 1))
	tol=$((ns * (2 + (fd + (4 << 20) - 1) / (4 << 20) + (fm / ns + 127) / 128)))
	[ "$fo" -ge 0 ] && [ "$fo" -le "$tol" ] ||
		fail "$label: deleting $best freed $fo bytes beyond the subvolume's (0 to $tol allowed)"
}

# (a) metadata only: inline files in a subvolume and its snapshots
setup_fs commit=300
btrfs -q subvolume create sv
small_files sv/a 3000 1
sync
btrfs -q subvolume snapshot -r sv s1
for i in $(seq 0 20 2999); do echo edit >>sv/a/f$i; done
rm sv/a/f1*
small_files sv/b 500 2
sync
btrfs -q subvolume snapshot -r sv s2
rm sv/a/f2* sv/b/f3*
btrfs -q subvolume snapshot sv w3
small_files w3/own 300 3
echo w >>w3/a/f5
sync
delete_largest meta s1 s2 w3
CHECKS=$((CHECKS + 1))
[ "$fd" = 0 ] || fail "meta: data freed ($fd): not a metadata-only case"
# and the next largest
delete_largest meta2 s2 w3

# (a) data: a snapshot holds files deleted from the subvolume since
setup_fs commit=300,compress=zstd
btrfs -q subvolume create sv
random_data 30M >sv/a
text_data 8M >sv/text                   # compressed: 128 KiB extents
small_files sv/s 500 4 100 900
random_data 6M >sv/keep
sync
btrfs -q subvolume snapshot -r sv s1
rm sv/a sv/text sv/s/f1*
poke sv/keep 10 50 20 5                 # bookends: the extents stay whole
random_data 5M >sv/b
sync
btrfs -q subvolume snapshot -r sv s2
rm sv/b
sync
delete_largest data s1 s2

# (b) sets of paths: exclusive_data is what rm frees in Data Used
setup_fs commit=300
btrfs -q subvolume create sv
btrfs -q subvolume create other
S=sv/S
mkdir -p $S/sub sv/out
writes()
{
	random_data 8M >$S/only                 # the set's alone
	random_data 4M >$S/hl1                  # hard links, both in the set
	ln -f $S/hl1 $S/sub/hl2
	random_data 2M >$S/hlout                # a link outside: kept
	ln -f $S/hlout sv/out/hlout
	random_data 3M >$S/rin                  # reflinked inside the set
	random_data 5M >$S/rout                 # reflinked outside: kept
	random_data 1M >$S/rx                   # reflinked to another subvolume
	random_data 8M >$S/book                 # bookend: all 8 MiB freed, + 1
	random_data 4M >$S/rpart                # the copy outside partly rewritten
	random_data 2M >$S/rgone                # the copy outside wholly rewritten
}
writes
random_data 6M >$S/snap                 # shared with the snapshot
small_files $S/sub 200 5 100 1900       # inline
random_data 3M >sv/out/keep
sync
btrfs -q subvolume snapshot sv snap1    # writable
writes                                  # new extents: only snap keeps sharing
sync
cp --reflink=always $S/rin $S/sub/rin2
cp --reflink=always $S/rout sv/out/rout
mkdir other/X
cp --reflink=always $S/rx other/X/rx
cp --reflink=always $S/rpart sv/out/rpart
cp --reflink=always $S/rgone sv/out/rgone
cp --reflink=always snap1/S/only snap1/S/only-again
sync
poke $S/book 768 1 256 6
poke sv/out/rpart 0 1 512 7
poke sv/out/rgone 0 1 512 8
# a subvolume nothing shares: its inline data is all exclusive metadata
btrfs -q subvolume create solo
small_files solo/T 300 9 100 1900
ln solo/T/f7 solo/kept-link             # f7 stays
random_data 2M >solo/T/data
sync

# check_set LABEL DATA PATH...: --exclusive of the paths, then rm -rf of
# them, which must free DATA bytes of data (the case is what it says)
check_set()
{
	local label=$1 want=$2 excl d m bd bm ad am fi inline=0 files
	shift 2
	ours_pathset "$OUT/$label.set" "$MNT" "$@"
	read -r excl d m <"$OUT/$label.set"
	fi=$(btrfs filesystem du -s --raw "$@" | awk 'NR > 1 { s += $2 } END { print s }')
	# the inline data of the files the deletion removes (every link in
	# the set): compsize 1.5's Disk of those of 2048 bytes at most (the
	# default max_inline; no compression here)
	mapfile -t files < <(find "$@" -type f -size -2049c -printf '%D:%i %n %p\n' |
		awk '{ n[$1]++; l[$1] = $2; p = $0; sub(/^[^ ]* [^ ]* /, "", p)
			if (!($1 in f)) f[$1] = p }
			END { for (i in n) if (n[i] == l[i]) print f[i] }')
	[ ${#files[@]} = 0 ] ||
		inline=$("$ORACLE" -b "${files[@]}" | awk '$1 == "TOTAL" { print $3 }')
	read -r bd bm < <(fs_used "$MNT")
	rm -rf "$@"
	read -r ad am < <(fs_used "$MNT")
	echo "$label: $*: exclusive $excl (data $d, metadata $m); rm freed data $((bd - ad)) (metadata $((bm - am))); btrfs filesystem du Exclusive $fi; inline data $inline"
	CHECKS=$((CHECKS + 1))
	[ $((bd - ad)) = "$want" ] ||
		fail "$label: rm -rf $* freed $((bd - ad)) bytes of data, not the $want the case was built for"
	CHECKS=$((CHECKS + 1))
	[ "$d" = - ] || [ $((bd - ad)) = "$d" ] ||
		fail "$label: rm -rf $* freed $((bd - ad)) bytes of data, exclusive_data $d"
	[ "$m" != - ] || return 0
	CHECKS=$((CHECKS + 1))
	[[ $excl =~ ^[0-9]+$ && $d =~ ^[0-9]+$ && $m =~ ^[0-9]+$ ]] && [ $((d + m)) = "$excl" ] ||
		fail "$label: exclusive $excl != exclusive_data $d + exclusive_metadata $m"
	CHECKS=$((CHECKS + 1))
	if ! [[ $m =~ ^[0-9]+$ ]]; then
		fail "$label: exclusive_metadata '$m'"
	elif [ "${SOLO:-0}" = 1 ]; then
		[ "$m" = "$inline" ] ||
			fail "$label: exclusive_metadata $m, the files' inline data $inline (nothing shared)"
	else
		[ "$m" -le "$inline" ] ||
			fail "$label: exclusive_metadata $m, more than the files' inline data $inline"
	fi
}
# expected: the originals of only 8 + hl 4 + rin 3 + rout 5 + rx 1 + book 8
# + rpart 4 + rgone 2 MiB = 35 MiB; not snap (sv has it), not hlout (a link
# in snap1/out)
check_set snap1-S $((35 << 20)) snap1/S
# expected: only 8 + hl 4 + rin 3 + book 9 + rgone 2 + snap 6 (snap1/S is
# gone) + rx 1 (other/X/rx is in the set) = 33 MiB; not rout, rpart, hlout
check_set sv-S $((33 << 20)) $S other/X
SOLO=1 check_set solo-T $((2 << 20)) solo/T
