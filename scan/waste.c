// SPDX-License-Identifier: GPL-2.0
/* Waste: the parts of S's extents no reference reaches (waste.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "lib/array.h"
#include "ioctl.h"
#include "scan/pending.h"
#include "scan/qgroup.h"
#include "scan/search.h"
#include "scan/waste.h"

#define WASTE_SEARCH_BUF	(64u << 10)
#define LOGICAL_BUF_MIN		(64u << 10)
#define LOGICAL_BUF_MAX		(16u << 20)
/* Extents decided between two ticks. */
#define WASTE_TICK		1024
/* Extent items asked for in one search (parts_decide()). */
#define PARTS_RUN		256

/* One reference of S, or one found by the backref walk (row 0). */
struct wref {
	uint64_t bytenr;
	uint64_t disk;		/* disk_num_bytes */
	uint64_t ram;		/* ram_bytes: the extent's uncompressed size */
	uint64_t start, end;	/* the range it maps, in [0, ram) */
	uint64_t pos;		/* the item's file position (0: unknown) */
	uint32_t row;
	uint16_t fs;		/* index in w->fs */
	uint16_t type;		/* row of struct cs_stats */
};

struct waste_fs {
	size_t fs_idx;
	int fd;
	uint32_t nodesize;
};

struct waste {
	struct waste_fs *fs;
	size_t nfs;
	struct wref *refs;
	size_t nrefs, cap_refs;
	/* rows: id 0 is S; by id */
	uint32_t *parent, *stamp;
	uint64_t *row_waste;
	size_t nrows, cap_rows;
	uint32_t *stack;
	size_t nstack, cap_stack;
	int nomem;
	int walk_only;		/* waste_walk_only() */
	uint64_t total, walked, wasting;
	uint64_t type[CS_NTYPES];
	struct search_ctx *search;
	struct search_ctx *items;	/* the extent tree's, apart: a run
					 * reads root items through search */
	void *lbuf;
	size_t lbuf_size;
};

struct waste *waste_create(void)
{
	struct waste *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cap_rows = 64;
	w->parent = calloc(w->cap_rows, sizeof(*w->parent));
	w->stamp = calloc(w->cap_rows, sizeof(*w->stamp));
	w->row_waste = calloc(w->cap_rows, sizeof(*w->row_waste));
	if (!w->parent || !w->stamp || !w->row_waste) {
		waste_free(w);
		return NULL;
	}
	w->nrows = 1;
	return w;
}

void waste_free(struct waste *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nfs; i++)
		if (w->fs[i].fd >= 0)
			close(w->fs[i].fd);
	free(w->fs);
	free(w->refs);
	free(w->parent);
	free(w->stamp);
	free(w->row_waste);
	free(w->stack);
	search_free(w->search);
	search_free(w->items);
	free(w->lbuf);
	free(w);
}

static struct waste_fs *fs_find(struct waste *w, size_t fs_idx)
{
	size_t i;

	for (i = 0; i < w->nfs; i++)
		if (w->fs[i].fs_idx == fs_idx)
			return &w->fs[i];
	return NULL;
}

int waste_add_fs(struct waste *w, size_t fs_idx, int fd)
{
	struct btrfs_ioctl_fs_info_args info = { 0 };
	struct waste_fs *fs;

	if (fs_find(w, fs_idx))
		return 0;
	if (fd >= 0 && ioctl(fd, BTRFS_IOC_FS_INFO, &info))
		return -errno;
	fs = realloc(w->fs, (w->nfs + 1) * sizeof(*fs));
	if (!fs)
		return -ENOMEM;
	w->fs = fs;
	fs = &w->fs[w->nfs];
	fs->fs_idx = fs_idx;
	fs->nodesize = info.nodesize;
	fs->fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd >= 0 && fs->fd < 0)
		return -errno;
	w->nfs++;
	return 0;
}

static uint32_t row_cur(const struct waste *w)
{
	return w->nstack ? w->stack[w->nstack - 1] : 0;
}

