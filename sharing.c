// SPDX-License-Identifier: GPL-2.0
/* Exclusive space: which extents of a set of files nothing else references. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <btrfsutil.h>
#include "array.h"
#include "ioctl.h"
#include "search.h"
#include "seen.h"
#include "sharing.h"

#define SHARING_SEARCH_BUF	(256u << 10)
#define TABLE_MIN_BITS		6
/* Items read from other subvolumes between two ticks. */
#define TICK_ITEMS		8192

/*
 * Open addressing keyed by a non-zero u64 at the start of each entry
 * (0 marks an empty slot): extents by disk_bytenr, inodes by number.
 */
struct table {
	uint8_t *slots;
	size_t esize;
	unsigned bits;
	size_t count;
};

struct ext_entry {
	uint64_t bytenr;
	uint64_t disk;		/* disk_num_bytes */
	uint32_t row;		/* innermost row holding every reference */
	uint16_t type;		/* row of struct cs_stats, first seen */
	uint8_t shared;		/* referenced from outside S */
};

struct ino_entry {
	uint64_t ino;
	uint32_t names;		/* paths of it found in S */
	uint32_t nlink;
};

struct share_root {
	uint64_t id;
	int whole;
	struct table inodes;	/* of struct ino_entry; unused when whole */
};

struct share_fs {
	size_t fs_idx;
	int fd;
	uint32_t nodesize;
	struct table extents;	/* of struct ext_entry */
	struct share_root *roots;
	size_t nroots, cap_roots;
	size_t undecided;	/* extents not yet known to be shared */
};

struct dev_root {
	dev_t dev;
	uint64_t root;
};

struct sharing {
	struct share_fs *fs;
	size_t nfs;
	struct share_fs *cur_fs;	/* of the file announced last */
	struct share_root *cur_root;
	struct ino_entry cur_file;	/* ino 0: none */
	struct dev_root *devs;
	size_t ndevs, cap_devs;
	/* Rows: id 0 is S itself; parent[] and depth[] by id. */
	uint32_t *parent, *depth;
	uint64_t *row_excl;
	size_t nrows, cap_rows;
	uint32_t *stack;
	size_t nstack, cap_stack;
	int nomem;
	uint64_t inline_type[CS_NTYPES];
	struct search_ctx *search;
	int resolved;
};

static size_t slot_of(uint64_t key, unsigned bits)
{
	/* Fibonacci hashing: disk_bytenr values are sector multiples. */
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

static int table_init(struct table *t, size_t esize)
{
	t->esize = esize;
	t->bits = TABLE_MIN_BITS;
	t->count = 0;
	t->slots = calloc((size_t)1 << t->bits, esize);
	return t->slots ? 0 : -ENOMEM;
}

static uint64_t slot_used(const uint8_t *slots, size_t esize, size_t i)
{
	uint64_t k;

	memcpy(&k, slots + i * esize, sizeof(k));
	return k;
}

static uint64_t key_at(const struct table *t, size_t i)
{
	return slot_used(t->slots, t->esize, i);
}

/* The entry of key, or NULL. */
static void *table_find(const struct table *t, uint64_t key)
{
	size_t mask = ((size_t)1 << t->bits) - 1;
	size_t i;
	uint64_t k;

	if (!t->slots)
		return NULL;
	for (i = slot_of(key, t->bits); (k = key_at(t, i)); i = (i + 1) & mask)
		if (k == key)
			return t->slots + i * t->esize;
	return NULL;
}

static int table_grow(struct table *t)
{
	unsigned bits = t->bits + 1;
	size_t i, j, mask = ((size_t)1 << bits) - 1;
	uint8_t *slots;
	uint64_t k;

	if (bits >= 8 * sizeof(size_t) - 6)
		return -ENOMEM;
	slots = calloc((size_t)1 << bits, t->esize);
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < (size_t)1 << t->bits; i++) {
		k = key_at(t, i);
		if (!k)
			continue;
		for (j = slot_of(k, bits); slot_used(slots, t->esize, j);
		     j = (j + 1) & mask)
			;
		memcpy(slots + j * t->esize, t->slots + i * t->esize,
		       t->esize);
	}
	free(t->slots);
	t->slots = slots;
	t->bits = bits;
	return 0;
}

/* The entry of key (non-zero), added zeroed but for the key when new
 * (*added set).  NULL when out of memory. */
