// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the fast scan (fastscan_dir()) over a simulated btrfs:
 * a subvolume tree, two nested subvolume trees and the root tree's
 * ROOT_REF items, all built from the input, served by a simulated
 * TREE_SEARCH_V2 (search.o's, tree.o's and pending.o's ioctl() calls are
 * wrapped, as are btrfs_util_subvolume_id_fd() and open_by_handle_at()).
 * Subvolumes have uncommitted changes or not as the input says, so both
 * streaming and listing them are fuzzed.  A corrupt or hostile image can hold any
 * of this: directory cycles, absurd link counts, dangling entries, short
 * items.  The scan must end, within bounded work, without a memory error.
 *
 * Input: byte 0: the directory scanned (bits 0-4, 0: the subvolume root
 * 256), its subvolume has uncommitted changes (0x20), nested subvolumes
 * can't be opened by handle (0x40), -x (0x80); then 8 bytes per item:
 * tree, objectid, type, u16 offset, 3 params.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <btrfsutil.h>
#include "extent.h"
#include "ioctl.h"
#include "format.h"
#include "report.h"
#include "usage.h"
#include "search.h"
#include "fastscan.h"

#define FS_TREE		BTRFS_FS_TREE_OBJECTID
/* Every search costs at least one call: a scan needing more is a loop. */
#define MAX_CALLS	20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_open_by_handle_at(int mount_fd, struct file_handle *fh, int flags);
enum btrfs_util_error __wrap_btrfs_util_subvolume_id_fd(int fd,
							 uint64_t *id);

struct sim_item {
	uint64_t tree, objectid, offset;
	uint32_t type, len;
	uint8_t data[FE_INLINE_HEADER_SIZE + 256];
};

struct sim {
	struct sim_item *items;
	size_t n;
	unsigned long calls;
	int dirty;		/* GET_SUBVOL_INFO: changes not committed */
	int no_handles;		/* open_by_handle_at() fails */
};

/* The wrapped functions have no other way to reach the simulation. */
static struct sim *sim;

static int key_cmp(uint64_t oa, uint32_t ta, uint64_t fa, uint64_t ob,
		   uint32_t tb, uint64_t fb)
{
	if (oa != ob)
		return oa < ob ? -1 : 1;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	if (fa != fb)
		return fa < fb ? -1 : 1;
	return 0;
}

static int item_cmp(const void *a, const void *b)
{
	const struct sim_item *x = a, *y = b;

	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	return key_cmp(x->objectid, x->type, x->offset, y->objectid, y->type,
		       y->offset);
}

enum btrfs_util_error __wrap_btrfs_util_subvolume_id_fd(int fd, uint64_t *id)
{
	(void)fd;
	*id = FS_TREE;
	return BTRFS_UTIL_OK;
}

/* A real descriptor for the caller to close, or none. */
int __wrap_open_by_handle_at(int mount_fd, struct file_handle *fh, int flags)
{
	(void)mount_fd;
	(void)fh;
	if (sim->no_handles) {
		errno = EPERM;
		return -1;
	}
	return open("/dev/null", flags & O_CLOEXEC);
}

/* btrfs_ioctl_tree_search_v2() and copy_to_sk(): items of one tree with
 * keys in the compound range [min, max], as many as fit.  The extent
 * tree's root item is never there: the last commit is 0, and a subvolume
 * has uncommitted changes when its ctransid is 1. */
