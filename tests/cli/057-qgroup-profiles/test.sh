#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# groups: auto exclusive kernel
# --subvolumes reads the trees' interior nodes from the devices: on four
# devices with metadata striped (raid0, raid10, raid5, raid6) and mirrored
# three times (raid1c3), 4 KiB nodes so that the trees span many stripes
# of every device, each subvolume's exclusive and qgroup_referenced equal
# the kernel's qgroups.  So too with each checksum other than crc32c
# (xxhash, sha256, blake2), whose blocks compsize checks by address,
# filesystem id and generation only.
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/../qgroup.sh"

# profile_fs PROFILE: four 300 MiB loop devices, metadata PROFILE,
# mounted at $MNT.  The devices are detached at once: the kernel frees
# each when the filesystem lets it go (losetup -d on a busy device).
profile_fs()
{
	local i devs=()
	for i in 1 2 3 4; do
		truncate -s 300M "$TESTDIR/$1-$i.img"
		devs+=("$(losetup -f --show "$TESTDIR/$1-$i.img")")
	done
	mkfs.btrfs -q -f -m "$1" -d single --nodesize 4096 "${devs[@]}" >/dev/null 2>&1
	MNT=$TESTDIR/$1
	mkdir -p "$MNT"
	mount "${devs[0]}" "$MNT"
	losetup -d "${devs[@]}"
}

# qgroup_case LABEL FILES DATA: on $MNT, a subvolume of FILES small files
# and DATA bytes of random data, a read-only snapshot, every 40th file
# changed since; ours against the kernel's qgroups.
qgroup_case()
{
	btrfs -q subvolume create "$MNT/sv"
	small_files "$MNT/sv/small" "$2" 57
	random_data "$3" >"$MNT/sv/big"
	sync
	btrfs -q subvolume snapshot -r "$MNT/sv" "$MNT/s1"
	for f in $(seq 1 40 "$2"); do echo edit >>"$MNT/sv/small/f$f"; done
	sync
	ours_subvols "$OUT/ours" "$MNT"
	kernel_qgroups "$OUT/kernel" "$MNT"
	check_qgroups "$1" "$OUT/ours" "$OUT/kernel" "$MNT"
}

for profile in raid0 raid10 raid5 raid6 raid1c3; do
	profile_fs "$profile"
	qgroup_case "$profile" 1500 3M
	CHECKS=$((CHECKS + 1))
	btrfs filesystem df "$MNT" | grep -q "^Metadata, ${profile^^}:" ||
		fail "$profile: metadata is $(btrfs filesystem df "$MNT" | grep ^Metadata)"
	umount "$MNT"
done

for csum in xxhash sha256 blake2; do
	setup_fs "" --csum "$csum" --nodesize 4096
	qgroup_case "$csum" 800 2M
	cd /
	umount "$MNT"
done
