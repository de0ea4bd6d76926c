// SPDX-License-Identifier: GPL-2.0
/* --levels (levels.h): the extents read, each once, and their levels summed. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <linux/btrfs.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include "lib/array.h"
#include "seen.h"
#include "estimate/estimate.h"
#include "estimate/levels.h"
#include "estimate/plugin.h"

/* FIEMAP's extents asked for at a time */
#define LEVELS_FIEMAP_BATCH 128
/* The most an ENCODED_READ of one extent returns (BTRFS_MAX_COMPRESSED),
 * with room for a sector of padding */
#define LEVELS_ENC_MAX (128u * 1024 + 64 * 1024)

struct levels_fs {
	dev_t dev;
	struct seen_set *seen;
};

/* The rows' sums: the run's, and each open report row's. */
struct levels_sum {
	struct report_level *rows;
	size_t nrows, cap_rows;
	int sorted;
	struct seen_set *seen;	/* an open report row's extents counted */
};

struct levels {
	const struct est_ops *ops;
	struct est_lvl *lvl;
	struct levels_fs *fs;
	size_t nfs, cap_fs;
	struct levels_sum all;
	struct levels_sum *open;	/* levels_push(), innermost last */
	size_t nopen, cap_open;
	/* by algorithm (zstd 1): extents that did not decompress */
	uint64_t undecoded[2], undecoded_bytes[2];
	uint64_t done;		/* disk bytes read: levels_counts() */
	uint8_t *enc;
	/* FIEMAP's header and LEVELS_FIEMAP_BATCH extents after it */
	struct fiemap *fm;
};

#define LEVELS_FM_SIZE	(sizeof(struct fiemap) + \
			 LEVELS_FIEMAP_BATCH * sizeof(struct fiemap_extent))

struct levels *levels_create(void)
{
	struct levels *lv = calloc(1, sizeof(*lv));

	if (!lv)
		return NULL;
	lv->ops = est_plugin_ops();
	lv->enc = malloc(LEVELS_ENC_MAX);
	lv->fm = malloc(LEVELS_FM_SIZE);
	if (!lv->ops || !lv->enc || !lv->fm) {
		int err = lv->ops ? ENOMEM : EINVAL;

		levels_free(lv);
		errno = err;
		return NULL;
	}
	lv->lvl = lv->ops->lvl_create(0);
	if (!lv->lvl) {
		levels_free(lv);
		errno = ENOMEM;
		return NULL;
	}
	return lv;
}

void levels_free(struct levels *lv)
{
	size_t i;

	if (!lv)
		return;
	if (lv->lvl)
		lv->ops->lvl_free(lv->lvl);
	for (i = 0; i < lv->nfs; i++)
		seen_free(lv->fs[i].seen);
	free(lv->fs);
	free(lv->fm);
	free(lv->all.rows);
	for (i = 0; i < lv->nopen; i++) {
		free(lv->open[i].rows);
		seen_free(lv->open[i].seen);
	}
	free(lv->open);
	free(lv->enc);
	free(lv);
}

static struct seen_set *levels_seen(struct levels *lv, dev_t dev)
{
	struct levels_fs *f;
	size_t i;

	for (i = 0; i < lv->nfs; i++)
		if (lv->fs[i].dev == dev)
			return lv->fs[i].seen;
	f = array_grow(lv->fs, &lv->cap_fs, lv->nfs, sizeof(*f));
	if (!f)
		return NULL;
	lv->fs = f;
	f = &lv->fs[lv->nfs];
	f->dev = dev;
	f->seen = seen_create();
	if (!f->seen)
		return NULL;
	lv->nfs++;
	return f->seen;
}

