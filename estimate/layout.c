// SPDX-License-Identifier: GPL-2.0
/* Fresh-copy and same-layout shares of each file's estimate (layout.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "estimate/layout.h"
#include "ioctl.h"
#include "lib/radix.h"
#include "sample/sample.h"

/*
 * A file whose extents were written by more transactions than this is
 * not split into writes (its prediction is then its data written in one
 * go, scaled as for any file that shares part of its extents).
 */
#define LAYOUT_MAX_GROUPS 256

/* Sets of one kind of key, one per space (a device for inodes, a
 * filesystem for extent addresses: both are only unique within it). */
struct layout_sets {
	struct seen_set **set;
	size_t n;
};

struct layout_level {
	struct layout_sets inodes;	/* by index in layout.devs */
	struct layout_sets extents;	/* by fs_idx */
	struct layout_sets inl;		/* inline data by content, by fs_idx */
	/* Extents first met through a file whose write history hides part
	 * of them (a tentative group, layout_writes()), by fs_idx, not in
	 * extents: the first file met that holds one as written claims it
	 * (claimed); those left go to the first tentative file when the
	 * level closes.  tent: the tickets with such extents here. */
	struct layout_sets pending, claimed;
	size_t *tent;
	size_t ntent, cap_tent;
};

/* A 512 KiB cell of a group's grid (the kernel's async chunks) where
 * its write's data is partly gone: [start, end) is the cell's part of the
 * write's span (plan_bounds()). */
struct layout_cell {
	uint64_t base;		/* the chunk's start on the grid */
	uint64_t start, end;
	uint32_t group;
	uint8_t vis;		/* some of it is still referenced */
};

/* A group's write as far as its extents tell (plan_bounds()). */
struct layout_gspan {
	uint64_t s0, e0;	/* its first span */
	uint64_t span_raw;	/* its spans, raw, as big as range extents go */
	uint64_t vis_raw;	/* its parts referenced now, raw */
	uint8_t loose;		/* its start may be gone: grid unknown */
};

/* An extent a ticket met first among tentative files. */
struct layout_tx {
	uint64_t bytenr, disk;
	size_t fs_idx;
	uint32_t group, level;
};

/* A file's share at one level. */
struct layout_share {
	uint8_t fresh;		/* its inode is new here */
	uint64_t num, den;	/* same layout: scale the estimate by num/den */
	uint64_t prealloc_disk, prealloc_uncomp;	/* stays as it is */
	/* A file of one sector or less in one extent: whether it is stored
	 * inline (counted with every file) or in an extent (shared) depends
	 * on the setting, so its share is decided per setting when its
	 * estimate is back: small_new says whether its data (the extent,
	 * or for inline data its content) is new at this level. */
	uint8_t small, small_new;
	/* ... and it may be stored inline: it is now, or the file is at
	 * most a sector (a reflinked sector of text, a reflink truncated),
	 * which a compressing setting may store inline, each file its own
	 * copy (can_cow_file_range_inline(): size <= sectorsize) */
	uint8_t small_inline;
};

struct layout_ticket {
	size_t user;
	size_t nlev;		/* levels open at layout_plan() */
	uint32_t rewrite;	/* layout_file.rewrite */
	struct layout_share *sh;
	size_t cap_sh;
	/* A file written in steps (layout_writes()): its writes, ng groups
	 * (one per generation, oldest first), each group's data as it is on
	 * disk now (gvis) and, per level, its extents new at that level
	 * (gnum[k * ng + g], whole) */
	struct est_write *wr;
	size_t nw, cap_wr;
	size_t ng;
	uint64_t *gvis, *gnum;
	size_t cap_gvis, cap_gnum;
	uint32_t *grp;		/* per extent: its group, or UINT32_MAX */
	size_t cap_grp;
	/* groups whose extents the file holds only in part (bookends): its
	 * extents' data was partly overwritten, so a file that holds them
	 * as written is preferred to estimate them */
	uint8_t *gtent;
	size_t cap_gtent;
	/* per group: its extents were left to it when the grand total
	 * closed (layout_total.extrap_disk) */
	uint8_t *gself;
	size_t cap_gself;
	int tentative;		/* some group is: resolved by layout_settle() */
	uint32_t inl;		/* layout_inline() */
	/* bounds of the extrapolated groups (plan_bounds()): nb buckets
	 * given to writes(): ng groups' clean parts, ncell dirty cells,
	 * then the same again as lower bounds (EST_WRITE_INDEP) */
	size_t nb, ncell;
	struct layout_cell *cell;
	size_t cap_cell;
	struct layout_gspan *gs;	/* per group */
	size_t cap_gs;
	uint64_t *gfull;	/* per group: its extents met first, whole */
	size_t cap_gfull;
	struct layout_tx *tx;
	size_t ntx, cap_tx;
	uint64_t *stash;	/* tentative: its estimate, until settled */
	size_t cap_stash;
	int stashed, dropped;
	/* sampled (layout_factors()): what its units predict, not over
	 * their probability, for each setting's disk: the inline rule's */
	uint64_t *rawd;
	size_t cap_rawd;
	int has_raw;
	size_t next_free;	/* free list link, index + 1 */
};

struct layout {
	size_t nest;
	uint32_t sectorsize;	/* of the last small file planned */
	struct layout_level *lev;
	size_t nlev, cap_lev;
	dev_t *devs;
	size_t ndevs, cap_devs;
	struct layout_ticket *t;
	size_t nt, cap_t;
	size_t free_head;	/* index + 1 of a free ticket, 0: none */
	struct layout_total *tot;	/* nest */
	uint8_t *force;		/* nest: layout_set_force() */
	long anchor;		/* layout_set_anchor(), -1: none */
	int follow;		/* layout_create()'s follow_writes */
};

static void sets_free(struct layout_sets *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		seen_free(s->set[i]);
	free(s->set);
	memset(s, 0, sizeof(*s));
}

/* The set of space k, made on first use; NULL when out of memory. */
static struct seen_set *sets_get(struct layout_sets *s, size_t k)
{
	if (k >= s->n) {
		struct seen_set **p = realloc(s->set, (k + 1) * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + s->n, 0, (k + 1 - s->n) * sizeof(*p));
		s->set = p;
		s->n = k + 1;
	}
	if (!s->set[k])
		s->set[k] = seen_create();
	return s->set[k];
}

struct layout *layout_create(size_t nest, int follow_writes)
{
	struct layout *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->nest = nest;
	l->follow = follow_writes;
	l->anchor = -1;
	l->tot = calloc(nest ? nest : 1, sizeof(*l->tot));
	l->force = calloc(nest ? nest : 1, sizeof(*l->force));
	if (!l->tot || !l->force || layout_push(l)) {
		layout_free(l);
		return NULL;
	}
	return l;
}

void layout_free(struct layout *l)
{
	size_t i;

	if (!l)
		return;
	while (l->nlev)
		layout_pop(l);
	for (i = 0; i < l->nt; i++) {
		free(l->t[i].sh);
		free(l->t[i].wr);
		free(l->t[i].gvis);
		free(l->t[i].gnum);
		free(l->t[i].grp);
		free(l->t[i].gtent);
		free(l->t[i].gself);
		free(l->t[i].tx);
		free(l->t[i].stash);
		free(l->t[i].rawd);
		free(l->t[i].cell);
		free(l->t[i].gs);
		free(l->t[i].gfull);
	}
	free(l->t);
	free(l->lev);
	free(l->devs);
	free(l->tot);
	free(l->force);
	free(l);
}

void layout_set_force(struct layout *l, size_t i, int force)
{
	if (i < l->nest)
		l->force[i] = !!force;
}

void layout_set_anchor(struct layout *l, long i)
{
	l->anchor = i >= 0 && (size_t)i < l->nest ? i : -1;
}

int layout_push(struct layout *l)
{
	struct layout_level *lev = array_grow(l->lev, &l->cap_lev, l->nlev,
					      sizeof(*lev));

	if (!lev)
		return -ENOMEM;
	l->lev = lev;
	memset(&l->lev[l->nlev++], 0, sizeof(*lev));
	return 0;
}

