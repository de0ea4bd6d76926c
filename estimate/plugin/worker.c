// SPDX-License-Identifier: GPL-2.0
/*
 * worker: everything one thread needs to estimate, no shared state: one
 * codec workspace per setting and the buffers of a chunk.
 */
#include <stdlib.h>
#include "estimate/plugin/internal.h"

const struct est_codec_ops *est_codec(enum est_alg alg)
{
	switch (alg) {
	case EST_ZSTD:
		return &est_zstd_ops;
	case EST_LZO:
		return &est_lzo_ops;
	case EST_ZLIB:
		return &est_zlib_ops;
	}
	return NULL;
}

void est_worker_free(struct est_worker *w)
{
	size_t i;

	if (!w)
		return;
	if (w->ws)
		for (i = 0; i < w->n; i++)
			if (w->ws[i])
				est_codec(w->s[i].alg)->ws_free(w->ws[i]);
	free(w->ws);
	free(w->chunk);
	free(w->scan);
	free(w->zclen);
	free(w->out);
	free(w->back);
	free(w->verify);
	free(w->vfirst);
	if (w->dbatch)
		for (i = 0; i < w->n; i++) {
			free(w->dbatch[i].in);
			free(w->dbatch[i].out);
		}
	free(w->dbatch);
	free(w->cwall);
	free(w);
}

struct est_worker *est_worker_create(const struct est_setting *s, size_t n,
				     uint32_t sectorsize)
{
	struct est_worker *w = calloc(1, sizeof(*w));
	size_t i;

	if (!w)
		return NULL;
	w->n = n;
	w->s = s;
	w->sectorsize = sectorsize;
	w->ws = calloc(n ? n : 1, sizeof(*w->ws));
	w->chunk = malloc(EST_CHUNK_SIZE + sectorsize);
	w->out = malloc(EST_OUT_MAX);
	w->back = malloc(EST_PIECE_MAX);
	w->verify = calloc(n ? n : 1, sizeof(*w->verify));
	w->vfirst = calloc(n ? n : 1, sizeof(*w->vfirst));
	w->dbatch = calloc(n ? n : 1, sizeof(*w->dbatch));
	w->cwall = calloc(n ? n : 1, sizeof(*w->cwall));
	w->zclen = calloc(n ? n : 1, sizeof(*w->zclen));
	w->memo = &w->memo_own;
	w->data = w->chunk;
	w->weight = 1;
	if (!w->ws || !w->chunk || !w->out || !w->back || !w->verify ||
	    !w->vfirst ||
	    !w->dbatch || !w->cwall || !w->zclen)
		goto fail;
	for (i = 0; i < n; i++) {
		const struct est_codec_ops *ops = est_codec(s[i].alg);

		if (!ops)
			goto fail;
		w->ws[i] = ops->ws_create(s[i].level);
		if (!w->ws[i])
			goto fail;
	}
	return w;
fail:
	est_worker_free(w);
	return NULL;
}