uint32_t waste_row_push(struct waste *w)
{
	uint32_t id = (uint32_t)w->nrows, *s;

	if (w->nrows == w->cap_rows) {
		size_t cap = 2 * w->cap_rows;
		uint32_t *p = realloc(w->parent, cap * sizeof(*p)), *t;
		uint64_t *x;

		if (p)
			w->parent = p;
		t = p ? realloc(w->stamp, cap * sizeof(*t)) : NULL;
		if (t)
			w->stamp = t;
		x = t ? realloc(w->row_waste, cap * sizeof(*x)) : NULL;
		if (!x) {
			w->nomem = 1;
			return 0;
		}
		w->row_waste = x;
		w->cap_rows = cap;
	}
	s = array_grow(w->stack, &w->cap_stack, w->nstack, sizeof(*s));
	if (!s) {
		w->nomem = 1;
		return 0;
	}
	w->stack = s;
	w->parent[id] = row_cur(w);
	w->stamp[id] = 0;
	w->row_waste[id] = 0;
	w->stack[w->nstack++] = id;
	w->nrows++;
	return id;
}

void waste_row_pop(struct waste *w)
{
	if (w->nstack)
		w->nstack--;
}

static int ref_add(struct waste *w, uint16_t fs, const struct extent_info *ei,
		   uint32_t row)
{
	struct wref *r = array_grow(w->refs, &w->cap_refs, w->nrefs,
				    sizeof(*r));

	if (!r)
		return -ENOMEM;
	w->refs = r;
	r += w->nrefs++;
	r->bytenr = ei->disk_bytenr;
	r->disk = ei->disk_num_bytes;
	r->ram = ei->ram_bytes;
	r->start = ei->offset < ei->ram_bytes ? ei->offset : ei->ram_bytes;
	r->end = ei->num_bytes < ei->ram_bytes - r->start ?
		 r->start + ei->num_bytes : ei->ram_bytes;
	r->pos = ei->file_pos;
	r->row = row;
	r->fs = fs;
	r->type = (uint16_t)extent_row(ei);
	return 0;
}

int waste_extent(struct waste *w, size_t fs_idx,
		 const struct extent_info *ei)
{
	struct waste_fs *fs;

	if (ei->type == BTRFS_FILE_EXTENT_INLINE || !ei->disk_bytenr ||
	    !ei->ram_bytes)
		return 0;
	fs = fs_find(w, fs_idx);
	if (!fs)
		return -EINVAL;
	return ref_add(w, (uint16_t)(fs - w->fs), ei, row_cur(w));
}

static int cmp_ref(const void *a, const void *b)
{
	const struct wref *x = a, *y = b;

	if (x->fs != y->fs)
		return x->fs < y->fs ? -1 : 1;
	if (x->bytenr != y->bytenr)
		return x->bytenr < y->bytenr ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/* Bytes of [0, ram) the ranges r[0..n), sorted by start, cover. */
static uint64_t covered(const struct wref *r, size_t n)
{
	uint64_t sum = 0, s = 0, e = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].start > e) {
			sum += e - s;
			s = r[i].start;
			e = r[i].end;
		} else if (r[i].end > e) {
			e = r[i].end;
		}
	}
	return sum + (e - s);
}

/* The backref walk's references of one extent, their items read. */
struct found {
	struct waste *w;
	const struct wref *ext;	/* the extent: bytenr, disk, ram, fs */
	struct wref *ranges;
	size_t n, cap;
	int err;
};

static int found_item(const struct search_item *it, void *arg)
{
	struct found *f = arg;
	struct extent_info ei;
	struct wref *r;

	if (it->type != BTRFS_EXTENT_DATA_KEY ||
	    extent_parse(it->data, it->len, 0, &ei) != EXTENT_OK ||
	    ei.type == BTRFS_FILE_EXTENT_INLINE ||
	    ei.disk_bytenr != f->ext->bytenr)
		return 0;
	r = array_grow(f->ranges, &f->cap, f->n, sizeof(*r));
	if (!r) {
		f->err = -ENOMEM;
		return 1;
	}
	f->ranges = r;
	r += f->n++;
	*r = *f->ext;
	r->row = 0;
	r->start = ei.offset < f->ext->ram ? ei.offset : f->ext->ram;
	r->end = ei.num_bytes < f->ext->ram - r->start ?
		 r->start + ei.num_bytes : f->ext->ram;
	return 0;
}

struct lref {
	uint64_t root, ino, pos;
};

