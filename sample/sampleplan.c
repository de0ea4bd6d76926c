// SPDX-License-Identifier: GPL-2.0
/* The --sample pre-pass: see sampleplan.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "scan/extent.h"
#include "lib/radix.h"
#include "sample/sampleplan.h"
#include "scan/search.h"
#include "seen.h"
#include "walk/walkorder.h"

#define SAMPLEPLAN_SEARCH_BUF	(16u << 10)
/* Data runs of a sparse file looked for at most (sampleplan_holes()): the
 * rest of a file with more is taken as data. */
#define SAMPLEPLAN_HOLE_RUNS	4096

/* A filesystem (st_dev) met, and a descriptor on it to search with. */
struct sampleplan_dev {
	dev_t dev;
	int fd;			/* -1 once a search failed there */
};

/* A reference to an extent (its bytenr) or to an inline item (its
 * extent_inline_key(), top bit set) by a file (its sample_key()). */
struct sampleplan_ref {
	uint64_t ref, file;
	uint32_t ord;		/* the file's place in the walk */
	uint32_t bytes : 31;	/* of the file's data it covers (an extent
				 * item covers at most 128 MiB) */
	/* the same layout needs its file's extents, drawn or not: a
	 * PREALLOC item's (kept as it is), a bookend's (an item that holds
	 * part of its extent: a file partly overwritten, whose writes
	 * layout.c follows) */
	uint32_t extents_needed : 1;
};

/* An extent item kept for the walk (sampleplan_kept_get()): what
 * extent_parse() gives, in 40 bytes (a file with a value that does not
 * fit is not kept). */
struct sampleplan_item {
	uint64_t file_pos;
	uint64_t disk_bytenr;	/* inline: its extent_inline_key() */
	uint32_t generation;
	uint32_t disk_num_bytes, offset, num_bytes, ram_bytes;
	uint16_t inline_len;
	uint8_t type, compression;
};

/* The items kept, every file's in walk order, the sharers' wanted. */
struct sampleplan_kept {
	struct sampleplan_item *v;
	size_t n, cap;
};

/* A sharer's value (seen_value()): its first item's index above, its
 * count in the low SAMPLEPLAN_KEPT_BITS. */
#define SAMPLEPLAN_KEPT_BITS	24

/* A file with references, in walk order: what its units are added by,
 * the bytes its references cover, and of them those in extents (away)
 * and in inline items (inl) a file before it in the walk references
 * (sampleplan_away()). */
struct sampleplan_fx {
	uint64_t size, x;
	uint64_t total, away, inl;
	uint64_t kept;		/* its items' value, or 0 (none kept) */
};

/* A big file's part's bytes its extent items reference: of its own (in
 * extents no file before it in the walk references), in all, its own
 * bytes' on disk now, and those of them in raw extents of one sector
 * (SAMPLE_ONE_SECTOR). */
struct sampleplan_pbytes {
	uint64_t own, all, own_disk, own_sector;
};

struct sampleplan {
	const struct sampleplan_opts *o;
	struct sample_pop pop;
	struct seen_set *links;
	struct sample_bands *bands;
	/* every reference met; the file's own from ref_start */
	struct sampleplan_ref *refs;
	size_t nrefs, cap_refs, ref_start;
	int refs_failed;
	struct sampleplan_fx *fx;	/* by ord */
	size_t nfx, cap_fx;
	/* the next file's parts' current ratios (sample_parts_extent()),
	 * unless parts_failed; pb: room for their bands */
	struct sample_parts parts;
	int parts_failed;
	uint8_t *pb;
	size_t cap_pb;
	/* every file's extent items (holes included), the next file's from
	 * kept_start; kept_bad: one of them can't be kept, kept_full: no
	 * more room (SAMPLEPLAN_KEPT_MAX, or memory) */
	struct sampleplan_kept *kept;
	size_t kept_start;
	int kept_bad, kept_full;
	uint16_t *pq;		/* room for their current ratios */
	size_t cap_pq;
	/* the big files' parts, and the files with the most of them: those
	 * that may get strata of their own (sample_own_strata()) */
	uint64_t all_parts;
	struct sampleplan_big {
		uint64_t key, size, x, n;
		unsigned band;
	} big[SAMPLE_OWN_FILES];
	size_t nbig;
	/* files whose band is a current ratio (not a kind) */
	uint64_t ratios;
	/* sampleplan_part_shares()' room: each part's share and bytes */
	double *ak;
	struct sampleplan_pbytes *pbytes;
	size_t cap_ak, cap_pbytes;
	struct search_ctx *search;
	struct sampleplan_dev *devs;
	size_t ndevs, cap_devs;
};

/* Items kept at most (40 bytes each): beyond, the walk searches. */
#define SAMPLEPLAN_KEPT_MAX	(1u << 20)