static void *table_get(struct table *t, uint64_t key, int *added)
{
	size_t mask, i;
	uint8_t *e;

	e = table_find(t, key);
	*added = !e;
	if (e)
		return e;
	/* At most 3/4 full, so probe runs stay short. */
	if ((t->count + 1) * 4 > ((size_t)3 << t->bits) && table_grow(t))
		return NULL;
	mask = ((size_t)1 << t->bits) - 1;
	for (i = slot_of(key, t->bits); key_at(t, i); i = (i + 1) & mask)
		;
	e = t->slots + i * t->esize;
	memset(e, 0, t->esize);
	memcpy(e, &key, sizeof(key));
	t->count++;
	return e;
}

static size_t table_memory(const struct table *t)
{
	return t->slots ? t->esize << t->bits : 0;
}

struct sharing *sharing_create(void)
{
	struct sharing *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	/* Row 0: S itself. */
	sh->parent = calloc(8, sizeof(*sh->parent));
	sh->depth = calloc(8, sizeof(*sh->depth));
	sh->row_excl = calloc(8, sizeof(*sh->row_excl));
	sh->cap_rows = 8;
	sh->nrows = 1;
	if (!sh->parent || !sh->depth || !sh->row_excl) {
		sharing_free(sh);
		return NULL;
	}
	return sh;
}

void sharing_free(struct sharing *sh)
{
	size_t i, j;

	if (!sh)
		return;
	for (i = 0; i < sh->nfs; i++) {
		struct share_fs *fs = &sh->fs[i];

		if (fs->fd >= 0)
			close(fs->fd);
		free(fs->extents.slots);
		for (j = 0; j < fs->nroots; j++)
			free(fs->roots[j].inodes.slots);
		free(fs->roots);
	}
	free(sh->fs);
	free(sh->devs);
	free(sh->parent);
	free(sh->depth);
	free(sh->row_excl);
	free(sh->stack);
	search_free(sh->search);
	free(sh);
}

static struct share_fs *fs_find(struct sharing *sh, size_t fs_idx)
{
	size_t i;

	for (i = 0; i < sh->nfs; i++)
		if (sh->fs[i].fs_idx == fs_idx)
			return &sh->fs[i];
	return NULL;
}

int sharing_add_fs(struct sharing *sh, size_t fs_idx, int fd)
{
	struct btrfs_ioctl_fs_info_args info = { 0 };
	struct share_fs *fs;

	if (fs_find(sh, fs_idx))
		return 0;
	if (fd >= 0 && ioctl(fd, BTRFS_IOC_FS_INFO, &info))
		return -errno;
	fs = realloc(sh->fs, (sh->nfs + 1) * sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	sh->fs = fs;
	/* pointers into the array are stale now */
	sh->cur_fs = NULL;
	sh->cur_root = NULL;
	fs = &sh->fs[sh->nfs];
	memset(fs, 0, sizeof(*fs));
	fs->fs_idx = fs_idx;
	fs->nodesize = info.nodesize;
	fs->fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd >= 0 && fs->fd < 0)
		return -errno;
	if (table_init(&fs->extents, sizeof(struct ext_entry))) {
		close(fs->fd);
		return -ENOMEM;
	}
	sh->nfs++;
	return 0;
}

static struct share_root *root_get(struct share_fs *fs, uint64_t id)
{
	struct share_root *r;
	size_t i;

	for (i = 0; i < fs->nroots; i++)
		if (fs->roots[i].id == id)
			return &fs->roots[i];
	r = array_grow(fs->roots, &fs->cap_roots, fs->nroots, sizeof(*r));
	if (!r)
		return NULL;
	fs->roots = r;
	r = &fs->roots[fs->nroots];
	memset(r, 0, sizeof(*r));
	r->id = id;
	fs->nroots++;
	return r;
}

int sharing_whole_root(struct sharing *sh, size_t fs_idx, uint64_t root)
{
	struct share_fs *fs = fs_find(sh, fs_idx);
	struct share_root *r;

	if (!fs)
		return -EINVAL;
	sh->cur_root = NULL;
	r = root_get(fs, root);
	if (!r)
		return -ENOMEM;
	r->whole = 1;
	free(r->inodes.slots);
	r->inodes.slots = NULL;
	return 0;
}

