// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the --estimate engine on arbitrary data.
 *
 * Byte 0 picks what to drive, the rest is its input:
 *   0  est_parse_list() and est_setting_name() on a user's option text;
 *   1  one codec's kernel framing: compress, then decompress it back, which
 *      must give the input again;
 *   2  one codec's decompressor on arbitrary "compressed" bytes: 0 or -EIO,
 *      never a crash or an out-of-bounds access;
 *   3  est_heuristic() on a range of the data;
 *   4  est_buffer(): the whole write path for one setting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/plugin/internal.h"
#include "estimate/estimate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A valid setting from two bytes. */
static struct est_setting setting(uint8_t a, uint8_t b)
{
	struct est_setting s = { .alg = (enum est_alg)(a % 3 + 1) };

	switch (s.alg) {
	case EST_ZSTD:
		s.level = b % 31 - 15;
		if (!s.level)
			s.level = 1;
		break;
	case EST_ZLIB:
		s.level = b % 9 + 1;
		break;
	case EST_LZO:
		s.level = 0;
		break;
	}
	s.force = !!(a & 0x80);
	return s;
}

static void parse_list(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), err[128], name[64];
	struct est_setting *s = NULL;
	size_t n = 0, i;
	int ret;

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	ret = est_parse_list(text, &s, &n, err, sizeof(err));
	if (ret == 0) {
		/* A success lists something ("zstd:0..0" once gave nothing). */
		if (!n || !s)
			abort();
		for (i = 0; i < n; i++) {
			est_setting_name(&s[i], name, sizeof(name));
			est_setting_name(&s[i], name, 5);
			if (!memchr(name, '\0', 5))
				abort();
		}
		free(s);
	} else if (ret == -EINVAL) {
		if (!memchr(err, '\0', sizeof(err)) || s || n)
			abort();
	} else if (ret != -ENOMEM) {
		abort();
	}
	free(text);
}

static void codec(const uint8_t *data, size_t size, int garbage)
{
	struct est_setting s;
	const struct est_codec_ops *ops;
	uint32_t sectorsize;
	uint8_t *out, *back;
	size_t len;
	void *ws;
	long ret;

	if (size < 4)
		return;
	s = setting(data[0], data[1]);
	sectorsize = 4096u << (data[2] % 5);
	len = data[3] * 1024u + 1;
	data += 4;
	size -= 4;
	ops = est_codec(s.alg);
	ws = ops->ws_create(s.level);
	out = malloc(EST_OUT_MAX);
	back = malloc(EST_PIECE_MAX);
	if (!ws || !out || !back)
		abort();
	if (garbage) {
		/* Exactly clen bytes: ASan sees any read past them. */
		if (len > EST_PIECE_MAX)
			len = EST_PIECE_MAX;
		ret = ops->decompress(ws, sectorsize, data, size, back, len);
		if (ret != 0 && ret != -EIO)
			abort();
	} else {
		if (size > EST_PIECE_MAX)
			size = EST_PIECE_MAX;
		ret = ops->compress(ws, sectorsize, data, size, out,
				    EST_OUT_MAX);
		if (ret < 0 || ret > (long)EST_OUT_MAX)
			abort();
		if (ret > 0 &&
		    (ops->decompress(ws, sectorsize, out, ret, back, size) ||
		     memcmp(back, data, size)))
			abort();
	}
	ops->ws_free(ws);
	free(out);
	free(back);
}

static void heuristic(const uint8_t *data, size_t size)
{
	uint64_t start, end, padded;
	uint8_t *buf;

	if (size < 5)
		return;
	start = (data[0] | data[1] << 8 | (uint32_t)data[2] << 16) % (size - 4);
	end = start + (data[3] | data[4] << 8) % (size - 4 - start);
	data += 5;
	size -= 5;
	/* The contract: from offset 0 to the end of end's page, zero padded. */
	padded = (end / EST_PAGE_SIZE + 1) * EST_PAGE_SIZE;
	buf = calloc(1, padded);
	if (!buf)
		abort();
	memcpy(buf, data, size < padded ? size : padded);
	(void)est_heuristic(buf, 0, start, end);
	free(buf);
}

static void write_path(const uint8_t *data, size_t size)
{
	struct est_setting s;
	struct est_worker *w;
	struct est_acct acct = { 0 };
	uint64_t room;

	if (size < 2)
		return;
	s = setting(data[0], data[1]);
	data += 2;
	size -= 2;
	w = est_worker_create(&s, 1, 4096);
	if (!w)
		abort();
	if (est_buffer(w, 0, data, size, &acct))
		abort();
	/* Never more than the data written raw, sector by sector. */
	room = (size + 4095) / 4096 * 4096;
	if (acct.disk > room || acct.ram > room)
		abort();
	est_worker_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 5) {
	case 0:
		parse_list(data + 1, size - 1);
		break;
	case 1:
		codec(data + 1, size - 1, 0);
		break;
	case 2:
		codec(data + 1, size - 1, 1);
		break;
	case 3:
		heuristic(data + 1, size - 1);
		break;
	case 4:
		write_path(data + 1, size - 1);
		break;
	}
	return 0;
}