/* Keep ei (its inline key ikey) for the walk, if it fits. */
static void sampleplan_keep(struct sampleplan *p, const struct extent_info *ei,
			    uint64_t ikey)
{
	const size_t max = p->o->kept_max ? p->o->kept_max
					  : SAMPLEPLAN_KEPT_MAX;
	struct sampleplan_kept *k = p->kept;
	struct sampleplan_item *v;

	if (p->kept_full || p->kept_bad)
		return;
	if (ei->generation > UINT32_MAX || ei->disk_num_bytes > UINT32_MAX ||
	    ei->offset > UINT32_MAX || ei->num_bytes > UINT32_MAX ||
	    ei->ram_bytes > UINT32_MAX || ei->inline_len > UINT16_MAX ||
	    k->n - p->kept_start >= (1u << SAMPLEPLAN_KEPT_BITS) - 1) {
		p->kept_bad = 1;
		return;
	}
	v = k->n < max ? array_grow(k->v, &k->cap, k->n, sizeof(*v)) : NULL;
	if (!v) {
		/* this file and the rest are searched by the walk */
		p->kept_full = p->kept_bad = 1;
		return;
	}
	k->v = v;
	k->v[k->n++] = (struct sampleplan_item){
		.file_pos = ei->file_pos,
		.disk_bytenr = ei->type == BTRFS_FILE_EXTENT_INLINE ?
			       ikey : ei->disk_bytenr,
		.generation = (uint32_t)ei->generation,
		.disk_num_bytes = (uint32_t)ei->disk_num_bytes,
		.offset = (uint32_t)ei->offset,
		.num_bytes = (uint32_t)ei->num_bytes,
		.ram_bytes = (uint32_t)ei->ram_bytes,
		.inline_len = (uint16_t)ei->inline_len,
		.type = ei->type,
		.compression = ei->compression,
	};
}

int sampleplan_ref(struct sampleplan *p, const struct extent_info *ei,
		   const uint8_t *item, size_t len)
{
	struct sampleplan_ref *r;
	uint64_t ref, ikey = 0, bytes;

	if (p->bands && ei->type == BTRFS_FILE_EXTENT_REG &&
	    ei->disk_bytenr &&
	    sample_parts_extent(&p->parts, ei->file_pos, ei->num_bytes,
				ei->disk_num_bytes, ei->ram_bytes))
		p->parts_failed = 1;	/* the file's band for its parts */
	if (!p->o->sharers)
		return 0;
	if (ei->type == BTRFS_FILE_EXTENT_INLINE)
		ikey = extent_inline_key(item, len);
	if (p->kept)
		sampleplan_keep(p, ei, ikey);
	if (ei->type == BTRFS_FILE_EXTENT_INLINE)
		ref = ikey | (1ull << 63);
	else if (ei->disk_bytenr)
		ref = ei->disk_bytenr & ~(1ull << 63);
	else
		return 0;	/* a hole */
	r = array_grow(p->refs, &p->cap_refs, p->nrefs, sizeof(*r));
	if (!r) {
		/* no sharers known: every file is taken as one */
		p->refs_failed = 1;
		return 0;
	}
	p->refs = r;
	p->refs[p->nrefs].ref = ref;
	/* an inline item's data: its ram bytes */
	bytes = ei->type == BTRFS_FILE_EXTENT_INLINE ? ei->ram_bytes :
						       ei->num_bytes;
	p->refs[p->nrefs].bytes = bytes < INT32_MAX ? (uint32_t)bytes :
						      INT32_MAX;
	p->refs[p->nrefs].extents_needed =
		ei->type == BTRFS_FILE_EXTENT_PREALLOC ||
		(ei->type == BTRFS_FILE_EXTENT_REG && extent_partial(ei));
	p->refs[p->nrefs++].file = 0;
	return 0;
}

size_t sampleplan_kept_count(uint64_t v)
{
	return v & ((1u << SAMPLEPLAN_KEPT_BITS) - 1);
}

void sampleplan_kept_get(const struct sampleplan_kept *k, uint64_t v,
			 struct extent_info *ei, uint64_t *inline_key)
{
	const struct sampleplan_item *it = &k->v[v >> SAMPLEPLAN_KEPT_BITS];
	size_t i, n = sampleplan_kept_count(v);

	for (i = 0; i < n; i++, it++) {
		ei[i] = (struct extent_info){
			.type = it->type,
			.compression = it->compression,
			.generation = it->generation,
			.file_pos = it->file_pos,
			.ram_bytes = it->ram_bytes,
			.inline_len = it->inline_len,
			.disk_num_bytes = it->disk_num_bytes,
			.offset = it->offset,
			.num_bytes = it->num_bytes,
		};
		if (it->type == BTRFS_FILE_EXTENT_INLINE)
			*inline_key = it->disk_bytenr;
		else
			ei[i].disk_bytenr = it->disk_bytenr;
	}
}

void sampleplan_kept_free(struct sampleplan_kept *k)
{
	if (k) {
		free(k->v);
		free(k);
	}
}

/* The next file's items' value for the sharers (sampleplan_kept_get()),
 * or 0 when they are not all kept. */
static uint64_t sampleplan_kept_value(const struct sampleplan *p)
{
	if (!p->kept || p->kept_bad || p->kept->n == p->kept_start)
		return 0;
	return (uint64_t)p->kept_start << SAMPLEPLAN_KEPT_BITS |
	       (p->kept->n - p->kept_start);
}

/* The next file's references, parts and items forgotten: its first
 * path's were kept, or its search failed. */
static void sampleplan_forget(struct sampleplan *p)
{
	p->nrefs = p->ref_start;
	if (p->kept)
		p->kept->n = p->kept_start;
	p->kept_bad = 0;
	sample_parts_reset(&p->parts);
	p->parts_failed = 0;
}

/* A file's current disk and uncompressed bytes, from its extent items. */
struct sampleplan_usage {
	struct sampleplan *p;
	uint64_t disk, ram;
};