int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct btrfs_ioctl_get_subvol_info_args *info;
	struct btrfs_ioctl_search_args_v2 *args;
	struct btrfs_ioctl_search_key *key;
	struct btrfs_ioctl_search_header sh;
	uint64_t tree, count = 0;
	size_t i, pos = 0;
	va_list ap;
	void *p;

	(void)fd;
	va_start(ap, req);
	p = va_arg(ap, void *);
	va_end(ap);
	if (req == BTRFS_IOC_GET_SUBVOL_INFO) {
		info = p;
		memset(info, 0, sizeof(*info));
		info->ctransid = sim->dirty;
		return 0;
	}
	args = p;
	if (req != BTRFS_IOC_TREE_SEARCH_V2) {
		errno = ENOTTY;
		return -1;
	}
	if (++sim->calls > MAX_CALLS)
		abort();
	key = &args->key;
	tree = key->tree_id ? key->tree_id : FS_TREE;
	for (i = 0; i < sim->n && count < key->nr_items; i++) {
		const struct sim_item *it = &sim->items[i];

		if (it->tree != tree ||
		    key_cmp(it->objectid, it->type, it->offset,
			    key->min_objectid, key->min_type,
			    key->min_offset) < 0)
			continue;
		if (key_cmp(it->objectid, it->type, it->offset,
			    key->max_objectid, key->max_type,
			    key->max_offset) > 0)
			break;
		if (pos + sizeof(sh) + it->len > args->buf_size)
			break;
		sh.transid = 1;
		sh.objectid = it->objectid;
		sh.offset = it->offset;
		sh.type = it->type;
		sh.len = it->len;
		memcpy((uint8_t *)args->buf + pos, &sh, sizeof(sh));
		memcpy((uint8_t *)args->buf + pos + sizeof(sh), it->data,
		       it->len);
		pos += sizeof(sh) + it->len;
		count++;
	}
	key->nr_items = count;
	return 0;
}

static const uint64_t trees[] = { FS_TREE, 256, 257, BTRFS_ROOT_TREE_OBJECTID };

