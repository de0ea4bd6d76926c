// SPDX-License-Identifier: GPL-2.0
/*
 * --levels: which compression level wrote an extent.  btrfs keeps the
 * algorithm of an extent but not its level; the data, compressed again
 * with the kernel's parameters and framing at the right level, gives the
 * stored bytes back exactly.  The extent is decompressed (its data may
 * not be readable through any file: a bookend, a reflinked part), then
 * compressed at each candidate level and compared byte for byte.  Where
 * this build's codec is not the kernel's version no level gives the bytes
 * back, and the answer is "none", never the nearest.
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "estimate/plugin/internal.h"

#define LVL_ZSTD_N	(EST_LEVEL_MAX - EST_LEVEL_MIN + 1)
#define LVL_ZLIB_MAX	9

struct est_lvl {
	uint32_t sectorsize;
	void *zstd_ws;				/* one, its level changed */
	void *zlib_ws[LVL_ZLIB_MAX + 1];	/* by level, made when needed */
	ZSTD_DCtx *dctx;
	z_stream inf;
	bool inf_ok;
	uint8_t *data;		/* the extent decompressed */
	uint8_t *out;		/* compressed again */
};

struct est_lvl *est_lvl_create(uint32_t sectorsize)
{
	struct est_lvl *lv = calloc(1, sizeof(*lv));

	if (!lv)
		return NULL;
	lv->sectorsize = sectorsize ? sectorsize : 4096;
	lv->data = malloc(EST_PIECE_MAX);
	lv->out = malloc(EST_OUT_MAX);
	lv->dctx = ZSTD_createDCtx();
	lv->inf_ok = inflateInit(&lv->inf) == Z_OK;
	if (!lv->data || !lv->out || !lv->dctx || !lv->inf_ok) {
		free(lv->data);
		free(lv->out);
		ZSTD_freeDCtx(lv->dctx);
		if (lv->inf_ok)
			inflateEnd(&lv->inf);
		free(lv);
		errno = ENOMEM;
		return NULL;
	}
	return lv;
}

void est_lvl_free(struct est_lvl *lv)
{
	int i;

	if (!lv)
		return;
	if (lv->zstd_ws)
		est_zstd_ops.ws_free(lv->zstd_ws);
	for (i = 0; i <= LVL_ZLIB_MAX; i++)
		if (lv->zlib_ws[i])
			est_zlib_ops.ws_free(lv->zlib_ws[i]);
	ZSTD_freeDCtx(lv->dctx);
	inflateEnd(&lv->inf);
	free(lv->data);
	free(lv->out);
	free(lv);
}

/*
 * The parameters zstd.c gives level for an input of len bytes
 * (zstd_get_btrfs_parameters(): the window capped): two levels with the
 * same write the same bytes.
 */
static ZSTD_compressionParameters zstd_cparams(int level, size_t len)
{
	ZSTD_compressionParameters c = ZSTD_getParams(level, len, 0).cParams;

	if (c.windowLog > 17)
		c.windowLog = 17;
	return c;
}

/* The extent's data into lv->data: its length, or -EIO.  *clen: the
 * length of the compressed stream (the rest of enc is padding). */
static long lvl_decompress(struct est_lvl *lv, enum est_alg alg,
			   const uint8_t *enc, size_t n, size_t *clen)
{
	size_t r;

	if (alg == EST_ZSTD) {
		r = ZSTD_findFrameCompressedSize(enc, n);
		if (ZSTD_isError(r))
			return -EIO;
		*clen = r;
		r = ZSTD_decompressDCtx(lv->dctx, lv->data, EST_PIECE_MAX,
					enc, r);
		return ZSTD_isError(r) ? -EIO : (long)r;
	}
	/* zlib: the stream ends itself, its header and adler32 included */
	if (inflateReset(&lv->inf) != Z_OK)
		return -EIO;
	lv->inf.next_in = (Bytef *)enc;
	lv->inf.avail_in = n;
	lv->inf.next_out = lv->data;
	lv->inf.avail_out = EST_PIECE_MAX;
	if (inflate(&lv->inf, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	*clen = lv->inf.total_in;
	return (long)lv->inf.total_out;
}

/* Whether level reproduces enc's clen bytes from len bytes of data: 1,
 * 0, or -errno. */
static int lvl_try(struct est_lvl *lv, enum est_alg alg, int level,
		   size_t len, const uint8_t *enc, size_t clen)
{
	void *ws;
	long r;

	if (alg == EST_ZSTD) {
		if (!lv->zstd_ws) {
			/* sized for the largest level: the others need no
			 * more, or it grows (zstd.c) */
			lv->zstd_ws = est_zstd_ops.ws_create(EST_LEVEL_MAX);
			if (!lv->zstd_ws)
				return -ENOMEM;
		}
		est_zstd_ws_level(lv->zstd_ws, level);
		r = est_zstd_ops.compress(lv->zstd_ws, lv->sectorsize,
					  lv->data, len, lv->out, EST_OUT_MAX);
	} else {
		ws = lv->zlib_ws[level];
		if (!ws) {
			ws = est_zlib_ops.ws_create(level);
			if (!ws)
				return -ENOMEM;
			lv->zlib_ws[level] = ws;
		}
		r = est_zlib_compress_as(ws, lv->data, len, lv->out,
					 EST_OUT_MAX, enc, clen);
	}
	if (r < 0)
		return (int)r;
	return (size_t)r == clen && !memcmp(lv->out, enc, clen);
}

int est_lvl_match(struct est_lvl *lv, enum est_alg alg, const uint8_t *enc,
		  size_t n, uint64_t ulen, uint64_t *mask)
{
	ZSTD_compressionParameters cp[LVL_ZSTD_N];
	int lo, hi, l, k, ret;
	uint64_t done = 0, same;
	size_t clen = 0;
	long len;

	*mask = 0;
	if (alg != EST_ZSTD && alg != EST_ZLIB)
		return -EINVAL;
	len = lvl_decompress(lv, alg, enc, n, &clen);
	if (len <= 0 || (uint64_t)len > ulen)
		return -EIO;
	lo = alg == EST_ZSTD ? EST_LEVEL_MIN : 1;
	hi = alg == EST_ZSTD ? EST_LEVEL_MAX : LVL_ZLIB_MAX;
	if (alg == EST_ZSTD)
		for (l = lo; l <= hi; l++)
			if (l)
				cp[l - lo] = zstd_cparams(l, (size_t)len);
	/*
	 * Every level: two of other parameters may write the same bytes
	 * (zlib 8 and 9 where no chain is long, zstd's neighbours on small
	 * pieces), and a set found by stopping at the first would lack the
	 * level that wrote it.  Levels of the same parameters are tried
	 * once.
	 */
	for (l = lo; l <= hi; l++) {
		if (!l || (done & EST_LEVEL_BIT(l)))
			continue;
		same = EST_LEVEL_BIT(l);
		if (alg == EST_ZSTD)
			for (k = l + 1; k <= hi; k++)
				if (k && !memcmp(&cp[k - lo], &cp[l - lo],
						 sizeof(cp[0])))
					same |= EST_LEVEL_BIT(k);
		done |= same;
		ret = lvl_try(lv, alg, l, (size_t)len, enc, clen);
		if (ret < 0)
			return ret;
		if (ret)
			*mask |= same;
	}
	return 0;
}

const char *est_lvl_codec(enum est_alg alg)
{
	static const char zstd[] = "libzstd " ZSTD_VERSION_STRING;
	static const char zlib[] = "zlib " ZLIB_VERSION;

	return alg == EST_ZSTD ? zstd : zlib;
}