static int sampleplan_item(const struct search_item *item, void *arg)
{
	struct sampleplan_usage *u = arg;
	struct extent_info ei;

	if (item->type != BTRFS_EXTENT_DATA_KEY ||
	    extent_parse(item->data, item->len, 0, &ei))
		return 0;
	ei.file_pos = item->offset;
	extent_current(&ei, &u->disk, &u->ram);
	return sampleplan_ref(u->p, &ei, item->data, item->len);
}

static struct sampleplan_dev *sampleplan_dev(struct sampleplan *p, dev_t dev)
{
	size_t i;

	for (i = 0; i < p->ndevs; i++)
		if (p->devs[i].dev == dev)
			return &p->devs[i];
	return NULL;
}

int sampleplan_name_kind(uint64_t nlink, const char *name)
{
	return nlink == 1 ? (int)sample_kind(name) : 0;
}

/* The band of file st, and its current ratio into *q: its extents
 * searched on its filesystem's fd. */
static unsigned sampleplan_band(struct sampleplan *p, const struct stat *st,
				uint16_t *q, int *known)
{
	struct sampleplan_dev *d = sampleplan_dev(p, st->st_dev);
	struct sampleplan_usage u = { .p = p };

	*q = 0;
	*known = 0;
	if (!d || d->fd < 0)
		return 0;
	if (search_file_extents(p->search, d->fd, st->st_ino, 0,
				sampleplan_item, &u)) {
		/* not btrfs, or no permission: no bands there */
		sampleplan_forget(p);
		close(d->fd);
		d->fd = -1;
		return 0;
	}
	*q = sample_file_q((uint64_t)st->st_size, sample_data_bytes(st), u.ram,
			   u.disk);
	*known = 1;
	return sample_band(1, u.ram, u.disk);
}

/*
 * A big file's parts' current ratios and bands from its extents: the
 * ratios kept, the bands where one differs from the file's band (else its
 * parts go by the file's): *pb the kept bands, or NULL.  Returns 0 or
 * -ENOMEM.
 */
static int sampleplan_parts(struct sampleplan *p, uint64_t key,
			    uint64_t size, uint64_t x, unsigned band,
			    int kind, const uint8_t **pb)
{
	uint64_t n = sample_units(size, x), k;
	uint16_t *q;
	uint8_t *b;

	*pb = NULL;
	if (n < 2 || p->parts_failed || n > SIZE_MAX / sizeof(*q))
		return 0;
	q = array_grow(p->pq, &p->cap_pq, (size_t)n, sizeof(*q));
	if (!q)
		return 0;	/* the file's ratio for its parts */
	p->pq = q;
	sample_parts_ratios(&p->parts, n, q);
	if (sample_bands_put_parts_q(p->bands, key, q, n))
		return -ENOMEM;
	b = array_grow(p->pb, &p->cap_pb, (size_t)n, 1);
	if (!b)
		return 0;	/* the file's band for its parts */
	p->pb = b;
	sample_parts_bands(&p->parts, n, kind, b);
	for (k = 0; k < n && b[k] == band; k++)
		;
	if (k == n)
		return 0;
	if (sample_bands_put_parts(p->bands, key, b, n))
		return -ENOMEM;
	*pb = b;
	return 0;
}

/* Count a file's parts, and keep it if it is among the biggest. */
static void sampleplan_big(struct sampleplan *p, uint64_t key, uint64_t size,
			   uint64_t x, unsigned band)
{
	uint64_t n = sample_units(size, x);
	size_t i, min = 0;

	if (n < 2)
		return;
	p->all_parts += n;
	if (p->nbig < SAMPLE_OWN_FILES) {
		i = p->nbig++;
	} else {
		for (i = 1; i < p->nbig; i++)
			if (p->big[i].n < p->big[min].n)
				min = i;
		if (p->big[min].n >= n)
			return;
		i = min;
	}
	p->big[i] = (struct sampleplan_big){ key, size, x, n, band };
}

/*
 * The files that hold much of the big files' parts get strata of their
 * own: their parts' bands, with their slot, into the table and the
 * population.  Returns 0 or -ENOMEM.
 */
static int sampleplan_own(struct sampleplan *p)
{
	unsigned slot = 0;
	uint64_t k;
	size_t i;

	for (i = 0; i < p->nbig && slot < SAMPLE_OWN_FILES; i++) {
		const struct sampleplan_big *t = &p->big[i];
		const uint8_t *old;
		uint8_t *b;

		if (!sample_own_strata(t->n, p->all_parts) || t->n > SIZE_MAX)
			continue;
		b = array_grow(p->pb, &p->cap_pb, (size_t)t->n, 1);
		if (!b)
			return -ENOMEM;
		p->pb = b;
		old = sample_bands_parts(p->bands, t->key, t->n);
		slot++;
		for (k = 0; k < t->n; k++)
			b[k] = (uint8_t)(((old ? old[k] : t->band) &
					  SAMPLE_PB_BAND) |
					 (old ? old[k] & SAMPLE_PB_EMPTY : 0) |
					 slot << SAMPLE_PB_SLOT);
		sample_pop_remove_parts(&p->pop, t->size, t->x, t->band, old);
		sample_pop_add_parts(&p->pop, t->size, t->x, t->band, b);
		if (sample_bands_put_parts(p->bands, t->key, b, t->n))
			return -ENOMEM;
	}
	return 0;
}

