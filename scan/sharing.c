// SPDX-License-Identifier: GPL-2.0
/* Exclusive space: which extents of a set of files nothing else references. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <btrfsutil.h>
#include "lib/array.h"
#include "ioctl.h"
#include "scan/pending.h"
#include "scan/qgroup.h"
#include "scan/search.h"
#include "seen.h"
#include "scan/sharing.h"

#define SHARING_SEARCH_BUF	(256u << 10)
#define TABLE_MIN_BITS		6
/* Extents walked between two choices of method. */
#define LOGICAL_CHUNK		64
/* Reading a subvolume: the cost per byte of its tree assumed until one is
 * timed (a warm cache on a small machine). */
#define STREAM_NS_PER_BYTE	3
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
	/* its references were all listed (DECIDED), or the backref walk
	 * could not list them (UNLISTED: only reading tells) */
	uint8_t decided;
};

#define DECIDED		1
#define UNLISTED	2

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

/* A subvolume's orphans (orphans_of()); set NULL when it has none. */
struct root_orphans {
	uint64_t id;
	struct seen_set *set;
};

struct share_fs {
	size_t fs_idx;
	int fd;
	uint32_t nodesize;
	struct table extents;	/* of struct ext_entry */
	struct share_root *roots;
	size_t nroots, cap_roots;
	size_t undecided;	/* extents not yet known to be shared */
	struct root_orphans *orph;
	size_t norph, cap_orph;
};

/* An inline extent of S: its data lives in a leaf, which deleting S frees
 * only when no other tree shares it (decided by sharing_resolve()). */
