// SPDX-License-Identifier: GPL-2.0
/* TREE_SEARCH_V2 wrapper and item iterator. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "lib/array.h"
#include "lib/radix.h"
#include "scan/search.h"

/* The kernel clamps a larger request to this (btrfs_ioctl_tree_search_v2). */
#define SEARCH_MAX_BUF	(16u << 20)
/* LOGICAL_INO_V2's result buffer: grown up to the kernel's limit
 * (btrfs_ioctl_logical_to_ino()). */
#define LOGICAL_BUF_MIN	(64u << 10)
#define LOGICAL_BUF_MAX	(16u << 20)

struct search_ctx {
	size_t buf_size;
	struct btrfs_ioctl_search_args_v2 *args;
};

struct search_ctx *search_create(size_t buf_size)
{
	struct search_ctx *ctx;

	/* Room for any one item: no item is larger than a tree block. */
	if (buf_size < SEARCH_HEADER_SIZE + BTRFS_MAX_NODESIZE)
		buf_size = SEARCH_HEADER_SIZE + BTRFS_MAX_NODESIZE;
	if (buf_size > SEARCH_MAX_BUF)
		buf_size = SEARCH_MAX_BUF;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->args = malloc(sizeof(*ctx->args) + buf_size);
	if (!ctx->args) {
		free(ctx);
		return NULL;
	}
	ctx->buf_size = buf_size;
	return ctx;
}

void search_free(struct search_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->args);
	free(ctx);
}

int search_buf_next(const uint8_t *buf, size_t used, size_t *pos,
		    struct search_item *item)
{
	struct btrfs_ioctl_search_header sh;

	if (*pos == used)
		return 0;
	if (*pos > used || used - *pos < SEARCH_HEADER_SIZE)
		return -EUCLEAN;
	/* The header is in CPU byte order, possibly unaligned. */
	memcpy(&sh, buf + *pos, SEARCH_HEADER_SIZE);
	if (sh.len > used - *pos - SEARCH_HEADER_SIZE)
		return -EUCLEAN;
	item->transid = sh.transid;
	item->objectid = sh.objectid;
	item->offset = sh.offset;
	item->type = sh.type;
	item->len = sh.len;
	item->data = buf + *pos + SEARCH_HEADER_SIZE;
	*pos += SEARCH_HEADER_SIZE + sh.len;
	return 1;
}

int search_each_ref(const struct search_item *it,
		    int (*fn)(void *arg, uint64_t dir, uint64_t index,
			      int whole),
		    void *arg)
{
	const int ext = it->type == BTRFS_INODE_EXTREF_KEY;
	const uint32_t hdr = ext ? INODE_EXTREF_SIZE : INODE_REF_SIZE;
	uint32_t pos = 0, len;
	const uint8_t *e;
	int ret;

	if (!ext && it->type != BTRFS_INODE_REF_KEY)
		return 0;
	while (it->len - pos >= hdr) {
		e = it->data + pos;
		len = get_le16(e + (ext ? INODE_EXTREF_NAME_LEN :
				    INODE_REF_NAME_LEN));
		ret = fn(arg, ext ? get_le64(e + INODE_EXTREF_PARENT) :
				    it->offset,
			 get_le64(e + (ext ? INODE_EXTREF_INDEX :
					     INODE_REF_INDEX)),
			 len <= it->len - pos - hdr);
		if (ret)
			return ret;
		pos += hdr + len;
		if (pos > it->len)
			break;
	}
	return 0;
}

static int count_ref(void *arg, uint64_t dir, uint64_t index, int whole)
{
	(void)dir;
	(void)index;
	(void)whole;
	++*(uint32_t *)arg;
	return 0;
}

uint32_t search_ref_names(const struct search_item *it)
{
	uint32_t n = 0;

	search_each_ref(it, count_ref, &n);
	return n;
}

int search_key_advance(struct btrfs_ioctl_search_key *key, uint64_t objectid,
		       uint32_t type, uint64_t offset)
{
	if (offset < UINT64_MAX) {
		offset++;
	} else if (type < UINT8_MAX) {
		offset = 0;
		type++;
	} else if (objectid < UINT64_MAX) {
		offset = 0;
		type = 0;
		objectid++;
	} else {
		return 1;
	}
	key->min_objectid = objectid;
	key->min_type = type;
	key->min_offset = offset;
	return 0;
}

int search_key_past_max(const struct btrfs_ioctl_search_key *key)
{
	if (key->min_objectid != key->max_objectid)
		return key->min_objectid > key->max_objectid;
	if (key->min_type != key->max_type)
		return key->min_type > key->max_type;
	return key->min_offset > key->max_offset;
}