int sharing_file(struct sharing *sh, size_t fs_idx, uint64_t root,
		 uint64_t ino, uint32_t nlink, uint32_t names)
{
	struct share_fs *fs = fs_find(sh, fs_idx);
	struct share_root *r;
	struct ino_entry *e;
	int added;

	sh->cur_fs = fs;
	if (!fs)
		return -EINVAL;
	if (!sh->cur_root || sh->cur_root->id != root) {
		sh->cur_root = root_get(fs, root);
		if (!sh->cur_root)
			return -ENOMEM;
	}
	r = sh->cur_root;
	if (r->whole)
		return 0;
	if (!r->inodes.slots && table_init(&r->inodes, sizeof(*e)))
		return -ENOMEM;
	e = table_get(&r->inodes, ino, &added);
	if (!e)
		return -ENOMEM;
	e->names += names;
	e->nlink = nlink;
	return 0;
}

int sharing_walk_file(struct sharing *sh, size_t fs_idx, int fd,
		      const struct stat *st)
{
	struct dev_root *d;
	uint64_t root;
	size_t i;

	for (i = 0; i < sh->ndevs; i++)
		if (sh->devs[i].dev == st->st_dev)
			break;
	if (i == sh->ndevs) {
		if (btrfs_util_subvolume_id_fd(fd, &root))
			return errno ? -errno : -EIO;
		d = array_grow(sh->devs, &sh->cap_devs, sh->ndevs, sizeof(*d));
		if (!d)
			return -ENOMEM;
		sh->devs = d;
		d[i].dev = st->st_dev;
		d[i].root = root;
		sh->ndevs++;
	}
	return sharing_file(sh, fs_idx, sh->devs[i].root, st->st_ino,
			    (uint32_t)st->st_nlink, 1);
}

/* The innermost row holding rows a and b. */
static uint32_t row_lca(const struct sharing *sh, uint32_t a, uint32_t b)
{
	while (a != b) {
		if (sh->depth[a] >= sh->depth[b])
			a = sh->parent[a];
		else
			b = sh->parent[b];
	}
	return a;
}

static uint32_t row_cur(const struct sharing *sh)
{
	return sh->nstack ? sh->stack[sh->nstack - 1] : 0;
}

int sharing_extent(struct sharing *sh, size_t fs_idx,
		   const struct extent_info *ei)
{
	struct share_fs *fs = sh->cur_fs;
	struct ext_entry *e;
	unsigned type = extent_row(ei);
	int added;

	if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
		/* Counted per path: the path's copy goes with it. */
		sh->inline_type[type] += ei->inline_len;
		sh->row_excl[row_cur(sh)] += ei->inline_len;
		return 0;
	}
	if (!ei->disk_bytenr)
		return 0;
	if (!fs || fs->fs_idx != fs_idx)
		fs = fs_find(sh, fs_idx);
	if (!fs)
		return -EINVAL;
	e = table_get(&fs->extents, ei->disk_bytenr, &added);
	if (!e)
		return -ENOMEM;
	if (added) {
		e->disk = ei->disk_num_bytes;
		e->type = (uint16_t)type;
		e->row = row_cur(sh);
		fs->undecided++;
	} else if (e->row) {
		e->row = row_lca(sh, e->row, row_cur(sh));
	}
	return 0;
}

uint32_t sharing_row_push(struct sharing *sh)
{
	uint32_t id = (uint32_t)sh->nrows, up = row_cur(sh);
	uint32_t *s;

	if (sh->nrows == sh->cap_rows) {
		size_t cap = 2 * sh->cap_rows;
		uint32_t *p = realloc(sh->parent, cap * sizeof(*p));
		uint32_t *d;
		uint64_t *x;

		if (p)
			sh->parent = p;
		d = p ? realloc(sh->depth, cap * sizeof(*d)) : NULL;
		if (d)
			sh->depth = d;
		x = d ? realloc(sh->row_excl, cap * sizeof(*x)) : NULL;
		if (!x) {
			sh->nomem = 1;
			return 0;
		}
		sh->row_excl = x;
		sh->cap_rows = cap;
	}
	s = array_grow(sh->stack, &sh->cap_stack, sh->nstack, sizeof(*s));
	if (!s) {
		sh->nomem = 1;
		return 0;
	}
	sh->stack = s;
	sh->parent[id] = up;
	sh->depth[id] = sh->depth[up] + 1;
	sh->row_excl[id] = 0;
	sh->stack[sh->nstack++] = id;
	sh->nrows++;
	return id;
}

void sharing_row_pop(struct sharing *sh)
{
	if (sh->nstack)
		sh->nstack--;
}