/* sampleplan_add(), the band a kind (sample_kind()) where kind is set: no
 * current ratio, the file's band for all its parts but those kpb (when not
 * NULL) says hold no data (sampleplan_holes()).  Else a raw band is
 * divided by name_kind, its name's, or not (-1: sample_band_kind()). */
static int sampleplan_add_band(struct sampleplan *p, uint64_t key,
			       uint32_t nlink, uint64_t size, uint64_t x,
			       unsigned band, uint16_t q, int kind,
			       int name_kind, const uint8_t *kpb,
			       const struct sample_facts *f)
{
	const uint8_t *pb = kind ? kpb : NULL;
	uint64_t total = 0;
	size_t i;
	int ret;

	if (nlink > 1) {
		ret = seen_insert(p->links, key);
		if (ret <= 0) {
			/* its references were met with its first path */
			sampleplan_forget(p);
			return ret;
		}
	}
	if (p->nfx == UINT32_MAX)
		p->refs_failed = 1;	/* no sharers known */
	for (i = p->ref_start; i < p->nrefs; i++) {
		p->refs[i].file = key;
		p->refs[i].ord = (uint32_t)p->nfx;
		total += p->refs[i].bytes;
	}
	if (p->nrefs > p->ref_start && !p->refs_failed) {
		struct sampleplan_fx *fx = array_grow(p->fx, &p->cap_fx,
						      p->nfx, sizeof(*fx));

		if (fx) {
			p->fx = fx;
			p->fx[p->nfx] = (struct sampleplan_fx){
				size, x, total, 0, 0, sampleplan_kept_value(p)
			};
		} else {
			p->refs_failed = 1;	/* no sharers known */
		}
	}
	if (p->nrefs > p->ref_start)
		p->nfx++;
	if (p->kept) {
		/* its items' room back when not kept (holes only: not a
		 * sharer) */
		if (p->kept_bad || p->nrefs == p->ref_start)
			p->kept->n = p->kept_start;
		p->kept_start = p->kept->n;
	}
	p->kept_bad = 0;
	p->ref_start = p->nrefs;
	if (band && !kind) {
		band = sample_band_kind(band, name_kind);
		ret = sampleplan_parts(p, key, size, x, band, name_kind, &pb);
		if (ret)
			return ret;
	}
	sample_parts_reset(&p->parts);
	p->parts_failed = 0;
	if (sample_bands_put_file(p->bands, key, band, kind ? 0 : q, f))
		return -ENOMEM;
	if (kind && pb &&
	    sample_bands_put_parts(p->bands, key, pb, sample_units(size, x)))
		return -ENOMEM;
	sample_pop_add_parts(&p->pop, size, x, band, pb);
	p->ratios += band && !kind;
	/* a file whose band is not known as root (a nested subvolume's,
	 * listed under a key the walk will not find) keeps the classes'
	 * strata */
	if (band || !p->o->bands)
		sampleplan_big(p, key, size, x, band);
	return 0;
}

int sampleplan_add(struct sampleplan *p, uint64_t key, uint32_t nlink,
		   uint64_t size, uint64_t x, unsigned band, uint16_t q,
		   int kind, const struct sample_facts *f)
{
	return sampleplan_add_band(p, key, nlink, size, x, band, q, 0, kind,
				   NULL, f);
}

/*
 * A big file with holes whose current ratio is not known, open on fd (or
 * openat(dirfd, name) here when fd is -1): its parts without data, found
 * with SEEK_DATA and SEEK_HOLE, into p->pb as SAMPLE_PB_EMPTY, the others
 * as band.  Without it a file's data is taken as spread evenly over its
 * parts, and a sample that draws none of a sparse file's few parts with
 * data takes it as empty, with no uncertainty (docs/sampling.md).  As
 * root the extents tell the same (sample_parts_bands()).  Returns p->pb,
 * or NULL when no part is empty or the file can't be opened or searched
 * (its parts all taken as data: never wrong, only less precise).
 */
static const uint8_t *sampleplan_holes(struct sampleplan *p, int fd,
				       int dirfd, const char *name,
				       const struct stat *st, unsigned band)
{
	const uint64_t size = st->st_size, x = sample_data_bytes(st);
	const uint64_t n = sample_units(size, x);
	uint64_t k, runs = 0, empty = 0;
	struct stat now;
	off_t pos = 0, d, h;
	int own = fd < 0;
	uint8_t *b;

	if (x >= size || n < 2 || n > SIZE_MAX)
		return NULL;	/* no holes, or one unit */
	if (own) {
		if (dirfd < 0)
			return NULL;
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY |
					 O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			return NULL;
		if (fstat(fd, &now) || now.st_dev != st->st_dev ||
		    now.st_ino != st->st_ino)
			goto fail;	/* replaced since it was listed */
	}
	b = array_grow(p->pb, &p->cap_pb, (size_t)n, 1);
	if (!b)
		goto fail;
	p->pb = b;
	memset(b, (int)(band | SAMPLE_PB_EMPTY), (size_t)n);
	while ((uint64_t)pos < size) {
		d = lseek(fd, pos, SEEK_DATA);
		if (d < 0 && errno == ENXIO)
			break;		/* no more data */
		if (d < 0)
			goto fail;	/* no SEEK_DATA: all data */
		h = ++runs > SAMPLEPLAN_HOLE_RUNS ? -1 :
		    lseek(fd, d, SEEK_HOLE);
		if (h <= d)
			h = (off_t)size;	/* the rest taken as data */
		for (k = (uint64_t)d / SAMPLE_CHUNK;
		     k < n && k * SAMPLE_CHUNK < (uint64_t)h; k++)
			b[k] = (uint8_t)band;
		pos = h;
	}
	for (k = 0; k < n; k++)
		empty += !!(b[k] & SAMPLE_PB_EMPTY);
	if (own)
		close(fd);
	return empty ? b : NULL;
fail:
	if (own)
		close(fd);
	return NULL;
}

