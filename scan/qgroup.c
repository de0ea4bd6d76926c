// SPDX-License-Identifier: GPL-2.0
/* The kernel's qgroup figures of every subvolume, with quotas off
 * (qgroup.h; the kernel's fs/btrfs/qgroup.c and backref.c do it per
 * extent, this does it for all extents at once). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/btrfs_tree.h>
#include "lib/array.h"
#include "scan/pending.h"
#include "scan/qgroup.h"
#include "scan/search.h"

/* struct btrfs_header, as on disk */
#define H_CSUM		0
#define H_FSID		32
#define H_BYTENR	48
#define H_GENERATION	80
#define H_OWNER		88
#define H_NRITEMS	96
#define H_LEVEL		100
#define HEADER_SIZE	101
#define KEY_PTR_SIZE	33	/* disk key 17, blockptr 8, generation 8 */
#define ITEM_SIZE	25	/* disk key 17, offset 4, size 4 */
#define MAX_LEVEL	8

/* struct btrfs_root_item */
#define RI_GENERATION	160
#define RI_BYTENR	176
#define RI_REFS		216
#define RI_LEVEL	238
#define RI_MIN_SIZE	239


/* The kernel's is_fstree(): 5, or >= 256 with qgroup level 0. */
static int is_fstree(uint64_t id)
{
	return id == BTRFS_FS_TREE_OBJECTID ||
	       ((int64_t)id >= (int64_t)BTRFS_FIRST_FREE_OBJECTID &&
		(id >> 48) == 0);
}

/* ------------------------------------------------ u64 -> u32 hash map */

struct map {
	uint64_t *keys;
	uint32_t *vals;		/* UINT32_MAX: empty slot */
	size_t cap, n;
};

static size_t hash64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return (size_t)k;
}

static void map_insert(struct map *m, uint64_t k, uint32_t v)
{
	size_t i;

	for (i = hash64(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == UINT32_MAX) {
			m->keys[i] = k;
			m->vals[i] = v;
			m->n++;
			return;
		}
		if (m->keys[i] == k) {
			m->vals[i] = v;
			return;
		}
	}
}

static int map_put(struct map *m, uint64_t k, uint32_t v)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		struct map old = *m;
		size_t i;

		m->cap = old.cap ? 2 * old.cap : 1024;
		m->n = 0;
		m->keys = malloc(m->cap * sizeof(*m->keys));
		m->vals = malloc(m->cap * sizeof(*m->vals));
		if (!m->keys || !m->vals) {
			free(m->keys);
			free(m->vals);
			*m = old;
			return -ENOMEM;
		}
		memset(m->vals, 0xff, m->cap * sizeof(*m->vals));
		for (i = 0; i < old.cap; i++)
			if (old.vals[i] != UINT32_MAX)
				map_insert(m, old.keys[i], old.vals[i]);
		free(old.keys);
		free(old.vals);
	}
	map_insert(m, k, v);
	return 0;
}

static uint32_t map_get(const struct map *m, uint64_t k)
{
	size_t i;

	if (!m->cap)
		return UINT32_MAX;
	for (i = hash64(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->vals[i] == UINT32_MAX)
			return UINT32_MAX;
		if (m->keys[i] == k)
			return m->vals[i];
	}
}

static void map_free(struct map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static size_t map_memory(const struct map *m)
{
	return m->cap * (sizeof(*m->keys) + sizeof(*m->vals));
}

/* Grow array a (of element type *a) to hold element n; -ENOMEM. */
#define GROW(a, n, cap) ({						\
	void *p_ = array_grow((a), &(cap), (n), sizeof(*(a)));		\
	if (p_)								\
		(a) = p_;						\
	p_ ? 0 : -ENOMEM;						\
})

/* --------------------------------------------------------- structures */

struct chunk {
	uint64_t logical, length, type, stripe_len;
	uint32_t stripe;	/* first of num_stripes in q->stripes */
	uint16_t num_stripes, sub_stripes;
};

struct stripe {
	uint64_t devid, physical;
};

struct dev {
	uint64_t devid;
	int fd;			/* page cache: a second run finds it warm */
	int fd_direct;		/* O_DIRECT: what the device holds now */
};

struct root {
	uint64_t id, bytenr, generation;
	uint32_t refs;		/* 0: deleted */
	uint8_t level;
	uint8_t orphan, has_item;
};

enum { REF_ROOT, REF_PARENT };

struct tref {
	uint64_t val;		/* root id, or parent bytenr */
	uint8_t kind;
};

struct tblock {
	uint64_t bytenr;
	uint64_t gen;		/* what its parent expects, 0 unknown */
	uint32_t ref_off;	/* in trefs */
	uint32_t set;		/* root set, filled top-down */
	uint32_t node;		/* in nodes once read, else UINT32_MAX */
	uint16_t nrefs;
	uint8_t level, full_backref;
};

struct kptr {
	uint64_t objectid, offset, child, gen;
	uint8_t type, edge;	/* edge: the kernel's walk follows it */
};

struct node {
	uint64_t owner;
	uint32_t off, n;	/* in kptrs */
};

struct rset {
	uint32_t n, off;	/* members in q->members[off, off + n) */
	uint64_t data, meta;	/* bytes of extents with this set */
};

struct dref {
	uint64_t root_or_parent, ino, off;
	uint32_t count;
	uint8_t kind;
};

struct qgroup {
	int fd;
	uint32_t nodesize;
	uint16_t csum_type;
	uint8_t fsid[16];
	uint64_t generation;
	int (*tick)(void *);
	void *tick_arg;
	unsigned ticks;
	char *err;
	size_t errlen;

	struct dev *devs;
	size_t ndevs, capdevs;
	struct chunk *chunks;
	size_t nchunks, capchunks;
	struct stripe *stripes;
	size_t nstripes, capstripes;
	uint8_t *buf;		/* one block, aligned for O_DIRECT */

	struct root *roots;
	size_t nroots, caproots;
	struct map root_idx;

	struct tblock *tblocks;
	size_t ntblocks, captblocks;
	struct map tblock_idx;
	struct tref *trefs;
	size_t ntrefs, captrefs;
	struct node *nodes;
	size_t nnodes, capnodes;
	struct kptr *kptrs;
	size_t nkptrs, capkptrs;

	struct rset *sets;
	size_t nsets, capsets;
	uint32_t *members;
	size_t nmembers, capmembers;
	uint32_t *set_next;	/* chains of sets of one hash */
	size_t capnext;
	struct map set_by_hash, union_memo;
	uint32_t *tmp;
	size_t captmp;

	/* the data extent being streamed, and its refs */
	int cur_kind;		/* 0 none, 1 tree block, 2 data */
	uint64_t cur_bytenr, cur_bytes;
	struct dref *drefs;
	size_t ndrefs, capdrefs;

	struct qgroup_root *out;
	size_t nout;
	uint64_t bad_blocks, unresolved;
	struct qgroup_stats st;
};

/* --------------------------------------------------------- root sets */