struct inl {
	uint64_t root, ino, pos;
	uint32_t len, row;
	uint16_t type;
	uint16_t fs;		/* index in sh->fs */
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
	uint64_t *row_meta;	/* of row_excl, inline data in own leaves */
	size_t nrows, cap_rows;
	uint32_t *stack;
	size_t nstack, cap_stack;
	int nomem;
	uint64_t inline_type[CS_NTYPES];
	uint64_t cur_ino;	/* of the file announced last */
	struct inl *inl;
	size_t ninl, cap_inl;
	char qerr[256];		/* a device qgroup_compute() failed on */
	int inline_whole;	/* sharing_inline_whole() */
	size_t inline_unsure;	/* filesystems changed since their commit */
	struct search_ctx *search;
	struct logical_buf lbuf;	/* LOGICAL_INO_V2 results */
	int resolved;
	enum sharing_method method;
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
	slots = array_zalloc((size_t)1 << bits, t->esize);
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

void sharing_set_method(struct sharing *sh, enum sharing_method m)
{
	sh->method = m;
}

void sharing_inline_whole(struct sharing *sh)
{
	sh->inline_whole = 1;
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
	sh->row_meta = calloc(8, sizeof(*sh->row_meta));
	sh->cap_rows = 8;
	sh->nrows = 1;
	if (!sh->parent || !sh->depth || !sh->row_excl || !sh->row_meta) {
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
		for (j = 0; j < fs->norph; j++)
			seen_free(fs->orph[j].set);
		free(fs->orph);
	}
	free(sh->fs);
	free(sh->devs);
	free(sh->parent);
	free(sh->depth);
	free(sh->row_excl);
	free(sh->row_meta);
	free(sh->inl);
	free(sh->stack);
	search_free(sh->search);
	free(sh->lbuf.buf);
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
	sh->cur_ino = ino;
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

	if (!fs || fs->fs_idx != fs_idx)
		fs = fs_find(sh, fs_idx);
	if (!fs)
		return -EINVAL;
	if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
		/* In a leaf: decided once the leaves' sharers are known */
		struct inl *in;

		if (sh->inline_whole) {
			sh->inline_type[type] += ei->inline_len;
			sh->row_excl[row_cur(sh)] += ei->inline_len;
			sh->row_meta[row_cur(sh)] += ei->inline_len;
			return 0;
		}
		if (!sh->cur_root || !ei->inline_len)
			return 0;
		in = array_grow(sh->inl, &sh->cap_inl, sh->ninl, sizeof(*in));
		if (!in)
			return -ENOMEM;
		sh->inl = in;
		in += sh->ninl++;
		in->root = sh->cur_root->id;
		in->ino = sh->cur_ino;
		in->pos = ei->file_pos;
		in->len = (uint32_t)ei->inline_len;
		in->row = row_cur(sh);
		in->type = (uint16_t)type;
		in->fs = (uint16_t)(fs - sh->fs);
		return 0;
	}
	if (!ei->disk_bytenr)
		return 0;
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

void sharing_keep(struct sharing *sh, size_t fs_idx, uint64_t bytenr)
{
	struct share_fs *fs = fs_find(sh, fs_idx);
	struct ext_entry *e = fs && bytenr ?
			      table_find(&fs->extents, bytenr) : NULL;

	if (!e || e->shared)
		return;
	e->shared = 1;
	if (e->decided != DECIDED)
		fs->undecided--;
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
		if (x)
			sh->row_excl = x;
		x = x ? realloc(sh->row_meta, cap * sizeof(*x)) : NULL;
		if (!x) {
			sh->nomem = 1;
			return 0;
		}
		sh->row_meta = x;
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
	sh->row_meta[id] = 0;
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
	const struct seen_set *orphans;	/* NULL, or the subvolume's */
	/* the inode being read: a regular file, its names so far (its
	 * INODE_REF items), and whether it is outside S (-1: not told yet,
	 * until its first extent) */
	uint64_t ino;
	int reg;
	uint32_t names;
	int active;
	unsigned items;
	int (*tick)(void *);
	void *tick_arg;
};

/*
 * Inode ino of the subvolume o is reading (outside_begin()) has a path not
 * in S (a link outside S): it is no orphan (o->orphans), and S holds fewer
 * of its names than it has: the links S's walk saw (st_nlink), or else
 * names, which the caller counted.
 */
static int outside_inode(const struct outside *o, uint64_t ino,
			 uint32_t names)
{
	const struct ino_entry *e;

	if (o->orphans && seen_contains(o->orphans, ino))
		return 0;	/* no path reaches it */
	if (!o->root)
		return 1;
	e = table_find(&o->root->inodes, ino);
	return !e || e->names < (e->nlink ? e->nlink : names);
}

/*
 * The inode o read is a regular file with a path not in S.  Its names are
 * its INODE_REF items', not the inode item's nlink, which lags behind a
 * link made or removed until the commit (search_ref_names()).
 */
static int outside_file(const struct outside *o)
{
	return o->reg && o->names && outside_inode(o, o->ino, o->names);
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
		o->ino = it->objectid;
		o->reg = it->len >= INODE_ITEM_SIZE &&
			 S_ISREG(get_le32(it->data + INODE_MODE));
		o->names = 0;
		o->active = -1;
		return 0;
	}
	if (it->objectid != o->ino)
		return 0;
	if (it->type == BTRFS_INODE_REF_KEY ||
	    it->type == BTRFS_INODE_EXTREF_KEY) {
		o->names += search_ref_names(it);
		return 0;
	}
	if (it->type != BTRFS_EXTENT_DATA_KEY)
		return 0;
	if (o->active < 0)
		o->active = outside_file(o);
	if (!o->active)
		return 0;
	if (extent_parse(it->data, it->len, 0, &ei) ||
	    ei.type == BTRFS_FILE_EXTENT_INLINE || !ei.disk_bytenr)
		return 0;
	e = table_find(&o->fs->extents, ei.disk_bytenr);
	if (!e || e->shared || e->decided == DECIDED)
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
	o->orphans = NULL;
	o->ino = 0;
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

static int add_orphan(const struct search_item *it, void *arg)
{
	struct seen_set **set = arg;

	if (!*set) {
		*set = seen_create();
		if (!*set)
			return -ENOMEM;
	}
	return seen_insert(*set, it->offset) < 0 ? -ENOMEM : 0;
}

/*
 * The inodes of subvolume id that have an orphan item into *out (NULL:
 * none): unlinked but still open, or O_TMPFILE files never linked, which
 * no path reaches.  btrfs_orphan_add() inserts the item at once, while
 * the inode item's nlink and the removal of its last INODE_REF wait for
 * the commit (delayed-inode.c), and the backref walk lists their
 * references as any other.  Read once a subvolume.  Returns 0 or -errno.
 */
static int orphans_of(struct sharing *sh, struct share_fs *fs, uint64_t id,
		      const struct seen_set **out)
{
	struct btrfs_ioctl_search_key key;
	struct root_orphans *r;
	struct seen_set *set = NULL;
	size_t i;
	int ret;

	*out = NULL;
	for (i = 0; i < fs->norph; i++)
		if (fs->orph[i].id == id) {
			*out = fs->orph[i].set;
			return 0;
		}
	if (fs->fd < 0 || !sh->search)
		return 0;
	search_key_range(&key, id, BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY,
			 BTRFS_ORPHAN_OBJECTID, BTRFS_ORPHAN_ITEM_KEY);
	ret = search_run(sh->search, fs->fd, &key, fs->nodesize, add_orphan,
			 &set);
	/* a subvolume deleted since it was listed: no file of it counts */
	if (ret == -ENOENT)
		ret = 0;
	r = ret ? NULL : array_grow(fs->orph, &fs->cap_orph, fs->norph,
				     sizeof(*r));
	if (!r) {
		seen_free(set);
		return ret ? ret : -ENOMEM;
	}
	fs->orph = r;
	r[fs->norph].id = id;
	r[fs->norph++].set = set;
	*out = set;
	return 0;
}

static int read_outside(struct sharing *sh, struct share_fs *fs,
			uint64_t id, struct outside *o)
{
	struct btrfs_ioctl_search_key key;
	int ret;

	if (!outside_begin(o, id))
		return 0;
	ret = orphans_of(sh, fs, id, &o->orphans);
	if (ret)
		return ret;
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

/* A subvolume that may hold files outside S, and how close it is to S. */
struct cand {
	uint64_t id;
	uint64_t when;		/* see subvol_when() */
	uint8_t uuid[16], family[16];
	uint64_t dist;		/* to the nearest subvolume of S, or ~0 */
	uint64_t tree_bytes;	/* its tree's size (ROOT_ITEM bytes_used) */
	int partial;		/* S holds part of it */
	int whole;		/* S holds all of it: nothing to read */
};

/*
 * When a subvolume's files were as they are: a read-only snapshot's at its
 * creation, any other's now (its last change).  Two relatives close in
 * this sense share the most extents.
 */
static uint64_t subvol_when(const struct btrfs_util_subvolume_info *info)
{
	return (info->flags & BTRFS_ROOT_SUBVOL_RDONLY) ? info->otransid
							: info->generation;
}

static void cand_fill(struct cand *c, uint64_t id,
		      const struct btrfs_util_subvolume_info *info)
{
	static const uint8_t zero[16];

	c->id = id;
	c->when = subvol_when(info);
	memcpy(c->uuid, info->uuid, 16);
	/* the subvolume it was snapshotted from, or itself */
	memcpy(c->family, memcmp(info->parent_uuid, zero, 16) ?
	       info->parent_uuid : info->uuid, 16);
	c->dist = UINT64_MAX;
	c->tree_bytes = 0;
	c->partial = 0;
	c->whole = 0;
}

static int related(const struct cand *a, const struct cand *b)
{
	return !memcmp(a->family, b->family, 16) ||
	       !memcmp(a->uuid, b->family, 16) ||
	       !memcmp(a->family, b->uuid, 16);
}

/* Partly in S first, then S's relatives nearest in time, then the rest
 * in listing order (by id). */
static int cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->partial != b->partial)
		return b->partial - a->partial;
	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Every subvolume of fs into *out (*n of them): the top level and those
 * libbtrfsutil lists, ordered to read the likeliest sharers first. */
static int list_cands(struct share_fs *fs, struct cand **out, size_t *n)
{
	struct btrfs_util_subvolume_iterator *iter = NULL;
	struct btrfs_util_subvolume_info info;
	enum btrfs_util_error err;
	struct cand *c = NULL, *p;
	size_t cap = 0, i, k, r;
	int ret = 0;

	*n = 0;
	err = btrfs_util_subvolume_info_fd(fs->fd, BTRFS_FS_TREE_OBJECTID,
					   &info);
	if (!err)
		err = btrfs_util_create_subvolume_iterator_fd(fs->fd,
				BTRFS_FS_TREE_OBJECTID, 0, &iter);
	if (err)
		return errno_of(err);
	for (;;) {
		p = array_grow(c, &cap, *n, sizeof(*c));
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		c = p;
		cand_fill(&c[*n], *n ? info.id : BTRFS_FS_TREE_OBJECTID,
			  &info);
		++*n;
		/* one deleted, and its tree dropped, since its parent's
		 * ROOT_REFs were read has no files: the listing goes on */
		do {
			errno = 0;
			err = btrfs_util_subvolume_iterator_next_info(iter,
								      NULL,
								      &info);
		} while (err && err != BTRFS_UTIL_ERROR_STOP_ITERATION &&
			 errno == ENOENT);
		if (err == BTRFS_UTIL_ERROR_STOP_ITERATION)
			break;
		if (err) {
			ret = errno_of(err);
			break;
		}
	}
	btrfs_util_destroy_subvolume_iterator(iter);
	for (r = 0; !ret && r < fs->nroots; r++) {
		for (k = 0; k < *n && c[k].id != fs->roots[r].id; k++)
			;
		if (k == *n)
			continue;
		c[k].partial = !fs->roots[r].whole;
		c[k].whole = fs->roots[r].whole;
		for (i = 0; i < *n; i++) {
			uint64_t d = c[i].when > c[k].when ?
				c[i].when - c[k].when : c[k].when - c[i].when;

			if (related(&c[i], &c[k]) && d < c[i].dist)
				c[i].dist = d;
		}
	}
	if (ret) {
		free(c);
		return ret;
	}
	qsort(c, *n, sizeof(*c), cmp_cand);
	*out = c;
	return 0;
}

struct tree_sizes {
	struct cand *c;
	size_t n;
};

static int size_item(const struct search_item *it, void *arg)
{
	struct tree_sizes *ts = arg;
	size_t i;

	if (it->type != BTRFS_ROOT_ITEM_KEY || it->len < ROOT_ITEM_BYTES_USED + 8)
		return 0;
	for (i = 0; i < ts->n; i++)
		if (ts->c[i].id == it->objectid)
			ts->c[i].tree_bytes =
				get_le64(it->data + ROOT_ITEM_BYTES_USED);
	return 0;
}

/* Each candidate's tree size, from the root tree's ROOT_ITEMs. */
static int tree_sizes(struct sharing *sh, struct share_fs *fs, struct cand *c,
		      size_t n)
{
	struct btrfs_ioctl_search_key key;
	struct tree_sizes ts = { c, n };

	search_key_range(&key, BTRFS_ROOT_TREE_OBJECTID,
			 BTRFS_FS_TREE_OBJECTID, BTRFS_ROOT_ITEM_KEY,
			 BTRFS_LAST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY);
	return search_run(sh->search, fs->fd, &key, fs->nodesize, size_item,
			  &ts);
}

/* One extent through LOGICAL_INO_V2: every (inode, offset, root) that
 * references it, the kernel's own backref walk (backref.c). */
static int logical_one(struct sharing *sh, struct share_fs *fs,
		       struct ext_entry *e, const struct seen_set *live)
{
	struct btrfs_data_container *dc;
	struct outside o = { .sh = sh, .fs = fs };
	uint64_t i, ino, root;
	int ret;

