// SPDX-License-Identifier: GPL-2.0
/* --subvolumes: a row per subvolume of the whole filesystem (subvols.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <btrfsutil.h>
#include "scan/fastscan.h"
#include "ioctl.h"
#include "run/subvols.h"

/* What the listing tells. */
struct subvols_cb {
	const struct qgroup *q;
	int (*tick)(void *);
	int (*gone)(void *, const char *);
	void *arg;
};

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
		      const struct subvols_cb *cb)
{
	int ret, ret2;

	/* Deleted since it was listed: no row. */
	if (fastscan_gone(ctx, fd, info->id))
		return cb->gone(cb->arg, path);
	ret = rows_open(rows, ctx, path);
	if (ret)
		return ret;
	rows_set_subvol(rows, info->id,
			!!(info->flags & BTRFS_ROOT_SUBVOL_RDONLY));
	rows_set_kernel(rows, qgroup_find(cb->q, info->id));
	ret = fastscan_root(ctx, fd, st, info->id, cb->tick, cb->arg);
	/* Deleted while it was read: its row holds what was read. */
	if (ret == -ENOENT)
		ret = cb->gone(cb->arg, path);
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

		if (!qr->deleting && !qr->gone)
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

/*
 * The listing met a subvolume deleted, and its tree dropped, since its
 * parent's ROOT_REFs were read: its root item is gone (path: the one it
 * had, NULL when its parent went too and none can be told).  Said, and
 * the listing goes on.  Returns 0 or -ENOMEM.
 */
static int listed_gone(const char *path, const struct subvols_cb *cb)
{
	char *full;
	int ret;

	if (!path)
		return 0;
	if (asprintf(&full, "/%s", path) < 0)
		return -ENOMEM;
	ret = cb->gone(cb->arg, full);
	free(full);
	return ret;
}

int subvols_scan(struct usage_ctx *ctx, struct rows *rows, int fd,
		 const struct stat *st, const struct qgroup *q,
		 int (*tick)(void *), int (*gone)(void *, const char *),
		 void *arg)
{
	const struct subvols_cb cb = { q, tick, gone, arg };
	struct btrfs_util_subvolume_iterator *iter = NULL;
	struct btrfs_util_subvolume_info info;
	enum btrfs_util_error err;
	char *path = NULL, *full;
	int ret, bad = 0;

	errno = 0;
	err = btrfs_util_subvolume_info_fd(fd, BTRFS_FS_TREE_OBJECTID, &info);
	if (err)
		return util_errno(err);
	ret = one_subvol(ctx, rows, fd, st, "/", &info, &cb);
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
		if (err && errno == ENOENT) {
			ret = listed_gone(path, &cb);
			free(path);
			path = NULL;
			if (ret)
				break;
			continue;
		}
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
		ret = one_subvol(ctx, rows, fd, st, full, &info, &cb);
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
