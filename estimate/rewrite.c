// SPDX-License-Identifier: GPL-2.0
/* Which files defrag -c would rewrite, and their old extents (rewrite.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <btrfsutil.h>
#include "lib/array.h"
#include "ioctl.h"
#include "estimate/rewrite.h"
#include "scan/search.h"
#include "seen.h"
#include "scan/sharing.h"

/* A subvolume met (by st_dev): its id, whether it is read-only, and the
 * inodes of it already fed. */
struct rw_subvol {
	dev_t dev;
	uint64_t root;
	bool ro;
	struct seen_set *inodes;
};

/* An extent a rewritten file's item keeps (rewrite_resolve()). */
struct rw_kept {
	size_t fs_idx;
	uint64_t bytenr;
};

struct rewrite {
	struct sharing *sh;
	struct rw_subvol *sv;
	size_t nsv, cap_sv;
	struct rw_kept *kept;
	size_t nkept, cap_kept;
	bool tail_left;		/* defrag_stop() applies (the kernel's) */
	struct search_ctx *search;	/* item_after()'s */
	uint64_t freed;
};

/* Linux 5.17 or later: defrag_get_extent() (fs/btrfs/defrag.c), whose
 * slot search defrag_stop() follows.  An unreadable release: assumed. */
static bool kernel_leaves_tail(void)
{
	struct utsname u;
	unsigned maj, min;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return true;
	return maj > 5 || (maj == 5 && min >= 17);
}

struct rewrite *rewrite_create(void)
{
	struct rewrite *rw = calloc(1, sizeof(*rw));

