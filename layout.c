// SPDX-License-Identifier: GPL-2.0
/* Fresh-copy and same-layout shares of each file's estimate (layout.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "layout.h"
#include "ioctl.h"

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
};

struct layout_ticket {
	size_t user;
	size_t nlev;		/* levels open at layout_plan() */
	int rewrite;		/* layout_file.rewrite */
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
	struct layout_tx *tx;
	size_t ntx, cap_tx;
	uint64_t *stash;	/* tentative: its estimate, until settled */
	size_t cap_stash;
	int stashed, dropped;
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
	l->tot = calloc(nest ? nest : 1, sizeof(*l->tot));
	if (!l->tot || layout_push(l)) {
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
	}
	free(l->t);
	free(l->lev);
	free(l->devs);
	free(l->tot);
	free(l);
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

			if (tx->level != k || (c && seen_contains(c, tx->bytenr)))
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

uint64_t layout_inline_key(const uint8_t *item, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ item[i]) * 0x100000001b3ull;
	return h;
}

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
	struct seen_set *inodes = sets_get(&lev->inodes, (size_t)dev);
	struct seen_set *extents = NULL;
	size_t e;
	int ret;

	memset(sh, 0, sizeof(*sh));
	if (!inodes)
		return -ENOMEM;
	ret = seen_insert(inodes, (uint64_t)f->ino);
	if (ret <= 0)
		return ret;	/* a hard link met before: nothing */
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
		sh->num = sh->den = 1;
		return 0;
	}
	for (e = 0; f->have_extents && e < f->next; e++) {
		const struct extent_info *ei = &f->ext[e];

		if (ei->type == BTRFS_FILE_EXTENT_INLINE) {
			/* in the file's own leaf: counted with every file,
			 * as the usage report does */
			sh->num += ei->ram_bytes;
			sh->den += ei->ram_bytes;
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

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

	t->ng = t->nw = 0;
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
	qsort(gen, ng, sizeof(*gen), cmp_u64);
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
	    GROW_TO(t->gself, t->cap_gself, ng))
		goto out;
	memset(t->gself, 0, ng * sizeof(*t->gself));
	memset(t->gvis, 0, ng * sizeof(*t->gvis));
	memset(t->gtent, 0, ng * sizeof(*t->gtent));
	for (e = 0; e < f->next; e++) {
		const struct extent_info *ei = &f->ext[e];
		uint64_t *p;

		t->grp[e] = UINT32_MAX;
		if (!data_extent(ei))
			continue;
		p = bsearch(&ei->generation, gen, ng, sizeof(*gen), cmp_u64);
		g = (size_t)(p - gen);
		t->grp[e] = (uint32_t)g;
		/* a bookend: part of the data it was written with is gone
		 * from this file */
		if (ei->offset || ei->num_bytes != ei->ram_bytes) {
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
	/* each group's parts on the grid of its first extent's start */
	for (e = 0; e < t->nw; e++)
		t->wr[e].grid = e && t->wr[e - 1].group == t->wr[e].group ?
				t->wr[e - 1].grid : t->wr[e].grid;
	ret = 0;
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
	ret = plan_groups(t, f, l->follow);
	if (ret)
		goto fail;
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

size_t layout_writes(const struct layout *l, size_t ticket,
		     const struct est_write **w, size_t *nw)
{
	const struct layout_ticket *t = &l->t[ticket - 1];

	*w = t->ng ? t->wr : NULL;
	*nw = t->ng ? t->nw : 0;
	return t->ng;
}

/*
 * The same layout's disk and uncompressed for a file written in steps:
 * each group's prediction (its data as it is now) scaled from what that
 * data takes on disk now to what the group's extents new here take
 * (whole: a bookend stays on disk whole).
 */
static void group_values(const struct layout_ticket *t, size_t k, size_t i,
			 size_t n, const uint64_t *gd, uint64_t *disk,
			 uint64_t *uncomp)
{
	size_t g;

	*disk = *uncomp = 0;
	for (g = 0; g < t->ng; g++) {
		const uint64_t *p = &gd[3 * n * g + 3 * i];
		uint64_t num = t->gnum[k * t->ng + g], den = t->gvis[g];

		*disk += layout_scale(p[0], num, den);
		*uncomp += layout_scale(p[1], num, den);
	}
}

/* Setting i's six values for a file at one level. */
static void share_values(const struct layout_share *sh, const uint64_t *d,
			 uint32_t sectorsize, uint64_t v[6])
{
	uint64_t disk = d ? d[0] : 0, uncomp = d ? d[1] : 0,
		 input = d ? d[2] : 0;
	uint64_t num = sh->num;

	if (!sh->fresh) {
		memset(v, 0, 6 * sizeof(*v));
		return;
	}
	/* inline under this setting (less than a sector, not rounded to
	 * one): with every file; else in an extent, shared */
	if (sh->small && !(disk && disk < sectorsize) && !sh->small_new)
		num = 0;
	v[0] = layout_scale(disk, num, sh->den) + sh->prealloc_disk;
	v[1] = layout_scale(uncomp, num, sh->den) + sh->prealloc_uncomp;
	v[2] = input;
	v[3] = disk;
	v[4] = uncomp;
	v[5] = input;
}

/* share_values() at level k, from the groups' estimates when the file
 * was written in steps and they are known. */
static void level_values(const struct layout *l,
			 const struct layout_ticket *t, size_t k, size_t i,
			 const uint64_t *d, const uint64_t *gdelta,
			 uint64_t v[6])
{
	const struct layout_share *sh = &t->sh[k];

	share_values(sh, d, l->sectorsize, v);
	if (!t->ng || !gdelta || !d || !sh->fresh)
		return;
	group_values(t, k, i, l->nest, gdelta, &v[0], &v[1]);
	v[0] += sh->prealloc_disk;
	v[1] += sh->prealloc_uncomp;
}

/* The file's shares into the totals and out (layout_resolve()). */
static void apply(struct layout *l, const struct layout_ticket *t,
		  const uint64_t *delta, const uint64_t *gdelta, uint64_t *out)
{
	uint64_t v[6];
	size_t i, k;

	for (i = 0; i < l->nest; i++) {
		const uint64_t *d = delta ? &delta[3 * i] : NULL;
		struct layout_total *tot = &l->tot[i];

		if (!t->nlev)
			break;
		level_values(l, t, 0, i, d, gdelta, v);
		for (k = 0; d && gdelta && t->sh[0].fresh && k < t->ng; k++)
			if (t->gself[k])
				tot->extrap_disk += layout_scale(
					gdelta[3 * l->nest * k + 3 * i],
					t->gnum[k], t->gvis[k]);
		if (d) {
			tot->est_disk += d[0];
			tot->est_uncomp += d[1];
		}
		tot->disk += v[0];
		tot->uncomp += v[1];
		tot->input += v[2];
		tot->fresh_disk += v[3];
		tot->fresh_uncomp += v[4];
		tot->fresh_input += v[5];
		if (t->rewrite && t->sh[0].fresh)
			tot->rewrite_disk += v[3];
		/* rows: innermost first, same layout then fresh copy */
		for (k = 1; out && k < t->nlev; k++) {
			uint64_t *row = &out[(t->nlev - 1 - k) * 6 * l->nest];

			level_values(l, t, k, i, d, gdelta, v);
			memcpy(&row[3 * i], v, 3 * sizeof(*v));
			memcpy(&row[3 * l->nest + 3 * i], v + 3,
			       3 * sizeof(*v));
		}
	}
}

void layout_resolve(struct layout *l, size_t ticket, const uint64_t *delta,
		    const uint64_t *gdelta, uint64_t *out, size_t *nrows,
		    size_t *user)
{
	struct layout_ticket *t = &l->t[ticket - 1];
	size_t nd = 3 * l->nest, ng = gdelta ? nd * t->ng : 0;

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
	size_t nd = 3 * l->nest, j, nrows;
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