static int sampleplan_stat(struct sampleplan *p, int fd, int dirfd,
			   const char *name, const char *path,
			   const struct stat *st)
{
	uint64_t key = sample_key(st->st_dev, st->st_ino);
	const uint8_t *pb = NULL;
	unsigned band = 0;
	uint16_t q = 0;
	int ret, kind = 0, known = 0;

	if (st->st_nlink > 1) {
		/* counted once: before its band is searched */
		ret = seen_insert(p->links, key);
		if (ret <= 0)
			return ret;
	}
	if (p->o->bands && st->st_size)
		band = sampleplan_band(p, st, &q, &known);
	if (!band && !known && st->st_size) {
		/* its current ratio not known: what its name suggests, for
		 * the whole file (no extents for its parts).  Extents read
		 * that hold no data (prealloc, holes, data not yet written
		 * back) are band 0, as the fast scan's pre-pass has them
		 * (sample_dir()): both then draw the same sample. */
		band = sample_kind(path);
		kind = 1;
		pb = sampleplan_holes(p, fd, dirfd, name, st, band);
	}
	return sampleplan_add_band(p, key, 1, st->st_size,
				   sample_data_bytes(st), band, q, kind,
				   sampleplan_name_kind(st->st_nlink, path),
				   pb, NULL);
}

static int sampleplan_file(void *arg, int *fd, const char *path,
			   const struct stat *st, int depth)
{
	(void)depth;
	return sampleplan_stat(arg, *fd, -1, NULL, path, st);
}

static int sampleplan_file_at(void *arg, int dirfd, const char *name,
			      const char *path, const struct stat *st,
			      int depth)
{
	(void)depth;
	return sampleplan_stat(arg, -1, dirfd, name, path, st);
}

static int sampleplan_dir(void *arg, int fd, const char *path,
			  const struct stat *st, int depth)
{
	struct sampleplan *p = arg;

	return p->o->dir(p->o->arg, p, fd, path, st, depth);
}

/* A new filesystem or subvolume: keep a descriptor on it to search. */
static int sampleplan_enter_fs(void *arg, int fd, const char *path,
			       const struct stat *st, int top)
{
	struct sampleplan *p = arg;
	struct sampleplan_dev *d;

	(void)path;
	(void)top;
	if (!p->o->bands || sampleplan_dev(p, st->st_dev))
		return WALK_ENTER;
	d = array_grow(p->devs, &p->cap_devs, p->ndevs, sizeof(*d));
	if (!d)
		return -ENOMEM;
	p->devs = d;
	d = &p->devs[p->ndevs++];
	d->dev = st->st_dev;
	d->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	return WALK_ENTER;
}

static int sampleplan_tick(void *arg)
{
	(void)arg;
	return 0;
}

size_t sampleplan_files(const struct sampleplan *p)
{
	return p->nfx;
}

void sampleplan_reorder(struct sampleplan *p, size_t since,
			const struct walkorder_rank *r, size_t n)
{
	struct walkorder_rank *u = NULL, *tmp = NULL, *s, *t;
	struct sampleplan_fx f;
	size_t nf, k, j, i, q, r0;
	uint64_t *to;

	if (p->refs_failed || since >= p->nfx || p->ref_start != p->nrefs)
		return;
	nf = p->nfx - since;
	u = malloc(nf * sizeof(*u));
	tmp = malloc(nf * sizeof(*tmp));
	if (!u || !tmp)
		goto out;
	/* each file's key: its references' (they come in order of ord, a
	 * file with references each) */
	for (r0 = p->nrefs; r0 > 0 && p->refs[r0 - 1].ord >= since; r0--)
		;
	for (k = 0, i = r0; k < nf; k++) {
		if (i >= p->nrefs || p->refs[i].ord != since + k)
			goto out;
		u[k] = (struct walkorder_rank){ p->refs[i].file, k };
		while (i < p->nrefs && p->refs[i].ord == since + k)
			i++;
	}
	/* each file's place in the walk, both by key (a file with several
	 * names: its first, the first of its key's), into key */
	s = walkorder_sort(u, tmp, nf);
	if (!s)
		goto out;
	for (j = q = 0; j < nf; j++) {
		while (q < n && r[q].key < s[j].key)
			q++;
		if (q >= n || r[q].key != s[j].key)
			goto out;
		s[j].key = r[q].rank;
	}
	/* by place: rank then holds k, the file there */
	t = s == u ? tmp : u;
	s = walkorder_sort(s, t, nf);
	if (!s)
		goto out;
	t = s == u ? tmp : u;
	for (j = 0; j < nf && s[j].rank == j; j++)
		;
	if (j == nf)
		goto out;	/* in the walk's order already */
	/* the references keep their places, their files' ords change
	 * (sampleplan_away() takes each extent's first by ord) */
	to = (uint64_t *)t;
	for (j = 0; j < nf; j++)
		to[s[j].rank] = j;
	for (i = r0; i < p->nrefs; i++)
		p->refs[i].ord = (uint32_t)(since + to[p->refs[i].ord - since]);
	/* the files' facts moved to their new places, a cycle at a time */
	for (j = 0; j < nf; j++) {
		if (s[j].rank == j)
			continue;
		f = p->fx[since + j];
		for (q = j;; q = k) {
			k = s[q].rank;
			s[q].rank = q;
			if (k == j) {
				p->fx[since + q] = f;
				break;
			}
			p->fx[since + q] = p->fx[since + k];
		}
	}
out:
	free(u);
	free(tmp);
}

