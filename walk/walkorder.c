// SPDX-License-Identifier: GPL-2.0
/* Where the walk meets each file the fast scan lists: see walkorder.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btrfs_tree.h>
#include "lib/array.h"
#include "lib/radix.h"
#include "walk/walkorder.h"

/* An entry: index of directory dir of the tree trees[tree] is child.
 * 32 bytes: one for every file and directory listed. */
struct wo_entry {
	uint64_t dir, index, child;
	uint32_t tree;		/* into walkorder.trees */
	uint8_t kind;		/* WALKORDER_* */
	uint8_t walked;		/* the first of its directory's, walked */
};

struct walkorder {
	/* the trees met, in the order their entries first came */
	uint64_t *trees;
	size_t ntrees, cap_trees, last;
	/* files and directories: in the order the fast scan streams them,
	 * by (tree, dir, index) unless unsorted */
	struct wo_entry *e;
	size_t ne, cap_e;
	int unsorted;
	/* nested subvolumes' entries, apart (they come after their
	 * tree's) */
	struct wo_entry *sv;
	size_t nsv, cap_sv;
};

struct walkorder *walkorder_create(void)
{
	return calloc(1, sizeof(struct walkorder));
}

void walkorder_free(struct walkorder *o)
{
	if (!o)
		return;
	free(o->trees);
	free(o->e);
	free(o->sv);
	free(o);
}

/* The index of tree id in o->trees, added when add; SIZE_MAX when not
 * there, or out of memory. */
