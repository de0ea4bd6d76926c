// SPDX-License-Identifier: GPL-2.0
/* Fresh-copy and same-layout shares of each file's estimate (layout.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "array.h"
#include "layout.h"
#include "ioctl.h"

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

struct layout *layout_create(size_t nest)
{
	struct layout *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->nest = nest;
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
	for (i = 0; i < l->nt; i++)
		free(l->t[i].sh);
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

void layout_pop(struct layout *l)
{
	struct layout_level *lev = &l->lev[--l->nlev];

	sets_free(&lev->inodes);
	sets_free(&lev->extents);
	sets_free(&lev->inl);
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
static int plan_level(struct layout_level *lev, long dev,
		      const struct layout_file *f, struct layout_share *sh)
{
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
		ret = seen_insert(extents, ei->disk_bytenr);
		if (ret < 0)
			return ret;
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
	for (k = 0; k < l->nlev; k++) {
		ret = plan_level(&l->lev[k], dev, f, &t->sh[k]);
		if (ret)
			goto fail;
		any |= t->sh[k].fresh;
	}
	t->nlev = l->nlev;
	*ticket = idx + 1;
	*skip = !any;
	return 0;
fail:
	t->next_free = l->free_head;
	l->free_head = idx + 1;
	return ret;
}

void layout_drop(struct layout *l, size_t ticket)
{
	struct layout_ticket *t = &l->t[ticket - 1];

	t->nlev = 0;
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

void layout_resolve(struct layout *l, size_t ticket, const uint64_t *delta,
		    uint64_t *out, size_t *nrows, size_t *user)
{
	struct layout_ticket *t = &l->t[ticket - 1];
	uint64_t v[6];
	size_t i, k;

	*user = t->user;
	*nrows = t->nlev ? t->nlev - 1 : 0;
	for (i = 0; i < l->nest; i++) {
		const uint64_t *d = delta ? &delta[3 * i] : NULL;
		struct layout_total *tot = &l->tot[i];

		if (!t->nlev)
			break;
		share_values(&t->sh[0], d, l->sectorsize, v);
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

			share_values(&t->sh[k], d, l->sectorsize, v);
			memcpy(&row[3 * i], v, 3 * sizeof(*v));
			memcpy(&row[3 * l->nest + 3 * i], v + 3,
			       3 * sizeof(*v));
		}
	}
	layout_drop(l, ticket);
}

void layout_total(const struct layout *l, size_t i, struct layout_total *t)
{
	if (i < l->nest)
		*t = l->tot[i];
	else
		memset(t, 0, sizeof(*t));
}
