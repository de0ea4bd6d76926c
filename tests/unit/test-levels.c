// SPDX-License-Identifier: GPL-2.0
/*
 * --levels' matching (estimate/plugin/levels.c) and its names
 * (fmt_level_set()): data compressed by this build's own codec at a level,
 * as the kernel frames it, must be matched by a set holding that level,
 * and every level of the set writes the same bytes; a frame framed as
 * the kernel never does (another codec's), by none: never a guess.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "unit.h"
#include "estimate/plugin/internal.h"
#include "report/format.h"

/* len bytes of text-like data that compresses differently by level:
 * words from a small seeded generator, some runs repeated */
static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	static const char *const words[] = {
		"extent", "btrfs", "level", "zstd", "sector", "compress",
		"the", "of", "a", "metadata", "chunk", "piece", "\n", ", ",
	};
	size_t i = 0, n;
	const char *w;

	while (i < len) {
		seed = seed * 1103515245u + 12345u;
		w = words[(seed >> 16) % (sizeof(words) / sizeof(words[0]))];
		n = strlen(w);
		if (n > len - i)
			n = len - i;
		memcpy(p + i, w, n);
		i += n;
		if (i < len && (seed >> 8) % 5 == 0)
			p[i++] = (uint8_t)(seed >> 24);
	}
}

/* The stored bytes of data under alg at level: sector padded as on
 * disk; their length, 0 where the codec gives up. */
static size_t stored(enum est_alg alg, int level, const uint8_t *in,
		     size_t len, uint8_t *out)
{
	const struct est_codec_ops *ops = est_codec(alg);
	void *ws = ops->ws_create(level);
	long r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ws);
	r = ops->compress(ws, 4096, in, len, out, EST_OUT_MAX);
	ops->ws_free(ws);
	if (r <= 0)
		return 0;
	memset(out + r, 0, est_round_up((uint64_t)r, 4096) - (uint64_t)r);
	return est_round_up((uint64_t)r, 4096);
}

static void check_alg(enum est_alg alg, int lo, int hi)
{
	static const size_t lens[] = { 131072, 12288, 5000 };
	struct est_lvl *lv = est_lvl_create(4096);
	uint8_t *in = malloc(EST_PIECE_MAX), *out = malloc(EST_OUT_MAX);
	uint64_t mask, other = 1;
	size_t i, n;
	int l, k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(lv);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		fill(in, lens[i], (uint32_t)i + 7);
		for (l = lo; l <= hi; l++) {
			/* a whole piece: a few levels of each strategy (each
			 * match tries every level) */
			if (!l || (alg == EST_ZSTD && lens[i] == EST_PIECE_MAX &&
				   l != -5 && l != 1 && l != 3 && l != 9 &&
				   l != 15))
				continue;
			n = stored(alg, l, in, lens[i], out);
			CU_ASSERT_FATAL(n > 0);
			CU_ASSERT_EQUAL(est_lvl_match(lv, alg, out, n,
						      est_round_up(lens[i], 4096),
						      &mask), 0);
			CU_ASSERT(mask & EST_LEVEL_BIT(l));
			/* every level of the set writes these bytes */
			for (k = lo; k <= hi; k++) {
				if (!k || !(mask & EST_LEVEL_BIT(k)) || k == l)
					continue;
				CU_ASSERT_EQUAL(stored(alg, k, in, lens[i],
						       out), n);
			}
			/* the stream cut short does not decode */
			CU_ASSERT_EQUAL(est_lvl_match(lv, alg, out, 16, 131072,
						      &other), -EIO);
			CU_ASSERT_EQUAL(other, 0);
		}
	}
	est_lvl_free(lv);
	free(in);
	free(out);
}

static void test_zstd(void)
{
	check_alg(EST_ZSTD, EST_LEVEL_MIN, EST_LEVEL_MAX);
}

static void test_zlib(void)
{
	check_alg(EST_ZLIB, 1, 9);
}

/* A frame the codec would not write: another version's bytes. */
static void test_foreign(void)
{
	struct est_lvl *lv = est_lvl_create(4096);
	uint8_t *in = malloc(EST_PIECE_MAX), *out = malloc(EST_OUT_MAX);
	uint64_t mask = 1;
	ZSTD_CCtx *cctx;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(lv);
	fill(in, 65536, 3);
	/* a one-shot deflate: decodes to the data, framed as the kernel
	 * never frames it (no flush per page) */
	n = EST_OUT_MAX;
	CU_ASSERT_EQUAL(compress2(out, (uLongf *)&n, in, 65536, 6), Z_OK);
	CU_ASSERT_EQUAL(est_lvl_match(lv, EST_ZLIB, out, n, 65536, &mask), 0);
	CU_ASSERT_EQUAL(mask, 0);
	/* a zstd frame with a checksum, which btrfs never writes */
	cctx = ZSTD_createCCtx();
	CU_ASSERT_PTR_NOT_NULL_FATAL(cctx);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	n = ZSTD_compress2(cctx, out, EST_OUT_MAX, in, 65536);
	ZSTD_freeCCtx(cctx);
	CU_ASSERT_FATAL(!ZSTD_isError(n));
	mask = 1;
	CU_ASSERT_EQUAL(est_lvl_match(lv, EST_ZSTD, out, n, 65536, &mask), 0);
	CU_ASSERT_EQUAL(mask, 0);
	/* lzo has no levels */
	CU_ASSERT_EQUAL(est_lvl_match(lv, EST_LZO, out, n, 65536, &mask),
			-EINVAL);
	est_lvl_free(lv);
	free(in);
	free(out);
}

static void test_names(void)
{
	char buf[FMT_LEVELS];

	CU_ASSERT_STRING_EQUAL(fmt_level_set(0, buf), "?");
	CU_ASSERT_STRING_EQUAL(fmt_level_set(EST_LEVEL_BIT(3), buf), "3");
	CU_ASSERT_STRING_EQUAL(fmt_level_set(EST_LEVEL_BIT(1) |
					     EST_LEVEL_BIT(2), buf), "1-2");
	CU_ASSERT_STRING_EQUAL(fmt_level_set(EST_LEVEL_BIT(-5) |
					     EST_LEVEL_BIT(7) |
					     EST_LEVEL_BIT(9), buf), "-5,7,9");
	CU_ASSERT_STRING_EQUAL(fmt_level_set(EST_LEVEL_BIT(8) |
					     EST_LEVEL_BIT(9) |
					     EST_LEVEL_BIT(10) |
					     EST_LEVEL_BIT(12), buf), "8-10,12");
	/* every level: the longest text fits */
	CU_ASSERT_STRING_EQUAL(fmt_level_set(0x7fffffffull, buf), "-15-15");
	CU_ASSERT_STRING_EQUAL(fmt_level_set(0x2aaaaaaaull, buf),
			       "-14,-12,-10,-8,-6,-4,-2,0,2,4,6,8,10,12,14");
}

static CU_TestInfo tests[] = {
	{ "zstd levels", test_zstd },
	{ "zlib levels", test_zlib },
	{ "foreign frames", test_foreign },
	{ "level set names", test_names },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(levels, tests)
