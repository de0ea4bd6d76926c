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

struct levels {
	const struct est_ops *ops;
	struct est_lvl *lvl;
	struct levels_fs *fs;
	size_t nfs, cap_fs;
	struct report_level *rows;
	size_t nrows, cap_rows;
	int sorted;
	uint8_t *enc;
	struct {
		struct fiemap fm;
		struct fiemap_extent fe[LEVELS_FIEMAP_BATCH];
	} map;
};

struct levels *levels_create(void)
{
	struct levels *lv = calloc(1, sizeof(*lv));

	if (!lv)
		return NULL;
	lv->ops = est_plugin_ops();
	lv->enc = malloc(LEVELS_ENC_MAX);
	if (!lv->ops || !lv->enc) {
		levels_free(lv);
		errno = lv->ops ? ENOMEM : EINVAL;
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
	free(lv->rows);
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

static int levels_add(struct levels *lv, uint8_t type, uint64_t mask,
		      uint64_t disk)
{
	struct report_level *r;
	size_t i;

	for (i = 0; i < lv->nrows; i++) {
		r = &lv->rows[i];
		if (r->type == type && r->mask == mask) {
			r->extents++;
			r->disk += disk;
			return 0;
		}
	}
	r = array_grow(lv->rows, &lv->cap_rows, lv->nrows, sizeof(*r));
	if (!r)
		return -ENOMEM;
	lv->rows = r;
	r = &lv->rows[lv->nrows++];
	memset(r, 0, sizeof(*r));
	r->type = type;
	r->mask = mask;
	r->extents = 1;
	r->disk = disk;
	lv->sorted = 0;
	return 0;
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
	uint64_t mask = 0;
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
	if (key) {
		ret = seen_insert(seen, key);
		if (ret <= 0)
			return ret;
	}
	ret = lv->ops->lvl_match(lv->lvl, alg, lv->enc, (size_t)n,
				 ea.unencoded_len, &mask);
	/* data that does not decompress: no level can be told */
	if (ret == -EIO)
		mask = 0;
	else if (ret)
		return ret;
	return levels_add(lv, (uint8_t)alg, mask, (uint64_t)n);
}

int levels_file(struct levels *lv, int fd, const struct stat *st)
{
	struct fiemap *fm = &lv->map.fm;
	struct fiemap_extent *fe;
	struct seen_set *seen = levels_seen(lv, st->st_dev);
	uint64_t start = 0, off, end, len;
	unsigned i;
	int ret, last = 0;

	if (!seen)
		return -ENOMEM;
	while (!last) {
		memset(&lv->map, 0, sizeof(lv->map));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_extent_count = LEVELS_FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
			return errno == ENOTTY ? -EOPNOTSUPP : -errno;
		if (!fm->fm_mapped_extents)
			break;
		for (i = 0; i < fm->fm_mapped_extents; i++) {
			fe = &lv->map.fe[i];
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
	if (!lv->sorted) {
		qsort(lv->rows, lv->nrows, sizeof(*lv->rows), level_cmp);
		lv->sorted = 1;
	}
	*n = lv->nrows;
	return lv->rows;
}

void levels_note(struct levels *lv, FILE *err)
{
	static const enum est_alg algs[] = { EST_ZLIB, EST_ZSTD };
	uint64_t n, bytes;
	size_t i, k;

	for (k = 0; k < sizeof(algs) / sizeof(algs[0]); k++) {
		n = bytes = 0;
		for (i = 0; i < lv->nrows; i++)
			if (lv->rows[i].type == algs[k] && !lv->rows[i].mask) {
				n += lv->rows[i].extents;
				bytes += lv->rows[i].disk;
			}
		if (!n)
			continue;
		fprintf(err, "compsize: --levels: no level of %s reproduces %" PRIu64 " %s extent%s (%" PRIu64 " bytes): another version of the codec wrote them, level not told\n",
			lv->ops->lvl_codec(algs[k]), n,
			algs[k] == EST_ZSTD ? "zstd" : "zlib", n > 1 ? "s" : "",
			bytes);
	}
}