/* Level k closes: the extents its tentative files met first and no file
 * claimed since are theirs (layout_level). */
static void settle_level(struct layout *l, size_t k)
{
	struct layout_level *lev = &l->lev[k];
	size_t j, x;

	for (j = 0; j < lev->ntent; j++) {
		struct layout_ticket *t = &l->t[lev->tent[j]];

		for (x = 0; x < t->ntx; x++) {
			const struct layout_tx *tx = &t->tx[x];
			const struct seen_set *c = tx->fs_idx < lev->claimed.n ?
				lev->claimed.set[tx->fs_idx] : NULL;

			if (tx->level != k)
				continue;
			if (!k)
				t->gfull[tx->group] += tx->disk;
			if (c && seen_contains(c, tx->bytenr))
				continue;
			t->gnum[k * t->ng + tx->group] += tx->disk;
			if (!k)
				t->gself[tx->group] = 1;
		}
	}
	lev->ntent = 0;
}

void layout_pop(struct layout *l)
{
	struct layout_level *lev;

	settle_level(l, l->nlev - 1);
	lev = &l->lev[--l->nlev];

	sets_free(&lev->inodes);
	sets_free(&lev->extents);
	sets_free(&lev->inl);
	sets_free(&lev->pending);
	sets_free(&lev->claimed);
	free(lev->tent);
}

size_t layout_rows(const struct layout *l)
{
	return l->nlev - 1;
}

/* The index of dev among the devices met, added on first use; -1 when
 * out of memory. */
static long dev_index(struct layout *l, dev_t dev)
{
	dev_t *d;
	size_t i;

	for (i = l->ndevs; i-- > 0;)
		if (l->devs[i] == dev)
			return (long)i;
	d = array_grow(l->devs, &l->cap_devs, l->ndevs, sizeof(*d));
	if (!d)
		return -1;
	l->devs = d;
	l->devs[l->ndevs] = dev;
	return (long)l->ndevs++;
}

/* Eight bytes at a time: every small file's inline item is hashed by the
 * pre-pass of --sample (sampleplan_ref()). */
/* One extent at 0 holding the whole file, of a sector or less. */
static int small_file(const struct layout_file *f)
{
	const struct extent_info *ei;

	if (!f->have_extents || f->next != 1 || !f->sectorsize)
		return 0;
	ei = &f->ext[0];
	if (ei->type == BTRFS_FILE_EXTENT_INLINE)
		return 1;
	return ei->type == BTRFS_FILE_EXTENT_REG && ei->disk_bytenr &&
	       !ei->offset && ei->num_bytes <= f->sectorsize;
}

/* The file's share at level lev. */
/*
 * Extent e of a tentative group at level k: met first here among the
 * tentative files, it is theirs unless a file holding it as written
 * claims it before the level closes.  Returns 0 or -ENOMEM.
 */
static int plan_tentative(struct layout_level *lev, size_t k,
			  const struct layout_file *f, size_t e,
			  struct layout_ticket *t, struct seen_set *extents)
{
	const struct extent_info *ei = &f->ext[e];
	struct seen_set *pend;
	struct layout_tx *tx;
	int ret;

	if (seen_contains(extents, ei->disk_bytenr))
		return 0;	/* claimed already */
	pend = sets_get(&lev->pending, f->fs_idx);
	if (!pend)
		return -ENOMEM;
	ret = seen_insert(pend, ei->disk_bytenr);
	if (ret <= 0)
		return ret;	/* another tentative file's, or no memory */
	tx = array_grow(t->tx, &t->cap_tx, t->ntx, sizeof(*tx));
	if (!tx)
		return -ENOMEM;
	t->tx = tx;
	tx[t->ntx++] = (struct layout_tx){
		.bytenr = ei->disk_bytenr,
		.disk = ei->disk_num_bytes,
		.fs_idx = f->fs_idx,
		.group = t->grp[e],
		.level = (uint32_t)k,
	};
	return 0;
}

/* A file that holds extent bytenr met it first here: if a tentative file
 * met it before, this one claims it.  Returns 0 or -ENOMEM. */
static int claim(struct layout_level *lev, size_t fs_idx, uint64_t bytenr)
{
	struct seen_set *c;

	if (fs_idx >= lev->pending.n || !lev->pending.set[fs_idx] ||
	    !seen_contains(lev->pending.set[fs_idx], bytenr))
		return 0;
	c = sets_get(&lev->claimed, fs_idx);
	if (!c)
		return -ENOMEM;
	return seen_insert(c, bytenr) < 0 ? -ENOMEM : 0;
}

static int plan_level(struct layout_level *lev, size_t k, long dev,
		      const struct layout_file *f, struct layout_share *sh,
		      struct layout_ticket *t)
{
	const uint32_t *grp = t->ng ? t->grp : NULL;
	uint64_t *gnum = t->ng ? &t->gnum[k * t->ng] : NULL;
	struct seen_set *inodes = f->once ? NULL :
				  sets_get(&lev->inodes, (size_t)dev);
	struct seen_set *extents = NULL;
	size_t e;
	int ret;

	memset(sh, 0, sizeof(*sh));
	if (!f->once) {
		if (!inodes)
			return -ENOMEM;
		ret = seen_insert(inodes, (uint64_t)f->ino);
		if (ret <= 0)
			return ret;	/* a hard link met before: nothing */
	}
	sh->fresh = 1;
	if (f->have_extents && f->next) {
		extents = sets_get(&lev->extents, f->fs_idx);
		if (!extents)
			return -ENOMEM;
	}
	if (small_file(f)) {
		const struct extent_info *ei = &f->ext[0];
		struct seen_set *inl = extents;

		if (ei->type == BTRFS_FILE_EXTENT_INLINE)
			inl = sets_get(&lev->inl, f->fs_idx);
		if (!inl)
			return -ENOMEM;
		ret = seen_insert(inl, ei->type == BTRFS_FILE_EXTENT_INLINE ?
				       f->inline_key : ei->disk_bytenr);
		if (ret < 0)
			return ret;
		sh->small = 1;
		sh->small_new = ret;
		sh->small_inline = ei->type == BTRFS_FILE_EXTENT_INLINE ||
				   f->size <= f->sectorsize;
		sh->num = sh->den = 1;
		return 0;
	}
	for (e = 0; f->have_extents && e < f->next; e++) {
		const struct extent_info *ei = &f->ext[e];

		if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
			/* in the file's own leaf: counted with every file,
			 * as the usage report does; weighted, as the rest,
			 * by what it takes now (a snapshot of a file that
			 * outgrew its inline extent holds that extent and
			 * shares the rest) */
			uint64_t now = ei->inline_len ? ei->inline_len :
						       ei->ram_bytes;

			sh->num += now;
			sh->den += now;
			continue;
		}
		if (!ei->disk_bytenr)
			continue;	/* a hole */
		if (t->tentative && grp[e] != UINT32_MAX && t->gtent[grp[e]]) {
			ret = plan_tentative(lev, k, f, e, t, extents);
			if (ret)
				return ret;
			sh->den += ei->ram_bytes ? (uint64_t)((unsigned __int128)
				ei->disk_num_bytes * ei->num_bytes /
				ei->ram_bytes) : ei->num_bytes;
			continue;
		}
		ret = seen_insert(extents, ei->disk_bytenr);
		if (ret < 0)
			return ret;
		if (ret && claim(lev, f->fs_idx, ei->disk_bytenr))
			return -ENOMEM;
		if (ei->type == BTRFS_FILE_EXTENT_PREALLOC) {
			/* never read (SEEK_DATA skips it), never compressed:
			 * it stays as it is under any setting */
			if (ret) {
				sh->prealloc_disk += ei->disk_num_bytes;
				sh->prealloc_uncomp += ei->ram_bytes;
			}
			continue;
		}
		/* Weighted by what the data takes on disk now: a bookend is
		 * on disk whole, a reference holds its share of the
		 * extent's stored bytes.  So an incompressible extent and a
		 * compressible one referenced by the same file each carry
		 * the weight they have now. */
		if (ret)
			sh->num += ei->disk_num_bytes;
		if (ret && gnum && grp[e] != UINT32_MAX)
			gnum[grp[e]] += ei->disk_num_bytes;
		sh->den += ei->ram_bytes ? (uint64_t)((unsigned __int128)
			ei->disk_num_bytes * ei->num_bytes / ei->ram_bytes) :
			ei->num_bytes;
	}
	if (!sh->den) {
		/* no data known (not written back yet, or not btrfs): as
		 * written afresh */
		sh->num = sh->den = 1;
	}
	return 0;
}

