// SPDX-License-Identifier: GPL-2.0
/* Which files defrag -c would rewrite, and their old extents (rewrite.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <btrfsutil.h>
#include "array.h"
#include "ioctl.h"
#include "rewrite.h"
#include "seen.h"
#include "sharing.h"

/* A subvolume met (by st_dev): its id, whether it is read-only, and the
 * inodes of it already fed. */
struct rw_subvol {
	dev_t dev;
	uint64_t root;
	bool ro;
	struct seen_set *inodes;
};

struct rewrite {
	struct sharing *sh;
	struct rw_subvol *sv;
	size_t nsv, cap_sv;
	uint64_t freed;
};

struct rewrite *rewrite_create(void)
{
	struct rewrite *rw = calloc(1, sizeof(*rw));

	if (!rw)
		return NULL;
	rw->sh = sharing_create();
	if (!rw->sh) {
		free(rw);
		return NULL;
	}
	return rw;
}

void rewrite_free(struct rewrite *rw)
{
	size_t i;

	if (!rw)
		return;
	for (i = 0; i < rw->nsv; i++)
		seen_free(rw->sv[i].inodes);
	free(rw->sv);
	sharing_free(rw->sh);
	free(rw);
}

/*
 * defrag_collect_targets(): holes and prealloc extents are left alone, and
 * inline extents whose extent map is at most max_inline long; an inline
 * extent's map is one sector long (btrfs_extent_item_to_extent_map()),
 * more than the default max_inline of 2048, so with the default every
 * inline extent is rewritten too (inline again if it still fits).
 */
static int target(const struct extent_info *ei)
{
	if (ei->type == BTRFS_FILE_EXTENT_INLINE)
		return 1;
	return ei->type == BTRFS_FILE_EXTENT_REG && ei->disk_bytenr;
}

/* The subvolume of the file on fd, learnt once per st_dev. */
static int subvol_of(struct rewrite *rw, int fd, const struct stat *st,
		     struct rw_subvol **out)
{
	struct btrfs_util_subvolume_info info;
	struct rw_subvol *sv;
	size_t i;

	for (i = 0; i < rw->nsv; i++)
		if (rw->sv[i].dev == st->st_dev) {
			*out = &rw->sv[i];
			return 0;
		}
	sv = array_grow(rw->sv, &rw->cap_sv, rw->nsv, sizeof(*sv));
	if (!sv)
		return -ENOMEM;
	rw->sv = sv;
	sv = &rw->sv[rw->nsv];
	memset(sv, 0, sizeof(*sv));
	sv->dev = st->st_dev;
	/* defrag fails with EROFS in a read-only subvolume (a snapshot);
	 * the root item's flags tell (SUBVOL_GETFLAGS only answers on the
	 * subvolume's own directory) */
	if (btrfs_util_subvolume_id_fd(fd, &sv->root) ||
	    btrfs_util_subvolume_info_fd(fd, sv->root, &info))
		return errno ? -errno : -EIO;
	sv->ro = info.flags & BTRFS_ROOT_SUBVOL_RDONLY;
	sv->inodes = seen_create();
	if (!sv->inodes)
		return -ENOMEM;
	rw->nsv++;
	*out = sv;
	return 0;
}

int rewrite_file(struct rewrite *rw, size_t fs_idx, int fd,
		 const struct stat *st, const struct extent_info *ext,
		 size_t n)
{
	struct rw_subvol *sv;
	size_t i;
	int ret, regular = 0;

	for (i = 0; i < n; i++)
		if (target(&ext[i]))
			regular = 1;
	if (!regular)
		return 0;
	ret = subvol_of(rw, fd, st, &sv);
	if (ret)
		return ret;
	if (sv->ro)
		return 0;
	ret = seen_insert(sv->inodes, (uint64_t)st->st_ino);
	if (ret <= 0)
		return ret < 0 ? ret : 1;	/* another link: fed already */
	ret = sharing_add_fs(rw->sh, fs_idx, fd);
	/* every name of the inode is rewritten with it */
	if (!ret)
		ret = sharing_file(rw->sh, fs_idx, sv->root, st->st_ino,
				   (uint32_t)st->st_nlink,
				   (uint32_t)st->st_nlink);
	for (i = 0; !ret && i < n; i++)
		if (target(&ext[i]))
			ret = sharing_extent(rw->sh, fs_idx, &ext[i]);
	return ret ? ret : 1;
}

int rewrite_resolve(struct rewrite *rw, int (*tick)(void *), void *arg)
{
	struct sharing_result res;
	int ret = sharing_resolve(rw->sh, tick, arg);

	if (ret)
		return ret;
	sharing_total(rw->sh, &res);
	rw->freed = res.exclusive;
	return 0;
}

uint64_t rewrite_freed(const struct rewrite *rw)
{
	return rw->freed;
}