static void build_item(struct sim_item *it, const uint8_t *p)
{
	static const uint32_t types[] = {
		BTRFS_INODE_ITEM_KEY, BTRFS_DIR_ITEM_KEY,
		BTRFS_EXTENT_DATA_KEY, BTRFS_ROOT_REF_KEY,
	};
	uint8_t p1 = p[5], p2 = p[6], p3 = p[7];
	uint32_t mode;

	memset(it, 0, sizeof(*it));
	it->tree = trees[p[0] & 3];
	it->objectid = 256 + p[1] % 32;
	it->type = p[2] < 252 ? types[p[2] & 3] : p[2];
	it->offset = p[3] | p[4] << 8;
	switch (it->type) {
	case BTRFS_INODE_ITEM_KEY:
		it->offset = 0;
		it->len = p1 & 8 ? p3 % INODE_ITEM_SIZE : INODE_ITEM_SIZE;
		mode = p1 & 1 ? S_IFDIR | 0755 : S_IFREG | 0644;
		if (p1 & 2)
			mode = (uint32_t)p3 << 12;
		it->data[INODE_MODE] = (uint8_t)mode;
		it->data[INODE_MODE + 1] = (uint8_t)(mode >> 8);
		it->data[INODE_MODE + 2] = (uint8_t)(mode >> 16);
		/* Up to BTRFS_LINK_MAX, or absurd. */
		it->data[INODE_NLINK] = p2;
		if (p1 & 4)
			memset(it->data + INODE_NLINK, 0xff, 4);
		break;
	case BTRFS_DIR_ITEM_KEY:
		it->len = p2 & 0x80 ? p3 % DIR_ITEM_SIZE : DIR_ITEM_SIZE + 1;
		if (p2 & 1) {
			put_le64(it->data + DIR_LOCATION_OBJECTID,
				 trees[1 + (p1 & 1)]);
			it->data[DIR_LOCATION_TYPE] = BTRFS_ROOT_ITEM_KEY;
			it->data[DIR_TYPE] = BTRFS_FT_DIR;
		} else {
			put_le64(it->data + DIR_LOCATION_OBJECTID,
				 256 + p1 % 32);
			it->data[DIR_LOCATION_TYPE] = BTRFS_INODE_ITEM_KEY;
			it->data[DIR_TYPE] = p2 & 2 ? BTRFS_FT_DIR
						    : BTRFS_FT_REG_FILE;
		}
		it->data[DIR_NAME_LEN] = 1;
		it->data[DIR_ITEM_SIZE] = 'n';
		/* Names whose hashes collide share the item: a second one,
		 * whole or cut short. */
		if (!(p2 & 0x80) && (p2 & 0x40)) {
			uint8_t *e = it->data + DIR_ITEM_SIZE + 1;

			put_le64(e + DIR_LOCATION_OBJECTID, 256 + p3 % 32);
			e[DIR_LOCATION_TYPE] = BTRFS_INODE_ITEM_KEY;
			e[DIR_TYPE] = p2 & 4 ? BTRFS_FT_DIR : BTRFS_FT_REG_FILE;
			e[DIR_NAME_LEN] = p2 & 8 ? 200 : 1;
			e[DIR_ITEM_SIZE] = 'm';
			it->len += DIR_ITEM_SIZE + (p2 & 0x10 ? 0 : 1);
		}
		break;
	case BTRFS_EXTENT_DATA_KEY:
		it->len = p1 & 1 ? FE_REG_SIZE : FE_INLINE_HEADER_SIZE + p3;
		put_le64(it->data + FE_RAM_BYTES, ((uint64_t)p3 + 1) << 12);
		it->data[FE_COMPRESSION] = p2 & 3;
		it->data[FE_TYPE] = p1 & 1 ? 1 + (p2 >> 7) : 0;
		if (it->len == FE_REG_SIZE) {
			put_le64(it->data + FE_DISK_BYTENR, (uint64_t)p3 << 12);
			put_le64(it->data + FE_DISK_NUM_BYTES, 4096);
			put_le64(it->data + FE_NUM_BYTES, ((p2 & 15) + 1) << 12);
		}
		break;
	case BTRFS_ROOT_REF_KEY:
		it->tree = BTRFS_ROOT_TREE_OBJECTID;
		it->objectid = trees[p1 % 3];
		it->offset = trees[1 + (p2 & 1)];
		it->len = ROOT_REF_SIZE + 1;
		put_le64(it->data + ROOT_REF_DIRID, 256 + p3 % 32);
		it->data[ROOT_REF_NAME_LEN] = 1;
		break;
	default:
		it->len = p3 % sizeof(it->data);
		memset(it->data, p1, it->len);
		break;
	}
}

static int tick(void *arg)
{
	(void)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim s = { 0 };
	struct usage_ctx *ctx;
	struct stat st = { .st_mode = S_IFDIR | 0755 };
	size_t i, n;
	FILE *null;
	int ret;

	if (size < 1)
		return 0;
	st.st_ino = 256 + data[0] % 32;
	n = (size - 1) / 8;
	if (n > 512)
		n = 512;
	s.items = calloc(n ? n : 1, sizeof(*s.items));
	if (!s.items)
		abort();
	for (i = 0; i < n; i++)
		build_item(&s.items[i], data + 1 + 8 * i);
	qsort(s.items, n, sizeof(*s.items), item_cmp);
	/* Keys are unique in a tree: keep the first of equals. */
	for (i = 0, s.n = 0; i < n; i++)
		if (!s.n || item_cmp(&s.items[s.n - 1], &s.items[i]))
			s.items[s.n++] = s.items[i];
	s.dirty = !!(data[0] & 0x20);
	s.no_handles = !!(data[0] & 0x40);
	sim = &s;

	ctx = usage_create();
	null = fopen("/dev/null", "w");
	if (!ctx || !null)
		abort();
	ret = fastscan_dir(ctx, -1, &st, data[0] & 0x80, tick, NULL);
	if (ret < 0 && ret != -EUCLEAN)
		abort();
	report_table(null, null, &ctx->stats, 0);
	fclose(null);
	usage_free(ctx);
	sim = NULL;
	free(s.items);
	return 0;
}