/* Reading a subvolume outside S (or the part of one outside S). */
struct outside {
	struct sharing *sh;
	struct share_fs *fs;
	const struct share_root *root;	/* NULL: nothing of it in S */
	int active;		/* the inode being read is a file outside S */
	unsigned items;
	int (*tick)(void *);
	void *tick_arg;
};

/* A regular file with a path, not wholly in S (a link outside S). */
static int outside_file(const struct outside *o, const struct search_item *it)
{
	const struct ino_entry *e;
	uint32_t nlink;

	if (it->len < INODE_ITEM_SIZE ||
	    !S_ISREG(get_le32(it->data + INODE_MODE)))
		return 0;
	nlink = get_le32(it->data + INODE_NLINK);
	if (!nlink)
		return 0;	/* an orphan: no path reaches it */
	if (!o->root)
		return 1;
	e = table_find(&o->root->inodes, it->objectid);
	return !e || e->names < nlink;
}

static int outside_item(const struct search_item *it, void *arg)
{
	struct outside *o = arg;
	struct ext_entry *e;
	struct extent_info ei;
	int ret;

	if (++o->items % TICK_ITEMS == 0 && o->tick) {
		ret = o->tick(o->tick_arg);
		if (ret)
			return ret;
	}
	if (it->type == BTRFS_INODE_ITEM_KEY) {
		o->active = outside_file(o, it);
		return 0;
	}
	if (it->type != BTRFS_EXTENT_DATA_KEY || !o->active)
		return 0;
	if (extent_parse(it->data, it->len, 0, &ei) ||
	    ei.type == BTRFS_FILE_EXTENT_INLINE || !ei.disk_bytenr)
		return 0;
	e = table_find(&o->fs->extents, ei.disk_bytenr);
	if (!e || e->shared)
		return 0;
	e->shared = 1;
	/* Every extent of S is shared: the rest can't change anything. */
	if (!--o->fs->undecided)
		return 1;
	return 0;
}

/* Set o up to read subvolume id; 0 when it is wholly in S. */
static int outside_begin(struct outside *o, uint64_t id)
{
	const struct share_fs *fs = o->fs;
	size_t i;

	o->root = NULL;
	o->active = 0;
	for (i = 0; i < fs->nroots; i++) {
		if (fs->roots[i].id != id)
			continue;
		if (fs->roots[i].whole)
			return 0;
		o->root = &fs->roots[i];
	}
	return 1;
}

int sharing_read_items(struct sharing *sh, size_t fs_idx, uint64_t root,
		       const uint8_t *buf, size_t used)
{
	struct outside o = { .sh = sh, .fs = fs_find(sh, fs_idx) };
	struct search_item it;
	size_t pos = 0;
	int ret;

	if (!o.fs)
		return -EINVAL;
	if (!outside_begin(&o, root))
		return 0;
	while ((ret = search_buf_next(buf, used, &pos, &it)) == 1) {
		ret = outside_item(&it, &o);
		if (ret)
			return ret;
	}
	return ret;
}

static int read_outside(struct sharing *sh, struct share_fs *fs,
			uint64_t id, struct outside *o)
{
	struct btrfs_ioctl_search_key key;
	int ret;

	if (!outside_begin(o, id))
		return 0;
	search_key_range(&key, id, BTRFS_FIRST_FREE_OBJECTID,
			 BTRFS_INODE_ITEM_KEY, BTRFS_LAST_FREE_OBJECTID,
			 BTRFS_EXTENT_DATA_KEY);
	ret = search_run(sh->search, fs->fd, &key, fs->nodesize, outside_item,
			 o);
	/* A subvolume deleted since it was listed has no files. */
	if (ret == -ENOENT)
		ret = 0;
	return ret;
}

static int errno_of(enum btrfs_util_error err)
{
	if (err == BTRFS_UTIL_ERROR_NO_MEMORY)
		return -ENOMEM;
	return errno ? -errno : -EIO;
}

