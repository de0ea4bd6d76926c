/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BTRFS_IOC_TREE_SEARCH_V2: a reusable result buffer and an iterator over
 * the items the kernel returns, repeating the ioctl until the key range is
 * exhausted.
 */
#ifndef COMPSIZE_SEARCH_H
#define COMPSIZE_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include "ioctl.h"

struct search_item {
	uint64_t transid;
	uint64_t objectid;
	uint64_t offset;
	uint32_t type;
	uint32_t len;
	const uint8_t *data;	/* len bytes of the on-disk item */
};

struct search_ctx;

/* A search buffer of buf_size bytes (rounded up to hold any one item).
 * Returns NULL when out of memory. */
struct search_ctx *search_create(size_t buf_size);
void search_free(struct search_ctx *ctx);

/* Called for each item in key order; a non-zero return stops the search and
 * becomes search_run()'s return value. */
typedef int (*search_cb)(const struct search_item *item, void *arg);

/*
 * The names of its inode an INODE_REF or INODE_EXTREF item holds (names
 * in one directory, or whose hashes collide, share an item); 0 for any
 * other item.  A name counts when its header is whole.  Unlike the inode
 * item's nlink, which a link made or removed leaves stale until the next
 * commit (delayed-inode.c), these items change at once, but for the last
 * name's removal (btrfs_delayed_delete_inode_ref()).
 */
uint32_t search_ref_names(const struct search_item *item);

/*
 * fn(arg, dir, index, whole) for each of those names, in the item's
 * order: the directory that holds it, its index there (its DIR_INDEX
 * item's offset), and whether its bytes lie within the item (a name
 * past the end is the last).  A non-zero return stops and is returned;
 * 0 otherwise, and for any other item.
 */
int search_each_ref(const struct search_item *item,
		    int (*fn)(void *arg, uint64_t dir, uint64_t index,
			      int whole),
		    void *arg);

/*
 * Search the tree of the subvolume fd is in (key->tree_id 0) or the tree
 * key->tree_id, for items between the key's min and max, calling cb for
 * each.  nodesize is the filesystem's tree block size, used to know when a
 * batch that did not fill the buffer was the last one.
 * Returns 0, the callback's non-zero value, -errno from the ioctl, or
 * -EUCLEAN if the kernel returned a malformed buffer.
 */
int search_run(struct search_ctx *ctx, int fd,
	       const struct btrfs_ioctl_search_key *key, uint32_t nodesize,
	       search_cb cb, void *arg);

/*
 * One ioctl of a search from *key: cb for each item it returns.  Sets
 * *more, and *key past the last item, when items of the range may remain
 * beyond this batch.  Returns 0, the callback's non-zero value, -errno
 * from the ioctl, or -EUCLEAN.
 */
int search_step(struct search_ctx *ctx, int fd,
		struct btrfs_ioctl_search_key *key, uint32_t nodesize,
		search_cb cb, void *arg, int *more);

/*
 * Set *key to every item of tree tree_id (0: the subvolume of the fd
 * searched) from (min_objectid, min_type, 0) to (max_objectid, max_type,
 * UINT64_MAX), of any transaction.
 */
void search_key_range(struct btrfs_ioctl_search_key *key, uint64_t tree_id,
		      uint64_t min_objectid, uint32_t min_type,
		      uint64_t max_objectid, uint32_t max_type);

/* The same search for all EXTENT_DATA items of inode ino. */
int search_file_extents(struct search_ctx *ctx, int fd, uint64_t ino,
			uint32_t nodesize, search_cb cb, void *arg);

/*
 * Decode the item at *pos in a buffer of used bytes filled by the kernel and
 * advance *pos past it.  Returns 1 with *item filled, 0 at the end of the
 * buffer, -EUCLEAN if the buffer ends inside a header or an item.
 */
int search_buf_next(const uint8_t *buf, size_t used, size_t *pos,
		    struct search_item *item);

/* Raise a key to just past (objectid, type, offset); returns 0, or 1 when
 * that key was the last possible one. */
int search_key_advance(struct btrfs_ioctl_search_key *key, uint64_t objectid,
		       uint32_t type, uint64_t offset);

/* Is the key's minimum past the compound maximum of its range? */
int search_key_past_max(const struct btrfs_ioctl_search_key *key);

/* LOGICAL_INO_V2's results, in a buffer grown as a call needs (start it
 * zeroed; free(buf) at the end). */
struct logical_buf {
	void *buf;
	size_t size;
};

/*
 * Every (inode, file offset, root) that references the extent at logical
 * (BTRFS_LOGICAL_INO_ARGS_IGNORE_OFFSET: the items' keys) into lb, grown
 * fourfold until they all fit or it reaches the kernel's limit (16 MiB;
 * then (*dc)->elem_missed counts those left out).  Returns 0 with *dc in
 * lb->buf, -ENOENT when the extent tree has no such extent (freed, or
 * written in the running transaction), -ENOMEM or -errno.
 */
int search_logical(int fd, uint64_t logical, struct logical_buf *lb,
		   struct btrfs_data_container **dc);

/*
 * The EXTENT_DATA items of many files from few searches.  A walk meets the
 * files of a tree in about the order of their inode numbers (cp -a, tar,
 * and snapshots of what they made, create them in that order), and one
 * search of a run of inodes costs about what one search of one file's
 * items does: with a snapshot, the sharers' searches were a third of a
 * sample's time.  A batch keeps copies of the EXTENT_DATA items of the
 * inodes it read whole and answers the files in that range from them.
 */
struct search_batch;

/* Returns NULL when out of memory. */
struct search_batch *search_batch_create(void);
void search_batch_free(struct search_batch *b);

/*
 * What search_file_extents(ctx, fd, ino, nodesize, cb, arg) does, from
 * the batch when it holds inode ino of the subvolume fd is in (dev: its
 * st_dev, which tells subvolumes apart), or after a new search: cb for
 * each EXTENT_DATA item of ino in key order.  The items are as the tree
 * was when the batch was read.  Returns 0, the callback's non-zero
 * value, -errno from the ioctl, -ENOMEM, or -EUCLEAN.
 */
int search_batch_file_extents(struct search_batch *b, int fd, uint64_t dev,
			      uint64_t ino, uint32_t nodesize, search_cb cb,
			      void *arg);

#endif
