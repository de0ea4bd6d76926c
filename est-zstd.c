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
#include "est-internal.h"

/* ZSTD_BTRFS_MAX_WINDOWLOG */
#define EST_ZSTD_MAX_WINDOWLOG 17

struct est_zstd_ws {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	int level;
};

static void est_zstd_ws_free(void *p)
{
	struct est_zstd_ws *ws = p;

	if (!ws)
		return;
	ZSTD_freeCCtx(ws->cctx);
	ZSTD_freeDCtx(ws->dctx);
	free(ws);
}

static void *est_zstd_ws_create(int level)
{
	struct est_zstd_ws *ws = calloc(1, sizeof(*ws));

	if (!ws)
		return NULL;
	ws->level = level;
	ws->cctx = ZSTD_createCCtx();
	ws->dctx = ZSTD_createDCtx();
	if (!ws->cctx || !ws->dctx) {
		est_zstd_ws_free(ws);
		return NULL;
	}
	return ws;
}

static int est_zstd_set(ZSTD_CCtx *c, ZSTD_cParameter p, int v)
{
	return ZSTD_isError(ZSTD_CCtx_setParameter(c, p, v)) ? -EINVAL : 0;
}

static long est_zstd_compress(void *p, uint32_t sectorsize, const uint8_t *in,
			      size_t len, uint8_t *out, size_t cap)
{
	struct est_zstd_ws *ws = p;
	ZSTD_parameters par;
	ZSTD_CCtx *c = ws->cctx;
	size_t ret;
	int err = 0;

	(void)sectorsize;
	/*
	 * The kernel sizes the parameters to the piece (so pieces of 16 KiB
	 * or less get the small-input table) and caps the window. Userspace
	 * libzstd would turn on the row match finder for levels 5-10; the
	 * kernel never does at windowLog <= 17.
	 */
	par = ZSTD_getParams(ws->level, len, 0);
	if (par.cParams.windowLog > EST_ZSTD_MAX_WINDOWLOG)
		par.cParams.windowLog = EST_ZSTD_MAX_WINDOWLOG;
	ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
	err |= est_zstd_set(c, ZSTD_c_windowLog, par.cParams.windowLog);
	err |= est_zstd_set(c, ZSTD_c_chainLog, par.cParams.chainLog);
	err |= est_zstd_set(c, ZSTD_c_hashLog, par.cParams.hashLog);
	err |= est_zstd_set(c, ZSTD_c_searchLog, par.cParams.searchLog);
	err |= est_zstd_set(c, ZSTD_c_minMatch, par.cParams.minMatch);
	err |= est_zstd_set(c, ZSTD_c_targetLength, par.cParams.targetLength);
	err |= est_zstd_set(c, ZSTD_c_strategy, par.cParams.strategy);
	err |= est_zstd_set(c, ZSTD_c_contentSizeFlag, 1);
	err |= est_zstd_set(c, ZSTD_c_checksumFlag, 0);
	err |= est_zstd_set(c, ZSTD_c_useRowMatchFinder, ZSTD_ps_disable);
	if (err)
		return -EINVAL;
	if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(c, len)))
		return -EINVAL;
	ret = ZSTD_compress2(c, out, cap, in, len);
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

const struct est_codec_ops est_zstd_ops = {
	.alg = EST_ZSTD,
	.ws_create = est_zstd_ws_create,
	.ws_free = est_zstd_ws_free,
	.compress = est_zstd_compress,
	.decompress = est_zstd_decompress,
};