static void sampleplan_error(void *arg, const char *path, int err)
{
	/* the real walk reports it */
	(void)arg;
	(void)path;
	(void)err;
}

static int sampleplan_cmp(const void *a, const void *b)
{
	const struct sampleplan_ref *x = a, *y = b;

	if (x->ref != y->ref)
		return x->ref < y->ref ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* radix_refs(v, tmp, n): v[0..n) by ref (radix.h). */
RADIX_SORT_DEFINE(radix_refs, struct sampleplan_ref, ref)

/*
 * Sort the references by ref: they come in the order the files were
 * listed, and a stable sort by ref keeps it within an extent's (the
 * files put back in the walk's order have other ords:
 * sampleplan_away() looks for the least).  A radix sort (radix_refs()),
 * linear where qsort() is n log n with a call a comparison; qsort() when
 * the memory can't be had.
 */
static void sampleplan_sort(struct sampleplan *p)
{
	struct sampleplan_ref *tmp, *r;
	size_t n = p->nrefs;

	if (n < 2)
		return;
	tmp = malloc(n * sizeof(*tmp));
	r = tmp ? radix_refs(p->refs, tmp, n) : NULL;
	if (!r)
		qsort(p->refs, n, sizeof(*p->refs), sampleplan_cmp);
	else if (r != p->refs)
		memcpy(p->refs, r, n * sizeof(*r));
	free(tmp);
}

/* The end of the group of references to the same as refs[i]. */
static size_t sampleplan_group(const struct sampleplan *p, size_t i)
{
	size_t j;

	for (j = i + 1; j < p->nrefs && p->refs[j].ref == p->refs[i].ref; j++)
		;
	return j;
}

/* Whether one of the references refs[i..j) has extents_needed. */
static int sampleplan_extents_needed(const struct sampleplan *p, size_t i,
				     size_t j)
{
	for (; i < j; i++)
		if (p->refs[i].extents_needed)
			return 1;
	return 0;
}

/*
 * The files that reference an extent or an inline item another file
 * references too, and those whose extents the same layout needs whether
 * they are drawn or not (extents_needed: preallocated space it keeps as
 * it is, a file partly overwritten whose writes it follows, layout.c):
 * NULL when out of memory.  Sorts the references.
 */
static struct seen_set *sampleplan_sharers(struct sampleplan *p)
{
	struct seen_set *s = seen_create();
	size_t i, j, k;

	if (!s || p->refs_failed) {
		seen_free(s);
		return NULL;
	}
	sampleplan_sort(p);
	for (i = 0; i < p->nrefs; i = j) {
		j = sampleplan_group(p, i);
		if (p->refs[j - 1].file == p->refs[i].file &&
		    !sampleplan_extents_needed(p, i, j))
			continue;	/* one file's only */
		for (k = i; k < j; k++)
			if ((p->fx[p->refs[k].ord].kept ?
			     seen_put(s, p->refs[k].file,
				      p->fx[p->refs[k].ord].kept) :
			     seen_insert(s, p->refs[k].file)) < 0) {
				seen_free(s);
				return NULL;
			}
	}
	return s;
}

/* The first of the references (sorted) to an extent, or p->nrefs. */
LOWER_BOUND_DEFINE(refs_find, struct sampleplan_ref, ref)

/*
 * What of each of the n parts of the big file at ord counts in the same
 * layout: of its bytes its extent items reference, those in extents no
 * file before it in the walk references (as sampleplan_away() tells an
 * extent's first file), into p->ak (a where a part's items reference
 * nothing).  Returns 1, or 0 when its items were not kept or memory is
 * short (its file's share a for every part).
 */
static int sampleplan_part_shares(struct sampleplan *p, uint32_t ord,
				  uint64_t n, double a)
{
	const struct sampleplan_fx *fx = &p->fx[ord];
	const struct sampleplan_item *it;
	size_t m = sampleplan_kept_count(fx->kept), i, j;
	uint64_t ref, pos, end, k, s, e;
	struct sampleplan_pbytes *by;
	double *ak;
	int own;

	if (!fx->kept || !p->kept || n > SIZE_MAX / 2)
		return 0;
	ak = array_grow(p->ak, &p->cap_ak, (size_t)n, sizeof(*ak));
	if (!ak)
		return 0;
	p->ak = ak;
	by = array_grow(p->pbytes, &p->cap_pbytes, (size_t)n, sizeof(*by));
	if (!by)
		return 0;
	p->pbytes = by;
	memset(by, 0, (size_t)n * sizeof(*by));
	it = &p->kept->v[fx->kept >> SAMPLEPLAN_KEPT_BITS];
	for (i = 0; i < m; i++, it++) {
		if (it->type == BTRFS_FILE_EXTENT_INLINE || !it->disk_bytenr ||
		    !it->num_bytes)
			continue;	/* inline, or a hole */
		ref = it->disk_bytenr & ~(1ull << 63);
		own = 1;
		for (j = refs_find(p->refs, p->nrefs, ref);
		     own && j < p->nrefs && p->refs[j].ref == ref; j++)
			own = p->refs[j].ord >= ord;
		pos = it->file_pos;
		end = pos + it->num_bytes;
		for (k = pos / SAMPLE_CHUNK; k < n && k * SAMPLE_CHUNK < end;
		     k++) {
			s = k * SAMPLE_CHUNK > pos ? k * SAMPLE_CHUNK : pos;
			e = (k + 1) * SAMPLE_CHUNK < end ?
				    (k + 1) * SAMPLE_CHUNK : end;
			by[k].all += e - s;
			if (!own)
				continue;
			by[k].own += e - s;
			by[k].own_disk += it->compression && it->ram_bytes ?
				(e - s) * it->disk_num_bytes / it->ram_bytes :
				e - s;
			if (!it->compression &&
			    it->disk_num_bytes <= SAMPLE_ONE_SECTOR)
				by[k].own_sector += e - s;
		}
	}
	for (k = 0; k < n; k++)
		ak[k] = by[k].all ? (double)by[k].own / by[k].all : a;
	return 1;
}

/*
 * The bands of the n parts of a big file away of which some counts,
 * into b: each part's band (old, or the file's band) with what of it
 * counts (p->ak: SAMPLE_PB_COUNTS from half, SAMPLE_PB_COPY for none,
 * else the file's away strata).  A part in the file's away strata takes
 * its own bytes' current ratio for a band (a raw one keeps a kind): what
 * counts of it is those, and in a disk image beside its snapshots a few
 * blocks rewritten are raw (one sector each) where a write of some KiB
 * of the same data is compressed, whatever the rest of the part holds.
 * Own bytes raw now and not all in extents of one sector (written after
 * NOCOMPRESS, which compress-force= ignores) have a band of their own,
 * SAMPLE_BAND_RAW_RUNS: the raw band keeps the parts of blocks alone,
 * raw under every setting.
 */
static void sampleplan_part_bands(const struct sampleplan *p,
				  const uint8_t *old, unsigned band,
				  uint64_t n, uint8_t *b)
{
	uint64_t k;
	unsigned code, pb, ob;

	for (k = 0; k < n; k++) {
		code = p->ak[k] >= 0.5 ? SAMPLE_PB_COUNTS :
		       p->ak[k] <= 0 ? SAMPLE_PB_COPY : 0;
		pb = (old ? old[k] : band) & SAMPLE_PB_BAND;
		ob = code ? 0 : sample_band(1, p->pbytes[k].own,
					    p->pbytes[k].own_disk);
		/* raw now, not all in blocks of one sector: what a
		 * setting may yet compress, a band of its own */
		if (ob == SAMPLE_BAND_RAW && pb < SAMPLE_BAND_RAW &&
		    p->pbytes[k].own_sector < p->pbytes[k].own)
			pb = SAMPLE_BAND_RAW_RUNS;
		else if (ob && (ob != SAMPLE_BAND_RAW || pb < SAMPLE_BAND_RAW))
			pb = ob;
		b[k] = (uint8_t)(pb | (old ? old[k] & SAMPLE_PB_EMPTY : 0) |
				 code << SAMPLE_PB_SLOT);
	}
}

/*
 * The file of reference r, which a file before it in the walk shares the
 * extent or the inline item of: when more than half of its data (by the
 * bytes each reference covers) is in such extents, little or nothing of
 * it counts in the same layout (layout.h); in such inline items, all or
 * nothing of it does, by where the setting stores them
 * (SAMPLE_JUMP_DRAWS).  Either way its units go to strata of their own
 * (SAMPLE_AWAY), apart from those that count in full, into the table and
 * the population, a big file's parts each by what of it counts
 * (sampleplan_part_shares()); once.  Returns 0 or -ENOMEM.
 */
static int sampleplan_move_away(struct sampleplan *p,
				const struct sampleplan_ref *r)
{
	struct sampleplan_fx *fx = &p->fx[r->ord];
	const uint8_t *pb;
	uint8_t *b;
	unsigned band, away;
	uint64_t n;
	double a;

	if (fx->away + fx->inl <= fx->total / 2)
		return 0;	/* counts (or done) */
	/* what of it counts: in the same layout its own share, otherwise
	 * all of it (opts.weigh_away); an inline item counts with every
	 * file where the setting keeps it inline, and not at all where it
	 * makes an extent of it: all of it may count */
	a = !p->o->weigh_away ? 1 :
	    fx->away < fx->total ? 1 - (double)fx->away / fx->total : 0;
	fx->away = fx->inl = 0;
	band = sample_bands_get(p->bands, r->file);
	pb = sample_bands_parts(p->bands, r->file,
				sample_units(fx->size, fx->x));
	if (!band || (pb && (pb[0] >> SAMPLE_PB_SLOT) & SAMPLE_PB_SLOTS))
		return 0;	/* not known, or its own strata */
	/* the copies that count nothing apart: the plan draws those that
	 * do at their own share */
	away = SAMPLE_AWAY | (p->o->weigh_away && a > 0 ? SAMPLE_AWAY_OWN : 0);
	/* a big file: each part by what of it counts (a write of its own
	 * is in some of its parts, not spread over all) */
	n = sample_units(fx->size, fx->x);
	b = (away & SAMPLE_AWAY_OWN) && n >= 2 && n <= SIZE_MAX &&
		    sampleplan_part_shares(p, r->ord, n, a) ?
		    array_grow(p->pb, &p->cap_pb, (size_t)n, 1) :
		    NULL;
	if (b) {
		p->pb = b;
		sampleplan_part_bands(p, pb, band, n, b);
	}
	sample_pop_remove_parts(&p->pop, fx->size, fx->x, band, pb);
	sample_pop_add_parts(&p->pop, fx->size, fx->x, band | away,
			     b ? b : pb);
	if (b)
		sample_pop_add_counted_parts(&p->pop, fx->size, fx->x,
					     band | away, b, p->ak);
	else
		sample_pop_add_counted(&p->pop, fx->size, fx->x, band | away,
				       pb, a);
	if (b && sample_bands_put_parts(p->bands, r->file, b, n))
		return -ENOMEM;
	return sample_bands_put(p->bands, r->file, band | away) ? -ENOMEM : 0;
}

/*
 * The files that hold more than half of their data in extents or inline
 * items another file met before in the walk references (a snapshot's or
 * a reflinked copy's, the walk that reads meeting them in the same
 * order), moved away (sampleplan_move_away()).  An extent's first file in
 * the walk meets it first, so only the extents and items several files
 * reference are looked at: their later files' references, the bytes
 * first, then the files.  After sampleplan_sharers() (sorted
 * references).  Returns 0 or -ENOMEM.
 */
static int sampleplan_away(struct sampleplan *p)
{
	size_t i, j, k;
	int pass, ret;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < p->nrefs; i = j) {
			const struct sampleplan_ref *r = &p->refs[i];

			j = sampleplan_group(p, i);
			if (j - i < 2)
				continue;
			/* the first in the walk: the files put back in its
			 * order keep their references where they were
			 * (sampleplan_reorder()) */
			for (k = i + 1; k < j; k++)
				if (p->refs[k].ord < r->ord)
					r = &p->refs[k];
			for (k = i; k < j; k++) {
				const struct sampleplan_ref *q = &p->refs[k];

				if (q->ord == r->ord)
					continue;	/* its own */
				if (!pass) {
					*(r->ref >> 63 ? &p->fx[q->ord].inl :
					  &p->fx[q->ord].away) += q->bytes;
					continue;
				}
				ret = sampleplan_move_away(p, q);
				if (ret)
					return ret;
			}
		}
	return 0;
}