static int resolve_fs(struct sharing *sh, struct share_fs *fs,
		      int (*tick)(void *), void *arg)
{
	struct outside o = { .sh = sh, .fs = fs, .tick = tick,
			     .tick_arg = arg };
	struct btrfs_util_subvolume_iterator *iter = NULL;
	enum btrfs_util_error err;
	struct seen_set *done;
	uint64_t id;
	size_t i;
	int ret = 0;

	if (!fs->undecided || fs->fd < 0)
		return 0;
	done = seen_create();
	if (!done)
		return -ENOMEM;
	/* First the subvolumes S is part of: the rest of their files are
	 * the likeliest to share its extents.  Then the top level and
	 * every other subvolume. */
	for (i = 0; !ret && fs->undecided && i < fs->nroots; i++) {
		if (fs->roots[i].whole)
			continue;
		ret = seen_insert(done, fs->roots[i].id);
		if (ret > 0)
			ret = read_outside(sh, fs, fs->roots[i].id, &o);
	}
	if (!ret && fs->undecided && seen_insert(done, BTRFS_FS_TREE_OBJECTID) > 0)
		ret = read_outside(sh, fs, BTRFS_FS_TREE_OBJECTID, &o);
	if (ret || !fs->undecided)
		goto out;
	err = btrfs_util_create_subvolume_iterator_fd(fs->fd,
						      BTRFS_FS_TREE_OBJECTID,
						      0, &iter);
	if (err) {
		ret = errno_of(err);
		goto out;
	}
	while (!ret && fs->undecided) {
		err = btrfs_util_subvolume_iterator_next(iter, NULL, &id);
		if (err == BTRFS_UTIL_ERROR_STOP_ITERATION)
			break;
		if (err) {
			ret = errno_of(err);
			break;
		}
		ret = seen_insert(done, id);
		if (ret > 0)
			ret = read_outside(sh, fs, id, &o);
	}
out:
	btrfs_util_destroy_subvolume_iterator(iter);
	seen_free(done);
	/* 1: stopped early, everything shared */
	return ret > 0 ? 0 : ret;
}

int sharing_resolve(struct sharing *sh, int (*tick)(void *), void *arg)
{
	size_t i, s;
	uint32_t r;
	int ret;

	if (sh->nomem)
		return -ENOMEM;
	if (sh->resolved)
		return 0;
	if (!sh->search) {
		sh->search = search_create(SHARING_SEARCH_BUF);
		if (!sh->search)
			return -ENOMEM;
	}
	for (i = 0; i < sh->nfs; i++) {
		ret = resolve_fs(sh, &sh->fs[i], tick, arg);
		if (ret)
			return ret;
	}
	/* Each exclusive extent to its row, then every row to its parent:
	 * children always have higher ids. */
	for (i = 0; i < sh->nfs; i++) {
		const struct table *t = &sh->fs[i].extents;

		for (s = 0; s < (size_t)1 << t->bits; s++) {
			const struct ext_entry *e =
				(const void *)(t->slots + s * t->esize);

			if (e->bytenr && !e->shared)
				sh->row_excl[e->row] += e->disk;
		}
	}
	for (r = (uint32_t)sh->nrows; r-- > 1;)
		sh->row_excl[sh->parent[r]] += sh->row_excl[r];
	sh->resolved = 1;
	return 0;
}

void sharing_total(const struct sharing *sh, struct sharing_result *res)
{
	size_t i, s;
	unsigned t;

	memset(res, 0, sizeof(*res));
	for (t = 0; t < CS_NTYPES; t++)
		res->type[t] = sh->inline_type[t];
	for (i = 0; i < sh->nfs; i++) {
		const struct table *tb = &sh->fs[i].extents;

		for (s = 0; s < (size_t)1 << tb->bits; s++) {
			const struct ext_entry *e =
				(const void *)(tb->slots + s * tb->esize);

			if (!e->bytenr)
				continue;
			res->extents++;
			if (e->shared)
				res->shared_extents++;
			else
				res->type[e->type] += e->disk;
		}
	}
	for (t = 0; t < CS_NTYPES; t++)
		res->exclusive += res->type[t];
}

uint64_t sharing_row_exclusive(const struct sharing *sh, uint32_t id)
{
	return id < sh->nrows ? sh->row_excl[id] : 0;
}

size_t sharing_memory(const struct sharing *sh)
{
	size_t i, j, n = sizeof(*sh);

	for (i = 0; i < sh->nfs; i++) {
		n += sizeof(sh->fs[i]) + table_memory(&sh->fs[i].extents);
		for (j = 0; j < sh->fs[i].nroots; j++)
			n += sizeof(sh->fs[i].roots[j]) +
			     table_memory(&sh->fs[i].roots[j].inodes);
	}
	n += sh->cap_rows * (2 * sizeof(uint32_t) + sizeof(uint64_t));
	n += sh->cap_stack * sizeof(uint32_t);
	return n;
}
