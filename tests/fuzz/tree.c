// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the fast scan (fastscan_dir()) over a simulated btrfs:
 * a subvolume tree, two nested subvolume trees and the root tree's
 * ROOT_REF items, all built from the input, served by the simulated
 * TREE_SEARCH_V2 of sim-kernel.c (search.o's, fastscan.o's and pending.o's
 * ioctl() calls are wrapped, as are btrfs_util_subvolume_id_fd() and
 * open_by_handle_at()).  Subvolumes have uncommitted changes or not as the
 * input says, so both streaming and listing them are fuzzed.  A corrupt
 * or hostile image can hold any of this: directory cycles, absurd link counts, dangling entries, short
 * items.  The scan must end, within bounded work, without a memory error.
 * Then the same directory is listed (fastscan_list()) with its names
 * given to prune.c, which plans what a sample's walk may leave out when
 * the files of odd inode number must be met: each of those is found by
 * the walk (no directory on the way to it, by its first names, may be
 * left out), and the others are counted once each.
 *
 * Input: byte 0: the directory scanned (bits 0-4, 0: the subvolume root
 * 256), its subvolume has uncommitted changes (0x20), nested subvolumes
 * can't be opened by handle (0x40), -x (0x80); then 8 bytes per item:
 * tree, objectid, type, u16 offset, 3 params.  The types: inode, dir
 * item, file extent, root ref, inode ref and extref (a subvolume with
 * uncommitted changes counts a file's names from them), orphan, dir
 * index; 248-255 as they are.  A byte left after the items: the nested
 * subvolume 256 is deleted at that search of its tree (ENOENT from then
 * on, as btrfs_get_fs_root() answers for a deleted root): the scan goes
 * on, and names it in the usage's gone list.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <btrfsutil.h>
#include "scan/extent.h"
#include "ioctl.h"
#include "report/format.h"
#include "report/report.h"
#include "scan/usage.h"
#include "scan/search.h"
#include "scan/fastscan.h"
#include "sample/prune.h"
#include "sim-kernel.h"

#define FS_TREE		BTRFS_FS_TREE_OBJECTID
/* Every search costs at least one call: a scan needing more is a loop. */
#define MAX_CALLS	20000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int __wrap_open_by_handle_at(int mount_fd, struct file_handle *fh, int flags);
enum btrfs_util_error __wrap_btrfs_util_subvolume_id_fd(int fd,
							 uint64_t *id);

/* An item and its bytes. */
struct sim_item {
	struct simk_item k;
	uint8_t data[FE_INLINE_HEADER_SIZE + 256];
};

struct sim {
	struct sim_item *items;
	struct simk_item *keys;		/* the kernel's view of items */
	size_t n;
	unsigned long calls;
	int dirty;		/* GET_SUBVOL_INFO: changes not committed */
	int no_handles;		/* open_by_handle_at() fails */
	/* tree 256 deleted at its vanish_at-th search (0: never) */
	unsigned vanish_at, searched;
};

/* The wrapped functions have no other way to reach the simulation. */
static struct sim *sim;

static int item_cmp(const void *a, const void *b)
{
	const struct sim_item *x = a, *y = b;

	return simk_item_cmp(&x->k, &y->k);
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

static const uint64_t trees[] = { FS_TREE, 256, 257, BTRFS_ROOT_TREE_OBJECTID };

/* Before each search: bounded work, and tree 256 deleted when asked. */
static int before(const struct btrfs_ioctl_search_key *key, void *arg)
{
	(void)arg;
	if (++sim->calls > MAX_CALLS)
		abort();
	if (sim->vanish_at && key->tree_id == trees[1] &&
	    ++sim->searched >= sim->vanish_at)
		return ENOENT;
	return 0;
}

/* The usage's gone list: names, each NUL-terminated. */
static void check_gone(const struct usage_ctx *ctx)
{
	if (ctx->gone_len && (!ctx->gone || ctx->gone[ctx->gone_len - 1]))
		abort();
}

/* GET_SUBVOL_INFO: a subvolume has uncommitted changes when its ctransid
 * is 1 (the extent tree's root item is never there: the last commit is
 * 0). */
static int other(unsigned long req, void *p, void *arg)
{
	struct btrfs_ioctl_get_subvol_info_args *info = p;

	(void)arg;
	if (req != BTRFS_IOC_GET_SUBVOL_INFO) {
		errno = ENOTTY;
		return -1;
	}
	memset(info, 0, sizeof(*info));
	info->ctransid = sim->dirty;
	return 0;
}

static void build_item(struct sim_item *it, const uint8_t *p)
{
	static const uint32_t types[] = {
		BTRFS_INODE_ITEM_KEY, BTRFS_DIR_ITEM_KEY,
		BTRFS_EXTENT_DATA_KEY, BTRFS_ROOT_REF_KEY,
		BTRFS_INODE_REF_KEY, BTRFS_INODE_EXTREF_KEY,
		BTRFS_ORPHAN_ITEM_KEY, BTRFS_DIR_INDEX_KEY,
	};
	uint8_t p1 = p[5], p2 = p[6], p3 = p[7];
	uint32_t mode;

	memset(it, 0, sizeof(*it));
	it->k.tree = trees[p[0] & 3];
	it->k.objectid = 256 + p[1] % 32;
	it->k.type = p[2] < 248 ? types[p[2] & 7] : p[2];
	it->k.offset = p[3] | p[4] << 8;
	switch (it->k.type) {
	case BTRFS_INODE_ITEM_KEY:
		it->k.offset = 0;
		it->k.len = p1 & 8 ? p3 % INODE_ITEM_SIZE : INODE_ITEM_SIZE;
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
		it->k.len = p2 & 0x80 ? p3 % DIR_ITEM_SIZE : DIR_ITEM_SIZE + 1;
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
			it->k.len += DIR_ITEM_SIZE + (p2 & 0x10 ? 0 : 1);
		}
		break;
	case BTRFS_EXTENT_DATA_KEY:
		it->k.len = p1 & 1 ? FE_REG_SIZE : FE_INLINE_HEADER_SIZE + p3;
		put_le64(it->data + FE_RAM_BYTES, ((uint64_t)p3 + 1) << 12);
		it->data[FE_COMPRESSION] = p2 & 3;
		it->data[FE_TYPE] = p1 & 1 ? 1 + (p2 >> 7) : 0;
		if (it->k.len == FE_REG_SIZE) {
			put_le64(it->data + FE_DISK_BYTENR, (uint64_t)p3 << 12);
			put_le64(it->data + FE_DISK_NUM_BYTES, 4096);
			put_le64(it->data + FE_NUM_BYTES, ((p2 & 15) + 1) << 12);
		}
		break;
	case BTRFS_INODE_REF_KEY:
	case BTRFS_INODE_EXTREF_KEY: {
		/* a name in directory 256 + p3 % 32 (a ref's offset, an
		 * extref's field), a second one when p2 & 0x40, whole or cut
		 * short; or the item itself cut short */
		int ext = it->k.type == BTRFS_INODE_EXTREF_KEY;
		uint32_t hdr = ext ? INODE_EXTREF_SIZE : INODE_REF_SIZE, i;
		uint8_t *e = it->data;

		it->k.offset = ext ? (uint64_t)p3 * 7919 : 256 + p3 % 32;
		for (i = 0; i < (p2 & 0x40 ? 2u : 1u); i++) {
			if (ext)
				put_le64(e + INODE_EXTREF_PARENT,
					 256 + (p3 + i) % 32);
			put_le64(e + (ext ? INODE_EXTREF_INDEX :
					    INODE_REF_INDEX), 2 + p2 % 16 + i);
			e[ext ? INODE_EXTREF_NAME_LEN : INODE_REF_NAME_LEN] =
				i && (p2 & 8) ? 200 : 1;
			e[hdr] = 'r';
			it->k.len += hdr + (i && (p2 & 0x10) ? 0 : 1);
			e += hdr + 1;
		}
		if (p2 & 0x80)
			it->k.len = p3 % hdr;
		break;
	}
	case BTRFS_ORPHAN_ITEM_KEY:
		it->k.objectid = BTRFS_ORPHAN_OBJECTID;
		it->k.offset = 256 + p1 % 32;
		break;
	case BTRFS_DIR_INDEX_KEY:
		it->k.len = p2 & 0x80 ? p3 % DIR_ITEM_SIZE : DIR_ITEM_SIZE + 1;
		put_le64(it->data + DIR_LOCATION_OBJECTID, 256 + p1 % 32);
		it->data[DIR_LOCATION_TYPE] = BTRFS_INODE_ITEM_KEY;
		it->data[DIR_TYPE] = p2 & 2 ? BTRFS_FT_DIR : BTRFS_FT_REG_FILE;
		it->data[DIR_NAME_LEN] = 1;
		it->data[DIR_ITEM_SIZE] = 'n';
		break;
	case BTRFS_ROOT_REF_KEY:
		it->k.tree = BTRFS_ROOT_TREE_OBJECTID;
		it->k.objectid = trees[p1 % 3];
		it->k.offset = trees[1 + (p2 & 1)];
		it->k.len = ROOT_REF_SIZE + 1;
		put_le64(it->data + ROOT_REF_DIRID, 256 + p3 % 32);
		it->data[ROOT_REF_NAME_LEN] = 1;
		break;
	default:
		it->k.len = p3 % sizeof(it->data);
		memset(it->data, p1, it->k.len);
		break;
	}
}

static int tick(void *arg)
{
	(void)arg;
	return 0;
}

/* The names the listing told prune.c of, in the scanned tree. */
#define MAX_NAMES	2048
struct names {
	struct prune *p;
	struct name {
		uint64_t dir, child;
		uint8_t loc, ftype;
	} v[MAX_NAMES];
	size_t n;
};

/* Each file's first name (asked for: names) is name_len bytes and a NUL,
 * whatever its INODE_REF item held. */
static int on_listed(void *arg, const struct fastscan_file *f)
{
	(void)arg;
	if (!f->name || f->name_len > 255 || strlen(f->name) > f->name_len ||
	    f->name[f->name_len])
		abort();
	return 0;
}

static int on_entry(void *arg, uint64_t tree_id, uint64_t dir, uint64_t child,
		    uint8_t loc, uint8_t ftype)
{
	struct names *nm = arg;

	if (tree_id == FS_TREE && nm->n < MAX_NAMES)
		nm->v[nm->n++] = (struct name){ dir, child, loc, ftype };
	return prune_entry(nm->p, tree_id, dir, child, loc, ftype);
}

static int need_odd(void *arg, uint64_t ino)
{
	(void)arg;
	return (int)(ino & 1);
}

static int is_file(const struct name *e)
{
	return e->loc == BTRFS_INODE_ITEM_KEY && e->ftype == BTRFS_FT_REG_FILE;
}

/* Directory d's first name's directory (the smallest), or 0. */
static uint64_t parent_of(const struct names *nm, uint64_t d)
{
	uint64_t best = 0;
	size_t i;

	for (i = 0; i < nm->n; i++)
		if (nm->v[i].loc == BTRFS_INODE_ITEM_KEY &&
		    nm->v[i].ftype == BTRFS_FT_DIR && nm->v[i].child == d &&
		    (!best || nm->v[i].dir < best))
			best = nm->v[i].dir;
	return best;
}

/* List the directory again with prune.c told its names, and check the
 * plan (fewer names than MAX_NAMES: all of them kept here). */
static void check_prune(const struct stat *st, int one_fs)
{
	struct fastscan_listener ls = {
		.file = on_listed,
		.entry = on_entry,
		.names = 1,
	};
	static struct names nm;
	struct usage_ctx *ctx = usage_create();
	const uint64_t *ahead;
	uint64_t d;
	size_t i, j, n, steps;
	int ret;

	nm.n = 0;
	nm.p = prune_create(FS_TREE, st->st_ino);
	if (!ctx || !nm.p)
		abort();
	ls.arg = &nm;
	ret = fastscan_list(ctx, -1, st, one_fs, tick, NULL, &ls);
	check_gone(ctx);
	if (ret || nm.n == MAX_NAMES)
		goto out;
	if (prune_plan(nm.p, need_odd, NULL))
		abort();
	n = prune_ahead(nm.p, &ahead);
	for (i = 0; i < n; i++) {
		if ((ahead[i] & 1) || !prune_counted(nm.p, ahead[i]))
			abort();
		for (j = 0; j < i; j++)
			if (ahead[j] == ahead[i])
				abort();	/* counted twice */
	}
	for (i = 0; i < nm.n; i++) {
		if (!is_file(&nm.v[i]))
			continue;
		if (!(nm.v[i].child & 1)) {
			if (!prune_counted(nm.p, nm.v[i].child))
				abort();	/* neither met nor counted */
			continue;
		}
		if (prune_counted(nm.p, nm.v[i].child))
			abort();
		/* the way to it: 1 names no subvolume */
		for (d = nm.v[i].dir, steps = 0; d && steps < 64; steps++) {
			if (prune_skip_dir(nm.p, 1, d))
				abort();
			if (d == st->st_ino)
				break;
			d = parent_of(&nm, d);
		}
	}
out:
	prune_free(nm.p);
	usage_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct simk k = { .default_tree = FS_TREE, .before = before,
			  .other = other };
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
	s.keys = calloc(n ? n : 1, sizeof(*s.keys));
	if (!s.items || !s.keys)
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
	if (1 + 8 * n < size)
		s.vanish_at = data[1 + 8 * n];
	for (i = 0; i < s.n; i++) {
		s.keys[i] = s.items[i].k;
		s.keys[i].data = s.items[i].data;
	}
	sim = &s;
	k.items = s.keys;
	k.n = s.n;
	simk_set(&k);

	ctx = usage_create();
	null = fopen("/dev/null", "w");
	if (!ctx || !null)
		abort();
	ret = fastscan_dir(ctx, -1, &st, data[0] & 0x80, tick, NULL);
	if (ret < 0 && ret != -EUCLEAN)
		abort();
	check_gone(ctx);
	report_table(null, null, &ctx->stats, 0);
	fclose(null);
	usage_free(ctx);
	sim->calls = 0;
	sim->searched = 0;
	check_prune(&st, data[0] & 0x80);
	simk_set(NULL);
	sim = NULL;
	free(s.items);
	free(s.keys);
	return 0;
}