int sampleplan_run(char *const *paths, int n, const struct walk_opts *wo,
		   const struct sampleplan_opts *o, struct sample_design *d,
		   int *sampling, struct sample_bands **bands,
		   struct seen_set **sharers, struct sampleplan_kept **kept)
{
	const struct walk_ops ops = {
		.file = sampleplan_file,
		.file_at = sampleplan_file_at,
		.dir = o->dir ? sampleplan_dir : NULL,
		.enter_fs = sampleplan_enter_fs,
		.tick = sampleplan_tick,
		.error = sampleplan_error,
	};
	struct sampleplan p = { .o = o };
	struct walk_opts so = *wo;
	uint64_t total, bytes = o->bytes;
	size_t k;
	int i, ret = -ENOMEM;

	*sampling = 0;
	*bands = NULL;
	*sharers = NULL;
	*kept = NULL;
	p.links = seen_create();
	p.bands = sample_bands_create();
	/* without it every sharer is searched by the walk */
	if (o->sharers)
		p.kept = calloc(1, sizeof(*p.kept));
	if (!p.links || !p.bands)
		goto out;
	if (o->bands) {
		p.search = search_create(SAMPLEPLAN_SEARCH_BUF);
		if (!p.search)
			goto out;
	}
	so.stat_files = 1;
	for (i = 0, ret = 0; i < n && !ret; i++)
		ret = walk_path(paths[i], &so, &ops, &p);
	if (ret)
		goto out;
	ret = sampleplan_own(&p);
	if (ret)
		goto out;
	total = sample_pop_bytes(&p.pop);
	if (!bytes)
		bytes = (uint64_t)(o->frac * total);
	if (bytes < total) {
		if (o->bands && o->sharers) {
			*sharers = sampleplan_sharers(&p);
			ret = *sharers ? sampleplan_away(&p) : 0;
			if (ret)
				goto out;
			if (*sharers) {
				*kept = p.kept;
				p.kept = NULL;
			}
		}
		/* strata by the names' kinds alone mix more than by
		 * current ratios: more draws each */
		if (p.ratios)
			sample_plan(d, &p.pop, bytes, o->seed);
		else
			sample_plan_floors(d, &p.pop, bytes, o->seed,
					   SAMPLE_MIN_DRAWS_KIND,
					   SAMPLE_MIN_DRAWS_KIND_OWN);
		*sampling = 1;
		*bands = p.bands;
		p.bands = NULL;
	}
out:
	for (k = 0; k < p.ndevs; k++)
		if (p.devs[k].fd >= 0)
			close(p.devs[k].fd);
	free(p.devs);
	free(p.refs);
	free(p.fx);
	sampleplan_kept_free(p.kept);
	free(p.pb);
	free(p.pq);
	free(p.ak);
	free(p.pbytes);
	sample_parts_free(&p.parts);
	search_free(p.search);
	sample_bands_free(p.bands);
	seen_free(p.links);
	return ret;
}
