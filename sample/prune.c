// SPDX-License-Identifier: GPL-2.0
/* The walk of a sample where files must be met: see prune.h. */
#include <errno.h>
#include <stdlib.h>
#include <btrfsutil.h>
#include "lib/array.h"
#include "ioctl.h"
#include "sample/prune.h"
#include "lib/radix.h"
#include "seen.h"

struct prune_name {
	uint64_t child, dir;
};

struct prune {
	uint64_t tree_id, root;
	/* the regular files' names, until prune_plan() */
	struct prune_name *files;
	size_t nfiles, cap_files;
	/* the directories' names, sorted by child after prune_plan() */
	struct prune_name *dirs;
	size_t ndirs, cap_dirs;
	/* directories that name a subvolume: as a set, and in a list */
	struct seen_set *subvol_dirs;
	struct u64_vec sv;
	/* directories with a file to meet below them */
	struct seen_set *needed;
	/* the files counted ahead: as a set, and in order */
	struct seen_set *counted;
	struct u64_vec ahead;
};

struct prune *prune_create(uint64_t tree_id, uint64_t root)
{
	struct prune *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->tree_id = tree_id;
	p->root = root;
	p->subvol_dirs = seen_create();
	p->needed = seen_create();
	p->counted = seen_create();
	if (!p->subvol_dirs || !p->needed || !p->counted) {
		prune_free(p);
		return NULL;
	}
	return p;
}

void prune_free(struct prune *p)
{
	if (!p)
		return;
	free(p->files);
	free(p->dirs);
	seen_free(p->subvol_dirs);
	free(p->sv.v);
	seen_free(p->needed);
	seen_free(p->counted);
	free(p->ahead.v);
	free(p);
}

static int push_name(struct prune_name **v, size_t *cap, size_t *n,
		     uint64_t child, uint64_t dir)
{
	struct prune_name *a = array_grow(*v, cap, *n, sizeof(**v));

	if (!a)
		return -ENOMEM;
	*v = a;
	a[*n].child = child;
	a[(*n)++].dir = dir;
	return 0;
}

int prune_entry(struct prune *p, uint64_t tree_id, uint64_t dir,
		uint64_t child, uint8_t loc_type, uint8_t ftype)
{
	if (tree_id != p->tree_id)
		return 0;
	if (loc_type == BTRFS_ROOT_ITEM_KEY) {
		int ret = seen_insert(p->subvol_dirs, dir);

		return ret <= 0 ? ret : u64_vec_push(&p->sv, dir);
	}
	if (loc_type != BTRFS_INODE_ITEM_KEY)
		return 0;
	if (ftype == BTRFS_FT_REG_FILE)
		return push_name(&p->files, &p->cap_files, &p->nfiles, child,
				 dir);
	if (ftype == BTRFS_FT_DIR)
		return push_name(&p->dirs, &p->cap_dirs, &p->ndirs, child,
				 dir);
	return 0;
}

static int by_child(const void *a, const void *b)
{
	const struct prune_name *x = a, *y = b;

	if (x->child != y->child)
		return x->child < y->child ? -1 : 1;
	return x->dir < y->dir ? -1 : x->dir > y->dir;
}

LOWER_BOUND_DEFINE(dirs_find, struct prune_name, child)

/* The first name of directory ino in p->dirs (sorted), or NULL. */
static const struct prune_name *dir_name(const struct prune *p, uint64_t ino)
{
	size_t lo = dirs_find(p->dirs, p->ndirs, ino);

	return lo < p->ndirs && p->dirs[lo].child == ino ? &p->dirs[lo] : NULL;
}

/* Directory dir and those above it up to the root must be walked.  A
 * directory has one name; a loop (a corrupt tree) ends where it meets a
 * directory marked before. */
static int need_dir(struct prune *p, uint64_t dir)
{
	const struct prune_name *n;
	int ret;

	for (;;) {
		ret = seen_insert(p->needed, dir);
		if (ret <= 0 || dir == p->root)
			return ret < 0 ? ret : 0;
		n = dir_name(p, dir);
		if (!n)
			return 0;
		dir = n->dir;
	}
}

int prune_plan(struct prune *p, int (*need)(void *arg, uint64_t ino),
	       void *arg)
{
	size_t i;
	int ret = 0;

	if (p->ndirs)
		qsort(p->dirs, p->ndirs, sizeof(*p->dirs), by_child);
	/* most files are counted ahead: one table for them, not each size
	 * up to it */
	ret = seen_reserve(p->counted, p->nfiles);
	for (i = 0; !ret && i < p->nfiles; i++) {
		const struct prune_name *n = &p->files[i];

		ret = need(arg, n->child);
		if (ret < 0)
			break;
		if (ret) {
			ret = need_dir(p, n->dir);
			continue;
		}
		ret = seen_insert(p->counted, n->child);
		if (ret == 1)
			ret = u64_vec_push(&p->ahead, n->child);
	}
	/* the directories naming a subvolume lead to it */
	for (i = 0; !ret && i < p->sv.n; i++)
		ret = need_dir(p, p->sv.v[i]);
	free(p->files);
	p->files = NULL;
	p->nfiles = p->cap_files = 0;
	return ret;
}

size_t prune_ahead(const struct prune *p, const uint64_t **inos)
{
	*inos = p->ahead.v;
	return p->ahead.n;
}

int prune_counted(const struct prune *p, uint64_t ino)
{
	return seen_contains(p->counted, ino);
}

int prune_skip_dir(const struct prune *p, uint64_t dir, uint64_t ino)
{
	return !seen_contains(p->subvol_dirs, dir) && dir_name(p, ino) &&
	       !seen_contains(p->needed, ino);
}