int search_step(struct search_ctx *ctx, int fd,
		       struct btrfs_ioctl_search_key *key, uint32_t nodesize,
		       search_cb cb, void *arg, int *more)
{
	struct btrfs_ioctl_search_args_v2 *args = ctx->args;
	struct search_item item;
	size_t pos;
	int ret;

	*more = 0;
	if (!nodesize || nodesize > BTRFS_MAX_NODESIZE)
		nodesize = BTRFS_MAX_NODESIZE;
	key->nr_items = UINT32_MAX;
	args->key = *key;
	args->buf_size = ctx->buf_size;
	if (ioctl(fd, BTRFS_IOC_TREE_SEARCH_V2, args) < 0)
		return -errno;
	if (args->key.nr_items == 0)
		return 0;

	pos = 0;
	while ((ret = search_buf_next((const uint8_t *)args->buf,
				      ctx->buf_size, &pos, &item)) > 0) {
		ret = cb(&item, arg);
		if (ret)
			return ret;
		if (--args->key.nr_items == 0)
			break;
	}
	if (ret < 0 || args->key.nr_items)
		return -EUCLEAN;

	/*
	 * copy_to_sk() stops a batch early only when the next item does not
	 * fit in what is left of the buffer.  If a header plus a whole tree
	 * block still fit, the kernel stopped because the range ended: skip
	 * the empty extra search.
	 */
	if (ctx->buf_size - pos >= SEARCH_HEADER_SIZE + nodesize)
		return 0;
	if (search_key_advance(key, item.objectid, item.type, item.offset) ||
	    search_key_past_max(key))
		return 0;
	*more = 1;
	return 0;
}

int search_run(struct search_ctx *ctx, int fd,
	       const struct btrfs_ioctl_search_key *start, uint32_t nodesize,
	       search_cb cb, void *arg)
{
	struct btrfs_ioctl_search_key key = *start;
	int ret, more;

	do
		ret = search_step(ctx, fd, &key, nodesize, cb, arg, &more);
	while (!ret && more);
	return ret;
}

void search_key_range(struct btrfs_ioctl_search_key *key, uint64_t tree_id,
		      uint64_t min_objectid, uint32_t min_type,
		      uint64_t max_objectid, uint32_t max_type)
{
	memset(key, 0, sizeof(*key));
	key->tree_id = tree_id;
	key->min_objectid = min_objectid;
	key->min_type = min_type;
	key->max_objectid = max_objectid;
	key->max_type = max_type;
	key->max_offset = UINT64_MAX;
	key->max_transid = UINT64_MAX;
}

int search_file_extents(struct search_ctx *ctx, int fd, uint64_t ino,
			uint32_t nodesize, search_cb cb, void *arg)
{
	struct btrfs_ioctl_search_key key;

	search_key_range(&key, 0, ino, BTRFS_EXTENT_DATA_KEY, ino,
			 BTRFS_EXTENT_DATA_KEY);
	return search_run(ctx, fd, &key, nodesize, cb, arg);
}

/*
 * The batch (search.h).  It asks for the items of SEARCH_BATCH_SPAN inodes
 * from the one wanted, as many as one ioctl's buffer takes, and keeps
 * copies of their EXTENT_DATA items.  A full batch costs as much as
 * several searches of one file, so one that answered fewer than
 * SEARCH_BATCH_MIN files (a walk out of inode order: files renamed into
 * their directories in another order than they were made) makes the next
 * files searched one by one: SEARCH_BATCH_COOL of them, twice as many
 * after each batch that did not pay again, up to SEARCH_BATCH_COOL_MAX
 * (where the batches still tried add little to searching file by file).
 */
#define SEARCH_BATCH_BUF	(64u << 10)
#define SEARCH_BATCH_SPAN	256
#define SEARCH_BATCH_MIN	8
#define SEARCH_BATCH_COOL	16
#define SEARCH_BATCH_COOL_MAX	1024

struct batch_item {
	uint64_t ino;
	uint64_t offset;
	uint64_t transid;
	size_t data;		/* offset of its bytes in search_batch.data */
	uint32_t len;
};

struct search_batch {
	struct search_ctx *ctx;
	int valid;
	uint64_t dev;
	uint64_t lo, hi;	/* every inode lo..hi read whole */
	int wide;		/* asked for more than one inode */
	struct batch_item *items;	/* in key order */
	size_t n, cap;
	uint8_t *data;
	size_t used, data_cap;
	uint64_t last;		/* objectid of the last item of the search */
	unsigned served;	/* files answered by this batch */
	unsigned cool;		/* files still to search one by one */
	unsigned backoff;	/* cool after the next batch that does not pay */
};

struct search_batch *search_batch_create(void)
{
	struct search_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->ctx = search_create(SEARCH_BATCH_BUF);
	b->data_cap = 4096;
	b->data = malloc(b->data_cap);
	if (!b->ctx || !b->data) {
		search_batch_free(b);
		return NULL;
	}
	return b;
}

void search_batch_free(struct search_batch *b)
{
	if (!b)
		return;
	search_free(b->ctx);
	free(b->items);
	free(b->data);
	free(b);
}