static uint64_t set_hash(const uint32_t *m, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = hash64(h ^ m[i]) + i;
	return h;
}

/* The id of the set of members m[0..n) (sorted); UINT32_MAX: no memory. */
static uint32_t set_intern(struct qgroup *q, const uint32_t *m, uint32_t n)
{
	uint64_t h = set_hash(m, n);
	uint32_t first = map_get(&q->set_by_hash, h), s;

	for (s = first; s != UINT32_MAX; s = q->set_next[s])
		if (q->sets[s].n == n &&
		    !memcmp(q->members + q->sets[s].off, m, n * sizeof(*m)))
			return s;
	if (GROW(q->sets, q->nsets, q->capsets) ||
	    GROW(q->set_next, q->nsets, q->capnext))
		return UINT32_MAX;
	while (q->nmembers + n > q->capmembers)
		if (GROW(q->members, q->capmembers, q->capmembers))
			return UINT32_MAX;
	if (n)
		memcpy(q->members + q->nmembers, m, n * sizeof(*m));
	s = (uint32_t)q->nsets;
	if (map_put(&q->set_by_hash, h, s))
		return UINT32_MAX;
	q->sets[s].n = n;
	q->sets[s].off = (uint32_t)q->nmembers;
	q->sets[s].data = q->sets[s].meta = 0;
	q->set_next[s] = first;
	q->nmembers += n;
	q->nsets++;
	return s;
}

static uint32_t set_union(struct qgroup *q, uint32_t a, uint32_t b)
{
	uint32_t i = 0, j = 0, n = 0, na, nb, res;
	const uint32_t *ma, *mb;

	if (a == b || b == 0 || a == UINT32_MAX)
		return a;
	if (a == 0 || b == UINT32_MAX)
		return b;
	if (a > b) {
		res = a;
		a = b;
		b = res;
	}
	res = map_get(&q->union_memo, (uint64_t)a << 32 | b);
	if (res != UINT32_MAX)
		return res;
	na = q->sets[a].n;
	nb = q->sets[b].n;
	while (na + nb > q->captmp)
		if (GROW(q->tmp, q->captmp, q->captmp))
			return UINT32_MAX;
	ma = q->members + q->sets[a].off;
	mb = q->members + q->sets[b].off;
	while (i < na || j < nb) {
		if (j == nb || (i < na && ma[i] < mb[j]))
			q->tmp[n++] = ma[i++];
		else if (i == na || mb[j] < ma[i])
			q->tmp[n++] = mb[j++];
		else {
			q->tmp[n++] = ma[i++];
			j++;
		}
	}
	res = set_intern(q, q->tmp, n);
	if (res == UINT32_MAX ||
	    map_put(&q->union_memo, (uint64_t)a << 32 | b, res))
		return UINT32_MAX;
	return res;
}

/* ------------------------------------------------------------- roots */

static uint32_t root_index(struct qgroup *q, uint64_t id)
{
	uint32_t i = map_get(&q->root_idx, id);

	if (i != UINT32_MAX)
		return i;
	if (GROW(q->roots, q->nroots, q->caproots))
		return UINT32_MAX;
	memset(&q->roots[q->nroots], 0, sizeof(q->roots[0]));
	q->roots[q->nroots].id = id;
	if (map_put(&q->root_idx, id, (uint32_t)q->nroots))
		return UINT32_MAX;
	return (uint32_t)q->nroots++;
}

static uint32_t set_of_root(struct qgroup *q, uint64_t id)
{
	uint32_t r = root_index(q, id);

	return r == UINT32_MAX ? UINT32_MAX : set_intern(q, &r, 1);
}

/* Deleted and not yet dropped (refs 0, or an orphan item), or dropped
 * with blocks left until the next commit (no root item): not live. */
static int root_deleting(const struct root *r)
{
	return r->has_item && (!r->refs || r->orphan);
}

static int root_live(const struct root *r)
{
	return r->has_item && !root_deleting(r);
}

static int tick(struct qgroup *q)
{
	if (!q->tick || ++q->ticks % 4096)
		return 0;
	return q->tick(q->tick_arg);
}

static int root_cb(const struct search_item *it, void *arg)
{
	struct qgroup *q = arg;
	const uint8_t *d = it->data;
	struct root *r;
	uint32_t i;

	if (it->type == BTRFS_ORPHAN_ITEM_KEY &&
	    it->objectid == BTRFS_ORPHAN_OBJECTID) {
		if (!is_fstree(it->offset))
			return 0;
		i = root_index(q, it->offset);
		if (i == UINT32_MAX)
			return -ENOMEM;
		q->roots[i].orphan = 1;
		return 0;
	}
	if (it->type != BTRFS_ROOT_ITEM_KEY || !is_fstree(it->objectid) ||
	    it->len < RI_MIN_SIZE)
		return 0;
	i = root_index(q, it->objectid);
	if (i == UINT32_MAX)
		return -ENOMEM;
	r = &q->roots[i];
	r->has_item = 1;
	r->generation = get_le64(d + RI_GENERATION);
	r->bytenr = get_le64(d + RI_BYTENR);
	r->refs = get_le32(d + RI_REFS);
	r->level = d[RI_LEVEL];
	return 0;
}

/* ------------------------------------------------------- chunks, devices */

static int chunk_cb(const struct search_item *it, void *arg)
{
	struct qgroup *q = arg;
	const uint8_t *d = it->data;
	struct chunk *c;
	uint16_t i, n;

	if (it->type != BTRFS_CHUNK_ITEM_KEY || it->len < 48)
		return 0;
	n = get_le16(d + 44);
	if (!n || it->len < 48 + 32 * (size_t)n)
		return -EUCLEAN;
	if (GROW(q->chunks, q->nchunks, q->capchunks))
		return -ENOMEM;
	c = &q->chunks[q->nchunks++];
	c->logical = it->offset;
	c->length = get_le64(d);
	c->stripe_len = get_le64(d + 16);
	c->type = get_le64(d + 24);
	c->num_stripes = n;
	c->sub_stripes = get_le16(d + 46);
	c->stripe = (uint32_t)q->nstripes;
	for (i = 0; i < n; i++) {
		if (GROW(q->stripes, q->nstripes, q->capstripes))
			return -ENOMEM;
		q->stripes[q->nstripes].devid = get_le64(d + 48 + 32 * i);
		q->stripes[q->nstripes].physical =
			get_le64(d + 48 + 32 * i + 8);
		q->nstripes++;
	}
	return 0;
}

/* ret, with the device's path in the caller's err */
static int errf(struct qgroup *q, int ret, const char *path)
{
	if (q->err && q->errlen)
		snprintf(q->err, q->errlen, "%s", path);
	return ret;
}