static int levels_add(struct levels_sum *sum, uint8_t type, uint64_t mask,
		      uint64_t disk)
{
	struct report_level *r;
	size_t i;

	for (i = 0; i < sum->nrows; i++) {
		r = &sum->rows[i];
		if (r->type == type && r->mask == mask) {
			r->extents++;
			r->disk += disk;
			return 0;
		}
	}
	r = array_grow(sum->rows, &sum->cap_rows, sum->nrows, sizeof(*r));
	if (!r)
		return -ENOMEM;
	sum->rows = r;
	r = &sum->rows[sum->nrows++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->mask = mask;
	r->extents = 1;
	r->disk = disk;
	sum->sorted = 0;
	return 0;
}

/*
 * What the run keeps of an extent told: its set, type and disk bytes in
 * one value (the set's 31 bits, the type above them, the bytes above
 * that), and back.
 */
#define LEVELS_TYPE_SHIFT 32
#define LEVELS_DISK_SHIFT 40

static uint64_t levels_pack(uint8_t type, uint64_t mask, uint64_t disk)
{
	return mask | (uint64_t)type << LEVELS_TYPE_SHIFT |
	       disk << LEVELS_DISK_SHIFT;
}

/* An extent (key: its address, 0 for inline data) into each open row
 * that has not counted it. */
static int levels_add_open(struct levels *lv, uint64_t key, uint64_t v)
{
	size_t i;
	int ret;

	for (i = 0; i < lv->nopen; i++) {
		if (key) {
			ret = seen_insert(lv->open[i].seen, key);
			if (ret < 0)
				return ret;
			if (!ret)
				continue;
		}
		ret = levels_add(&lv->open[i], (uint8_t)(v >> LEVELS_TYPE_SHIFT),
				 v & (EST_LEVEL_BIT(EST_LEVEL_MAX + 1) - 1),
				 v >> LEVELS_DISK_SHIFT);
		if (ret)
			return ret;
	}
	return 0;
}

int levels_push(struct levels *lv)
{
	struct levels_sum *o = array_grow(lv->open, &lv->cap_open, lv->nopen,
					  sizeof(*o));

	if (!o)
		return -ENOMEM;
	lv->open = o;
	o = &lv->open[lv->nopen];
	memset(o, 0, sizeof(*o));
	o->seen = seen_create();
	if (!o->seen)
		return -ENOMEM;
	lv->nopen++;
	return 0;
}

static int level_cmp(const void *a, const void *b);

struct report_level *levels_pop(struct levels *lv, size_t *n)
{
	struct levels_sum *o = &lv->open[--lv->nopen];

	seen_free(o->seen);
	qsort(o->rows, o->nrows, sizeof(*o->rows), level_cmp);
	*n = o->nrows;
	return o->rows;
}

/*
 * One extent: the one referenced at file offset off.  *len gets the
 * bytes of the file it covers from off (0: none there).  key: its disk
 * address, 0 for inline data (in no other file).
 */
static int levels_extent(struct levels *lv, int fd, struct seen_set *seen,
			 uint64_t off, uint64_t key, uint64_t *len)
{
	struct iovec iov = { lv->enc, LEVELS_ENC_MAX };
	struct btrfs_ioctl_encoded_io_args ea = {
		.iov = &iov,
		.iovcnt = 1,
		.offset = off,
	};
	enum est_alg alg;
	uint64_t mask = 0, v;
	long n;
	int ret;

	*len = 0;
	n = ioctl(fd, BTRFS_IOC_ENCODED_READ, &ea);
	if (n < 0) {
		if (errno == ENOTTY || errno == EINVAL)
			return -EOPNOTSUPP;
		return -errno;
	}
	*len = ea.len;
	__atomic_fetch_add(&lv->done, (uint64_t)n, __ATOMIC_RELAXED);
	switch (ea.compression) {
	case BTRFS_ENCODED_IO_COMPRESSION_ZLIB:
		alg = EST_ZLIB;
		break;
	case BTRFS_ENCODED_IO_COMPRESSION_ZSTD:
		alg = EST_ZSTD;
		break;
	default:
		/* lzo has no levels; a raw extent met at a changed offset */
		return 0;
	}
	if (key && seen_contains(seen, key))
		/* told already: only the rows opened since count it */
		return levels_add_open(lv, key, seen_value(seen, key));
	ret = lv->ops->lvl_match(lv->lvl, alg, lv->enc, (size_t)n,
				 ea.unencoded_len, &mask);
	/* data that does not decompress: no level can be told */
	if (ret == -EIO) {
		lv->undecoded[alg == EST_ZSTD]++;
		lv->undecoded_bytes[alg == EST_ZSTD] += (uint64_t)n;
	} else if (ret) {
		return ret;
	}
	v = levels_pack((uint8_t)alg, mask, (uint64_t)n);
	if (key) {
		ret = seen_put(seen, key, v);
		if (ret < 0)
			return ret;
	}
	ret = levels_add(&lv->all, (uint8_t)alg, mask, (uint64_t)n);
	return ret ? ret : levels_add_open(lv, key, v);
}

int levels_file(struct levels *lv, int fd, const struct stat *st)
{
	struct fiemap *fm = lv->fm;
	struct fiemap_extent *fe;
	struct seen_set *seen = levels_seen(lv, st->st_dev);
	uint64_t start = 0, off, end, len;
	unsigned i;
	int ret, last = 0;

	if (!seen)
		return -ENOMEM;
	while (!last) {
		memset(fm, 0, LEVELS_FM_SIZE);
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_extent_count = LEVELS_FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
			return errno == ENOTTY ? -EOPNOTSUPP : -errno;
		if (!fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			fe = &fm->fm_extents[i];
			last = !!(fe->fe_flags & FIEMAP_EXTENT_LAST);
			start = fe->fe_logical + fe->fe_length;
			if (!(fe->fe_flags & FIEMAP_EXTENT_ENCODED))
				continue;
			/*
			 * FIEMAP merges extents that follow each other on
			 * disk as they do in the file: each is read at its
			 * own offset, its address the merged one's plus
			 * that offset.
			 */
			end = fe->fe_logical + fe->fe_length;
			for (off = fe->fe_logical; off < end; off += len) {
				ret = levels_extent(
					lv, fd, seen, off,
					fe->fe_flags & FIEMAP_EXTENT_DATA_INLINE ?
						0 : fe->fe_physical + off -
						fe->fe_logical,
					&len);
				if (ret)
					return ret;
				if (!len)
					break;
			}
		}
	}
	return 0;
}

void levels_counts(void *arg, uint64_t *done, uint64_t *total,
		   int *total_known)
{
	struct levels *lv = arg;

	*done = __atomic_load_n(&lv->done, __ATOMIC_RELAXED);
	*total = 0;
	*total_known = 0;
}

static int level_cmp(const void *a, const void *b)
{
	const struct report_level *x = a, *y = b;
	uint64_t lx = x->mask & -x->mask, ly = y->mask & -y->mask;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	/* the unknown (no bit) last, else by the lowest level */
	if (!x->mask || !y->mask)
		return !x->mask - !y->mask;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x->mask < y->mask ? -1 : x->mask > y->mask;
}

const struct report_level *levels_rows(struct levels *lv, size_t *n)
{
	if (!lv->all.sorted) {
		qsort(lv->all.rows, lv->all.nrows, sizeof(*lv->all.rows),
		      level_cmp);
		lv->all.sorted = 1;
	}
	*n = lv->all.nrows;
	return lv->all.rows;
}

void levels_note(struct levels *lv, FILE *err)
{
	static const enum est_alg algs[] = { EST_ZLIB, EST_ZSTD };
	uint64_t n, bytes;
	size_t i, k;

	for (k = 0; k < sizeof(algs) / sizeof(algs[0]); k++) {
		n = bytes = 0;
		for (i = 0; i < lv->all.nrows; i++)
			if (lv->all.rows[i].type == algs[k] &&
			    !lv->all.rows[i].mask) {
				n += lv->all.rows[i].extents;
				bytes += lv->all.rows[i].disk;
			}
		if (lv->undecoded[algs[k] == EST_ZSTD])
			fprintf(err, "compsize: --levels: %" PRIu64 " %s extent%s did not decompress: level not told\n",
				lv->undecoded[algs[k] == EST_ZSTD],
				algs[k] == EST_ZSTD ? "zstd" : "zlib",
				lv->undecoded[algs[k] == EST_ZSTD] > 1 ? "s" : "");
		n -= lv->undecoded[algs[k] == EST_ZSTD];
		bytes -= lv->undecoded_bytes[algs[k] == EST_ZSTD];
		if (!n)
			continue;
		fprintf(err, "compsize: --levels: no level of %s reproduces %" PRIu64 " %s extent%s (%" PRIu64 " bytes): another version of the codec wrote them, level not told\n",
			lv->ops->lvl_codec(algs[k]), n,
			algs[k] == EST_ZSTD ? "zstd" : "zlib", n > 1 ? "s" : "",
			bytes);
	}
}
