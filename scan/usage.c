// SPDX-License-Identifier: GPL-2.0
/* Per-file extent accounting through TREE_SEARCH_V2. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include "lib/array.h"
#include "ioctl.h"
#include "scan/usage.h"

#define SCAN_SEARCH_BUF	(64u << 10)

struct usage_ctx *usage_create(void)
{
	struct usage_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->search = search_create(SCAN_SEARCH_BUF);
	ctx->fsids = calloc(1, sizeof(*ctx->fsids));
	if (ctx->fsids) {
		ctx->nfsids = 1;
		ctx->fsids[0].seen = seen_create();
	}
	if (!ctx->search || !ctx->fsids || !ctx->fsids[0].seen) {
		usage_free(ctx);
		return NULL;
	}
	return ctx;
}

void usage_free(struct usage_ctx *ctx)
{
	size_t i;

	if (!ctx)
		return;
	while (ctx->nsinks)
		usage_sink_pop(ctx, NULL);
	free(ctx->sinks);
	search_free(ctx->search);
	for (i = 0; i < ctx->nfsids; i++)
		seen_free(ctx->fsids[i].seen);
	free(ctx->fsids);
	free(ctx->fs);
	free(ctx->gone);
	free(ctx);
}

const struct usage_fs *usage_fs_of(const struct usage_ctx *ctx, dev_t dev)
{
	size_t i;

	for (i = ctx->nfs; i-- > 0;)
		if (ctx->fs[i].dev == dev)
			return &ctx->fs[i];
	return NULL;
}

/* The index of the filesystem fsid in ctx->fsids, added on first use;
 * returns 0 (the stand-in for unknown filesystems) when out of memory. */
static size_t fsid_index(struct usage_ctx *ctx, const uint8_t *fsid)
{
	struct usage_fsid *ids;
	size_t i;

	for (i = 1; i < ctx->nfsids; i++)
		if (!memcmp(ctx->fsids[i].fsid, fsid, BTRFS_FSID_SIZE))
			return i;
	ids = realloc(ctx->fsids, (ctx->nfsids + 1) * sizeof(*ids));
	if (!ids)
		return 0;
	ctx->fsids = ids;
	ids[i].seen = seen_create();
	if (!ids[i].seen)
		return 0;
	memcpy(ids[i].fsid, fsid, BTRFS_FSID_SIZE);
	ctx->nfsids++;
	return i;
}

void usage_set_sharing(struct usage_ctx *ctx, struct sharing *sh)
{
	ctx->sharing = sh;
}

void usage_set_waste(struct usage_ctx *ctx, struct waste *w)
{
	ctx->waste = w;
}

int usage_sink_push(struct usage_ctx *ctx)
{
	struct usage_sink *s = array_grow(ctx->sinks, &ctx->cap_sinks,
					 ctx->nsinks, sizeof(*s));

	if (!s)
		return -ENOMEM;
	ctx->sinks = s;
	memset(&ctx->sinks[ctx->nsinks], 0, sizeof(ctx->sinks[0]));
	if (ctx->sharing)
		ctx->sinks[ctx->nsinks].stats.share_row =
			sharing_row_push(ctx->sharing);
	if (ctx->waste)
		ctx->sinks[ctx->nsinks].stats.waste_row =
			waste_row_push(ctx->waste);
	ctx->nsinks++;
	return 0;
}

void usage_sink_pop(struct usage_ctx *ctx, struct cs_stats *out)
{
	struct usage_sink *sink = &ctx->sinks[--ctx->nsinks];
	size_t i;

	if (out)
		*out = sink->stats;
	if (ctx->sharing)
		sharing_row_pop(ctx->sharing);
	if (ctx->waste)
		waste_row_pop(ctx->waste);
	for (i = 0; i < sink->nseen; i++)
		seen_free(sink->seen[i]);
	free(sink->seen);
}

void usage_progress(const struct usage_ctx *ctx, uint64_t *files,
		    uint64_t *bytes)
{
	*files = __atomic_load_n(&ctx->prog_files, __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&ctx->prog_bytes, __ATOMIC_RELAXED);
}

void usage_begin_file(struct usage_ctx *ctx)
{
	size_t i;

	extent_begin_file(&ctx->stats);
	__atomic_store_n(&ctx->prog_files, ctx->stats.nfiles,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ctx->prog_bytes, ctx->refd_sum, __ATOMIC_RELAXED);
	for (i = 0; i < ctx->nsinks; i++)
		extent_begin_file(&ctx->sinks[i].stats);
}

