// SPDX-License-Identifier: GPL-2.0
/*
 * pending-state PATH: whether the btrfs subvolume PATH is in has changes
 * not yet committed, told the way the kernel leaves it, independently of
 * compsize's pending.c: its in-memory ctransid (BTRFS_IOC_GET_SUBVOL_INFO)
 * later than the generation of the extent tree's root item (written at
 * each commit after every delayed item is flushed).  Prints "pending" or
 * "committed" with both numbers; exits 0 when pending, 1 when committed,
 * 2 on error.  Needs CAP_SYS_ADMIN (the tree search).
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>

int main(int argc, char **argv)
{
	struct btrfs_ioctl_get_subvol_info_args info;
	struct btrfs_ioctl_search_args args;
	const struct btrfs_ioctl_search_header *h = (const void *)args.buf;
	struct btrfs_root_item root;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: pending-state PATH\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	memset(&args, 0, sizeof(args));
	args.key.tree_id = BTRFS_ROOT_TREE_OBJECTID;
	args.key.min_objectid = args.key.max_objectid = BTRFS_EXTENT_TREE_OBJECTID;
	args.key.min_type = args.key.max_type = BTRFS_ROOT_ITEM_KEY;
	args.key.max_offset = (__u64)-1;
	args.key.max_transid = (__u64)-1;
	args.key.nr_items = 1;
	if (ioctl(fd, BTRFS_IOC_TREE_SEARCH, &args)) {
		perror("pending-state: a tree search");
		return 2;
	}
	if (args.key.nr_items < 1 ||
	    h->len < offsetof(struct btrfs_root_item, generation_v2)) {
		fprintf(stderr, "pending-state: no extent tree root item\n");
		return 2;
	}
	memcpy(&root, args.buf + sizeof(*h),
	       h->len < sizeof(root) ? h->len : sizeof(root));
	/* 1, not 0, below the top subvolume (its ROOT_BACKREF search's) */
	if (ioctl(fd, BTRFS_IOC_GET_SUBVOL_INFO, &info) < 0) {
		perror("pending-state: BTRFS_IOC_GET_SUBVOL_INFO");
		return 2;
	}
	printf("%s: subvolume %llu ctransid %llu, extent root generation %llu\n",
	       info.ctransid > root.generation ? "pending" : "committed",
	       (unsigned long long)info.treeid,
	       (unsigned long long)info.ctransid,
	       (unsigned long long)root.generation);
	return info.ctransid > root.generation ? 0 : 1;
}
