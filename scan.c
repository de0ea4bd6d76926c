// SPDX-License-Identifier: GPL-2.0
/* Per-file extent accounting through TREE_SEARCH_V2. */
#include <errno.h>
#include <stdlib.h>
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
	if (!ctx)
		return;
	seen_free(ctx->seen);
	search_free(ctx->search);
	free(ctx->fs);
	free(ctx);
}

static const struct scan_fs *find_fs(const struct scan_ctx *ctx, dev_t dev)
{
	size_t i;

	for (i = ctx->nfs; i-- > 0;)
		if (ctx->fs[i].dev == dev)
			return &ctx->fs[i];
	return NULL;
}

int scan_probe_fs(struct scan_ctx *ctx, int fd, const struct stat *st)
{
	struct btrfs_ioctl_fs_info_args info = { 0 };
	struct statfs sfs;
	struct scan_fs *fs;

	if (fstatfs(fd, &sfs))
		return -errno;
	if ((uint32_t)sfs.f_type != (uint32_t)BTRFS_SUPER_MAGIC)
		return 0;
	if (find_fs(ctx, st->st_dev))
		return 1;
	/* Unprivileged, unlike the searches. */
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &info)) {
		/* A snapshot shows a nested subvolume as an empty stand-in
		 * directory without btrfs ioctls (new_simple_dir()). */
		if (errno == ENOTTY && S_ISDIR(st->st_mode))
			return 1;
		return -errno;
	}
	fs = realloc(ctx->fs, (ctx->nfs + 1) * sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	ctx->fs = fs;
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
	return extent_account(&ctx->stats, ctx->seen, &ei);
}

int scan_file(struct scan_ctx *ctx, int fd, const struct stat *st)
{
	const struct scan_fs *fs = find_fs(ctx, st->st_dev);
	struct file_scan fsc = { .ctx = ctx };
	int ret;

	fsc.sectorsize = fs ? fs->sectorsize : 4096;
	ctx->bad_item = EXTENT_OK;
	ctx->bad_offset = 0;
	extent_begin_file(&ctx->stats);
	ret = search_file_extents(ctx->search, fd, st->st_ino,
				  fs ? fs->nodesize : 0, one_item, &fsc);
	if (!ret && ctx->bad_item)
		ret = -EUCLEAN;
	return ret;
}