	if (!rw)
		return NULL;
	rw->sh = sharing_create();
	/* the inline data rewritten is replaced in its leaf */
	if (rw->sh)
		sharing_inline_whole(rw->sh);
	if (!rw->sh) {
		free(rw);
		return NULL;
	}
	rw->tail_left = kernel_leaves_tail();
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
	free(rw->kept);
	search_free(rw->search);
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

/*
 * Where defrag stops rewriting the file, or 0 when it rewrites it to its
 * end.  btrfs_defrag_file() goes through the file in clusters of 256 KiB
 * from offset 0; each cluster looks its extents up in the extent map tree
 * (defrag_lookup_extent()), and where it finds a map merged from
 * adjacent extents (EXTENT_FLAG_MERGED: raw extents contiguous on disk
 * and in the file, mergeable_maps()), reads the file extent item from
 * the subvolume tree instead (defrag_get_extent()).  That search, for a
 * cluster that starts inside the file's last extent item, lands on the
 * item after it, the next inode's; it steps back only when that item is
 * the same inode's extent item, so it finds nothing, and neither that
 * cluster nor any later one is rewritten.  So when the last item is raw
 * and its extent map merges with the item before it, the file is
 * rewritten up to the first cluster boundary inside that last item, and
 * the rest of it keeps its old extent (seen on Linux 6.18: a 300 MB file
 * written without compression, three items of 128, 128 and 30 MiB, kept
 * its last 30 MiB).  Not so when the last item ends its leaf of the tree
 * (the search steps back from past the leaf's end): the search ioctl
 * tells where the tree ends, and where the next item lies in a leaf of
 * another generation (item_after()), not where every leaf does.
 */
static uint64_t defrag_stop(const struct stat *st,
			    const struct extent_info *ext, size_t n)
{
	const uint64_t cluster = 256 * 1024;
	const struct extent_info *p, *l;
	uint64_t c, end;

	if (n < 2)
		return 0;
	p = &ext[n - 2];
	l = &ext[n - 1];
	if (l->type != BTRFS_FILE_EXTENT_REG || !l->disk_bytenr ||
	    l->compression || p->type != BTRFS_FILE_EXTENT_REG ||
	    !p->disk_bytenr || p->compression ||
	    p->file_pos + p->num_bytes != l->file_pos ||
	    p->disk_bytenr + p->offset + p->num_bytes !=
		    l->disk_bytenr + l->offset)
		return 0;
	c = (l->file_pos / cluster + 1) * cluster;
	end = l->file_pos + l->num_bytes;
	if ((uint64_t)st->st_size < end)
		end = st->st_size;
	return c < end ? c : 0;
}

/* item_after()'s search: the item itself, then the next one. */
struct next_item {
	int n;
	uint64_t transid[2];
};

static int two_items(const struct search_item *item, void *arg)
{
	struct next_item *x = arg;

	x->transid[x->n++] = item->transid;
	return x->n == 2;
}

/*
 * Whether the item (ino, EXTENT_DATA, off) of the tree of the subvolume fd
 * is in has an item after it in its leaf, as far as the search ioctl
 * tells: none when it ends the tree, or when the next item lies in a
 * leaf of another generation (each item comes with its leaf's); 1 when
 * that can't be told.
 */
static int item_after(struct rewrite *rw, int fd, uint64_t ino,
		      uint64_t off)
{
	struct btrfs_ioctl_search_key key;
	struct next_item x = { 0 };

	if (!rw->search)
		rw->search = search_create(4096);
	if (!rw->search)
		return 1;
	search_key_range(&key, 0, ino, BTRFS_EXTENT_DATA_KEY, UINT64_MAX,
			 UINT8_MAX);
	key.min_offset = off;
	if (search_run(rw->search, fd, &key, 0, two_items, &x) < 0)
		return 1;
	return x.n == 2 && x.transid[0] == x.transid[1];
}

/* The extent of an item the rewrite leaves in place: freed by nothing. */
static int keep(struct rewrite *rw, size_t fs_idx, uint64_t bytenr)
{
	struct rw_kept *k;

	if (!bytenr)
		return 0;
	k = array_grow(rw->kept, &rw->cap_kept, rw->nkept, sizeof(*k));
	if (!k)
		return -ENOMEM;
	rw->kept = k;
	rw->kept[rw->nkept++] = (struct rw_kept){ fs_idx, bytenr };
	return 0;
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
		 size_t n, uint64_t *stop)
{
	struct rw_subvol *sv;
	size_t i;
	int ret, regular = 0;

	*stop = 0;
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
	/* a file of several names is defragged again through each: the
	 * next pass finds its last item as the first one left it, no longer
	 * merged with a raw extent before it, and rewrites it (assumed
	 * among the paths, as a tree's hard links mostly are) */
	if (rw->tail_left && st->st_nlink < 2)
		*stop = defrag_stop(st, ext, n);
	/* a last item that ends its leaf (the newest file's ends the tree):
	 * the search steps back */
	if (*stop && !item_after(rw, fd, st->st_ino, ext[n - 1].file_pos))
		*stop = 0;
	ret = seen_insert(sv->inodes, (uint64_t)st->st_ino);
	if (ret <= 0)
		return ret < 0 ? ret : 1;	/* another link: fed already */
	ret = sharing_add_fs(rw->sh, fs_idx, fd);
	/* every name of the inode is rewritten with it */
	if (!ret)
		ret = sharing_file(rw->sh, fs_idx, sv->root, st->st_ino,
				   (uint32_t)st->st_nlink,
				   (uint32_t)st->st_nlink);
	for (i = 0; !ret && i < n; i++) {
		struct extent_info ei = ext[i];

		/* inline data counts at each name (compsize's per path) */
		if (ei.type == BTRFS_FILE_EXTENT_INLINE && st->st_nlink > 1)
			ei.inline_len *= st->st_nlink;
		if (target(&ei))
			ret = sharing_extent(rw->sh, fs_idx, &ei);
	}
	/* what stays: preallocated ranges (of an extent written in part),
	 * and the last item past where defrag stops */
	for (i = 0; !ret && i < n; i++)
		if (ext[i].type == BTRFS_FILE_EXTENT_PREALLOC)
			ret = keep(rw, fs_idx, ext[i].disk_bytenr);
	if (!ret && *stop)
		ret = keep(rw, fs_idx, ext[n - 1].disk_bytenr);
	return ret ? ret : 1;
}

int rewrite_resolve(struct rewrite *rw, int (*tick)(void *), void *arg)
{
	struct sharing_result res;
	size_t i;
	int ret;

	for (i = 0; i < rw->nkept; i++)
		sharing_keep(rw->sh, rw->kept[i].fs_idx, rw->kept[i].bytenr);
	ret = sharing_resolve(rw->sh, tick, arg);
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