static int open_devices(struct qgroup *q, uint64_t max_id)
{
	uint64_t id;

	for (id = 0; id <= max_id; id++) {
		struct btrfs_ioctl_dev_info_args di;
		struct dev *d;

		memset(&di, 0, sizeof(di));
		di.devid = id;
		if (ioctl(q->fd, BTRFS_IOC_DEV_INFO, &di) < 0)
			continue;
		di.path[sizeof(di.path) - 1] = 0;
		if (GROW(q->devs, q->ndevs, q->capdevs))
			return -ENOMEM;
		d = &q->devs[q->ndevs];
		d->devid = id;
		d->fd = open((char *)di.path, O_RDONLY | O_CLOEXEC);
		if (d->fd < 0)
			return errf(q, -errno, (char *)di.path);
		d->fd_direct = open((char *)di.path,
				    O_RDONLY | O_DIRECT | O_CLOEXEC);
		if (d->fd_direct < 0) {
			int ret = -errno;

			close(d->fd);
			return errf(q, ret, (char *)di.path);
		}
		q->ndevs++;
	}
	return 0;
}

static const struct dev *dev_of(const struct qgroup *q, uint64_t devid)
{
	size_t i;

	for (i = 0; i < q->ndevs; i++)
		if (q->devs[i].devid == devid)
			return &q->devs[i];
	return NULL;
}

/*
 * Where logical lies: the device and offset of its first copy (RAID1*,
 * DUP: any copy holds it), or its stripe (RAID0, RAID10, RAID5/6, as the
 * kernel's btrfs_map_block() computes it).  A tree block never crosses a
 * stripe.  0, -ENOENT (no chunk, no device).
 */
static int map_logical(const struct qgroup *q, uint64_t logical,
		       const struct dev **dev, uint64_t *phys)
{
	size_t lo = 0, hi = q->nchunks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct chunk *c = &q->chunks[mid];
		uint64_t off, nr, sl = c->stripe_len ? c->stripe_len : 65536;
		uint32_t idx = 0;

		if (logical < c->logical) {
			hi = mid;
			continue;
		}
		if (logical - c->logical >= c->length) {
			lo = mid + 1;
			continue;
		}
		off = logical - c->logical;
		nr = off / sl;
		if (c->type & BTRFS_BLOCK_GROUP_RAID0) {
			idx = nr % c->num_stripes;
			nr /= c->num_stripes;
			off = nr * sl + off % sl;
		} else if (c->type & BTRFS_BLOCK_GROUP_RAID10) {
			uint32_t factor = c->num_stripes /
					  (c->sub_stripes ? c->sub_stripes : 2);

			if (!factor)
				return -ENOENT;	/* a malformed chunk */
			idx = (nr % factor) * (c->sub_stripes ? c->sub_stripes : 2);
			nr /= factor;
			off = nr * sl + off % sl;
		} else if (c->type & BTRFS_BLOCK_GROUP_RAID56_MASK) {
			uint32_t parity = c->type & BTRFS_BLOCK_GROUP_RAID6 ? 2 : 1;
			uint32_t ndata = c->num_stripes > parity ?
					 c->num_stripes - parity : 0;

			if (!ndata)
				return -ENOENT;	/* a malformed chunk */
			idx = nr % ndata;
			nr /= ndata;
			idx = (nr + idx) % c->num_stripes;
			off = nr * sl + off % sl;
		}
		*dev = dev_of(q, q->stripes[c->stripe + idx].devid);
		if (!*dev)
			return -ENOENT;
		*phys = q->stripes[c->stripe + idx].physical + off;
		return 0;
	}
	return -ENOENT;
}

