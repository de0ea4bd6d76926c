/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measuring what files use now: for each regular file, its EXTENT_DATA items
 * from TREE_SEARCH_V2, decoded and accounted into one struct cs_stats with
 * one set of extents already counted.
 */
#ifndef COMPSIZE_SCAN_H
#define COMPSIZE_SCAN_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "extent.h"
#include "search.h"
#include "seen.h"

struct scan_fs {
	dev_t dev;
	uint32_t nodesize;
	uint32_t sectorsize;
};

struct scan_ctx {
	struct cs_stats stats;
	struct seen_set *seen;
	struct search_ctx *search;
	struct scan_fs *fs;	/* geometry of each st_dev met so far */
	size_t nfs;
	/* The first malformed item of the file being scanned. */
	enum extent_error bad_item;
	uint64_t bad_offset;
	int nomem;
};

/* Returns NULL when out of memory. */
struct scan_ctx *scan_create(void);
void scan_free(struct scan_ctx *ctx);

/*
 * Is the open file or directory fd on btrfs?  If so, learn its geometry
 * (BTRFS_IOC_FS_INFO) for later scan_file() calls on st->st_dev.
 * Returns 1 for btrfs, 0 for another filesystem, -errno on failure.
 */
int scan_probe_fs(struct scan_ctx *ctx, int fd, const struct stat *st);

/*
 * Account every extent of the regular file open on fd.  Returns 0;
 * -EUCLEAN when some items were malformed (they are skipped, the rest is
 * counted; ctx->bad_item and ctx->bad_offset tell the first);
 * -EPERM without CAP_SYS_ADMIN; -ENOTTY if fd is not on btrfs; -ENOMEM;
 * or another -errno from the search ioctl.
 */
int scan_file(struct scan_ctx *ctx, int fd, const struct stat *st);

#endif
