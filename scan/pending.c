// SPDX-License-Identifier: GPL-2.0
/* Which subvolumes may have changes a tree search doesn't see yet. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "lib/array.h"
#include "ioctl.h"
#include "scan/pending.h"

/* exportfs's FILEID_BTRFS_WITHOUT_PARENT: struct btrfs_fid up to its
 * parent_objectid (fs/btrfs/export.c). */
#define BTRFS_FH_TYPE		0x4d
#define BTRFS_FH_SIZE		20

struct first_item {
	uint64_t value;
	uint32_t at;
	int found;
};

/* The little-endian u64 at fi->at of the first item found. */
static int take_first(const struct search_item *it, void *arg)
{
	struct first_item *fi = arg;

	if (it->len >= fi->at + sizeof(uint64_t)) {
		fi->value = get_le64(it->data + fi->at);
		fi->found = 1;
	}
	return 1;
}

static int read_u64(struct search_ctx *s, int fd, uint32_t nodesize,
		    uint64_t tree, uint64_t objectid, uint32_t type,
		    uint32_t at, uint64_t *value)
{
	struct first_item fi = { .at = at };
	struct btrfs_ioctl_search_key key;
	int ret;

	search_key_range(&key, tree, objectid, type, objectid, type);
	ret = search_run(s, fd, &key, nodesize, take_first, &fi);
	if (ret < 0)
		return ret;
	*value = fi.found ? fi.value : 0;
	return fi.found;
}

uint64_t pending_last_snapshot(struct pending_snaps *c, struct search_ctx *s,
			       int fd, uint32_t nodesize, uint64_t root,
			       int *err)
{
	struct pending_snap *g;
	uint64_t v;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].id == root)
			return c->v[i].last;
	g = array_grow(c->v, &c->cap, c->n, sizeof(*g));
	if (!g) {
		*err = -ENOMEM;
		return UINT64_MAX;
	}
	c->v = g;
	g += c->n++;
	g->id = root;
	g->last = read_u64(s, fd, nodesize, BTRFS_ROOT_TREE_OBJECTID, root,
			   BTRFS_ROOT_ITEM_KEY, ROOT_ITEM_LAST_SNAPSHOT,
			   &v) == 1 ? v : UINT64_MAX;
	return g->last;
}

void pending_snaps_free(struct pending_snaps *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int pending_committed(struct search_ctx *s, int fd, uint32_t nodesize,
		      uint64_t *gen)
{
	int ret = read_u64(s, fd, nodesize, BTRFS_ROOT_TREE_OBJECTID,
			   BTRFS_EXTENT_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY,
			   ROOT_ITEM_GENERATION, gen);

	return ret < 0 ? ret : 0;
}

int pending_subvol(int fd, uint64_t committed)
{
	struct btrfs_ioctl_get_subvol_info_args info;

	/* The root item in memory, not the one in the root tree, which a
	 * commit updates (btrfs_ioctl_get_subvol_info(), which returns 1 when
	 * the subvolume is not the top one: its ROOT_BACKREF search's). */
	if (ioctl(fd, BTRFS_IOC_GET_SUBVOL_INFO, &info) < 0)
		return 1;
	return info.ctransid > committed;
}

int pending_open(int fd, uint64_t tree_id, uint64_t ino, uint64_t gen,
		 int flags)
{
	struct {
		struct file_handle fh;
		uint8_t fid[BTRFS_FH_SIZE];
	} h;
	uint32_t gen32 = (uint32_t)gen;
	int ofd;

	h.fh.handle_bytes = BTRFS_FH_SIZE;
	h.fh.handle_type = BTRFS_FH_TYPE;
	/* struct btrfs_fid: objectid, root_objectid, gen, in CPU order */
	memcpy(h.fh.f_handle, &ino, sizeof(ino));
	memcpy(h.fh.f_handle + 8, &tree_id, sizeof(tree_id));
	memcpy(h.fh.f_handle + 16, &gen32, sizeof(gen32));
	ofd = open_by_handle_at(fd, &h.fh, flags | O_CLOEXEC);
	return ofd < 0 ? -errno : ofd;
}

int pending_subvol_id(struct search_ctx *s, int fd, uint32_t nodesize,
		      uint64_t tree_id, uint64_t committed)
{
	uint64_t gen;
	int ret, sfd;

	/* btrfs_get_dentry() checks the inode's generation. */
	ret = read_u64(s, fd, nodesize, tree_id, BTRFS_FIRST_FREE_OBJECTID,
		       BTRFS_INODE_ITEM_KEY, INODE_GENERATION, &gen);
	if (ret == -ENOMEM)
		return ret;
	if (ret != 1)
		return 1;
	sfd = pending_open(fd, tree_id, BTRFS_FIRST_FREE_OBJECTID, gen,
			   O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (sfd < 0)
		return sfd == -ENOMEM ? -ENOMEM : 1;
	ret = pending_subvol(sfd, committed);
	close(sfd);
	return ret;
}
