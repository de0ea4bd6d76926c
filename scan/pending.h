/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Changes not yet committed: which subvolumes a tree search may see only
 * in part.
 *
 * btrfs inserts and deletes DIR_INDEX items and updates inode items
 * (nlink, size) lazily, as delayed items kept beside the tree and flushed
 * at the next transaction commit (delayed-inode.c); TREE_SEARCH_V2 sees
 * the tree without them.  Every change that leaves delayed items updates
 * its subvolume's root item in memory first: btrfs_update_inode() and
 * btrfs_create_new_inode() call btrfs_update_root_times(), which sets its
 * ctransid to the running transaction.  A commit flushes every delayed item
 * before it writes the extent tree's root item (commit_cowonly_roots()),
 * whose generation is therefore the last transaction whose delayed items
 * are all in the trees.  So a subvolume whose ctransid is no later than
 * that generation has no delayed item: its tree is complete.
 */
#ifndef COMPSIZE_PENDING_H
#define COMPSIZE_PENDING_H

#include <stdint.h>
#include "scan/search.h"

/*
 * The generation of the extent tree's root item, read through fd (any
 * file or directory of the filesystem) into *gen: no later than the last
 * committed transaction.  0 when the filesystem has no such item.
 * Returns 0, or -errno from the search (-EPERM without CAP_SYS_ADMIN).
 */
int pending_committed(struct search_ctx *s, int fd, uint32_t nodesize,
		      uint64_t *gen);

/* Each root's last snapshot, read once per root (pending_last_snapshot());
 * zero it to start, pending_snaps_free() it after. */
struct pending_snaps {
	struct pending_snap { uint64_t id, last; } *v;
	size_t n, cap;
};

/*
 * The transid of root's last snapshot (its root item's last_snapshot):
 * a snapshot taken since an extent was written shares the leaf of its
 * reference, which no back reference says.  ~0 when unknown (no item, a
 * failed search); with *err = -ENOMEM when c could not grow.
 */
uint64_t pending_last_snapshot(struct pending_snaps *c, struct search_ctx *s,
			       int fd, uint32_t nodesize, uint64_t root,
			       int *err);
void pending_snaps_free(struct pending_snaps *c);

/*
 * Whether the subvolume that fd is in may have changes a tree search
 * doesn't see: 0 when every change to it is in its tree (its in-memory
 * ctransid, BTRFS_IOC_GET_SUBVOL_INFO, is no later than committed, from
 * pending_committed()), 1 when it may have, or when that can't be told.
 */
int pending_subvol(int fd, uint64_t committed);

/*
 * Open inode ino of subvolume tree_id on the filesystem fd is on, of
 * generation gen (its inode item's), through its file handle
 * (open_by_handle_at(2), which needs CAP_DAC_READ_SEARCH; btrfs_get_dentry()
 * checks the generation), with open(2)'s flags.  Returns the descriptor
 * or -errno.
 */
int pending_open(int fd, uint64_t tree_id, uint64_t ino, uint64_t gen,
		 int flags);

/*
 * The same for the subvolume tree_id of the filesystem fd is on, reached
 * through its root directory's file handle (open_by_handle_at(), which
 * needs CAP_DAC_READ_SEARCH; 1 without it).  Returns 0, 1, or -ENOMEM.
 */
int pending_subvol_id(struct search_ctx *s, int fd, uint32_t nodesize,
		      uint64_t tree_id, uint64_t committed);

#endif