static size_t tree_index(struct walkorder *o, uint64_t id, int add)
{
	uint64_t *t;
	size_t i;

	if (o->last < o->ntrees && o->trees[o->last] == id)
		return o->last;
	for (i = 0; i < o->ntrees; i++)
		if (o->trees[i] == id)
			return o->last = i;
	if (!add || o->ntrees > UINT32_MAX)
		return SIZE_MAX;
	t = array_grow(o->trees, &o->cap_trees, o->ntrees, sizeof(*t));
	if (!t)
		return SIZE_MAX;
	o->trees = t;
	t[o->ntrees] = id;
	return o->last = o->ntrees++;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct wo_entry *x = a, *y = b;

	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int walkorder_entry(struct walkorder *o, uint64_t tree_id, uint64_t dir,
		    uint64_t index, uint64_t child, int kind)
{
	size_t t = tree_index(o, tree_id, 1);
	struct wo_entry *v, **arr = kind == WALKORDER_SUBVOL ? &o->sv : &o->e;
	size_t *n = kind == WALKORDER_SUBVOL ? &o->nsv : &o->ne;
	size_t *cap = kind == WALKORDER_SUBVOL ? &o->cap_sv : &o->cap_e;

	if (t == SIZE_MAX)
		return -ENOMEM;
	v = array_grow(*arr, cap, *n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	*arr = v;
	v[*n] = (struct wo_entry){
		.dir = dir,
		.index = index,
		.child = child,
		.tree = (uint32_t)t,
		.kind = (uint8_t)kind,
	};
	if (kind != WALKORDER_SUBVOL && *n && entry_cmp(&v[*n - 1], &v[*n]) > 0)
		o->unsorted = 1;
	(*n)++;
	return 0;
}

/* The entries of directory dir of tree t in v[0..n) (sorted): [*lo, *hi). */
static void range_of(const struct wo_entry *v, size_t n, uint32_t t,
		     uint64_t dir, size_t *lo, size_t *hi)
{
	struct wo_entry k = { .dir = dir, .tree = t, .index = 0 };
	size_t a = 0, b = n, m;

	while (a < b) {
		m = a + (b - a) / 2;
		if (entry_cmp(&v[m], &k) < 0)
			a = m + 1;
		else
			b = m;
	}
	*lo = a;
	for (b = a; b < n && v[b].tree == t && v[b].dir == dir; b++)
		;
	*hi = b;
}

/* A directory being walked: its entries left, in both lists. */
struct wo_frame {
	size_t e, e_end, s, s_end;
};

/* radix_ranks(v, tmp, n): v[0..n) by key (radix.h), stable: a file's
 * first name's rank first. */
RADIX_SORT_DEFINE(radix_ranks, struct walkorder_rank, key)

struct walkorder_rank *walkorder_sort(struct walkorder_rank *v,
				      struct walkorder_rank *tmp, size_t n)
{
	return radix_ranks(v, tmp, n);
}

/* Push directory dir of tree t onto the walk, unless walked already (a
 * corrupt tree may name a directory twice).  Returns 0 or -ENOMEM. */
static int enter(struct walkorder *o, struct wo_frame **st, size_t *cap,
		 size_t *depth, uint32_t t, uint64_t dir)
{
	struct wo_frame f, *p;

	range_of(o->e, o->ne, t, dir, &f.e, &f.e_end);
	range_of(o->sv, o->nsv, t, dir, &f.s, &f.s_end);
	if (f.e < f.e_end) {
		if (o->e[f.e].walked)
			return 0;
		o->e[f.e].walked = 1;
	}
	p = array_grow(*st, cap, *depth, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*st = p;
	p[(*depth)++] = f;
	return 0;
}

int walkorder_ranks(struct walkorder *o, uint64_t tree_id, uint64_t root,
		    uint64_t (*key)(void *arg, uint64_t tree_id, uint64_t ino),
		    void *arg, struct walkorder_rank **out, size_t *n,
		    int *order_listed)
{
	struct wo_frame *st = NULL, *f;
	struct walkorder_rank *r = NULL, *rr, *tmp, *sorted;
	size_t cap = 0, depth = 0, nr = 0, cap_r = 0, t;
	const struct wo_entry *x;
	uint64_t rank = 0, last_ino = 0;
	uint32_t last_tree = 0;
	int ret = 0, listed = 1;

	*out = NULL;
	*n = 0;
	if (order_listed)
		*order_listed = 0;
	if (o->unsorted)
		qsort(o->e, o->ne, sizeof(*o->e), entry_cmp);
	o->unsorted = 0;
	if (o->nsv > 1)
		qsort(o->sv, o->nsv, sizeof(*o->sv), entry_cmp);
	for (t = 0; t < o->ne; t++)
		o->e[t].walked = 0;
	t = tree_index(o, tree_id, 0);
	if (t != SIZE_MAX)
		ret = enter(o, &st, &cap, &depth, (uint32_t)t, root);
	while (!ret && depth) {
		f = &st[depth - 1];
		/* the next entry by index, from either list */
		if (f->e < f->e_end && (f->s >= f->s_end ||
					o->e[f->e].index <= o->sv[f->s].index)) {
			x = &o->e[f->e++];
		} else if (f->s < f->s_end) {
			x = &o->sv[f->s++];
		} else {
			depth--;
			continue;
		}
		switch (x->kind) {
		case WALKORDER_FILE:
			/* still the order listed: trees as streamed, each
			 * one's inodes in order */
			listed &= !nr || x->tree > last_tree ||
				  (x->tree == last_tree && x->child > last_ino);
			last_tree = x->tree;
			last_ino = x->child;
			rr = array_grow(r, &cap_r, nr, sizeof(*rr));
			if (!rr) {
				ret = -ENOMEM;
				break;
			}
			r = rr;
			r[nr].key = key(arg, o->trees[x->tree], x->child);
			r[nr++].rank = rank++;
			break;
		case WALKORDER_DIR:
			ret = enter(o, &st, &cap, &depth, x->tree, x->child);
			break;
		default:
			/* a nested subvolume: its root directory */
			t = tree_index(o, x->child, 0);
			if (t != SIZE_MAX)
				ret = enter(o, &st, &cap, &depth, (uint32_t)t,
					    BTRFS_FIRST_FREE_OBJECTID);
			break;
		}
	}
	free(st);
	if (ret) {
		free(r);
		return ret;
	}
	if (listed && order_listed) {
		free(r);
		*order_listed = 1;
		return 0;
	}
	if (nr > 1) {
		tmp = malloc(nr * sizeof(*tmp));
		sorted = tmp ? walkorder_sort(r, tmp, nr) : NULL;
		if (sorted && sorted != r)
			memcpy(r, sorted, nr * sizeof(*r));
		free(tmp);
		if (!sorted) {
			free(r);
			return -ENOMEM;
		}
	}
	*out = r;
	*n = nr;
	return 0;
}