int usage_account(struct usage_ctx *ctx, size_t fs_idx,
		 const struct extent_info *ei)
{
	struct seen_set *seen;
	size_t i;
	int ret;

	ret = extent_account(&ctx->stats, ctx->fsids[fs_idx].seen, ei);
	/* as extent_account() counts referenced bytes */
	if (!ret)
		ctx->refd_sum += ei->type == BTRFS_FILE_EXTENT_INLINE
					 ? ei->ram_bytes
				 : ei->disk_bytenr ? ei->num_bytes : 0;
	if (!ret && ctx->sharing)
		ret = sharing_extent(ctx->sharing, fs_idx, ei);
	if (!ret && ctx->waste)
		ret = waste_extent(ctx->waste, fs_idx, ei);
	for (i = 0; !ret && i < ctx->nsinks; i++) {
		seen = seen_at(&ctx->sinks[i].seen, &ctx->sinks[i].nseen,
			       fs_idx);
		ret = seen ? extent_account(&ctx->sinks[i].stats, seen, ei)
			   : -ENOMEM;
	}
	return ret;
}

static int stop_at_first(const struct search_item *item, void *arg)
{
	(void)item;
	(void)arg;
	return 1;
}

static int can_search(struct usage_ctx *ctx, int fd, uint32_t nodesize)
{
	struct btrfs_ioctl_search_key key;
	int ret;

	search_key_range(&key, 0, BTRFS_FIRST_FREE_OBJECTID,
			 BTRFS_INODE_ITEM_KEY, BTRFS_FIRST_FREE_OBJECTID,
			 BTRFS_INODE_ITEM_KEY);
	ret = search_run(ctx->search, fd, &key, nodesize, stop_at_first, NULL);

	return ret < 0 ? ret : 0;
}

int usage_probe_fs(struct usage_ctx *ctx, int fd, const struct stat *st)
{
	struct btrfs_ioctl_fs_info_args info = { 0 };
	struct statfs sfs;
	struct usage_fs *fs;
	size_t fs_idx;

	if (fstatfs(fd, &sfs))
		return -errno;
	if ((uint32_t)sfs.f_type != (uint32_t)BTRFS_SUPER_MAGIC)
		return 0;
	if (usage_fs_of(ctx, st->st_dev))
		return 1;
	/* Unprivileged, unlike the searches. */
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &info)) {
		/* A snapshot shows a nested subvolume as an empty stand-in
		 * directory without btrfs ioctls (new_simple_dir()). */
		if (errno == ENOTTY && S_ISDIR(st->st_mode))
			return 1;
		return -errno;
	}
	fs_idx = fsid_index(ctx, info.fsid);
	if (!fs_idx)
		return -ENOMEM;
	fs = realloc(ctx->fs, (ctx->nfs + 1) * sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	ctx->fs = fs;
	fs[ctx->nfs].fs_idx = fs_idx;
	fs[ctx->nfs].dev = st->st_dev;
	fs[ctx->nfs].nodesize = info.nodesize;
	/* A sector size that isn't a power of two would be corrupt. */
	fs[ctx->nfs].sectorsize =
		info.sectorsize && !(info.sectorsize & (info.sectorsize - 1))
			? info.sectorsize : 4096;
	ctx->nfs++;
	if (ctx->sharing) {
		int ret = sharing_add_fs(ctx->sharing, fs_idx, fd);

		if (ret)
			return ret;
	}
	if (ctx->waste) {
		int ret = waste_add_fs(ctx->waste, fs_idx, fd);

		if (ret)
			return ret;
	}
	/* Every search needs CAP_SYS_ADMIN: find out before reading the tree,
	 * so that the answer isn't a Permission denied on some directory.
	 * The geometry is kept either way, for --estimate. */
	if (can_search(ctx, fd, info.nodesize) == -EPERM)
		return -EPERM;
	return 1;
}

struct file_scan {
	struct usage_ctx *ctx;
	size_t fs_idx;
	uint32_t sectorsize;
};

static int one_item(const struct search_item *item, void *arg)
{
	struct file_scan *fsc = arg;
	struct usage_ctx *ctx = fsc->ctx;
	struct extent_info ei;
	enum extent_error err;

	if (item->type != BTRFS_EXTENT_DATA_KEY)
		return 0;
	err = extent_parse(item->data, item->len, fsc->sectorsize, &ei);
	if (err) {
		if (!ctx->bad_item) {
			ctx->bad_item = err;
			ctx->bad_offset = item->offset;
		}
		return 0;
	}
	ei.file_pos = item->offset;
	return usage_account(ctx, fsc->fs_idx, &ei);
}

int usage_file(struct usage_ctx *ctx, int fd, const struct stat *st)
{
	const struct usage_fs *fs = usage_fs_of(ctx, st->st_dev);
	struct file_scan fsc = { .ctx = ctx };
	int ret;

	fsc.sectorsize = fs ? fs->sectorsize : 4096;
	fsc.fs_idx = fs ? fs->fs_idx : 0;
	ctx->bad_item = EXTENT_OK;
	ctx->bad_offset = 0;
	usage_begin_file(ctx);
	if (ctx->sharing) {
		ret = sharing_walk_file(ctx->sharing, fsc.fs_idx, fd, st);
		if (ret)
			return ret;
	}
	ret = search_file_extents(ctx->search, fd, st->st_ino,
				  fs ? fs->nodesize : 0, one_item, &fsc);
	if (!ret && ctx->bad_item)
		ret = -EUCLEAN;
	return ret;
}