static int batch_keep(const struct search_item *item, void *arg)
{
	struct search_batch *b = arg;
	struct batch_item *it;
	uint8_t *d;

	b->last = item->objectid;
	if (item->type != BTRFS_EXTENT_DATA_KEY)
		return 0;
	it = array_grow(b->items, &b->cap, b->n, sizeof(*it));
	if (!it)
		return -ENOMEM;
	b->items = it;
	if (item->len) {
		d = array_grow(b->data, &b->data_cap,
			       b->used + item->len - 1, 1);
		if (!d)
			return -ENOMEM;
		b->data = d;
	}
	it = &b->items[b->n++];
	it->ino = item->objectid;
	it->offset = item->offset;
	it->transid = item->transid;
	it->len = item->len;
	it->data = b->used;
	if (item->len)
		memcpy(b->data + b->used, item->data, item->len);
	b->used += item->len;
	return 0;
}

/* A new batch from inode ino; returns 0, 1 when ino's own items fill a
 * search's buffer (search it alone), or an error. */
static int batch_fill(struct search_batch *b, int fd, uint64_t dev,
		      uint64_t ino, uint32_t nodesize)
{
	struct btrfs_ioctl_search_key key;
	uint64_t span = 0;
	int ret, more, wide;

	if (!b->backoff)
		b->backoff = SEARCH_BATCH_COOL;
	if (b->valid && b->wide && b->served < SEARCH_BATCH_MIN) {
		b->cool = b->backoff;
		if (b->backoff < SEARCH_BATCH_COOL_MAX)
			b->backoff *= 2;
	} else if (b->valid && b->wide) {
		b->backoff = SEARCH_BATCH_COOL;
	}
	if (b->cool)
		b->cool--;
	else
		span = ino <= UINT64_MAX - SEARCH_BATCH_SPAN ?
		       SEARCH_BATCH_SPAN : UINT64_MAX - ino;
	wide = span > 0;
	b->valid = 0;
	b->n = 0;
	b->used = 0;
	b->last = ino;
	search_key_range(&key, 0, ino, BTRFS_EXTENT_DATA_KEY, ino + span,
			 BTRFS_EXTENT_DATA_KEY);
	ret = search_step(b->ctx, fd, &key, nodesize, batch_keep, b, &more);
	if (ret)
		return ret;
	if (more) {
		/* The last inode met may have more items past the buffer. */
		if (b->last == ino)
			return 1;
		span = b->last - 1 - ino;
		while (b->n && b->items[b->n - 1].ino > ino + span)
			b->used = b->items[--b->n].data;
	} else {
		/* Not past the last inode there is: one made after this
		 * search is searched alone when the walk meets it. */
		span = b->last - ino;
	}
	b->valid = 1;
	b->wide = wide;
	b->dev = dev;
	b->lo = ino;
	b->hi = ino + span;
	b->served = 0;
	return 0;
}

/* The first item of an inode in a batch's items (sorted), or n. */
LOWER_BOUND_DEFINE(items_find, struct batch_item, ino)

int search_batch_file_extents(struct search_batch *b, int fd, uint64_t dev,
			      uint64_t ino, uint32_t nodesize, search_cb cb,
			      void *arg)
{
	struct search_item item;
	size_t lo;
	int ret;

	if (!b->valid || b->dev != dev || ino < b->lo || ino > b->hi) {
		ret = batch_fill(b, fd, dev, ino, nodesize);
		if (ret == 1)
			return search_file_extents(b->ctx, fd, ino, nodesize,
						   cb, arg);
		if (ret)
			return ret;
	}
	b->served++;
	for (lo = items_find(b->items, b->n, ino);
	     lo < b->n && b->items[lo].ino == ino; lo++) {
		const struct batch_item *it = &b->items[lo];

		item.transid = it->transid;
		item.objectid = it->ino;
		item.offset = it->offset;
		item.type = BTRFS_EXTENT_DATA_KEY;
		item.len = it->len;
		item.data = b->data + it->data;
		ret = cb(&item, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int search_logical(int fd, uint64_t logical, struct logical_buf *lb,
		   struct btrfs_data_container **dc)
{
	struct btrfs_ioctl_logical_ino_args args;

	for (;;) {
		if (!lb->buf) {
			lb->size = lb->size ? lb->size * 4 : LOGICAL_BUF_MIN;
			lb->buf = malloc(lb->size);
			if (!lb->buf)
				return -ENOMEM;
		}
		memset(&args, 0, sizeof(args));
		args.logical = logical;
		args.size = lb->size;
		args.flags = BTRFS_LOGICAL_INO_ARGS_IGNORE_OFFSET;
		args.inodes = (uintptr_t)lb->buf;
		if (ioctl(fd, BTRFS_IOC_LOGICAL_INO_V2, &args))
			return -errno;
		*dc = lb->buf;
		if (!(*dc)->bytes_missing || lb->size >= LOGICAL_BUF_MAX)
			return 0;
		free(lb->buf);
		lb->buf = NULL;
	}
}
