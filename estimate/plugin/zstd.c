// SPDX-License-Identifier: GPL-2.0
/*
 * zstd as btrfs uses it: fs/btrfs/zstd.c zstd_compress_folios() with
 * zstd_get_btrfs_parameters().
 */
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_c_useRowMatchFinder */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "estimate/plugin/internal.h"

/* ZSTD_BTRFS_MAX_WINDOWLOG */
#define EST_ZSTD_MAX_WINDOWLOG 17

struct est_zstd_ws {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	void *static_ws;	/* cctx's memory, if it is a static one */
	int level;
};

/*
 * The kernel sizes the parameters to the piece (so pieces of 16 KiB or
 * less get the small-input table) and caps the window.  Userspace libzstd
 * would turn on the row match finder for levels 5-10; the kernel never
 * does at windowLog <= 17.  Sets them on c, or on cp if c is NULL.
 */
static int est_zstd_params(ZSTD_CCtx *c, ZSTD_CCtx_params *cp, int level,
			   size_t len)
{
	ZSTD_parameters par = ZSTD_getParams(level, len, 0);
	const struct {
		ZSTD_cParameter p;
		int v;
	} set[] = {
		{ ZSTD_c_windowLog, par.cParams.windowLog <
		  EST_ZSTD_MAX_WINDOWLOG ? (int)par.cParams.windowLog :
		  EST_ZSTD_MAX_WINDOWLOG },
		{ ZSTD_c_chainLog, par.cParams.chainLog },
		{ ZSTD_c_hashLog, par.cParams.hashLog },
		{ ZSTD_c_searchLog, par.cParams.searchLog },
		{ ZSTD_c_minMatch, par.cParams.minMatch },
		{ ZSTD_c_targetLength, par.cParams.targetLength },
		{ ZSTD_c_strategy, par.cParams.strategy },
		{ ZSTD_c_contentSizeFlag, 1 },
		{ ZSTD_c_checksumFlag, 0 },
		{ ZSTD_c_useRowMatchFinder, ZSTD_ps_disable },
	};
	size_t i, r;

	for (i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		r = c ? ZSTD_CCtx_setParameter(c, set[i].p, set[i].v) :
			ZSTD_CCtxParams_setParameter(cp, set[i].p, set[i].v);
		if (ZSTD_isError(r))
			return -EINVAL;
	}
	return 0;
}

/*
 * The most memory one piece needs at this level: pieces of up to 16 KiB
 * and of up to 128 KiB get parameters from two different tables, each
 * largest at its largest size.  0 if it can't be told.
 */
static size_t est_zstd_ws_size(int level)
{
	const size_t lens[] = { 16 * 1024, EST_PIECE_MAX };
	ZSTD_CCtx_params *cp = ZSTD_createCCtxParams();
	size_t i, sz, max = 0;

	if (!cp)
		return 0;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ZSTD_CCtxParams_reset(cp);
		if (est_zstd_params(NULL, cp, level, lens[i])) {
			max = 0;
			break;
		}
		sz = ZSTD_estimateCCtxSize_usingCCtxParams(cp);
		if (ZSTD_isError(sz)) {
			max = 0;
			break;
		}
		if (sz > max)
			max = sz;
	}
	ZSTD_freeCCtxParams(cp);
	return max;
}

static void est_zstd_cctx_free(struct est_zstd_ws *ws)
{
	if (!ws->static_ws)
		ZSTD_freeCCtx(ws->cctx);
	free(ws->static_ws);
	ws->static_ws = NULL;
	ws->cctx = NULL;
}

static void est_zstd_ws_free(void *p)
{
	struct est_zstd_ws *ws = p;

	if (!ws)
		return;
	est_zstd_cctx_free(ws);
	ZSTD_freeDCtx(ws->dctx);
	free(ws);
}

static void *est_zstd_ws_create(int level)
{
	struct est_zstd_ws *ws = calloc(1, sizeof(*ws));
	size_t sz = est_zstd_ws_size(level);

	if (!ws)
		return NULL;
	ws->level = level;
	/*
	 * A static context, sized once for the largest piece: a dynamic one
	 * frees its memory after 128 pieces that need a third of it (small
	 * files) and allocates it again at the next large piece, and the
	 * pages come back through malloc trimming and page faults, about one
	 * a file on a tree of small files.  Output doesn't depend on it.
	 */
	if (sz) {
		ws->static_ws = malloc(sz);
		if (ws->static_ws)
			ws->cctx = ZSTD_initStaticCCtx(ws->static_ws, sz);
		if (!ws->cctx) {
			free(ws->static_ws);
			ws->static_ws = NULL;
		}
	}
	if (!ws->cctx)
		ws->cctx = ZSTD_createCCtx();
	ws->dctx = ZSTD_createDCtx();
	if (!ws->cctx || !ws->dctx) {
		est_zstd_ws_free(ws);
		return NULL;
	}
	return ws;
}

static long est_zstd_compress(void *p, uint32_t sectorsize, const uint8_t *in,
			      size_t len, uint8_t *out, size_t cap)
{
	struct est_zstd_ws *ws = p;
	ZSTD_CCtx *c = ws->cctx;
	size_t ret;

	(void)sectorsize;
	ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
	if (est_zstd_params(c, NULL, ws->level, len))
		return -EINVAL;
	if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(c, len)))
		return -EINVAL;
	ret = ZSTD_compress2(c, out, cap, in, len);
	if (ZSTD_isError(ret) && ws->static_ws &&
	    ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation) {
		/* Sized too small after all: a dynamic context from now on. */
		est_zstd_cctx_free(ws);
		ws->cctx = ZSTD_createCCtx();
		if (!ws->cctx)
			return -ENOMEM;
		return est_zstd_compress(ws, sectorsize, in, len, out, cap);
	}
	if (ZSTD_isError(ret)) {
		if (ZSTD_getErrorCode(ret) == ZSTD_error_dstSize_tooSmall)
			return 0;
		return -EIO;
	}
	/* zstd_compress_folios(): -E2BIG unless the output is smaller. */
	if (ret >= len)
		return 0;
	return (long)ret;
}

static int est_zstd_decompress(void *p, uint32_t sectorsize, const uint8_t *in,
			       size_t clen, uint8_t *out, size_t len)
{
	struct est_zstd_ws *ws = p;
	size_t ret;

	(void)sectorsize;
	ret = ZSTD_decompressDCtx(ws->dctx, out, len, in, clen);
	if (ZSTD_isError(ret) || ret != len)
		return -EIO;
	return 0;
}

void est_zstd_ws_level(void *p, int level)
{
	struct est_zstd_ws *ws = p;

	ws->level = level;
}

const struct est_codec_ops est_zstd_ops = {
	.alg = EST_ZSTD,
	.ws_create = est_zstd_ws_create,
	.ws_free = est_zstd_ws_free,
	.compress = est_zstd_compress,
	.decompress = est_zstd_decompress,
};
