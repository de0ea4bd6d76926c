// SPDX-License-Identifier: GPL-2.0
/* TREE_SEARCH_V2 wrapper and item iterator. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "search.h"

/* The kernel clamps a larger request to this (btrfs_ioctl_tree_search_v2). */
#define SEARCH_MAX_BUF	(16u << 20)

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

/* Past the compound maximum of the key range? */
static int key_past_max(const struct btrfs_ioctl_search_key *key)
{
	if (key->min_objectid != key->max_objectid)
		return key->min_objectid > key->max_objectid;
	if (key->min_type != key->max_type)
		return key->min_type > key->max_type;
	return key->min_offset > key->max_offset;
}

int search_run(struct search_ctx *ctx, int fd,
	       const struct btrfs_ioctl_search_key *start, uint32_t nodesize,
	       search_cb cb, void *arg)
{
	struct btrfs_ioctl_search_args_v2 *args = ctx->args;
	struct btrfs_ioctl_search_key key = *start;
	struct search_item item;
	size_t pos;
	int ret;

	if (!nodesize || nodesize > BTRFS_MAX_NODESIZE)
		nodesize = BTRFS_MAX_NODESIZE;
	for (;;) {
		key.nr_items = UINT32_MAX;
		args->key = key;
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
		 * copy_to_sk() stops a batch early only when the next item
		 * does not fit in what is left of the buffer.  If a header
		 * plus a whole tree block still fit, the kernel stopped
		 * because the range ended: skip the empty extra search.
		 */
		if (ctx->buf_size - pos >= SEARCH_HEADER_SIZE + nodesize)
			return 0;
		if (search_key_advance(&key, item.objectid, item.type,
				       item.offset) || key_past_max(&key))
			return 0;
	}
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
