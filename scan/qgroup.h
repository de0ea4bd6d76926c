/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What deleting a subvolume frees, as the kernel's qgroups count it, with
 * quotas off: for every subvolume at once, its referenced bytes (rfer)
 * and exclusive bytes (excl) as `btrfs qgroup show --raw` reports them
 * after `btrfs quota rescan`.
 *
 * The kernel's rescan counts each extent of the extent tree (a data
 * extent's disk bytes, a tree block's nodesize) for the set R of fs trees
 * (5, >= 256; deleted ones not yet dropped included) that reach it:
 * rfer[r] sums the extents with r in R, excl[r] those with R = {r}.  R of
 * a tree block is its own root, if it is one, and the union of R of every
 * node that points to it; R of a data extent is the union over the leaves
 * holding a file extent item that points to it.
 *
 * The extent tree's back references name a root (TREE_BLOCK_REF, keyed
 * EXTENT_DATA_REF) or a parent block (SHARED_BLOCK_REF, SHARED_DATA_REF),
 * but a keyed reference does not say which parent holds the block, nor
 * that a snapshot reaches it through a node it shares: the edges are in
 * the interior nodes only.  So, in one pass each:
 *
 *   1. the chunk tree (TREE_SEARCH_V2): logical -> device map;
 *   2. the root tree: fs roots, their root node, refs, orphan items;
 *   3. the extent tree over metadata block groups: tree blocks and refs;
 *   4. top-down by level, each interior node (level >= 1, about 1/100 to
 *      1/400 of the metadata) read from the devices, read-only: bytenr,
 *      fsid, generation and (crc32c) checksum checked; its root set is
 *      unioned into its children's where their refs hold the edge;
 *   5. the extent tree over data block groups: each data extent resolved
 *      from its refs as the kernel's backref walk does (a keyed ref by
 *      the leaf a search of the root's tree lands on, found from the
 *      nodes of step 4; leaves are read only when the items may straddle
 *      two), and counted for its set.
 *
 * Root sets are interned (one copy per distinct set).  Memory: per tree
 * block about 48 bytes and 16 per reference; per key pointer of an
 * interior node 40; nothing per data extent.  Reading devices raw needs
 * CAP_SYS_ADMIN (as the tree searches do) and read access to the devices;
 * nothing is ever written.
 */
#ifndef COMPSIZE_QGROUP_H
#define COMPSIZE_QGROUP_H

#include <stddef.h>
#include <stdint.h>

struct qgroup_root {
	uint64_t id;
	uint64_t rfer;		/* the kernel's qgroup rfer */
	uint64_t excl;		/* the kernel's qgroup excl */
	uint64_t excl_data;	/* of excl, data extents' disk bytes */
	uint64_t excl_meta;	/* of excl, tree blocks (nodesize each) */
	int deleting;		/* deleted, not yet dropped by the cleaner */
	int gone;		/* referenced, but its root item is gone:
				 * dropped, its last blocks freed at the
				 * next commit (also "being deleted") */
};

struct qgroup_stats {
	uint64_t tree_blocks, data_extents, sets;
	uint64_t nodes_read, leaves_read, retries;
	/* QGROUP_PARTIAL: blocks and data extents left without their set
	 * (changed since the last commit) */
	uint64_t unresolved;
	size_t memory;		/* peak bytes held */
};

struct qgroup;

/* qgroup_compute() flags */
#define QGROUP_PARTIAL	0x1	/* changed since the last commit: no wait,
				 * what is known (qgroup_stats().unresolved) */

/*
 * Compute every fs tree's figures on the filesystem fd is on.  tick (may
 * be NULL) is called between searches and reads; its non-zero return
 * aborts with that value.  A block read that fails its checks means the
 * filesystem changed under the scan (the searches see the current trees,
 * the devices the committed ones): the whole computation is repeated once
 * the transaction that ran during it has committed (up to 35 s each),
 * never forcing a commit; after three tries -ESTALE.  With QGROUP_PARTIAL
 * it is repeated once at once if a commit came during it, and otherwise
 * returned as it is: the blocks below a changed one have no set (not
 * owned, qgroup_leaf_own()), and the figures are short of them.
 * Returns 0 with *out set, -ENOMEM, -EPERM, -ESTALE, -EOPNOTSUPP (a
 * profile whose layout is not known), -errno of a search or of a device
 * (its path then in err, of errlen bytes), or tick's value.
 */
int qgroup_compute(int fd, struct qgroup **out, char *err, size_t errlen,
		   unsigned flags, int (*tick)(void *), void *arg);
void qgroup_free(struct qgroup *q);

/* The fs trees counted, in id order. */
size_t qgroup_nroots(const struct qgroup *q);
const struct qgroup_root *qgroup_root_at(const struct qgroup *q, size_t i);
/* The tree of id, or NULL when the kernel would show it no qgroup. */
const struct qgroup_root *qgroup_find(const struct qgroup *q, uint64_t id);

/*
 * 1 when the leaf of root's tree where the key (ino, type, offset) is
 * (the leaf a search for it lands on) is reached by root alone, so that
 * no other tree keeps it; 0 when it is shared or unknown.
 */
int qgroup_leaf_own(const struct qgroup *q, uint64_t root, uint64_t ino,
		    uint8_t type, uint64_t offset);

void qgroup_stats(const struct qgroup *q, struct qgroup_stats *st);

/* One back reference kept inline in an extent item (after the item, and
 * after the tree_block_info of a non-skinny tree block). */
struct extent_ref {
	uint8_t type;		/* BTRFS_*_REF_KEY, or EXTENT_OWNER_REF */
	uint64_t val;		/* root (keyed refs), or parent block */
	uint64_t ino, off;	/* EXTENT_DATA_REF */
	uint32_t count;		/* EXTENT_DATA_REF, SHARED_DATA_REF */
};

/* The inline reference at *p into *r, *p past it: 1, 0 at end, -EUCLEAN
 * for one cut short or of a type not known. */
int extent_inline_ref(const uint8_t **p, const uint8_t *end,
		      struct extent_ref *r);

/*
 * What deleting every subvolume not already being deleted would free:
 * the bytes no deleted tree shares, data and metadata.
 */
void qgroup_live_total(const struct qgroup *q, uint64_t *data,
		       uint64_t *meta);

/*
 * Where quotas are enabled (full qgroups), compare the kernel's level-0
 * qgroup figures with q's: returns 0 when quotas are off, else 1 with a
 * sentence in msg saying whether they agree, how many differ (the first
 * one), and what the kernel's status flags say (inconsistent, rescan
 * running); -errno when the quota tree cannot be read.
 */
int qgroup_check_kernel(int fd, const struct qgroup *q, char *msg,
			size_t len);

#endif
