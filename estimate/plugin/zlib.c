// SPDX-License-Identifier: GPL-2.0
/*
 * zlib as btrfs drives it: fs/btrfs/zlib.c zlib_compress_folios(). The input
 * goes in one 4 KiB page at a time with Z_SYNC_FLUSH, then Z_FINISH; the
 * flush points are what make this differ from a one-shot deflate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "estimate/plugin/internal.h"

struct est_zlib_ws {
	z_stream def;
	z_stream inf;
	bool def_ok, inf_ok;
};

static void est_zlib_ws_free(void *p)
{
	struct est_zlib_ws *ws = p;

	if (!ws)
		return;
	if (ws->def_ok)
		deflateEnd(&ws->def);
	if (ws->inf_ok)
		inflateEnd(&ws->inf);
	free(ws);
}

static void *est_zlib_ws_create(int level)
{
	struct est_zlib_ws *ws = calloc(1, sizeof(*ws));

	if (!ws)
		return NULL;
	ws->def_ok = deflateInit(&ws->def, level) == Z_OK;
	ws->inf_ok = inflateInit2(&ws->inf, -MAX_WBITS) == Z_OK;
	if (!ws->def_ok || !ws->inf_ok) {
		est_zlib_ws_free(ws);
		return NULL;
	}
	return ws;
}

/*
 * Whether out's bytes so far are expect's (elen bytes), or no expect:
 * the output after each Z_SYNC_FLUSH is final, so a level that does not
 * write the stored bytes shows it within a page or two.
 */
static bool est_zlib_same(const z_stream *s, const uint8_t *out,
			  const uint8_t *expect, size_t elen, size_t *checked)
{
	size_t n = s->total_out;

	if (!expect)
		return true;
	if (n > elen || memcmp(out + *checked, expect + *checked,
			       n - *checked))
		return false;
	*checked = n;
	return true;
}

/* est_zlib_compress(), or with expect, 0 as soon as the output is not
 * expect's first bytes. */
static long est_zlib_deflate(void *p, const uint8_t *in, size_t len,
			     uint8_t *out, size_t cap, const uint8_t *expect,
			     size_t elen)
{
	struct est_zlib_ws *ws = p;
	size_t checked = 0;
	z_stream *s = &ws->def;
	size_t pages = 1, max_pages = cap / EST_PAGE_SIZE;
	int ret;

	if (!max_pages)
		return 0;
	if (deflateReset(s) != Z_OK)
		return -EIO;
	/*
	 * Output goes to one page at a time and a new page is added only
	 * once the current one is full, so total_out lags behind what deflate
	 * has ready: that decides when "making it bigger" triggers.
	 */
	s->next_out = out;
	s->avail_out = EST_PAGE_SIZE;
	s->next_in = (Bytef *)in;
	s->avail_in = 0;
	while (s->total_in < len) {
		if (!s->avail_in) {
			size_t left = len - s->total_in;

			s->next_in = (Bytef *)in + s->total_in;
			s->avail_in = left < EST_PAGE_SIZE ? left : EST_PAGE_SIZE;
		}
		if (deflate(s, Z_SYNC_FLUSH) != Z_OK)
			return -EIO;
		if (!est_zlib_same(s, out, expect, elen, &checked))
			return 0;
		/* "we're making it bigger, give up" */
		if (s->total_in > 8192 && s->total_in < s->total_out)
			return 0;
		if (!s->avail_out) {
			if (pages == max_pages)
				return 0;
			pages++;
			s->avail_out = EST_PAGE_SIZE;
		}
	}
	s->avail_in = 0;
	for (;;) {
		ret = deflate(s, Z_FINISH);
		if (!est_zlib_same(s, out, expect, elen, &checked))
			return 0;
		if (ret == Z_STREAM_END)
			break;
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return -EIO;
		if (!s->avail_out) {
			if (pages == max_pages)
				return 0;
			pages++;
			s->avail_out = EST_PAGE_SIZE;
		} else if (ret == Z_BUF_ERROR) {
			return -EIO;
		}
	}
	if (s->total_out >= s->total_in)
		return 0;
	return (long)s->total_out;
}

static long est_zlib_compress(void *p, uint32_t sectorsize, const uint8_t *in,
			      size_t len, uint8_t *out, size_t cap)
{
	(void)sectorsize;
	return est_zlib_deflate(p, in, len, out, cap, NULL, 0);
}

long est_zlib_compress_as(void *ws, const uint8_t *in, size_t len,
			  uint8_t *out, size_t cap, const uint8_t *expect,
			  size_t elen)
{
	return est_zlib_deflate(ws, in, len, out, cap, expect, elen);
}

static int est_zlib_decompress(void *p, uint32_t sectorsize, const uint8_t *in,
			       size_t clen, uint8_t *out, size_t len)
{
	struct est_zlib_ws *ws = p;
	z_stream *s = &ws->inf;
	int wbits = MAX_WBITS;

	(void)sectorsize;
	/*
	 * zlib_decompress_folios(): a plain deflate header without a preset
	 * dictionary is skipped and the rest inflated raw, so the adler32 of
	 * the output is neither computed nor checked (the caller compares the
	 * bytes).
	 */
	if (clen > 2 && !(in[1] & 0x20) && (in[0] & 0x0f) == Z_DEFLATED &&
	    !(((unsigned)in[0] << 8 | in[1]) % 31)) {
		wbits = -((in[0] >> 4) + 8);
		in += 2;
		clen -= 2;
	}
	if (inflateReset2(s, wbits) != Z_OK)
		return -EIO;
	s->next_in = (Bytef *)in;
	s->avail_in = clen;
	s->next_out = out;
	s->avail_out = len;
	if (inflate(s, Z_FINISH) != Z_STREAM_END || s->total_out != len)
		return -EIO;
	return 0;
}

const struct est_codec_ops est_zlib_ops = {
	.alg = EST_ZLIB,
	.ws_create = est_zlib_ws_create,
	.ws_free = est_zlib_ws_free,
	.compress = est_zlib_compress,
	.decompress = est_zlib_decompress,
};
