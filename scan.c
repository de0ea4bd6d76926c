// SPDX-License-Identifier: GPL-2.0
/* Per-file extent accounting through TREE_SEARCH_V2. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include "ioctl.h"
#include "scan.h"

#define SCAN_SEARCH_BUF	(256u << 10)

struct scan_ctx *scan_create(void)
{
	struct scan_ctx *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->seen = seen_create();
	ctx->search = search_create(SCAN_SEARCH_BUF);
	if (!ctx->seen || !ctx->search) {
		scan_free(ctx);
		return NULL;
	}
	return ctx;
}

void scan_free(struct scan_ctx *ctx)
{
	size_t i;

	if (!ctx)
		return;
	seen_free(ctx->seen);
	search_free(ctx->search);
	for (i = 0; i < ctx->nfsids; i++)
		seen_free(ctx->fsids[i].seen);
	free(ctx->fsids);
	free(ctx->fs);
	free(ctx);
}

const struct scan_fs *scan_fs_of(const struct scan_ctx *ctx, dev_t dev)
{
	size_t i;

	for (i = ctx->nfs; i-- > 0;)
		if (ctx->fs[i].dev == dev)
			return &ctx->fs[i];
	return NULL;
}

/* The set of extents counted on the filesystem fsid, made on first use. */
static struct seen_set *seen_of_fsid(struct scan_ctx *ctx, const uint8_t *fsid)
{
	struct scan_fsid *ids;
	size_t i;

	for (i = 0; i < ctx->nfsids; i++)
		if (!memcmp(ctx->fsids[i].fsid, fsid, BTRFS_FSID_SIZE))
			return ctx->fsids[i].seen;
	ids = realloc(ctx->fsids, (ctx->nfsids + 1) * sizeof(*ids));
	if (!ids)
		return NULL;
	ctx->fsids = ids;
	ids[i].seen = seen_create();
	if (!ids[i].seen)
		return NULL;
	memcpy(ids[i].fsid, fsid, BTRFS_FSID_SIZE);
	ctx->nfsids++;
	return ids[i].seen;
}

static int stop_at_first(const struct search_item *item, void *arg)
{
	(void)item;
	(void)arg;
	return 1;
}

static int can_search(struct scan_ctx *ctx, int fd, uint32_t nodesize)
{
	struct btrfs_ioctl_search_key key = {
		.min_objectid = BTRFS_FIRST_FREE_OBJECTID,
		.max_objectid = BTRFS_FIRST_FREE_OBJECTID,
		.min_type = BTRFS_INODE_ITEM_KEY,
		.max_type = BTRFS_INODE_ITEM_KEY,
		.max_offset = UINT64_MAX,
		.max_transid = UINT64_MAX,
	};
	int ret = search_run(ctx->search, fd, &key, nodesize, stop_at_first,
			     NULL);

	return ret < 0 ? ret : 0;
}

int scan_probe_fs(struct scan_ctx *ctx, int fd, const struct stat *st)
{
	struct btrfs_ioctl_fs_info_args info = { 0 };
	struct seen_set *seen;
	struct statfs sfs;
	struct scan_fs *fs;

	if (fstatfs(fd, &sfs))
		return -errno;
	if ((uint32_t)sfs.f_type != (uint32_t)BTRFS_SUPER_MAGIC)
		return 0;
	if (scan_fs_of(ctx, st->st_dev))
		return 1;
	/* Unprivileged, unlike the searches. */
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &info)) {
		/* A snapshot shows a nested subvolume as an empty stand-in
		 * directory without btrfs ioctls (new_simple_dir()). */
		if (errno == ENOTTY && S_ISDIR(st->st_mode))
			return 1;
		return -errno;
	}
	/* Every search needs CAP_SYS_ADMIN: find out before reading the tree,
	 * so that the answer isn't a Permission denied on some directory. */
	if (can_search(ctx, fd, info.nodesize) == -EPERM)
		return -EPERM;
	seen = seen_of_fsid(ctx, info.fsid);
	if (!seen)
		return -ENOMEM;
	fs = realloc(ctx->fs, (ctx->nfs + 1) * sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	ctx->fs = fs;
	fs[ctx->nfs].seen = seen;
	fs[ctx->nfs].dev = st->st_dev;
	fs[ctx->nfs].nodesize = info.nodesize;
	/* A sector size that isn't a power of two would be corrupt. */
	fs[ctx->nfs].sectorsize =
		info.sectorsize && !(info.sectorsize & (info.sectorsize - 1))
			? info.sectorsize : 4096;
	ctx->nfs++;
	return 1;
}

struct file_scan {
	struct scan_ctx *ctx;
	struct seen_set *seen;
	uint32_t sectorsize;
};

static int one_item(const struct search_item *item, void *arg)
{
	struct file_scan *fsc = arg;
	struct scan_ctx *ctx = fsc->ctx;
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
	return extent_account(&ctx->stats, fsc->seen, &ei);
}

int scan_file(struct scan_ctx *ctx, int fd, const struct stat *st)
{
	const struct scan_fs *fs = scan_fs_of(ctx, st->st_dev);
	struct file_scan fsc = { .ctx = ctx };
	int ret;

	fsc.sectorsize = fs ? fs->sectorsize : 4096;
	fsc.seen = fs ? fs->seen : ctx->seen;
	ctx->bad_item = EXTENT_OK;
	ctx->bad_offset = 0;
	extent_begin_file(&ctx->stats);
	ret = search_file_extents(ctx->search, fd, st->st_ino,
				  fs ? fs->nodesize : 0, one_item, &fsc);
	if (!ret && ctx->bad_item)
		ret = -EUCLEAN;
	return ret;
}
