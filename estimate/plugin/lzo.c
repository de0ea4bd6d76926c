// SPDX-License-Identifier: GPL-2.0
/*
 * LZO in btrfs's framing: fs/btrfs/lzo.c lzo_compress_folios() and
 * copy_compressed_data_to_page(). Layout: le32 total length, then per input
 * sector a le32 segment length and the LZO1X-1 output of that sector; a
 * segment header never straddles a sector, 1-3 leftover bytes are zeros.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <lzo/lzo1x.h>
#include "estimate/plugin/internal.h"

#define EST_LZO_LEN 4

/* lzo1x worst case for one input block, as lzo1x_worst_compress(). */
#define EST_LZO_WORST(x) ((x) + (x) / 16 + 64 + 3)

struct est_lzo_ws {
	uint8_t *wrkmem;
	uint8_t *seg;		/* one compressed segment */
	size_t seg_cap;
	uint32_t sectorsize;
};

static void est_lzo_ws_free(void *p)
{
	struct est_lzo_ws *ws = p;

	if (!ws)
		return;
	free(ws->wrkmem);
	free(ws->seg);
	free(ws);
}

static void *est_lzo_ws_create(int level)
{
	struct est_lzo_ws *ws;

	(void)level;
	if (lzo_init() != LZO_E_OK)
		return NULL;
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return NULL;
	ws->wrkmem = malloc(LZO1X_1_15_MEM_COMPRESS);
	if (!ws->wrkmem) {
		est_lzo_ws_free(ws);
		return NULL;
	}
	return ws;
}

static void est_put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static uint32_t est_get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static int est_lzo_seg_buf(struct est_lzo_ws *ws, uint32_t sectorsize)
{
	size_t need = EST_LZO_WORST((size_t)sectorsize);

	if (ws->seg_cap >= need)
		return 0;
	free(ws->seg);
	ws->seg = malloc(need);
	if (!ws->seg) {
		ws->seg_cap = 0;
		return -ENOMEM;
	}
	ws->seg_cap = need;
	return 0;
}

static long est_lzo_compress(void *p, uint32_t sectorsize, const uint8_t *in,
			     size_t len, uint8_t *out, size_t cap)
{
	struct est_lzo_ws *ws = p;
	size_t cur_in = 0, cur_out = EST_LZO_LEN;
	int ret;

	ret = est_lzo_seg_buf(ws, sectorsize);
	if (ret)
		return ret;
	while (cur_in < len) {
		size_t in_len = sectorsize - cur_in % sectorsize;
		lzo_uint out_len = 0;
		uint8_t *dst = ws->seg;
		size_t left;

		if (in_len > len - cur_in)
			in_len = len - cur_in;
		/*
		 * Straight into place when the worst case fits, else through
		 * the segment buffer (the kernel always goes through one; the
		 * bytes are the same).
		 */
		if (cap >= cur_out &&
		    cap - cur_out >= EST_LZO_LEN + EST_LZO_WORST(in_len))
			dst = out + cur_out + EST_LZO_LEN;
		/*
		 * lzo1x_1_15 is the variant whose output matches the kernel's
		 * lzo1x_1_compress() byte for byte.
		 */
		if (lzo1x_1_15_compress(in + cur_in, in_len, dst, &out_len,
					ws->wrkmem) != LZO_E_OK)
			return -EIO;
		if (cur_out + EST_LZO_LEN + out_len > cap)
			return 0;
		est_put_le32(out + cur_out, out_len);
		cur_out += EST_LZO_LEN;
		if (dst == ws->seg)
			memcpy(out + cur_out, ws->seg, out_len);
		cur_out += out_len;

		left = (cur_out + sectorsize - 1) / sectorsize * sectorsize -
		       cur_out;
		if (left && left < EST_LZO_LEN) {
			if (cur_out + left > cap)
				return 0;
			memset(out + cur_out, 0, left);
			cur_out += left;
		}
		cur_in += in_len;
		/* The kernel gives up once it grows past two sectors in. */
		if (cur_in > 2 * (size_t)sectorsize && cur_in < cur_out)
			return 0;
	}
	/* No final "did it shrink" check here: inline extents can grow. */
	est_put_le32(out, cur_out);
	return (long)cur_out;
}

static int est_lzo_decompress(void *p, uint32_t sectorsize, const uint8_t *in,
			      size_t clen, uint8_t *out, size_t len)
{
	size_t cur_in = EST_LZO_LEN, cur_out = 0;

	(void)p;
	if (clen < EST_LZO_LEN || est_get_le32(in) != clen)
		return -EIO;
	while (cur_out < len) {
		lzo_uint seg_out = sectorsize;
		uint32_t seg_len;
		size_t left;

		if (cur_in + EST_LZO_LEN > clen)
			return -EIO;
		seg_len = est_get_le32(in + cur_in);
		cur_in += EST_LZO_LEN;
		if (seg_len > clen - cur_in)
			return -EIO;
		if (seg_out > len - cur_out)
			seg_out = len - cur_out;
		if (lzo1x_decompress_safe(in + cur_in, seg_len, out + cur_out,
					  &seg_out, NULL) != LZO_E_OK)
			return -EIO;
		cur_in += seg_len;
		cur_out += seg_out;
		left = (cur_in + sectorsize - 1) / sectorsize * sectorsize -
		       cur_in;
		if (left && left < EST_LZO_LEN)
			cur_in += left;
	}
	return cur_out == len ? 0 : -EIO;
}

const struct est_codec_ops est_lzo_ops = {
	.alg = EST_LZO,
	.ws_create = est_lzo_ws_create,
	.ws_free = est_lzo_ws_free,
	.compress = est_lzo_compress,
	.decompress = est_lzo_decompress,
};
