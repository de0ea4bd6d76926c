// SPDX-License-Identifier: GPL-2.0
/* --subvolumes: a row per subvolume of the whole filesystem (subvols.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <btrfsutil.h>
#include "scan/fastscan.h"
#include "ioctl.h"
#include "run/subvols.h"

static int util_errno(enum btrfs_util_error err)
{
	if (err == BTRFS_UTIL_ERROR_NO_MEMORY)
		return -ENOMEM;
	return errno ? -errno : -EIO;
}

/* One subvolume: a row of its own tree. */
static int one_subvol(struct usage_ctx *ctx, struct rows *rows, int fd,
		      const struct stat *st, const char *path,
		      const struct btrfs_util_subvolume_info *info,
		      const struct qgroup *q, int (*tick)(void *),
		      void *tick_arg)
{
	int ret, ret2;

	ret = rows_open(rows, ctx, path);
	if (ret)
		return ret;
	rows_set_subvol(rows, info->id,
			!!(info->flags & BTRFS_ROOT_SUBVOL_RDONLY));
	rows_set_kernel(rows, qgroup_find(q, info->id));
	ret = fastscan_root(ctx, fd, st, info->id, tick, tick_arg);
	/* Deleted since it was listed: an empty row. */
	if (ret == -ENOENT)
		ret = 0;
	ret2 = rows_close(rows, ctx);
	return ret && ret != -EUCLEAN ? ret : ret2 ? ret2 : ret;
}

/* The subvolumes deleted but not yet dropped by the cleaner: a row each,
 * with what the kernel counts for them and nothing else. */
static int deleting_rows(struct usage_ctx *ctx, struct rows *rows,
			 const struct qgroup *q)
{
	size_t i;
	int ret;

	for (i = 0; i < qgroup_nroots(q); i++) {
		const struct qgroup_root *qr = qgroup_root_at(q, i);

		if (!qr->deleting)
			continue;
		ret = rows_open(rows, ctx, "");
		if (ret)
			return ret;
		rows_set_subvol(rows, qr->id, 0);
		rows_set_deleting(rows);
		rows_set_kernel(rows, qr);
		ret = rows_close(rows, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int subvols_scan(struct usage_ctx *ctx, struct rows *rows, int fd,
		 const struct stat *st, const struct qgroup *q,
		 int (*tick)(void *), void *tick_arg)
{
	struct btrfs_util_subvolume_iterator *iter = NULL;
	struct btrfs_util_subvolume_info info;
	enum btrfs_util_error err;
	char *path = NULL, *full;
	int ret, bad = 0;

	errno = 0;
	err = btrfs_util_subvolume_info_fd(fd, BTRFS_FS_TREE_OBJECTID, &info);
	if (err)
		return util_errno(err);
	ret = one_subvol(ctx, rows, fd, st, "/", &info, q, tick, tick_arg);
	if (ret == -EUCLEAN)
		bad = 1;
	else if (ret)
		return ret;
	errno = 0;
	err = btrfs_util_create_subvolume_iterator_fd(fd,
						      BTRFS_FS_TREE_OBJECTID,
						      0, &iter);
	if (err)
		return util_errno(err);
	for (;;) {
		errno = 0;
		err = btrfs_util_subvolume_iterator_next_info(iter, &path,
							      &info);
		if (err == BTRFS_UTIL_ERROR_STOP_ITERATION)
			break;
		if (err) {
			ret = util_errno(err);
			break;
		}
		if (asprintf(&full, "/%s", path) < 0) {
			ret = -ENOMEM;
			break;
		}
		free(path);
		path = NULL;
		ret = one_subvol(ctx, rows, fd, st, full, &info, q, tick,
				 tick_arg);
		free(full);
		if (ret == -EUCLEAN)
			bad = 1;
		else if (ret)
			break;
		ret = 0;
	}
	free(path);
	btrfs_util_destroy_subvolume_iterator(iter);
	if (!ret)
		ret = deleting_rows(ctx, rows, q);
	return ret ? ret : bad ? -EUCLEAN : 0;
}