/* The length of an inline extent at offset 0 that the file outgrew, or
 * 0 (layout_inline()). */
static uint32_t grown_inline(const struct layout_file *f)
{
	size_t e;

	for (e = 0; f->have_extents && e < f->next; e++) {
		const struct extent_info *ei = &f->ext[e];

		if (ei->type != BTRFS_FILE_EXTENT_INLINE || ei->file_pos)
			continue;
		return ei->ram_bytes < f->size &&
		       ei->ram_bytes <= f->sectorsize ?
		       (uint32_t)ei->ram_bytes : 0;
	}
	return 0;
}

/* Room for n elements of *arr; 0 or -ENOMEM. */
static int grow_to(void **arr, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (!n)
		return 0;
	p = array_grow(*arr, cap, n - 1, size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}
#define GROW_TO(arr, cap, n) grow_to((void **)&(arr), &(cap), (n), \
				     sizeof(*(arr)))

static int cmp_write(const void *a, const void *b)
{
	const struct est_write *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* A regular extent with data (neither a hole nor prealloc). */
static int data_extent(const struct extent_info *ei)
{
	return ei->type == BTRFS_FILE_EXTENT_REG && ei->disk_bytenr;
}

/* Whether each write (sorted by group) starts at or after the end of
 * every earlier one: nothing was written over. */
static int in_sequence(const struct est_write *w, size_t nw)
{
	uint64_t end = 0;
	size_t e;

	for (e = 0; e < nw; e++) {
		if (e && w[e].group != w[e - 1].group && w[e].start < end)
			return 0;
		if (w[e].end > end)
			end = w[e].end;
	}
	return 1;
}

/* Cells of a group's grid: async chunks and dirty ranges. */
#define LAYOUT_CELL (512ull << 10)
#define LAYOUT_PIECE (128ull << 10)
#define LAYOUT_RANGE (128ull << 20)
/* More dirty cells than this in a file: bounds from the spans alone. */
#define LAYOUT_MAX_CELLS 1024

static uint64_t ceil_to(uint64_t x, uint64_t grid, uint64_t step)
{
	return x + (step - (x - grid) % step) % step;
}

/* Whether extent e is data written after group g's (a later group). */
static int newer(const struct layout_ticket *t, const struct layout_file *f,
		 size_t e, size_t g)
{
	return data_extent(&f->ext[e]) && t->grp[e] != UINT32_MAX &&
	       t->grp[e] > g;
}

/* Whether extent e starts where extent e - 1 ends. */
static int touches(const struct layout_file *f, size_t e)
{
	return e && f->ext[e - 1].file_pos + f->ext[e - 1].num_bytes ==
		    f->ext[e].file_pos;
}

/* Mark the cells of [a, b) (gone data of group g, on grid) dirty, each
 * clipped to the span [s, e) it is part of. */
static int dirty_cells(struct layout_ticket *t, uint32_t g, uint64_t grid,
		       uint64_t a, uint64_t b, uint64_t s, uint64_t e)
{
	uint64_t c;

	for (c = a - (a - grid) % LAYOUT_CELL; c < b; c += LAYOUT_CELL) {
		uint64_t cs = c > s ? c : s;
		uint64_t ce = c + LAYOUT_CELL < e ? c + LAYOUT_CELL : e;
		struct layout_cell *x;

		if (t->ncell && t->cell[t->ncell - 1].group == g &&
		    t->cell[t->ncell - 1].end > c) {
			x = &t->cell[t->ncell - 1];
			x->start = x->start < cs ? x->start : cs;
			x->end = x->end > ce ? x->end : ce;
			continue;
		}
		if (t->ncell >= LAYOUT_MAX_CELLS)
			return -E2BIG;
		x = array_grow(t->cell, &t->cap_cell, t->ncell, sizeof(*x));
		if (!x)
			return -ENOMEM;
		t->cell = x;
		x[t->ncell++] = (struct layout_cell){
			.base = c, .start = cs, .end = ce, .group = g,
		};
	}
	return 0;
}

/* Bytes of [a, b) in [c, d). */
static uint64_t overlap(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t s = a > c ? a : c, e = b < d ? b : d;

	return e > s ? e - s : 0;
}

/*
 * One span of group g: [s, e) is what its extents from e0 to e1 held when
 * written (each extent's whole range), head and tail the neighbouring
 * runs of later data that may hide more of the write.  Adds its raw size
 * (as far as a dirty range reaches, for compress=) to the group and marks
 * the cells where its data is partly gone (as far as an async chunk
 * reaches, for compress-force=).
 */
static int one_span(struct layout_ticket *t, uint32_t g, uint64_t s, uint64_t e, uint64_t head,
		    uint64_t tail)
{
	struct layout_gspan *gs = &t->gs[g];
	uint64_t grid = 0, ef = e, ec = e, sc = s, pos;
	size_t k;
	int ret;

	for (k = 0; k < t->nw; k++)
		if (t->wr[k].group == g) {
			grid = t->wr[k].grid;
			break;
		}
	if (head < s) {
		/* the write may have begun under later data: its start,
		 * so its grid, is not known */
		gs->loose = 1;
		sc = s - head < LAYOUT_RANGE ? head : s - LAYOUT_RANGE;
	}
	if (tail > e && (e - grid) % LAYOUT_PIECE == 0) {
		/* the write may have gone on under later data */
		ef = ceil_to(e, grid, LAYOUT_CELL);
		ef = ef < tail ? ef : tail;
		ec = ceil_to(e, grid, LAYOUT_RANGE);
		ec = ec < tail ? ec : tail;
	}
	if (!gs->e0) {
		gs->s0 = s;
		gs->e0 = e;
	}
	gs->span_raw += ec - sc;
	/* the gaps of [s, ef): no data of the group referenced there */
	pos = s;
	for (k = 0; k < t->nw; k++) {
		const struct est_write *w = &t->wr[k];

		if (w->group != g || w->end <= pos || w->start >= ef)
			continue;
		if (w->start > pos) {
			ret = dirty_cells(t, g, grid, pos, w->start, s,
					  ef);
			if (ret)
				return ret;
		}
		pos = w->end;
	}
	return pos < ef ? dirty_cells(t, g, grid, pos, ef, s, ef) : 0;
}

/*
 * The bounds of a file with tentative groups (layout.h, layout_total):
 * each group's spans (what its extents say was written), the cells of
 * its grid where part of its data is gone, and the writes split at
 * those cells, then each again as a lower bound (EST_WRITE_INDEP).
 * Returns 0 or -ENOMEM; too many cells: bounds from the spans alone.
 */
static int plan_bounds(struct layout_ticket *t, const struct layout_file *f)
{
	size_t g, e, k, c, n, nw, lb;
	int ret;

	if (GROW_TO(t->gs, t->cap_gs, t->ng))
		return -ENOMEM;
	memset(t->gs, 0, t->ng * sizeof(*t->gs));
	t->ncell = 0;
	for (k = 0; k < t->nw; k++)
		t->gs[t->wr[k].group].vis_raw += t->wr[k].end - t->wr[k].start;
	for (g = 0; g < t->ng; g++) {
		/* spans: extents of g in file order, joined across later
		 * data that touches them (overwrites of the write) */
		uint64_t s = 0, end = 0, head = 0, tail = 0, run = 0;
		int open = 0, bridge = 0, inrun = 0;

		for (e = 0; e < f->next; e++) {
			const struct extent_info *ei = &f->ext[e];
			int tch = touches(f, e);

			if (t->grp[e] == g) {
				uint64_t os = ei->file_pos - ei->offset,
					 oe = os + ei->ram_bytes;

				if (open && bridge) {
					if (oe > end)
						end = oe;
				} else {
					if (open) {
						ret = one_span(t, (uint32_t)g,
							       s, end, head,
							       tail);
						if (ret)
							goto fail;
					}
					open = 1;
					s = os;
					end = oe;
					head = inrun && tch ? run : os;
				}
				tail = end;
				bridge = 1;
				inrun = 0;
				continue;
			}
			if (newer(t, f, e, g)) {
				if (!(inrun && tch))
					run = ei->file_pos;
				inrun = 1;
				if (open && bridge && tch)
					tail = ei->file_pos + ei->num_bytes;
				else
					bridge = 0;
				continue;
			}
			inrun = 0;
			bridge = 0;
		}
		if (open) {
			ret = one_span(t, (uint32_t)g, s, end, head,
				       tail);
			if (ret)
				goto fail;
		}
	}
	/* writes split at the dirty cells, then their lower bounds */
	nw = t->nw;
	n = 0;
	for (k = 0; k < nw; k++)
		for (c = 0; c < t->ncell; c++)
			n += t->cell[c].group == t->wr[k].group &&
			     overlap(t->wr[k].start, t->wr[k].end,
				     t->cell[c].start, t->cell[c].end);
	if (GROW_TO(t->wr, t->cap_wr, 2 * (nw + 2 * n)))
		return -ENOMEM;
	/* split in place from the back: part k's pieces land at or after k */
	memmove(t->wr + 2 * n, t->wr, nw * sizeof(*t->wr));
	for (k = 0, e = 0; k < nw; k++) {
		struct est_write w = t->wr[2 * n + k];
		uint32_t cutend = w.flags & EST_WRITE_CUT_END;

		w.flags &= ~EST_WRITE_CUT_END;
		for (c = 0; c < t->ncell && w.start < w.end; c++) {
			const struct layout_cell *x = &t->cell[c];
			struct est_write part = w;

			if (x->group != w.group ||
			    !overlap(w.start, w.end, x->start, x->end))
				continue;
			t->cell[c].vis = 1;
			if (x->start > w.start) {
				part.end = x->start;
				t->wr[e++] = part;
				part.start = x->start;
				part.flags &= ~EST_WRITE_BEGIN;
			}
			part.end = w.end < x->end ? w.end : x->end;
			part.group = (uint32_t)(t->ng + c);
			t->wr[e++] = part;
			w.start = part.end;
			w.flags &= ~EST_WRITE_BEGIN;
		}
		if (w.start < w.end)
			t->wr[e++] = w;
		t->wr[e - 1].flags |= cutend;
	}
	nw = e;
	/* a clean part after a dirty cell of its group: its own bucket */
	for (k = 0; k < nw; k++)
		for (c = 0; t->wr[k].group < t->ng && c < t->ncell; c++)
			if (t->cell[c].group == t->wr[k].group &&
			    t->cell[c].start < t->wr[k].start) {
				t->wr[k].group += (uint32_t)(t->ng + t->ncell);
				break;
			}
	/* the lower bounds: a dirty cell's piece by piece */
	if (GROW_TO(t->wr, t->cap_wr, 2 * nw + 4 * t->ncell))
		return -ENOMEM;
	lb = 2 * t->ng + t->ncell;
	for (k = 0, e = nw; k < nw; k++) {
		struct est_write w = t->wr[k];
		uint32_t b = w.group;

		w.flags = EST_WRITE_INDEP;
		if (b < t->ng || b >= t->ng + t->ncell) {
			w.group = (uint32_t)(lb + (b < t->ng ? b :
				   b - t->ng - t->ncell + t->ng + 4 * t->ncell));
			t->wr[e++] = w;
			continue;
		}
		c = b - t->ng;
		while (w.start < w.end) {
			uint64_t pe = t->cell[c].base + LAYOUT_PIECE *
				      ((w.start - t->cell[c].base) /
				       LAYOUT_PIECE + 1);
			struct est_write part = w;

			part.end = pe < w.end ? pe : w.end;
			part.group = (uint32_t)(lb + t->ng + 4 * c +
				(w.start - t->cell[c].base) / LAYOUT_PIECE);
			t->wr[e++] = part;
			w.start = part.end;
		}
	}
	t->nw = e;
	t->nb = lb + 2 * t->ng + 4 * t->ncell;
	return 0;
fail:
	if (ret != -E2BIG)
		return ret;
	/* too many cells: the spans alone bound the groups */
	t->ncell = 0;
	t->nb = t->ng;
	return 0;
}

LOWER_BOUND_DEFINE(ext_find, struct extent_info, file_pos)

/*
 * Whether the file's data in [a, b) is all in extents of groups newer
 * than g (f->ext in file order): a gap between two parts of group g that
 * a later write took (they may have been one range), not data written
 * before them or never (two ranges of their own).
 */
static int newer_covers(const struct layout_file *f,
			const struct layout_ticket *t, uint64_t a, uint64_t b,
			uint32_t g)
{
	uint64_t got = 0;
	size_t lo = ext_find(f->ext, f->next, a);

	/* the extent before the first at a or after may reach past a */
	for (lo = lo ? lo - 1 : 0; lo < f->next && f->ext[lo].file_pos < b;
	     lo++)
		if (data_extent(&f->ext[lo]) && t->grp[lo] != UINT32_MAX &&
		    t->grp[lo] > g)
			got += overlap(f->ext[lo].file_pos,
				       f->ext[lo].file_pos +
					       f->ext[lo].num_bytes,
				       a, b);
	return got >= b - a;
}

/*
 * A file whose extents were written in more than one transaction (a file
 * partly overwritten after a snapshot or a reflink keeps the bookends of
 * its first write, with their generation): its writes, one group per
 * generation, oldest first, each the parts of the file its extents of
 * that generation hold now (layout.h).  t->ng is 0 for a file written in
 * one go, or one whose history is not followed (inline data, too many
 * generations).  Returns 0 or -ENOMEM.
 */
static int plan_groups(struct layout_ticket *t, const struct layout_file *f,
		       int follow)
{
	uint64_t *gen = NULL;
	size_t e, ng = 0, nw = 0, g;
	int ret = -ENOMEM;

	t->ng = t->nw = t->nb = t->ncell = 0;
	t->tentative = 0;
	if (!f->have_extents || f->next < 2 || small_file(f))
		return 0;
	for (e = 0; e < f->next; e++)
		if (f->ext[e].type == BTRFS_FILE_EXTENT_INLINE)
			return 0;
	gen = malloc(f->next * sizeof(*gen));
	if (!gen)
		return -ENOMEM;
	for (e = 0; e < f->next; e++)
		if (data_extent(&f->ext[e]))
			gen[ng++] = f->ext[e].generation;
	qsort(gen, ng, sizeof(*gen), array_cmp_u64);
	for (e = g = 0; e < ng; e++)
		if (!g || gen[g - 1] != gen[e])
			gen[g++] = gen[e];
	ng = g;
	if (ng < 2 || ng > LAYOUT_MAX_GROUPS) {
		ret = 0;
		goto out;
	}
	if (GROW_TO(t->grp, t->cap_grp, f->next) ||
	    GROW_TO(t->wr, t->cap_wr, f->next) ||
	    GROW_TO(t->gvis, t->cap_gvis, ng) ||
	    GROW_TO(t->gtent, t->cap_gtent, ng) ||
	    GROW_TO(t->gself, t->cap_gself, ng) ||
	    GROW_TO(t->gfull, t->cap_gfull, ng))
		goto out;
	memset(t->gself, 0, ng * sizeof(*t->gself));
	memset(t->gfull, 0, ng * sizeof(*t->gfull));
	memset(t->gvis, 0, ng * sizeof(*t->gvis));
	memset(t->gtent, 0, ng * sizeof(*t->gtent));
	for (e = 0; e < f->next; e++) {
		const struct extent_info *ei = &f->ext[e];
		uint64_t *p;

		t->grp[e] = UINT32_MAX;
		if (!data_extent(ei))
			continue;
		p = bsearch(&ei->generation, gen, ng, sizeof(*gen),
			    array_cmp_u64);
		g = (size_t)(p - gen);
		t->grp[e] = (uint32_t)g;
		/* a bookend: part of the data it was written with is gone
		 * from this file */
		if (extent_partial(ei)) {
			t->gtent[g] = 1;
			t->tentative = follow;
		}
		/* what its part of the extent takes on disk now */
		t->gvis[g] += ei->ram_bytes ? (uint64_t)((unsigned __int128)
			ei->disk_num_bytes * ei->num_bytes / ei->ram_bytes) :
			ei->num_bytes;
		t->wr[nw].start = ei->file_pos;
		t->wr[nw].grid = ei->file_pos - ei->offset;
		t->wr[nw].end = ei->file_pos + ei->num_bytes;
		t->wr[nw].group = (uint32_t)g;
		/* a later write took the rest of its extent */
		t->wr[nw].flags = ei->offset + ei->num_bytes < ei->ram_bytes ?
				  EST_WRITE_CUT_END : 0;
		nw++;
	}
	/* a tentative group's raw extents: the kernel gave up on that data
	 * in a context (the data before it in its chunk) that may be gone */
	for (e = 0, g = 0; e < f->next; e++)
		if (data_extent(&f->ext[e])) {
			if (t->gtent[t->grp[e]] && !f->ext[e].compression)
				t->wr[g].flags |= EST_WRITE_RAW_UNFORCED;
			g++;
		}
	/* oldest first; within a write, in file order, parts that touch
	 * merged (they were one range when written) */
	qsort(t->wr, nw, sizeof(*t->wr), cmp_write);
	for (e = g = 0; e < nw; e++) {
		if (g && t->wr[g - 1].group == t->wr[e].group &&
		    !((t->wr[g - 1].flags ^ t->wr[e].flags) &
		      EST_WRITE_RAW_UNFORCED) &&
		    t->wr[g - 1].end == t->wr[e].start) {
			t->wr[g - 1].end = t->wr[e].end;
			t->wr[g - 1].flags = t->wr[e].flags;
			continue;
		}
		t->wr[g++] = t->wr[e];
	}
	t->nw = g;
	t->ng = ng;
	if (!t->tentative && in_sequence(t->wr, t->nw)) {
		/* written front to back in several transactions (a large
		 * copy that writeback took in turns, appends at a sector
		 * boundary): as in one go, without reading it twice */
		t->ng = t->nw = 0;
		ret = 0;
		goto out;
	}
	/* each group's parts on the grid of its first extent's start,
	 * but a part after a gap that later writes did not take whole was
	 * a dirty range of its own, on its own grid, with its own
	 * compress= decision (blocks rewritten here and there in one
	 * transaction: a random block first no longer makes the text
	 * blocks after it raw) */
	for (e = 0; e < t->nw; e++)
		t->wr[e].grid = e && t->wr[e - 1].group == t->wr[e].group &&
				newer_covers(f, t, t->wr[e - 1].end,
					     t->wr[e].start, t->wr[e].group) ?
				t->wr[e - 1].grid : t->wr[e].grid;
	/* a write whose start is gone decides on what is left of it */
	for (e = 0; e < t->nw; e++)
		if ((!e || t->wr[e - 1].group != t->wr[e].group ||
		     t->wr[e - 1].grid != t->wr[e].grid) &&
		    t->wr[e].start != t->wr[e].grid)
			t->wr[e].flags |= EST_WRITE_BEGIN;
	t->nb = ng;
	ret = t->tentative ? plan_bounds(t, f) : 0;
out:
	free(gen);
	return ret;
}

int layout_plan(struct layout *l, const struct layout_file *f, size_t user,
		size_t *ticket, int *skip)
{
	struct layout_ticket *t;
	struct layout_share *sh;
	long dev = dev_index(l, f->dev);
	size_t k, idx;
	int ret, any = 0;

	if (dev < 0)
		return -ENOMEM;
	if (f->sectorsize)
		l->sectorsize = f->sectorsize;
	if (l->free_head) {
		idx = l->free_head - 1;
		l->free_head = l->t[idx].next_free;
	} else {
		t = array_grow(l->t, &l->cap_t, l->nt, sizeof(*t));
		if (!t)
			return -ENOMEM;
		l->t = t;
		idx = l->nt++;
		memset(&l->t[idx], 0, sizeof(*t));
	}
	t = &l->t[idx];
	t->next_free = 0;
	t->user = user;
	t->nlev = 0;
	t->rewrite = f->rewrite;
	sh = array_grow(t->sh, &t->cap_sh, l->nlev - 1, sizeof(*sh));
	if (!sh) {
		ret = -ENOMEM;
		goto fail;
	}
	t->sh = sh;
	t->ntx = 0;
	t->stashed = t->dropped = 0;
	t->has_raw = 0;
	ret = plan_groups(t, f, l->follow);
	if (ret)
		goto fail;
	t->inl = grown_inline(f);
	if (t->ng) {
		ret = GROW_TO(t->gnum, t->cap_gnum, l->nlev * t->ng);
		if (ret)
			goto fail;
		memset(t->gnum, 0, l->nlev * t->ng * sizeof(*t->gnum));
	}
	for (k = 0; k < l->nlev; k++) {
		ret = plan_level(&l->lev[k], k, dev, f, &t->sh[k], t);
		if (ret)
			goto fail;
		if (t->tentative) {
			struct layout_level *lev = &l->lev[k];
			size_t *p = array_grow(lev->tent, &lev->cap_tent,
					       lev->ntent, sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				goto fail;
			}
			lev->tent = p;
			p[lev->ntent++] = idx;
		}
		any |= t->sh[k].fresh;
	}
	t->nlev = l->nlev;
	*ticket = idx + 1;
	*skip = !any;
	return 0;
fail:
	if (t->tentative) {
		/* in levels' lists: freed by layout_settle() */
		t->ntx = 0;
		t->dropped = 1;
		return ret;
	}
	t->ng = t->nw = 0;
	t->next_free = l->free_head;
	l->free_head = idx + 1;
	return ret;
}

void layout_drop(struct layout *l, size_t ticket)
{
	struct layout_ticket *t = &l->t[ticket - 1];

	if (t->tentative && !t->dropped) {
		/* in levels' lists: freed by layout_settle() */
		t->ntx = 0;
		t->dropped = 1;
		return;
	}
	t->nlev = 0;
	t->ng = t->nw = 0;
	t->tentative = 0;
	t->next_free = l->free_head;
	l->free_head = ticket;
}

uint64_t layout_scale(uint64_t d, uint64_t num, uint64_t den)
{
	unsigned __int128 p;

	if (num == den)
		return d;
	if (!den)
		return 0;
	p = (unsigned __int128)d * num + den / 2;
	return (uint64_t)(p / den);
}

uint32_t layout_inline(const struct layout *l, size_t ticket)
{
	return l->t[ticket - 1].inl;
}

size_t layout_writes(const struct layout *l, size_t ticket,
		     const struct est_write **w, size_t *nw)
{
	const struct layout_ticket *t = &l->t[ticket - 1];

	*w = t->ng ? t->wr : NULL;
	*nw = t->ng ? t->nw : 0;
	return t->ng ? t->nb : 0;
}

/* Setting i's value v (0: disk, 1: uncompressed) of bucket b. */
static uint64_t bucket(const uint64_t *gd, size_t n, size_t b, size_t i,
		       size_t v)
{
	return gd[3 * n * b + 3 * i + v];
}

/* Buckets of writes() (plan_bounds()): each group's clean parts before
 * its first dirty cell, the dirty cells, the clean parts after; then as
 * lower bounds the same, a dirty cell in its four pieces. */
static size_t b_after(const struct layout_ticket *t, size_t g)
{
	return t->ng + t->ncell + g;
}

static size_t b_low(const struct layout_ticket *t)
{
	return 2 * t->ng + t->ncell;
}

static size_t b_low_piece(const struct layout_ticket *t, size_t c, size_t k)
{
	return b_low(t) + t->ng + 4 * c + k;
}

static size_t b_low_after(const struct layout_ticket *t, size_t g)
{
	return b_low(t) + t->ng + 4 * t->ncell + g;
}

/* Group g's prediction (value v), or with low its lower bound (0 when
 * none was estimated). */
static uint64_t group_pred(const struct layout_ticket *t, size_t g,
			   size_t i, size_t n, const uint64_t *gd, size_t v,
			   int low)
{
	size_t c, k;
	uint64_t x;

	if (t->nb == t->ng)
		return low ? 0 : bucket(gd, n, g, i, v);
	if (!low) {
		x = bucket(gd, n, g, i, v) + bucket(gd, n, b_after(t, g), i, v);
		for (c = 0; c < t->ncell; c++)
			if (t->cell[c].group == g)
				x += bucket(gd, n, t->ng + c, i, v);
		return x;
	}
	x = bucket(gd, n, b_low(t) + g, i, v) +
	    bucket(gd, n, b_low_after(t, g), i, v);
	for (c = 0; c < t->ncell; c++)
		for (k = 0; t->cell[c].group == g && k < 4; k++)
			x += bucket(gd, n, b_low_piece(t, c, k), i, v);
	return x;
}

/*
 * What group g's prediction of disk is scaled from (its extents whole
 * over it): what its referenced data takes on disk now, in proportion to
 * each extent's part.  In a file whose extents were partly overwritten
 * (a tentative one), that proportion is wrong: what is left of an extent
 * is predicted in short pieces that compress worse than the whole did (a
 * sector left of 128 KiB of text: a raw sector, scaled up 32 times), so
 * the same layout grew under every setting, the one the data was written
 * with too; and under compress= what the gone data did to the inode's
 * NOCOMPRESS flag moves the file's later writes too.  With an anchor
 * (layout_set_anchor()), each group's prediction under that setting
 * stands for what its extents take now: the anchor then predicts
 * today's usage exactly, and another setting what its own prediction of
 * the same pieces is to the anchor's.
 */
static uint64_t group_den(const struct layout *l,
			  const struct layout_ticket *t, size_t g, size_t i,
			  const uint64_t *gd, long anchor)
{
	uint64_t a;

	/* a group whose extents are all there (an overwrite's own write)
	 * is predicted as written: the anchor is the usage now, another
	 * setting its own prediction, not scaled by the anchor's error */
	if (anchor < 0 || !t->tentative ||
	    (!t->gtent[g] && i != (size_t)anchor))
		return t->gvis[g];
	a = group_pred(t, g, (size_t)anchor, l->nest, gd, 0, 0);
	return a ? a : t->gvis[g];
}

/*
 * The same layout's disk and uncompressed for a file written in steps:
 * each group's prediction (its data as it is now) scaled from what that
 * data takes on disk now to what the group's extents new here take
 * (whole: a bookend stays on disk whole), against anchor (group_den()).
 */
static void group_values(const struct layout *l,
			 const struct layout_ticket *t, size_t k, size_t i,
			 size_t n, const uint64_t *gd, long anchor,
			 uint64_t *disk, uint64_t *uncomp)
{
	size_t g;

	*disk = *uncomp = 0;
	for (g = 0; g < t->ng; g++) {
		uint64_t num = t->gnum[k * t->ng + g], den = t->gvis[g];

		*disk += layout_scale(group_pred(t, g, i, n, gd, 0, 0), num,
				      group_den(l, t, g, i, gd, anchor));
		*uncomp += layout_scale(group_pred(t, g, i, n, gd, 1, 0), num,
					den);
	}
}

/* The group of nominal bucket b. */
static size_t bucket_group(const struct layout_ticket *t, size_t b)
{
	if (b < t->ng)
		return b;
	if (b < t->ng + t->ncell)
		return t->cell[b - t->ng].group;
	return b - t->ng - t->ncell;
}

/* Bytes of group g's data referenced now in [a, b). */
static uint64_t vis_in(const struct layout_ticket *t, size_t g, uint64_t a,
		       uint64_t b)
{
	uint64_t v = 0;
	size_t k;

	for (k = 0; k < t->nw; k++)
		if (!(t->wr[k].flags & EST_WRITE_INDEP) &&
		    bucket_group(t, t->wr[k].group) == g)
			v += overlap(t->wr[k].start, t->wr[k].end, a, b);
	return v;
}

/* Bytes of the nominal writes of bucket b. */
static uint64_t bucket_bytes(const struct layout_ticket *t, size_t b)
{
	uint64_t v = 0;
	size_t k;

	for (k = 0; k < t->nw; k++)
		if (!(t->wr[k].flags & EST_WRITE_INDEP) && t->wr[k].group == b)
			v += t->wr[k].end - t->wr[k].start;
	return v;
}

/*
 * Under compress-force=, the most dirty cell c can use: its pieces from
 * the chunk's start that are all there and compress (alone, as the
 * kernel compresses them: the lower bound's piece is that piece) as
 * they do, from the first one that is not, raw to the cell's end, one
 * extent that stays whole if any of it is referenced.
 */
static uint64_t cell_upper(const struct layout_ticket *t, size_t c,
			   size_t i, size_t n, const uint64_t *gd,
			   uint32_t ss)
{
	const struct layout_cell *x = &t->cell[c];
	uint64_t u = 0, pos = x->start;
	size_t k;

	for (k = 0; k < 4 && pos == x->base + k * LAYOUT_PIECE; k++) {
		uint64_t pe = x->base + (k + 1) * LAYOUT_PIECE;
		uint64_t low = bucket(gd, n, b_low_piece(t, c, k), i, 0);
		uint64_t in_r;

		pe = pe < x->end ? pe : x->end;
		in_r = pe > pos ? ((pe - pos + ss - 1) / ss) * ss : 0;
		/* compress=: only a piece its heuristic lets through */
		if (pe <= pos || pe - pos <= ss ||
		    vis_in(t, x->group, pos, pe) != pe - pos ||
		    low + ss > in_r ||
		    bucket(gd, n, b_low_piece(t, c, k), i, 1) != in_r)
			break;
		u += low;
		pos = pe;
	}
	if (pos < x->end && vis_in(t, x->group, pos, x->end))
		u += x->end - pos;
	return u;
}

/*
 * The bounds of a file's disk at the grand total (layout_total): lo and
 * hi, what it may use at least and at most under setting i when some of
 * its groups were left to it (gself), from what their extents say
 * (docs/estimate.md, "Bounds").  Groups no gone data can touch count as
 * predicted.  An extrapolated group under compress-force=: as predicted
 * where its async chunks hold no gone data (they are independent there),
 * a chunk with gone data at least its referenced data's pieces each
 * compressed alone, at most cell_upper().  Under compress=: at least the
 * pieces alone, at most its spans raw whole (the dirty range's heuristic
 * may have said no on data that is gone), or, when the range began with
 * data that is all there and something of it compressed, as predicted up
 * to its first chunk with gone data and raw from there (gone data may
 * have failed a piece, or set NOCOMPRESS); every later group then at
 * least its pieces alone, at most raw.
 */
static void file_bounds(const struct layout *l, const struct layout_ticket *t,
			size_t i, const uint64_t *gd, uint64_t nominal,
			uint64_t *lo, uint64_t *hi)
{
	const struct layout_share *sh = &t->sh[0];
	uint64_t L = sh->prealloc_disk, U = sh->prealloc_disk;
	size_t g, c, k, n = l->nest;
	int coupled = 0, force = l->force[i], cells = t->nb > t->ng;

	for (g = 0; g < t->ng; g++) {
		uint64_t num = t->gnum[g], den = t->gvis[g];
		uint64_t p = group_pred(t, g, i, n, gd, 0, 0);
		uint64_t low = group_pred(t, g, i, n, gd, 0, 1);

		if (t->gself[g] && num && t->gs) {
			const struct layout_gspan *gs = &t->gs[g];
			uint64_t u, lw, full = t->gfull[g] > num ?
					     t->gfull[g] : num;
			uint64_t h = gs->e0 - gs->s0 < LAYOUT_PIECE ?
				     gs->e0 - gs->s0 : LAYOUT_PIECE;

			if (cells && !gs->loose && (force ||
			    (!coupled && gs->span_raw <= LAYOUT_RANGE &&
			     p < gs->vis_raw &&
			     vis_in(t, g, gs->s0, gs->s0 + h) == h))) {
				u = bucket(gd, n, g, i, 0);
				lw = u + bucket(gd, n, b_low_after(t, g), i, 0);
				u += force ? bucket(gd, n, b_after(t, g), i, 0) :
				     bucket_bytes(t, b_after(t, g));
				if (force)
					lw += bucket(gd, n, b_after(t, g), i, 0) -
					      bucket(gd, n, b_low_after(t, g),
						     i, 0);
				for (c = 0, k = 0; c < t->ncell; c++) {
					const struct layout_cell *x =
						&t->cell[c];
					size_t q;

					if (x->group != g)
						continue;
					for (q = 0; q < 4; q++)
						lw += bucket(gd, n,
							b_low_piece(t, c, q), i,
							0);
					/* compress=: after the first, NOCOMPRESS
					 * may be set */
					u += force || !k++ ?
					     cell_upper(t, c, i, n, gd,
							l->sectorsize) :
					     vis_in(t, g, x->start, x->end) ?
					     x->end - x->start : 0;
				}
			} else {
				u = gs->span_raw;
				lw = low;
			}
			coupled |= !force;
			U += layout_scale(u, num, full);
			L += layout_scale(lw, num, full);
		} else if (coupled) {
			U += layout_scale(t->gs[g].vis_raw, num, den);
			L += layout_scale(low, num, den);
		} else {
			den = group_den(l, t, g, i, gd, l->anchor);
			U += layout_scale(p, num, den);
			L += layout_scale(p, num, den);
		}
	}
	/* the extrapolated groups' bounds above are by the extents' parts,
	 * not against the anchor, which moves the prediction: the range
	 * holds both it and the prediction by parts */
	if (l->anchor >= 0) {
		uint64_t w, u;

		group_values(l, t, 0, i, n, gd, -1, &w, &u);
		w += sh->prealloc_disk;
		L = w < L ? w : L;
		U = w > U ? w : U;
	}
	*lo = L < nominal ? nominal - L : 0;
	*hi = U > nominal ? U - nominal : 0;
}

/* Setting i's six values for a file at one level, the same layout's
 * from d (as written), the fresh copy's from f (3 values each, or both
 * NULL); inl: the disk bytes deciding whether it is stored inline (d's,
 * or a sample's own). */
static void share_values(const struct layout_share *sh, const uint64_t *d,
			 const uint64_t *f, uint64_t inl, uint32_t sectorsize,
			 uint64_t v[6])
{
	uint64_t disk = d ? d[0] : 0, uncomp = d ? d[1] : 0,
		 input = f ? f[2] : 0;
	uint64_t num = sh->num;

	if (!sh->fresh) {
		memset(v, 0, 6 * sizeof(*v));
		return;
	}
	/* inline under this setting (less than a sector, not rounded to
	 * one): with every file; else in an extent, shared */
	if (sh->small && !(inl && inl < sectorsize) && !sh->small_new)
		num = 0;
	v[0] = layout_scale(disk, num, sh->den) + sh->prealloc_disk;
	v[1] = layout_scale(uncomp, num, sh->den) + sh->prealloc_uncomp;
	v[2] = input;
	v[3] = f ? f[0] : 0;
	v[4] = f ? f[1] : 0;
	v[5] = f ? f[2] : 0;
}

/* share_values() at level k, from the groups' estimates when the file
 * was written in steps and they are known. */
static void level_values(const struct layout *l,
			 const struct layout_ticket *t, size_t k, size_t i,
			 const uint64_t *d, const uint64_t *f,
			 const uint64_t *gdelta, uint64_t v[6])
{
	const struct layout_share *sh = &t->sh[k];

	share_values(sh, d, f, t->has_raw ? t->rawd[i] : d ? d[0] : 0,
		     l->sectorsize, v);
	if (!t->ng || !gdelta || !d || !sh->fresh)
		return;
	group_values(l, t, k, i, l->nest, gdelta, l->anchor, &v[0], &v[1]);
	v[0] += sh->prealloc_disk;
	v[1] += sh->prealloc_uncomp;
}

/* The file's shares into the totals and out (layout_resolve()). */
static void apply(struct layout *l, const struct layout_ticket *t,
		  const uint64_t *delta, const uint64_t *gdelta, uint64_t *out)
{
	uint64_t v[6], extrap = 0;
	size_t i, k;

	for (i = 0; i < l->nest; i++) {
		const uint64_t *f = delta ? &delta[3 * i] : NULL;
		const uint64_t *d = delta ?
				    &delta[EST_WRITTEN(l->nest) + 3 * i] : NULL;
		struct layout_total *tot = &l->tot[i];

		if (!t->nlev)
			break;
		level_values(l, t, 0, i, d, f, gdelta, v);
		for (k = 0; d && gdelta && t->sh[0].fresh && k < t->ng; k++)
			if (t->gself[k])
				extrap += layout_scale(
					group_pred(t, k, i, l->nest, gdelta,
						   0, 0),
					t->gnum[k],
					group_den(l, t, k, i, gdelta,
						  l->anchor));
		if (extrap) {
			uint64_t lo, hi;

			file_bounds(l, t, i, gdelta, v[0], &lo, &hi);
			tot->extrap_disk += extrap;
			tot->extrap_lo += lo;
			tot->extrap_hi += hi;
			extrap = 0;
		}
		if (d) {
			tot->est_disk += d[0];
			tot->est_uncomp += d[1];
		}
		tot->disk += v[0];
		tot->uncomp += v[1];
		tot->input += v[2];
		if (t->sh[0].fresh) {
			tot->prealloc_disk += t->sh[0].prealloc_disk;
			tot->prealloc_uncomp += t->sh[0].prealloc_uncomp;
		}
		tot->fresh_disk += v[3];
		tot->fresh_uncomp += v[4];
		tot->fresh_input += v[5];
		/* defragment keeps the file's flags, holes and prealloc,
		 * and writes it in one go (an inline extent it outgrew
		 * joins the rest); inline data, less than a sector, counts
		 * at each of its names */
		if (d && t->rewrite && t->sh[0].fresh)
			tot->rewrite_disk += d[2] < l->sectorsize ?
					     d[2] * t->rewrite : d[2];
		/* rows: innermost first, same layout then fresh copy */
		for (k = 1; out && k < t->nlev; k++) {
			uint64_t *row = &out[(t->nlev - 1 - k) * 6 * l->nest];

			level_values(l, t, k, i, d, f, gdelta, v);
			memcpy(&row[3 * i], v, 3 * sizeof(*v));
			memcpy(&row[3 * l->nest + 3 * i], v + 3,
			       3 * sizeof(*v));
		}
	}
}

/* What the extents of ticket's tentative groups no file holding them as
 * written claimed take on disk: 0 until layout_settle_claims(). */
static uint64_t tentative_own(const struct layout_ticket *t)
{
	uint64_t v = 0;
	size_t g;

	for (g = 0; t->tentative && g < t->ng; g++)
		if (t->gtent[g])
			v += t->gnum[g];
	return v;
}

double layout_known_share(const struct layout *l, size_t ticket)
{
	const struct layout_ticket *t = &l->t[ticket - 1];
	const struct layout_share *sh = t->nlev ? &t->sh[0] : NULL;
	uint64_t num;

	if (!sh || !sh->fresh)
		return -1;
	/* a small file that may be inline counts as all of it, with every
	 * file: taken as shared, a sample would drop the bytes a setting
	 * stores inline in each file (a share of 0 against them) */
	if (sh->small)
		return sh->small_new || sh->small_inline;
	/* a tentative file's, once every file is planned (estrun's
	 * deferred()) */
	num = sh->num + tentative_own(t);
	if (sh->den && !num)
		return -1;
	return sh->den ? (double)num / sh->den : 1;
}

/* Whether a ticket's parts count by their writes (layout_part_factors()). */
static int parts_by_writes(const struct layout_ticket *t)
{
	return t->ng && t->nlev && t->sh[0].fresh && !t->sh[0].small;
}

/* How group_values() scales the prediction of the writes of bucket b:
 * what the group's extents new here take over what its data takes now;
 * -1 for a group none of whose data is referenced now. */
static double bucket_scale(const struct layout_ticket *t, size_t b)
{
	size_t g = bucket_group(t, b);

	return g < t->ng && t->gvis[g] ? (double)t->gnum[g] / t->gvis[g] : -1;
}

int layout_part_factors(const struct layout *l, size_t ticket,
			uint64_t size, uint64_t n, double *f, double *tmp)
{
	const struct layout_ticket *t = &l->t[ticket - 1];
	uint64_t k, s, e;
	size_t w;
	double scale;
	int any = 0;

	if (!parts_by_writes(t))
		return 0;
	for (k = 0; k < n; k++)
		f[k] = tmp[k] = 0;
	/* each nominal write's bytes in each part it reaches, scaled as
	 * group_values() scales its group's prediction */
	for (w = 0; w < t->nw; w++) {
		const struct est_write *x = &t->wr[w];

		if (x->flags & EST_WRITE_INDEP)
			continue;
		scale = bucket_scale(t, x->group);
		if (scale < 0)
			continue;
		e = x->end < size ? x->end : size;
		for (k = x->start / SAMPLE_CHUNK; k < n && x->start < e &&
						 k * SAMPLE_CHUNK < e;
		     k++) {
			s = overlap(x->start, e, k * SAMPLE_CHUNK,
				    (k + 1) * SAMPLE_CHUNK);
			f[k] += s * scale;
			tmp[k] += s;
		}
	}
	for (k = 0; k < n; k++) {
		any |= tmp[k] > 0;
		f[k] = tmp[k] > 0 ? f[k] / tmp[k] : -1;
	}
	return any;
}

int layout_bucket_scales(const struct layout *l, size_t ticket, size_t nb,
			 double *s)
{
	const struct layout_ticket *t = &l->t[ticket - 1];
	size_t b;

	if (!parts_by_writes(t))
		return 0;
	for (b = 0; b < nb; b++)
		s[b] = bucket_scale(t, b);
	return 1;
}

int layout_tentative(const struct layout *l, size_t ticket)
{
	return l->t[ticket - 1].tentative;
}

void layout_settle_claims(struct layout *l)
{
	if (l->nlev)
		settle_level(l, 0);
}

size_t layout_user(const struct layout *l, size_t ticket)
{
	return l->t[ticket - 1].user;
}

int layout_rewritten(const struct layout *l, size_t ticket)
{
	const struct layout_ticket *t = &l->t[ticket - 1];

	return t->rewrite && t->nlev && t->sh[0].fresh;
}

void layout_factors(struct layout *l, size_t ticket, const uint64_t *raw,
		    const uint64_t *gdelta, double *f)
{
	struct layout_ticket *t = &l->t[ticket - 1];
	const struct layout_share *sh = t->nlev ? &t->sh[0] : NULL;
	struct layout_share own;
	uint64_t d[3], v[6];
	size_t i;

	t->has_raw = !GROW_TO(t->rawd, t->cap_rawd, l->nest);
	if (sh && t->tentative && !gdelta) {
		/* read in parts, in one go: its share with the extents of
		 * its tentative groups no file claimed (settled by now) */
		own = *sh;
		own.num += tentative_own(t);
		sh = &own;
	}
	for (i = 0; i < l->nest; i++) {
		if (t->has_raw)
			t->rawd[i] = raw[2 * i];
		f[2 * i] = f[2 * i + 1] = 0;
		if (!sh)
			continue;	/* counted nowhere, as apply() */
		d[0] = raw[2 * i];
		d[1] = raw[2 * i + 1];
		d[2] = 0;
		if (t->ng && gdelta) {
			/* read whole, written in steps: as apply() counts
			 * it, each write's prediction over the whole
			 * file's in one go */
			level_values(l, t, 0, i, d, d, gdelta, v);
			if (d[0])
				f[2 * i] = (double)(v[0] - sh->prealloc_disk) /
					   d[0];
			if (d[1])
				f[2 * i + 1] = (double)(v[1] -
							sh->prealloc_uncomp) /
					       d[1];
			continue;
		}
		share_values(sh, d, d, d[0], l->sectorsize, v);
		if (d[0])
			f[2 * i] = (double)(v[0] - sh->prealloc_disk) / d[0];
		if (d[1])
			f[2 * i + 1] = (double)(v[1] - sh->prealloc_uncomp) /
				       d[1];
	}
}

void layout_resolve(struct layout *l, size_t ticket, const uint64_t *delta,
		    const uint64_t *gdelta, uint64_t *out, size_t *nrows,
		    size_t *user)
{
	struct layout_ticket *t = &l->t[ticket - 1];
	size_t nd = 6 * l->nest, ng = gdelta && t->ng ? 3 * l->nest * t->nb : 0;

	*user = t->user;
	*nrows = t->nlev ? t->nlev - 1 : 0;
	if (t->tentative) {
		/* its extents are settled when the levels close: kept */
		*nrows = 0;
		if (!delta || t->dropped ||
		    GROW_TO(t->stash, t->cap_stash, nd + ng)) {
			t->dropped = 1;	/* left out, as a failed file */
			return;
		}
		memcpy(t->stash, delta, nd * sizeof(*delta));
		if (ng)
			memcpy(t->stash + nd, gdelta, ng * sizeof(*gdelta));
		t->stashed = ng ? 2 : 1;
		return;
	}
	apply(l, t, delta, gdelta, out);
	layout_drop(l, ticket);
}

int layout_settle(struct layout *l,
		  void (*emit)(void *arg, size_t user, const uint64_t *out,
			       size_t nrows),
		  void *arg)
{
	size_t nd = 6 * l->nest, j, nrows;
	uint64_t *out = NULL;
	int ret = 0;

	if (!l->nlev)
		return 0;
	settle_level(l, 0);
	for (j = 0; j < l->nt; j++) {
		struct layout_ticket *t = &l->t[j];

		if (!t->tentative)
			continue;
		if (t->stashed && !t->dropped) {
			nrows = t->nlev ? t->nlev - 1 : 0;
			if (nrows) {
				uint64_t *p = realloc(out, nrows * 6 * l->nest *
							   sizeof(*p));

				if (!p) {
					ret = -ENOMEM;
					break;
				}
				out = p;
			}
			apply(l, t, t->stash,
			      t->stashed == 2 ? t->stash + nd : NULL, out);
			if (emit && nrows)
				emit(arg, t->user, out, nrows);
		}
		t->dropped = 0;
		t->tentative = 0;
		layout_drop(l, j + 1);
	}
	free(out);
	return ret;
}

void layout_total(const struct layout *l, size_t i, struct layout_total *t)
{
	if (i < l->nest)
		*t = l->tot[i];
	else
		memset(t, 0, sizeof(*t));
}