	ret = search_logical(fs->fd, e->bytenr, &sh->lbuf, &dc);
	/* Not in the extent tree: freed since S was read, or written in the
	 * running transaction, whose extent items and references are delayed
	 * refs until the commit (delayed-ref.c), which the walk finds only
	 * for an extent item it found.  Reading the other subvolumes tells
	 * either way. */
	if (ret == -ENOENT) {
		e->decided = UNLISTED;
		return 0;
	}
	if (ret)
		return ret;
	/* more references than the largest buffer holds: shared, surely */
	if (dc->elem_missed)
		goto shared;
	for (i = 0; i + 2 < dc->elem_cnt; i += 3) {
		ino = dc->val[i];
		root = dc->val[i + 2];
		/* a subvolume deleted, not yet cleaned: no path reaches it */
		if (!seen_contains(live, root))
			continue;
		if (!outside_begin(&o, root))
			continue;	/* wholly in S */
		ret = orphans_of(sh, fs, root, &o.orphans);
		if (ret)
			return ret;
		/* no names counted here: S's count of its links decides */
		if (outside_inode(&o, ino, 0))
			goto shared;
	}
	goto decided;
shared:
	e->shared = 1;
decided:
	e->decided = DECIDED;
	fs->undecided--;
	return 0;
}

/* LOGICAL_INO_V2 for up to max of the undecided extents (all: SIZE_MAX),
 * from slot *pos of the extent table on. */
static int logical_some(struct sharing *sh, struct share_fs *fs,
			const struct seen_set *live, size_t *pos, size_t max)
{
	struct table *t = &fs->extents;
	size_t done = 0;
	int ret = 0;

	for (; !ret && done < max && *pos < (size_t)1 << t->bits; ++*pos) {
		struct ext_entry *e = (void *)(t->slots + *pos * t->esize);

		if (!e->bytenr || e->shared || e->decided)
			continue;
		ret = logical_one(sh, fs, e, live);
		done++;
	}
	return ret;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The extent items of S's extents, read in runs (decide_by_items()). */
struct items {
	struct sharing *sh;
	struct share_fs *fs;
	const struct seen_set *live;
	struct outside o;
	struct ext_entry *cur;	/* the extent being read, of S */
	uint64_t cur_gen;	/* its extent item's generation */
	int verdict;		/* 0 exclusive so far, 1 shared, -1 unsure */
	struct pending_snaps snaps;
	uint64_t found;		/* extents of S met */
	uint64_t extents;	/* extent items met */
	int err;
};

/* A root's last_snapshot (its root item's), ~0 when unknown.
 * sh->search is free here: the extent items are read through
 * decide_by_items()'s own. */
static uint64_t last_snapshot(struct items *it, uint64_t root)
{
	return pending_last_snapshot(&it->snaps, it->sh->search, it->fs->fd,
				     it->fs->nodesize, root, &it->err);
}

/* One back reference of the extent being read: (root, inode) keeps it
 * from outside S, or may through a snapshot sharing its leaf, or not. */
static void items_ref(struct items *it, uint64_t root, uint64_t ino)
{
	int ret;

	if (!it->cur || it->verdict)
		return;
	/* a subvolume deleted, not yet cleaned: no path reaches it */
	if (!seen_contains(it->live, root))
		return;
	/* a snapshot of root taken since the extent was written shares the
	 * leaf of the reference, and no reference of its own says so */
	if (last_snapshot(it, root) >= it->cur_gen) {
		it->verdict = -1;
		return;
	}
	if (!outside_begin(&it->o, root))
		return;		/* wholly in S */
	ret = orphans_of(it->sh, it->fs, root, &it->o.orphans);
	if (ret) {
		it->err = ret;
		return;
	}
	if (outside_inode(&it->o, ino, 0))
		it->verdict = 1;
}

/* The extent read last: decided when its references said all. */
static void items_end(struct items *it)
{
	struct ext_entry *e = it->cur;

	it->cur = NULL;
	if (!e || it->verdict < 0)
		return;
	if (it->verdict)
		e->shared = 1;
	e->decided = DECIDED;
	it->fs->undecided--;
}

static int items_cb(const struct search_item *si, void *arg)
{
	struct items *it = arg;
	const uint8_t *d = si->data, *p, *end;
	struct extent_ref r;

	if (si->type == BTRFS_EXTENT_ITEM_KEY ||
	    si->type == BTRFS_METADATA_ITEM_KEY) {
		struct ext_entry *e;

		items_end(it);
		it->extents++;
		e = table_find(&it->fs->extents, si->objectid);
		if (!e || e->shared || e->decided || si->len < 24 ||
		    si->type != BTRFS_EXTENT_ITEM_KEY)
			return it->err;
		it->found++;
		it->cur = e;
		it->cur_gen = get_le64(d + 8);
		it->verdict = 0;
		/* inline references after the extent item; one through a
		 * parent leaf tells no root: unknown */
		p = d + 24;
		end = d + si->len;
		while (!it->verdict && extent_inline_ref(&p, end, &r) > 0) {
			if (r.type == BTRFS_EXTENT_DATA_REF_KEY)
				items_ref(it, r.val, r.ino);
			else if (r.type != EXTENT_OWNER_REF)
				it->verdict = -1;
		}
		if (p < end && !it->verdict)
			it->verdict = -1;	/* malformed: unknown */
		return it->err;
	}
	if (!it->cur || si->objectid != it->cur->bytenr)
		return it->err;
	if (si->type == BTRFS_EXTENT_DATA_REF_KEY && si->len >= 28)
		items_ref(it, get_le64(d), get_le64(d + 8));
	else if (si->type == BTRFS_SHARED_DATA_REF_KEY)
		it->verdict = -1;
	return it->err;
}

/*
 * Decide the extents of S whose extent items say all: every back
 * reference keyed (root, inode), none through a parent leaf, and no
 * snapshot of those roots taken since the extent was written (the root
 * item's last_snapshot: one would share the leaves, which the references
 * do not tell).  Such an extent is shared when one (root, inode) is
 * outside S, else exclusive.  The rest wait for the other ways.  Only on
 * a filesystem with nothing uncommitted (the references of the running
 * transaction are delayed refs, not yet items).  The extent tree is read
 * in runs over S's extents, each as long as S's extents are dense in it.
 */
static int decide_by_items(struct sharing *sh, struct share_fs *fs,
			   const struct seen_set *live)
{
	struct items it = { .sh = sh, .fs = fs, .live = live,
			    .o = { .sh = sh, .fs = fs } };
	struct btrfs_ioctl_fs_info_args fi;
	const struct table *t = &fs->extents;
	uint64_t committed = 0, *b = NULL;
	struct search_ctx *srch;
	size_t n = 0, i, s, run = 64;
	int ret;

	memset(&fi, 0, sizeof(fi));
	fi.flags = BTRFS_FS_INFO_FLAG_GENERATION;
	if (ioctl(fs->fd, BTRFS_IOC_FS_INFO, &fi) ||
	    !(fi.flags & BTRFS_FS_INFO_FLAG_GENERATION) ||
	    pending_committed(sh->search, fs->fd, fs->nodesize, &committed) ||
	    committed != fi.generation)
		return 0;
	/* its own buffer: a reference may read a subvolume's orphans through
	 * sh->search (orphans_of()) in the middle of a batch */
	srch = search_create(SHARING_SEARCH_BUF);
	b = malloc((fs->undecided ? fs->undecided : 1) * sizeof(*b));
	if (!b || !srch) {
		free(b);
		search_free(srch);
		return -ENOMEM;
	}
	for (s = 0; s < (size_t)1 << t->bits; s++) {
		const struct ext_entry *e = (const void *)(t->slots + s * t->esize);

		if (e->bytenr && !e->shared && !e->decided && n < fs->undecided)
			b[n++] = e->bytenr;
	}
	qsort(b, n, sizeof(*b), array_cmp_u64);
	for (i = 0, ret = 0; i < n && !ret; ) {
		struct btrfs_ioctl_search_key key;
		size_t j = i + run < n ? i + run : n;
		uint64_t found = it.found, met = it.extents;

		search_key_range(&key, BTRFS_EXTENT_TREE_OBJECTID, b[i],
				 BTRFS_EXTENT_ITEM_KEY, b[j - 1],
				 BTRFS_SHARED_DATA_REF_KEY);
		ret = search_run(srch, fs->fd, &key, fs->nodesize, items_cb,
				 &it);
		items_end(&it);
		i = j;
		/* longer runs while S's extents are most of what is read,
		 * shorter where others lie between them */
		found = it.found - found;
		met = it.extents - met;
		if (2 * found >= met && run < 65536)
			run *= 2;
		else if (4 * found < met && run > 1)
			run /= 2;
	}
	free(b);
	pending_snaps_free(&it.snaps);
	search_free(srch);
	return ret ? ret : it.err;
}

/*
 * Which extents of S a file outside S references, by the cheaper of two
 * exact ways, chosen by measuring as it goes: read the next subvolume
 * (nearest relatives first; one read may decide every extent), or ask
 * the kernel's backref walk for each extent still undecided.
 */
static int resolve_fs(struct sharing *sh, struct share_fs *fs,
		      int (*tick)(void *), void *arg)
{
	struct outside o = { .sh = sh, .fs = fs, .tick = tick,
			     .tick_arg = arg };
	struct seen_set *live = NULL;
	struct cand *c = NULL;
	uint64_t t0, logical_ns = 0, nlogical = 0, stream_ns = 0;
	uint64_t streamed_bytes = 0, per_logical = 0, next_cost = 0;
	size_t i, n = 0, pos = 0, before;
	int ret;

	if (!fs->undecided || fs->fd < 0)
		return 0;
	ret = list_cands(fs, &c, &n);
	if (!ret)
		ret = tree_sizes(sh, fs, c, n);
	live = seen_create();
	if (!live)
		ret = -ENOMEM;
	for (i = 0; !ret && i < n; i++)
		ret = seen_insert(live, c[i].id) < 0 ? -ENOMEM : 0;
	if (!ret && sh->method == SHARING_AUTO)
		ret = decide_by_items(sh, fs, live);
	i = 0;
	while (!ret && fs->undecided) {
		/* every extent asked of the backref walk once */
		int walked = pos >= (size_t)1 << fs->extents.bits;

		while (i < n && c[i].whole)
			i++;
		if (i < n) {
			per_logical = nlogical ? logical_ns / nlogical : 0;
			next_cost = c[i].tree_bytes * (streamed_bytes ?
				stream_ns / streamed_bytes : STREAM_NS_PER_BYTE);
		}
		/* Everything read, and walked unless only reading: what is
		 * left is exclusive.  Only walking reads what the walk could
		 * not list (UNLISTED), once it has walked the rest. */
		if (i == n && (walked || sh->method == SHARING_READ))
			break;
		if (sh->method != SHARING_READ && !walked &&
		    (i == n || sh->method == SHARING_BACKREF || !nlogical ||
		     (uint64_t)fs->undecided * per_logical < next_cost)) {
			/* a few more walks, timed */
			before = fs->undecided;
			t0 = now_ns();
			ret = logical_some(sh, fs, live, &pos,
					   i == n ? SIZE_MAX : LOGICAL_CHUNK);
			logical_ns += now_ns() - t0;
			nlogical += LOGICAL_CHUNK < before ? LOGICAL_CHUNK
							   : before;
			continue;
		}
		t0 = now_ns();
		ret = read_outside(sh, fs, c[i].id, &o);
		stream_ns += now_ns() - t0;
		streamed_bytes += c[i].tree_bytes ? c[i].tree_bytes : 1;
		i++;
	}
	seen_free(live);
	free(c);
	/* 1: stopped early, everything shared */
	return ret > 0 ? 0 : ret;
}

static int cmp_inl(const void *a, const void *b)
{
	const struct inl *x = a, *y = b;

	if (x->fs != y->fs)
		return x->fs < y->fs ? -1 : 1;
	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* Whether a file of S (inode ino of root) has a name outside S. */
static int linked_outside(struct share_fs *fs, uint64_t root, uint64_t ino)
{
	const struct ino_entry *e;
	size_t i;

	for (i = 0; i < fs->nroots; i++)
		if (fs->roots[i].id == root)
			break;
	if (i == fs->nroots || fs->roots[i].whole)
		return 0;
	e = table_find(&fs->roots[i].inodes, ino);
	return !e || e->names < e->nlink;
}

/*
 * The inline data of S deleting S frees: an inode's once (a hard link
 * inside S is the same data), none of a file with a name outside S, and
 * only where the leaf holding it is its subvolume's alone (qgroup.h): a
 * leaf a snapshot shares stays.  One qgroup pass per filesystem with
 * inline data in S.
 */
static int resolve_inline(struct sharing *sh, int (*tick)(void *), void *arg)
{
	struct qgroup *q = NULL;
	size_t i, cur_fs = SIZE_MAX;
	int ret = 0;

	if (!sh->ninl)
		return 0;
	qsort(sh->inl, sh->ninl, sizeof(*sh->inl), cmp_inl);
	for (i = 0; i < sh->ninl && !ret; i++) {
		const struct inl *in = &sh->inl[i];
		struct share_fs *fs = &sh->fs[in->fs];
		uint32_t row = in->row;

		/* other paths of the same inode (hard links): the data is
		 * freed once, in the innermost row holding them all */
		while (i + 1 < sh->ninl && in[1].fs == in->fs &&
		       in[1].root == in->root && in[1].ino == in->ino &&
		       in[1].pos == in->pos) {
			row = row_lca(sh, row, in[1].row);
			i++;
		}
		if (in->fs != cur_fs) {
			qgroup_free(q);
			q = NULL;
			cur_fs = in->fs;
			if (fs->fd < 0)
				continue;
			ret = qgroup_compute(fs->fd, &q, sh->qerr,
					     sizeof(sh->qerr), QGROUP_PARTIAL,
					     tick, arg);
			if (ret)
				break;
			{
				struct qgroup_stats st;

				qgroup_stats(q, &st);
				if (st.unresolved)
					sh->inline_unsure++;
			}
		}
		if (!q || linked_outside(fs, in->root, in->ino) ||
		    !qgroup_leaf_own(q, in->root, in->ino,
				     BTRFS_EXTENT_DATA_KEY, in->pos))
			continue;
		sh->inline_type[in->type] += in->len;
		sh->row_excl[row] += in->len;
		sh->row_meta[row] += in->len;
	}
	qgroup_free(q);
	return ret;
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
	ret = resolve_inline(sh, tick, arg);
	if (ret)
		return ret;
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
	for (r = (uint32_t)sh->nrows; r-- > 1;) {
		sh->row_excl[sh->parent[r]] += sh->row_excl[r];
		sh->row_meta[sh->parent[r]] += sh->row_meta[r];
	}
	sh->resolved = 1;
	return 0;
}

void sharing_total(const struct sharing *sh, struct sharing_result *res)
{
	size_t i, s;
	unsigned t;

	memset(res, 0, sizeof(*res));
	for (t = 0; t < CS_NTYPES; t++) {
		res->type[t] = sh->inline_type[t];
		res->type_meta[t] = sh->inline_type[t];
		res->exclusive_metadata += sh->inline_type[t];
	}
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
			if (!e->shared)
				res->exclusive_data += e->disk;
		}
	}
	for (t = 0; t < CS_NTYPES; t++)
		res->exclusive += res->type[t];
}

uint64_t sharing_row_exclusive(const struct sharing *sh, uint32_t id)
{
	return id < sh->nrows ? sh->row_excl[id] : 0;
}

uint64_t sharing_row_metadata(const struct sharing *sh, uint32_t id)
{
	return id < sh->nrows ? sh->row_meta[id] : 0;
}

int sharing_inline_unsure(const struct sharing *sh)
{
	return sh->inline_unsure > 0;
}

const char *sharing_error_path(const struct sharing *sh)
{
	return sh->qerr[0] ? sh->qerr : NULL;
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
	n += sh->cap_rows * (2 * sizeof(uint32_t) + 2 * sizeof(uint64_t));
	n += sh->cap_inl * sizeof(*sh->inl);
	n += sh->cap_stack * sizeof(uint32_t);
	return n;
}