static int cmp_lref(const void *a, const void *b)
{
	const struct lref *x = a, *y = b;

	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * Every reference of the extent ext through LOGICAL_INO_V2 (with
 * IGNORE_OFFSET, each element is the item's key: inode, file position,
 * root), each item read back for its range into f->ranges.  Returns 0,
 * 1 when the walk does not know the extent (uncommitted), or -errno.
 */
static int walk_refs(struct waste *w, const struct waste_fs *fs,
		     struct found *f)
{
	struct btrfs_ioctl_logical_ino_args args;
	struct btrfs_data_container *dc;
	struct lref *l = NULL;
	size_t n, i, j;
	int ret = 0;

	for (;;) {
		memset(&args, 0, sizeof(args));
		args.logical = f->ext->bytenr;
		args.size = w->lbuf_size;
		args.flags = BTRFS_LOGICAL_INO_ARGS_IGNORE_OFFSET;
		args.inodes = (uintptr_t)w->lbuf;
		if (ioctl(fs->fd, BTRFS_IOC_LOGICAL_INO_V2, &args))
			return errno == ENOENT ? 1 : -errno;
		dc = w->lbuf;
		if (!dc->bytes_missing || w->lbuf_size >= LOGICAL_BUF_MAX)
			break;
		free(w->lbuf);
		w->lbuf_size *= 4;
		w->lbuf = malloc(w->lbuf_size);
		if (!w->lbuf)
			return -ENOMEM;
	}
	/* more references than the largest buffer holds: the ones listed
	 * (the union of fewer ranges is no larger: waste is not understated
	 * by it, only possibly overstated) */
	n = dc->elem_cnt / 3;
	l = malloc((n ? n : 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		l[i].ino = dc->val[3 * i];
		l[i].pos = dc->val[3 * i + 1];
		l[i].root = dc->val[3 * i + 2];
	}
	qsort(l, n, sizeof(*l), cmp_lref);
	for (i = 0; i < n && !ret; i = j) {
		struct btrfs_ioctl_search_key key;

		for (j = i + 1; j < n && l[j].root == l[i].root &&
		     l[j].ino == l[i].ino; j++)
			;
		search_key_range(&key, l[i].root, l[i].ino,
				 BTRFS_EXTENT_DATA_KEY, l[i].ino,
				 BTRFS_EXTENT_DATA_KEY);
		key.min_offset = l[i].pos;
		key.max_offset = l[j - 1].pos;
		ret = search_run(w->search, fs->fd, &key, fs->nodesize,
				 found_item, f);
		/* a subvolume deleted, not yet cleaned: no path reaches it */
		if (ret == -ENOENT)
			ret = 0;
		if (!ret)
			ret = f->err;
	}
	free(l);
	return ret;
}

/*
 * An extent S covers in part: its references from S, told apart by the
 * item's range and file position (a file with two names in S is one
 * reference).  inside: every reference of the extent is one of S's.
 */
struct part {
	uint64_t bytenr;
	uint16_t fs;		/* index in w->fs */
	uint64_t distinct;	/* S's references, told apart */
	uint64_t counted;	/* the extent item's, while it is read */
	int unsure;
	int inside;
};

struct parts {
	struct waste *w;
	struct waste_fs *fs;
	struct part *p;		/* sorted by bytenr */
	size_t n;
	struct part *cur;
	uint64_t cur_gen;
	struct pending_snaps snaps;
	int err;
};

static uint64_t last_snapshot(struct parts *ps, uint64_t root)
{
	return pending_last_snapshot(&ps->snaps, ps->w->search, ps->fs->fd,
				     ps->fs->nodesize, root, &ps->err);
}

/* One back reference of the extent read: keyed, of a root no snapshot
 * was taken of since the extent was written (a snapshot shares the leaf,
 * and no reference says so), or the extent is unsure. */
static void parts_ref(struct parts *ps, uint8_t type, uint64_t root,
		      uint32_t count)
{
	if (type != BTRFS_EXTENT_DATA_REF_KEY ||
	    last_snapshot(ps, root) >= ps->cur_gen)
		ps->cur->unsure = 1;
	else
		ps->cur->counted += count;
}

static void parts_end(struct parts *ps)
{
	struct part *p = ps->cur;

	ps->cur = NULL;
	/* each item of S is one of the extent's references: as many as it
	 * counts, all of them */
	if (p && !p->unsure && p->counted == p->distinct)
		p->inside = 1;
}

static int cmp_part_key(const void *k, const void *e)
{
	uint64_t a = *(const uint64_t *)k, b = ((const struct part *)e)->bytenr;

	return (a > b) - (a < b);
}

static int parts_item(const struct search_item *si, void *arg)
{
	struct parts *ps = arg;
	const uint8_t *d = si->data, *p, *end;
	struct extent_ref r;

	if (si->type == BTRFS_EXTENT_ITEM_KEY ||
	    si->type == BTRFS_METADATA_ITEM_KEY) {
		parts_end(ps);
		if (si->type != BTRFS_EXTENT_ITEM_KEY || si->len < 24)
			return ps->err;
		ps->cur = bsearch(&si->objectid, ps->p, ps->n, sizeof(*ps->p),
				  cmp_part_key);
		if (!ps->cur)
			return ps->err;
		ps->cur_gen = get_le64(d + 8);
		p = d + 24;
		end = d + si->len;
		while (extent_inline_ref(&p, end, &r) > 0)
			if (r.type != EXTENT_OWNER_REF)
				parts_ref(ps, r.type, r.val, r.count);
		if (p < end)
			ps->cur->unsure = 1;	/* malformed */
		return ps->err;
	}
	if (!ps->cur || si->objectid != ps->cur->bytenr)
		return ps->err;
	if (si->type == BTRFS_EXTENT_DATA_REF_KEY && si->len >= 28)
		parts_ref(ps, BTRFS_EXTENT_DATA_REF_KEY, get_le64(d),
			  get_le32(d + 24));
	else if (si->type == BTRFS_SHARED_DATA_REF_KEY)
		ps->cur->unsure = 1;
	return ps->err;
}

/*
 * Which of fs's extents S covers in part have every reference in S, from
 * their extent items (read in runs of PARTS_RUN), so that S's own ranges
 * are their union: the common case, a file overwritten in place.  Only
 * on a filesystem with nothing uncommitted (new references are delayed
 * refs until the commit, not items).  The rest: the backref walk.
 */
static int parts_decide(struct waste *w, struct waste_fs *fs, struct part *p,
			size_t n)
{
	struct parts ps = { .w = w, .fs = fs, .p = p, .n = n };
	struct btrfs_ioctl_fs_info_args fi;
	uint64_t committed = 0;
	size_t i, j;
	int ret = 0;

	memset(&fi, 0, sizeof(fi));
	fi.flags = BTRFS_FS_INFO_FLAG_GENERATION;
	if (fs->fd < 0 || ioctl(fs->fd, BTRFS_IOC_FS_INFO, &fi) ||
	    !(fi.flags & BTRFS_FS_INFO_FLAG_GENERATION) ||
	    pending_committed(w->search, fs->fd, fs->nodesize, &committed) ||
	    committed != fi.generation)
		return 0;
	for (i = 0; i < n && !ret; i = j) {
		struct btrfs_ioctl_search_key key;

		j = i + PARTS_RUN < n ? i + PARTS_RUN : n;
		search_key_range(&key, BTRFS_EXTENT_TREE_OBJECTID, p[i].bytenr,
				 BTRFS_EXTENT_ITEM_KEY, p[j - 1].bytenr,
				 BTRFS_SHARED_DATA_REF_KEY);
		ret = w->items ? search_run(w->items, fs->fd, &key,
					    fs->nodesize, parts_item, &ps)
			       : -ENOMEM;
		parts_end(&ps);
	}
	pending_snaps_free(&ps.snaps);
	return ret ? ret : ps.err;
}

/* The waste of the extent of r[0..n) (S's references, sorted); inside:
 * every reference of it is one of S's. */
static int extent_waste(struct waste *w, const struct wref *r, size_t n,
			int inside, uint64_t *out)
{
	struct found f = { .w = w, .ext = r };
	uint64_t cov = covered(r, n);
	int ret;

	*out = 0;
	if (cov >= r->ram)
		return 0;
	if (inside) {
		*out = (uint64_t)((unsigned __int128)r->disk *
				  (r->ram - cov) / r->ram);
		return 0;
	}
	w->walked++;
	f.ranges = malloc(n * sizeof(*f.ranges));
	if (!f.ranges)
		return -ENOMEM;
	memcpy(f.ranges, r, n * sizeof(*r));
	f.n = f.cap = n;
	ret = w->fs[r->fs].fd >= 0 ? walk_refs(w, &w->fs[r->fs], &f) : 1;
	if (ret >= 0) {
		qsort(f.ranges, f.n, sizeof(*f.ranges), cmp_ref);
		cov = covered(f.ranges, f.n);
		ret = 0;
	}
	free(f.ranges);
	if (!ret && cov < r->ram)
		*out = (uint64_t)((unsigned __int128)r->disk *
				  (r->ram - cov) / r->ram);
	return ret;
}

/* The end of the group of references of one extent starting at i. */
static size_t group_end(const struct waste *w, size_t i)
{
	size_t j;

	for (j = i + 1; j < w->nrefs && w->refs[j].fs == w->refs[i].fs &&
	     w->refs[j].bytenr == w->refs[i].bytenr; j++)
		;
	return j;
}

/* The extents S covers in part, in the order of w->refs (by filesystem,
 * then bytenr), each decided from its extent item where it can be, into
 * *out.  Returns 0 or -errno. */
static int find_parts(struct waste *w, struct part **out, size_t *nout)
{
	struct part *p = NULL, *q;
	size_t cap = 0, n = 0, i, j, k, first;
	int ret = 0;

	for (i = 0; i < w->nrefs; i = j) {
		j = group_end(w, i);
		if (covered(&w->refs[i], j - i) >= w->refs[i].ram)
			continue;
		q = array_grow(p, &cap, n, sizeof(*p));
		if (!q) {
			free(p);
			return -ENOMEM;
		}
		p = q;
		memset(&p[n], 0, sizeof(*p));
		p[n].bytenr = w->refs[i].bytenr;
		p[n].fs = w->refs[i].fs;
		for (k = i; k < j; k++)
			if (k == i || cmp_ref(&w->refs[k], &w->refs[k - 1]))
				p[n].distinct++;
		n++;
	}
	if (!w->walk_only)
		for (i = 0, first = 0; !ret && i <= n; i++) {
			/* a filesystem's run of parts: [first, i) */
			if (i < n && p[i].fs == p[first].fs)
				continue;
			if (i > first)
				ret = parts_decide(w, &w->fs[p[first].fs],
						   &p[first], i - first);
			first = i;
		}
	*out = p;
	*nout = n;
	return ret;
}

int waste_resolve(struct waste *w, int (*tick)(void *), void *arg)
{
	struct part *parts = NULL;
	size_t i, j, k, np = 0, pi = 0;
	uint32_t stamp = 0, row;
	size_t ticks = 0;
	uint64_t x;
	int ret = 0, inside;

	if (w->nomem)
		return -ENOMEM;
	if (!w->search)
		w->search = search_create(WASTE_SEARCH_BUF);
	if (!w->items)
		w->items = search_create(WASTE_SEARCH_BUF);
	if (!w->lbuf) {
		w->lbuf_size = LOGICAL_BUF_MIN;
		w->lbuf = malloc(w->lbuf_size);
	}
	if (!w->search || !w->items || !w->lbuf)
		return -ENOMEM;
	qsort(w->refs, w->nrefs, sizeof(*w->refs), cmp_ref);
	ret = find_parts(w, &parts, &np);
	for (i = 0; i < w->nrefs && !ret; i = j) {
		j = group_end(w, i);
		inside = 0;
		if (pi < np && parts[pi].bytenr == w->refs[i].bytenr &&
		    covered(&w->refs[i], j - i) < w->refs[i].ram)
			inside = parts[pi++].inside;
		ret = extent_waste(w, &w->refs[i], j - i, inside, &x);
		if (ret || !x)
			goto next;
		w->total += x;
		w->type[w->refs[i].type] += x;
		w->wasting++;
		/* each row holding a reference, and the rows around it,
		 * once */
		stamp++;
		for (k = i; k < j; k++)
			for (row = w->refs[k].row; row && w->stamp[row] != stamp;
			     row = w->parent[row]) {
				w->stamp[row] = stamp;
				w->row_waste[row] += x;
			}
next:
		if (!ret && tick && !(++ticks % WASTE_TICK))
			ret = tick(arg);
	}
	free(parts);
	w->row_waste[0] = w->total;
	return ret;
}

void waste_walk_only(struct waste *w)
{
	w->walk_only = 1;
}

uint64_t waste_total(const struct waste *w)
{
	return w->total;
}

uint64_t waste_type(const struct waste *w, unsigned type)
{
	return type < CS_NTYPES ? w->type[type] : 0;
}

uint64_t waste_row(const struct waste *w, uint32_t id)
{
	return id < w->nrows ? w->row_waste[id] : 0;
}

void waste_counts(const struct waste *w, uint64_t *walked,
		  uint64_t *wasting)
{
	*walked = w->walked;
	*wasting = w->wasting;
}