/* Castagnoli CRC, btrfs's default checksum. */
static uint32_t crc32c(const uint8_t *p, size_t n)
{
	static uint32_t tab[256];
	uint32_t crc = ~0u;

	if (!tab[1]) {
		uint32_t i, c;
		int k;

		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
			tab[i] = c;
		}
	}
	while (n--)
		crc = tab[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static int block_ok(const struct qgroup *q, const uint8_t *b,
		    uint64_t bytenr, uint64_t gen, int level)
{
	if (get_le64(b + H_BYTENR) != bytenr ||
	    memcmp(b + H_FSID, q->fsid, sizeof(q->fsid)))
		return 0;
	if (gen && get_le64(b + H_GENERATION) != gen)
		return 0;
	if (level >= 0 && b[H_LEVEL] != level)
		return 0;
	if (q->csum_type == BTRFS_CSUM_TYPE_CRC32 &&
	    crc32c(b + BTRFS_CSUM_SIZE, q->nodesize - BTRFS_CSUM_SIZE) !=
	    get_le32(b + H_CSUM))
		return 0;
	return 1;
}

/*
 * Tree block bytenr as committed: through the page cache, and again from
 * the device itself when what the cache holds is not that block of that
 * generation (btrfs writes bypass the device's cache).  NULL (counted in
 * bad_blocks) when the device holds something else: not yet written, or
 * freed and reused since the searches.  -errno in *ret for a failed read.
 */
static const uint8_t *read_block(struct qgroup *q, uint64_t bytenr,
				 uint64_t gen, int level, int *ret)
{
	const struct dev *d;
	uint64_t phys;
	int pass;

	*ret = 0;
	if (map_logical(q, bytenr, &d, &phys)) {
		q->bad_blocks++;
		return NULL;
	}
	for (pass = 0; pass < 2; pass++) {
		ssize_t n = pread(pass ? d->fd_direct : d->fd, q->buf,
				  q->nodesize, (off_t)phys);

		if (n < 0) {
			*ret = -errno;
			return NULL;
		}
		if (n == (ssize_t)q->nodesize &&
		    block_ok(q, q->buf, bytenr, gen, level))
			return q->buf;
	}
	q->bad_blocks++;
	return NULL;
}

/* ---------------------------------------------------------- extent tree */

static struct tblock *tblock_of(const struct qgroup *q, uint64_t bytenr)
{
	uint32_t i = map_get(&q->tblock_idx, bytenr);

	return i == UINT32_MAX ? NULL : &q->tblocks[i];
}

static int add_tref(struct qgroup *q, uint8_t kind, uint64_t val)
{
	if (GROW(q->trefs, q->ntrefs, q->captrefs))
		return -ENOMEM;
	q->trefs[q->ntrefs].kind = kind;
	q->trefs[q->ntrefs].val = val;
	q->ntrefs++;
	q->tblocks[q->ntblocks - 1].nrefs++;
	return 0;
}

static int add_dref(struct qgroup *q, uint8_t kind, uint64_t rp, uint64_t ino,
		    uint64_t off, uint32_t count)
{
	if (GROW(q->drefs, q->ndrefs, q->capdrefs))
		return -ENOMEM;
	q->drefs[q->ndrefs].kind = kind;
	q->drefs[q->ndrefs].root_or_parent = rp;
	q->drefs[q->ndrefs].ino = ino;
	q->drefs[q->ndrefs].off = off;
	q->drefs[q->ndrefs].count = count;
	q->ndrefs++;
	return 0;
}

int extent_inline_ref(const uint8_t **p, const uint8_t *end,
		      struct extent_ref *r)
{
	const uint8_t *b = *p;
	size_t len;

	if (b >= end)
		return 0;
	memset(r, 0, sizeof(*r));
	r->type = b[0];
	switch (b[0]) {
	case BTRFS_TREE_BLOCK_REF_KEY:
	case BTRFS_SHARED_BLOCK_REF_KEY:
	case EXTENT_OWNER_REF:
		len = 9;
		break;
	case BTRFS_EXTENT_DATA_REF_KEY:	/* root, objectid, offset, count */
		len = 29;
		break;
	case BTRFS_SHARED_DATA_REF_KEY:	/* parent, count */
		len = 13;
		break;
	default:
		return -EUCLEAN;
	}
	if ((size_t)(end - b) < len)
		return -EUCLEAN;
	r->val = get_le64(b + 1);
	if (b[0] == BTRFS_EXTENT_DATA_REF_KEY) {
		r->ino = get_le64(b + 9);
		r->off = get_le64(b + 17);
		r->count = get_le32(b + 25);
	} else if (b[0] == BTRFS_SHARED_DATA_REF_KEY) {
		r->count = get_le32(b + 9);
	}
	*p = b + len;
	return 1;
}

/* Inline references after the extent item (and tree_block_info): a tree
 * block's (tree) or a data extent's. */
static int inline_refs(struct qgroup *q, const uint8_t *p, const uint8_t *end,
		       int tree)
{
	struct extent_ref r;
	int ret;

	while ((ret = extent_inline_ref(&p, end, &r)) > 0) {
		ret = 0;
		if (tree && (r.type == BTRFS_TREE_BLOCK_REF_KEY ||
			     r.type == BTRFS_SHARED_BLOCK_REF_KEY))
			ret = add_tref(q, r.type == BTRFS_TREE_BLOCK_REF_KEY ?
				       REF_ROOT : REF_PARENT, r.val);
		else if (!tree && r.type == BTRFS_EXTENT_DATA_REF_KEY)
			ret = add_dref(q, REF_ROOT, r.val, r.ino, r.off,
				       r.count);
		else if (!tree && r.type == BTRFS_SHARED_DATA_REF_KEY)
			ret = add_dref(q, REF_PARENT, r.val, 0, 0, r.count);
		if (ret)
			return ret;
	}
	return ret;
}

/* Pass over metadata block groups: tree blocks and their refs. */
static int meta_cb(const struct search_item *it, void *arg)
{
	struct qgroup *q = arg;
	const uint8_t *d = it->data;
	int ret = tick(q);

	if (ret)
		return ret;
	if (it->type == BTRFS_EXTENT_ITEM_KEY ||
	    it->type == BTRFS_METADATA_ITEM_KEY) {
		uint64_t flags;
		const uint8_t *p = d + 24;
		struct tblock *t;

		q->cur_kind = 0;
		if (it->len < 24)
			return -EUCLEAN;
		flags = get_le64(d + 16);
		if (it->type == BTRFS_EXTENT_ITEM_KEY &&
		    !(flags & BTRFS_EXTENT_FLAG_TREE_BLOCK))
			return 0;	/* data, in a mixed block group */
		if (GROW(q->tblocks, q->ntblocks, q->captblocks))
			return -ENOMEM;
		t = &q->tblocks[q->ntblocks++];
		memset(t, 0, sizeof(*t));
		t->bytenr = it->objectid;
		t->ref_off = (uint32_t)q->ntrefs;
		t->full_backref = !!(flags & BTRFS_BLOCK_FLAG_FULL_BACKREF);
		t->node = UINT32_MAX;
		if (it->type == BTRFS_METADATA_ITEM_KEY) {
			t->level = (uint8_t)it->offset;
		} else {
			if (it->len < 24 + 18)
				return -EUCLEAN;
			t->level = p[17];	/* tree_block_info: key, level */
			p += 18;
		}
		if (t->level >= MAX_LEVEL)
			return -EUCLEAN;
		if (map_put(&q->tblock_idx, t->bytenr,
			    (uint32_t)(q->ntblocks - 1)))
			return -ENOMEM;
		q->cur_kind = 1;
		q->cur_bytenr = it->objectid;
		return inline_refs(q, p, d + it->len, 1);
	}
	if (q->cur_kind != 1 || it->objectid != q->cur_bytenr)
		return 0;
	if (it->type == BTRFS_TREE_BLOCK_REF_KEY)
		return add_tref(q, REF_ROOT, it->offset);
	if (it->type == BTRFS_SHARED_BLOCK_REF_KEY)
		return add_tref(q, REF_PARENT, it->offset);
	return 0;
}

static int has_tref(const struct qgroup *q, const struct tblock *t,
		    uint8_t kind, uint64_t val)
{
	uint32_t i;

	for (i = 0; i < t->nrefs; i++)
		if (q->trefs[t->ref_off + i].kind == kind &&
		    q->trefs[t->ref_off + i].val == val)
			return 1;
	return 0;
}

/*
 * Read interior node t and push its root set to its children.  An edge
 * counts when the child's refs hold it as the kernel's backref walk would
 * find it: SHARED_BLOCK_REF(t), or a keyed ref of t's owner (resolved by
 * a search of the owner's tree, which lands on t).  A dead root's edges
 * into what its drop already released fail this, as in the kernel.
 */
static int visit_node(struct qgroup *q, size_t ti)
{
	struct tblock *t = &q->tblocks[ti];
	const uint8_t *b;
	struct node *nd;
	uint32_t n, i;
	int ret;

	b = read_block(q, t->bytenr, t->gen, t->level, &ret);
	if (!b)
		return ret;
	q->st.nodes_read++;
	n = get_le32(b + H_NRITEMS);
	if (HEADER_SIZE + (size_t)n * KEY_PTR_SIZE > q->nodesize) {
		q->bad_blocks++;
		return 0;
	}
	if (GROW(q->nodes, q->nnodes, q->capnodes))
		return -ENOMEM;
	nd = &q->nodes[q->nnodes];
	nd->owner = get_le64(b + H_OWNER);
	nd->off = (uint32_t)q->nkptrs;
	nd->n = n;
	t = &q->tblocks[ti];
	t->node = (uint32_t)q->nnodes++;
	while (q->nkptrs + n > q->capkptrs)
		if (GROW(q->kptrs, q->capkptrs, q->capkptrs))
			return -ENOMEM;
	for (i = 0; i < n; i++) {
		const uint8_t *p = b + HEADER_SIZE + (size_t)i * KEY_PTR_SIZE;
		struct kptr *k = &q->kptrs[q->nkptrs++];
		struct tblock *c;

		k->objectid = get_le64(p);
		k->type = p[8];
		k->offset = get_le64(p + 9);
		k->child = get_le64(p + 17);
		k->gen = get_le64(p + 25);
		k->edge = 0;
		c = tblock_of(q, k->child);
		if (!c || c->level + 1 != t->level ||
		    !(has_tref(q, c, REF_PARENT, t->bytenr) ||
		      (!t->full_backref && has_tref(q, c, REF_ROOT, nd->owner))))
			continue;
		k->edge = 1;
		c->set = set_union(q, c->set, t->set);
		if (c->set == UINT32_MAX)
			return -ENOMEM;
		c->gen = k->gen;
	}
	return tick(q);
}

/* ---------------------------------------------------- searches of trees */

static int keycmp(uint64_t ao, uint8_t at, uint64_t aoff,
		  uint64_t bo, uint8_t bt, uint64_t boff)
{
	if (ao != bo)
		return ao < bo ? -1 : 1;
	if (at != bt)
		return at < bt ? -1 : 1;
	if (aoff != boff)
		return aoff < boff ? -1 : 1;
	return 0;
}

/* A path from a root node to a leaf, as btrfs_search_slot() leaves it. */
struct path {
	int top;
	uint32_t node[MAX_LEVEL], slot[MAX_LEVEL];
};

static const struct kptr *path_ptr(const struct qgroup *q,
				   const struct path *p, int level)
{
	return &q->kptrs[q->nodes[p->node[level]].off + p->slot[level]];
}

/*
 * From block b (read, level >= 1) down to the leaf a search for the key
 * lands on (each node: the last pointer whose key is <= the key, or the
 * first; leftmost: always the first).  The leaf's pointer, or NULL when a
 * node on the way was not read.
 */
static const struct kptr *descend(const struct qgroup *q, struct path *p,
				  const struct tblock *b, uint64_t o,
				  uint8_t ty, uint64_t off, int leftmost)
{
	for (;;) {
		const struct node *nd;
		const struct kptr *k;
		uint32_t lo = 0, hi;

		if (b->node == UINT32_MAX)
			return NULL;
		nd = &q->nodes[b->node];
		if (!nd->n)
			return NULL;
		hi = nd->n;
		while (!leftmost && lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			k = &q->kptrs[nd->off + mid];
			if (keycmp(k->objectid, k->type, k->offset, o, ty,
				   off) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		p->node[b->level] = b->node;
		p->slot[b->level] = lo ? lo - 1 : 0;
		k = path_ptr(q, p, b->level);
		if (b->level == 1)
			return k;
		b = tblock_of(q, k->child);
		if (!b)
			return NULL;
	}
}

/* The leaf of root r's tree a search for the key lands on: its bytenr
 * (0 when unknown), and its generation in *gen (0 for a root leaf). */
static uint64_t find_leaf(const struct qgroup *q, struct path *p,
			  const struct root *r, uint64_t o, uint8_t ty,
			  uint64_t off, uint64_t *gen)
{
	const struct tblock *b = r->bytenr ? tblock_of(q, r->bytenr) : NULL;
	const struct kptr *k;

	*gen = 0;
	if (!b)
		return 0;
	p->top = b->level;
	if (b->level == 0) {
		*gen = r->generation;
		return b->bytenr;
	}
	k = descend(q, p, b, o, ty, off, 0);
	if (!k)
		return 0;
	*gen = k->gen;
	return k->child;
}

/* The leaf after the path's (btrfs_next_leaf()), or 0. */
static uint64_t next_leaf(const struct qgroup *q, struct path *p,
			  uint64_t *gen)
{
	int level;

	for (level = 1; level <= p->top; level++) {
		const struct kptr *k;

		if (p->slot[level] + 1 >= q->nodes[p->node[level]].n)
			continue;
		p->slot[level]++;
		k = path_ptr(q, p, level);
		if (level > 1) {
			const struct tblock *b = tblock_of(q, k->child);

			k = b ? descend(q, p, b, 0, 0, 0, 1) : NULL;
		}
		if (!k)
			return 0;
		*gen = k->gen;
		return k->child;
	}
	return 0;
}

/*
 * The kernel's add_all_parents() for a keyed data ref whose items may lie
 * in several leaves: from where the search lands, skip leaves r does not
 * own or holding a SHARED_DATA_REF of the extent, and collect the leaves
 * with items (ino, EXTENT_DATA, k) pointing at the extent with k - offset
 * == off, until count of them.  Returns the union of their sets (0: none).
 */
static uint32_t resolve_by_reading(struct qgroup *q, const struct root *r,
				   const struct dref *dr, int *ret)
{
	struct path path;
	uint32_t set = 0, found = 0;
	uint64_t soff = dr->off >= (uint64_t)INT64_MAX ? 0 : dr->off, gen;
	uint64_t leaf = find_leaf(q, &path, r, dr->ino, BTRFS_EXTENT_DATA_KEY,
				  soff, &gen);

	*ret = 0;
	while (leaf && found < dr->count) {
		const struct tblock *lt = tblock_of(q, leaf);
		const uint8_t *b = read_block(q, leaf, gen, 0, ret);
		int skip = 0, done = 0;
		uint32_t n, i;
		size_t j;

		if (!b || !lt)
			break;
		q->st.leaves_read++;
		n = get_le32(b + H_NRITEMS);
		if ((size_t)n * ITEM_SIZE > q->nodesize - HEADER_SIZE) {
			q->bad_blocks++;
			break;
		}
		if (get_le64(b + H_OWNER) != r->id)
			skip = 1;
		for (j = 0; j < q->ndrefs; j++)
			if (q->drefs[j].kind == REF_PARENT &&
			    q->drefs[j].root_or_parent == leaf)
				skip = 1;
		for (i = 0; i < n && !skip && found < dr->count; i++) {
			const uint8_t *ip = b + HEADER_SIZE + (size_t)i * ITEM_SIZE;
			uint64_t ko = get_le64(ip), koff = get_le64(ip + 9);
			uint32_t io = get_le32(ip + 17), isz = get_le32(ip + 21);
			const uint8_t *fi = b + HEADER_SIZE + io;

			if (keycmp(ko, ip[8], koff, dr->ino,
				   BTRFS_EXTENT_DATA_KEY, soff) < 0)
				continue;
			if (ko != dr->ino || ip[8] != BTRFS_EXTENT_DATA_KEY) {
				done = 1;
				break;
			}
			if ((size_t)io + isz > q->nodesize - HEADER_SIZE ||
			    isz < FE_REG_SIZE ||
			    fi[FE_TYPE] == BTRFS_FILE_EXTENT_INLINE)
				continue;
			if (get_le64(fi + FE_DISK_BYTENR) == q->cur_bytenr &&
			    koff - get_le64(fi + FE_OFFSET) == dr->off) {
				found++;
				set = set_union(q, set, lt->set);
				if (set == UINT32_MAX) {
					*ret = -ENOMEM;
					return 0;
				}
			}
		}
		if (done || path.top == 0)
			break;
		leaf = next_leaf(q, &path, &gen);
	}
	return set;
}

/* The set of the data extent streamed last, from its refs; its bytes to
 * that set. */
static int data_flush(struct qgroup *q)
{
	uint32_t set = 0;
	size_t j;
	int ret;

	if (q->cur_kind != 2)
		return 0;
	q->cur_kind = 0;
	q->st.data_extents++;
	for (j = 0; j < q->ndrefs; j++) {
		const struct dref *dr = &q->drefs[j];
		const struct tblock *lt;
		uint32_t ri, s;

		if (dr->kind == REF_PARENT) {
			lt = tblock_of(q, dr->root_or_parent);
			if (lt && lt->set)
				set = set_union(q, set, lt->set);
			else
				q->unresolved++;
			if (set == UINT32_MAX)
				return -ENOMEM;
			continue;
		}
		if (!is_fstree(dr->root_or_parent))
			continue;
		ri = map_get(&q->root_idx, dr->root_or_parent);
		if (ri == UINT32_MAX || !q->roots[ri].bytenr) {
			/* the kernel: a root it cannot read counts as is */
			s = set_of_root(q, dr->root_or_parent);
		} else {
			/* items (ino, EXTENT_DATA, off + extent offset), the
			 * offset below ram_bytes <= max(bytes, 128K): one
			 * leaf holds them all when both ends land on it */
			uint64_t span = q->cur_bytes > 131072 ? q->cur_bytes
							      : 131072;
			uint64_t hi = dr->off + span - 1, g1, g2, l1 = 0, l2 = 1;
			struct path p1, p2;

			if (dr->off < (uint64_t)INT64_MAX && hi > dr->off) {
				l1 = find_leaf(q, &p1, &q->roots[ri], dr->ino,
					       BTRFS_EXTENT_DATA_KEY, dr->off,
					       &g1);
				l2 = find_leaf(q, &p2, &q->roots[ri], dr->ino,
					       BTRFS_EXTENT_DATA_KEY, hi, &g2);
			}
			lt = l1 && l1 == l2 ? tblock_of(q, l1) : NULL;
			if (lt && lt->set) {
				s = lt->set;
			} else {
				s = resolve_by_reading(q, &q->roots[ri], dr,
						       &ret);
				if (ret)
					return ret;
				if (!s)
					q->unresolved++;
			}
		}
		set = set_union(q, set, s);
		if (set == UINT32_MAX)
			return -ENOMEM;
	}
	q->sets[set].data += q->cur_bytes;
	return 0;
}

/* Pass over data block groups: each data extent resolved as it ends. */
static int data_cb(const struct search_item *it, void *arg)
{
	struct qgroup *q = arg;
	const uint8_t *d = it->data;
	int ret = tick(q);

	if (ret)
		return ret;
	if (it->type == BTRFS_EXTENT_ITEM_KEY ||
	    it->type == BTRFS_METADATA_ITEM_KEY) {
		ret = data_flush(q);
		if (ret)
			return ret;
		if (it->len < 24)
			return -EUCLEAN;
		if (it->type == BTRFS_METADATA_ITEM_KEY ||
		    (get_le64(d + 16) & BTRFS_EXTENT_FLAG_TREE_BLOCK))
			return 0;	/* a tree block, in a mixed group */
		q->ndrefs = 0;
		q->cur_kind = 2;
		q->cur_bytenr = it->objectid;
		q->cur_bytes = it->offset;
		return inline_refs(q, d + 24, d + it->len, 0);
	}
	if (q->cur_kind != 2 || it->objectid != q->cur_bytenr)
		return 0;
	if (it->type == BTRFS_EXTENT_DATA_REF_KEY && it->len >= 28)
		return add_dref(q, REF_ROOT, get_le64(d), get_le64(d + 8),
				get_le64(d + 16), get_le32(d + 24));
	if (it->type == BTRFS_SHARED_DATA_REF_KEY && it->len >= 4)
		return add_dref(q, REF_PARENT, it->offset, 0, 0,
				get_le32(d));
	return 0;
}

/* Every item of the extent tree in the block groups of type mask. */
static int extent_pass(struct qgroup *q, struct search_ctx *s, uint64_t mask,
		       search_cb cb)
{
	size_t i;

	for (i = 0; i < q->nchunks; i++) {
		const struct chunk *c = &q->chunks[i];
		struct btrfs_ioctl_search_key key;
		int ret;

		if (!(c->type & mask))
			continue;
		search_key_range(&key, BTRFS_EXTENT_TREE_OBJECTID, c->logical,
				 BTRFS_EXTENT_ITEM_KEY,
				 c->logical + c->length - 1,
				 BTRFS_SHARED_DATA_REF_KEY);
		q->cur_kind = 0;
		ret = search_run(s, q->fd, &key, q->nodesize, cb, q);
		if (!ret && cb == data_cb)
			ret = data_flush(q);
		if (ret)
			return ret;
	}
	return 0;
}

/* --------------------------------------------------------------- run */

static void reset(struct qgroup *q)
{
	q->nchunks = q->nstripes = q->nroots = 0;
	q->ntblocks = q->ntrefs = q->nnodes = q->nkptrs = 0;
	q->nsets = q->nmembers = 0;
	q->ndrefs = 0;
	map_free(&q->root_idx);
	map_free(&q->tblock_idx);
	map_free(&q->set_by_hash);
	map_free(&q->union_memo);
	free(q->out);
	q->out = NULL;
	q->nout = 0;
	q->bad_blocks = q->unresolved = 0;
	memset(&q->st, 0, sizeof(q->st));
}

static size_t memory(const struct qgroup *q)
{
	return q->capchunks * sizeof(*q->chunks) +
	       q->capstripes * sizeof(*q->stripes) +
	       q->caproots * sizeof(*q->roots) + map_memory(&q->root_idx) +
	       q->captblocks * sizeof(*q->tblocks) +
	       map_memory(&q->tblock_idx) +
	       q->captrefs * sizeof(*q->trefs) +
	       q->capnodes * sizeof(*q->nodes) +
	       q->capkptrs * sizeof(*q->kptrs) +
	       q->capsets * sizeof(*q->sets) +
	       q->capmembers * sizeof(*q->members) +
	       q->capnext * sizeof(*q->set_next) +
	       map_memory(&q->set_by_hash) + map_memory(&q->union_memo) +
	       q->capdrefs * sizeof(*q->drefs);
}

/*
 * A block no parent reached, with a keyed ref of an fs tree whose root
 * item is gone (dropped by the cleaner, its last extent items not yet
 * deleted: until the next commit): as the kernel's backref walk, which
 * cannot search that root, counts the root itself.
 */
static int gone_root_refs(struct qgroup *q, size_t ti)
{
	uint32_t j;

	if (q->tblocks[ti].set)
		return 0;
	for (j = 0; j < q->tblocks[ti].nrefs; j++) {
		const struct tref *r = &q->trefs[q->tblocks[ti].ref_off + j];
		uint32_t ri, s;

		if (r->kind != REF_ROOT || !is_fstree(r->val))
			continue;
		ri = map_get(&q->root_idx, r->val);
		if (ri != UINT32_MAX && q->roots[ri].has_item)
			continue;
		s = set_of_root(q, r->val);
		q->tblocks[ti].set = set_union(q, q->tblocks[ti].set, s);
		if (q->tblocks[ti].set == UINT32_MAX)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_out(const void *a, const void *b)
{
	const struct qgroup_root *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int attempt(struct qgroup *q, struct search_ctx *s)
{
	struct btrfs_ioctl_search_key key;
	size_t i;
	int level, ret;

	reset(q);
	if (set_intern(q, NULL, 0) == UINT32_MAX)	/* set 0: empty */
		return -ENOMEM;
	search_key_range(&key, BTRFS_CHUNK_TREE_OBJECTID,
			 BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY,
			 BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY);
	ret = search_run(s, q->fd, &key, q->nodesize, chunk_cb, q);
	if (ret)
		return ret;
	search_key_range(&key, BTRFS_ROOT_TREE_OBJECTID, 0,
			 BTRFS_ORPHAN_ITEM_KEY, UINT64_MAX, BTRFS_ROOT_ITEM_KEY);
	ret = search_run(s, q->fd, &key, q->nodesize, root_cb, q);
	if (ret)
		return ret;
	ret = extent_pass(q, s, BTRFS_BLOCK_GROUP_METADATA, meta_cb);
	if (ret)
		return ret;
	q->st.tree_blocks = q->ntblocks;

	/* Each fs root's node (live or dead) is its own. */
	for (i = 0; i < q->nroots; i++) {
		struct root *r = &q->roots[i];
		struct tblock *t;
		uint32_t one = (uint32_t)i;

		if (!r->bytenr)
			continue;
		t = tblock_of(q, r->bytenr);
		if (!t || !has_tref(q, t, REF_ROOT, r->id)) {
			q->bad_blocks++;
			continue;
		}
		t->set = set_union(q, t->set, set_intern(q, &one, 1));
		if (t->set == UINT32_MAX)
			return -ENOMEM;
		t->gen = r->generation;
	}
	/* Top-down: every node of a level before any of the level below. */
	for (level = MAX_LEVEL - 1; level >= 0; level--)
		for (i = 0; i < q->ntblocks; i++) {
			if (q->tblocks[i].level != level)
				continue;
			ret = gone_root_refs(q, i);
			if (ret)
				return ret;
			if (level && q->tblocks[i].set) {
				ret = visit_node(q, i);
				if (ret)
					return ret;
			}
		}
	/* Tree blocks: nodesize to their set. */
	for (i = 0; i < q->ntblocks; i++) {
		const struct tblock *t = &q->tblocks[i];
		uint32_t j;

		if (t->set) {
			q->sets[t->set].meta += q->nodesize;
			continue;
		}
		for (j = 0; j < t->nrefs; j++)
			if (q->trefs[t->ref_off + j].kind == REF_ROOT &&
			    is_fstree(q->trefs[t->ref_off + j].val)) {
				q->unresolved++;
				break;
			}
	}
	ret = extent_pass(q, s, BTRFS_BLOCK_GROUP_DATA, data_cb);
	if (ret)
		return ret;

	/* The kernel shows a qgroup for each fs tree it knows. */
	q->out = calloc(q->nroots ? q->nroots : 1, sizeof(*q->out));
	if (!q->out)
		return -ENOMEM;
	for (i = 0; i < q->nroots; i++) {
		struct qgroup_root *o = &q->out[i];

		o->id = q->roots[i].id;
		o->deleting = root_deleting(&q->roots[i]);
		o->gone = !q->roots[i].has_item;
	}
	q->nout = q->nroots;
	for (i = 1; i < q->nsets; i++) {
		const struct rset *st = &q->sets[i];
		const uint32_t *m = q->members + st->off;
		uint32_t k;

		for (k = 0; k < st->n; k++) {
			struct qgroup_root *o = &q->out[m[k]];

			o->rfer += st->data + st->meta;
			if (st->n == 1) {
				o->excl += st->data + st->meta;
				o->excl_data += st->data;
				o->excl_meta += st->meta;
			}
		}
	}
	q->st.sets = q->nsets;
	q->st.memory = memory(q);
	return 0;
}

/* The running transaction, or the last one when none runs: FS_INFO's
 * generation moves when a transaction starts, not when it commits. */
static uint64_t fs_generation(int fd)
{
	struct btrfs_ioctl_fs_info_args fi;

	memset(&fi, 0, sizeof(fi));
	fi.flags = BTRFS_FS_INFO_FLAG_GENERATION;
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0 ||
	    !(fi.flags & BTRFS_FS_INFO_FLAG_GENERATION))
		return 0;
	return fi.generation;
}

/* Whether transaction gen is committed: the extent tree's root item,
 * written at each commit, has reached it (pending.h). */
static int committed(struct qgroup *q, struct search_ctx *s, uint64_t gen)
{
	uint64_t done = 0;

	return gen && !pending_committed(s, q->fd, q->nodesize, &done) &&
	       done >= gen;
}

/* Wait up to limit_ms for transaction gen to commit.  1 when it did, 0
 * when not, tick's value. */
static int wait_commit(struct qgroup *q, struct search_ctx *s, uint64_t gen,
		       int limit_ms)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int waited;

	for (waited = 0; waited < limit_ms; waited += 100) {
		int ret;

		if (!gen)
			return 0;
		if (committed(q, s, gen))
			return 1;
		nanosleep(&ts, NULL);
		if (q->tick) {
			ret = q->tick(q->tick_arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int qgroup_compute(int fd, struct qgroup **out, char *err, size_t errlen,
		   unsigned flags, int (*tickfn)(void *), void *arg)
{
	struct btrfs_ioctl_fs_info_args fi;
	struct search_ctx *s = NULL;
	struct qgroup *q;
	int ret, try;

	*out = NULL;
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->fd = fd;
	q->tick = tickfn;
	q->tick_arg = arg;
	q->err = err;
	q->errlen = errlen;
	if (err && errlen)
		err[0] = 0;
	memset(&fi, 0, sizeof(fi));
	fi.flags = BTRFS_FS_INFO_FLAG_CSUM_INFO |
		   BTRFS_FS_INFO_FLAG_METADATA_UUID;
	if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0) {
		ret = -errno;
		goto fail;
	}
	q->nodesize = fi.nodesize;
	q->csum_type = fi.flags & BTRFS_FS_INFO_FLAG_CSUM_INFO ?
		       fi.csum_type : BTRFS_CSUM_TYPE_CRC32;
	/* Tree blocks carry the metadata_uuid where it differs. */
	memcpy(q->fsid, fi.flags & BTRFS_FS_INFO_FLAG_METADATA_UUID ?
	       fi.metadata_uuid : fi.fsid, sizeof(q->fsid));
	if (q->nodesize < 4096 || q->nodesize > BTRFS_MAX_NODESIZE) {
		ret = -EUCLEAN;
		goto fail;
	}
	ret = -ENOMEM;
	s = search_create(1u << 20);
	if (!s || posix_memalign((void **)&q->buf, 4096, q->nodesize))
		goto fail;
	ret = open_devices(q, fi.max_id);
	if (ret)
		goto fail;
	for (try = 0;; try++) {
		uint64_t gen = fs_generation(fd);

		ret = attempt(q, s);
		if (ret)
			goto fail;
		if (!q->bad_blocks && !q->unresolved)
			break;
		if (flags & QGROUP_PARTIAL) {
			/* again only if a commit came meanwhile */
			if (try || !committed(q, s, gen)) {
				q->st.unresolved = q->bad_blocks +
						   q->unresolved;
				break;
			}
			q->st.retries++;
			continue;
		}
		/* Changed under us: again once it has committed. */
		if (try == 2) {
			ret = -ESTALE;
			goto fail;
		}
		q->st.retries++;
		ret = wait_commit(q, s, gen, 35000);
		if (ret < 0 || ret > 1)
			goto fail;
	}
	qsort(q->out, q->nout, sizeof(*q->out), cmp_out);
	search_free(s);
	*out = q;
	return 0;
fail:
	search_free(s);
	qgroup_free(q);
	return ret;
}

void qgroup_free(struct qgroup *q)
{
	size_t i;

	if (!q)
		return;
	reset(q);
	for (i = 0; i < q->ndevs; i++) {
		close(q->devs[i].fd);
		close(q->devs[i].fd_direct);
	}
	free(q->devs);
	free(q->chunks);
	free(q->stripes);
	free(q->buf);
	free(q->roots);
	free(q->tblocks);
	free(q->trefs);
	free(q->nodes);
	free(q->kptrs);
	free(q->sets);
	free(q->members);
	free(q->set_next);
	free(q->tmp);
	free(q->drefs);
	free(q);
}

size_t qgroup_nroots(const struct qgroup *q)
{
	return q->nout;
}

const struct qgroup_root *qgroup_root_at(const struct qgroup *q, size_t i)
{
	return i < q->nout ? &q->out[i] : NULL;
}

const struct qgroup_root *qgroup_find(const struct qgroup *q, uint64_t id)
{
	size_t lo = 0, hi = q->nout;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->out[mid].id == id)
			return &q->out[mid];
		if (q->out[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int qgroup_leaf_own(const struct qgroup *q, uint64_t root, uint64_t ino,
		    uint8_t type, uint64_t offset)
{
	uint32_t ri = map_get(&q->root_idx, root), one;
	const struct tblock *lt;
	struct path p;
	uint64_t gen, leaf;

	if (ri == UINT32_MAX)
		return 0;
	leaf = find_leaf(q, &p, &q->roots[ri], ino, type, offset, &gen);
	lt = leaf ? tblock_of(q, leaf) : NULL;
	if (!lt || !lt->set)
		return 0;
	one = ri;
	return q->sets[lt->set].n == 1 &&
	       q->members[q->sets[lt->set].off] == one;
}

void qgroup_stats(const struct qgroup *q, struct qgroup_stats *st)
{
	*st = q->st;
}

void qgroup_live_total(const struct qgroup *q, uint64_t *data,
		       uint64_t *meta)
{
	size_t i;

	*data = *meta = 0;
	for (i = 1; i < q->nsets; i++) {
		const struct rset *st = &q->sets[i];
		uint32_t k;

		for (k = 0; k < st->n; k++) {
			const struct root *r = &q->roots[q->members[st->off + k]];

			if (!root_live(r))
				break;
		}
		if (k < st->n)
			continue;
		*data += st->data;
		*meta += st->meta;
	}
}

/* struct btrfs_qgroup_status_item, btrfs_qgroup_info_item */
#define QS_FLAGS		16
#define QI_RFER			8
#define QI_EXCL			24
#define QGROUP_STATUS_FLAG_SIMPLE	(1ULL << 3)

struct kernel_cmp {
	const struct qgroup *q;
	uint64_t flags;
	int have_status;
	size_t compared, differ;
	uint64_t first_id, first_rfer, first_excl;
	const struct qgroup_root *first;
};

static int quota_cb(const struct search_item *it, void *arg)
{
	struct kernel_cmp *k = arg;
	const struct qgroup_root *r;

	if (it->type == BTRFS_QGROUP_STATUS_KEY && it->len >= QS_FLAGS + 8) {
		k->have_status = 1;
		k->flags = get_le64(it->data + QS_FLAGS);
		return 0;
	}
	if (it->type != BTRFS_QGROUP_INFO_KEY || it->len < QI_EXCL + 8 ||
	    it->offset >> 48)
		return 0;
	r = qgroup_find(k->q, it->offset);
	if (!r || r->gone)
		return 0;
	k->compared++;
	if (get_le64(it->data + QI_RFER) == r->rfer &&
	    get_le64(it->data + QI_EXCL) == r->excl)
		return 0;
	if (!k->differ++) {
		k->first = r;
		k->first_rfer = get_le64(it->data + QI_RFER);
		k->first_excl = get_le64(it->data + QI_EXCL);
	}
	return 0;
}

int qgroup_check_kernel(int fd, const struct qgroup *q, char *msg,
			size_t len)
{
	struct btrfs_ioctl_search_key key;
	struct kernel_cmp k = { .q = q };
	struct search_ctx *s = search_create(256u << 10);
	int ret;

	if (!s)
		return -ENOMEM;
	search_key_range(&key, BTRFS_QUOTA_TREE_OBJECTID, 0,
			 BTRFS_QGROUP_STATUS_KEY, 0, BTRFS_QGROUP_INFO_KEY);
	ret = search_run(s, fd, &key, q->nodesize, quota_cb, &k);
	search_free(s);
	/* no quota tree: quotas are off */
	if (ret == -ENOENT || (!ret && !k.have_status))
		return 0;
	if (ret)
		return ret;
	if (k.flags & QGROUP_STATUS_FLAG_SIMPLE)
		snprintf(msg, len, "simple quotas are on: they count what each subvolume created, not what it shares; not compared");
	else if (k.flags & BTRFS_QGROUP_STATUS_FLAG_RESCAN)
		snprintf(msg, len, "quotas are on, a rescan is running: the kernel's qgroup figures are not final; not compared");
	else if (!k.differ)
		snprintf(msg, len, "quotas are on: the kernel's qgroup figures agree (%zu subvolumes)%s",
			 k.compared,
			 k.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT ?
			 ", though it marks them inconsistent" : "");
	else
		snprintf(msg, len, "quotas are on: the kernel's qgroup figures differ for %zu of %zu subvolumes (0/%llu: rfer %llu, excl %llu; here %llu, %llu)%s",
			 k.differ, k.compared,
			 (unsigned long long)k.first->id,
			 (unsigned long long)k.first_rfer,
			 (unsigned long long)k.first_excl,
			 (unsigned long long)k.first->rfer,
			 (unsigned long long)k.first->excl,
			 k.flags & BTRFS_QGROUP_STATUS_FLAG_INCONSISTENT ?
			 "; the kernel marks them inconsistent: `btrfs quota rescan` corrects them" :
			 "; `btrfs quota rescan -w` recounts them");
	return 1;
}
