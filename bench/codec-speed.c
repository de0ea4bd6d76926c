// SPDX-License-Identifier: GPL-2.0
/*
 * codec-speed: raw single-thread throughput of the btrfs codecs, framed the
 * way the kernel frames them, as the baseline for compsize --estimate.
 *
 * Usage: find DIR -type f -print0 | codec-speed [MAX_MB]
 *
 * Reads the files (NUL-separated names on stdin, at most MAX_MB, default
 * 1024) into memory, then compresses every file in 128 KiB pieces
 * (BTRFS_MAX_UNCOMPRESSED) with each codec:
 *   zstd:1, zstd:3  one-shot per piece, ZSTD_getCParams(level, piece
 *                   length) with windowLog capped at 17, as
 *                   zstd_get_btrfs_parameters(level, len) sets them per
 *                   piece (small pieces get zstd's small-input table)
 *   lzo             lzo1x_1_15_compress on 4 KiB segments (lzo_compress_folios)
 *   zlib:3          deflate fed one 4 KiB page at a time with Z_SYNC_FLUSH,
 *                   then Z_FINISH (zlib_compress_folios)
 * No early abort on incompressible data and no heuristic: this is codec cost.
 *
 * Prints one line per codec: NAME INPUT_BYTES OUTPUT_BYTES CPU_S WALL_S
 * (CPU time of this thread, which other load on the machine disturbs less).
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <errno.h>
#include <fcntl.h>
#include <lzo/lzo1x.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#define PIECE	(128 * 1024)
#define PAGE	4096

struct sample {
	unsigned char *buf;
	size_t len, cap;
	size_t *ends;		/* end offset of each file in buf */
	size_t nfiles, capfiles;
};

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_file(struct sample *s, const char *path, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (s->len == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 64 << 20;
			unsigned char *b = realloc(s->buf, cap);

			if (!b) {
				close(fd);
				return -ENOMEM;
			}
			s->buf = b;
			s->cap = cap;
		}
		n = read(fd, s->buf + s->len, s->cap - s->len);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		s->len += n;
		if (s->len >= max) {
			s->len = max;
			break;
		}
	}
	close(fd);
	if (s->nfiles == s->capfiles) {
		size_t cap = s->capfiles ? s->capfiles * 2 : 4096;
		size_t *e = realloc(s->ends, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		s->ends = e;
		s->capfiles = cap;
	}
	s->ends[s->nfiles++] = s->len;
	return 0;
}

typedef size_t (*piece_fn)(void *ws, const unsigned char *in, size_t len,
			   unsigned char *out);

struct zstd_ws {
	ZSTD_CCtx *cctx;
	void *mem;		/* cctx's, static */
	int level;
};

static int zstd_params(ZSTD_CCtx *c, int level, size_t len)
{
	ZSTD_compressionParameters cp = ZSTD_getCParams(level, len, 0);
	size_t e = 0;

	ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
	if (cp.windowLog > 17)
		cp.windowLog = 17;
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, cp.windowLog));
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_chainLog, cp.chainLog));
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, cp.hashLog));
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_searchLog, cp.searchLog));
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_minMatch, cp.minMatch));
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_targetLength, cp.targetLength));
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_strategy, cp.strategy));
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 0));
	/* the kernel's zstd never uses the row match finder at windowLog 17 */
	e |= ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_useRowMatchFinder,
						 ZSTD_ps_disable));
	e |= ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(c, len));
	return e ? -EINVAL : 0;
}

static size_t zstd_piece(void *arg, const unsigned char *in, size_t len,
			 unsigned char *out)
{
	struct zstd_ws *ws = arg;
	size_t r;

	if (zstd_params(ws->cctx, ws->level, len)) {
		fprintf(stderr, "zstd: bad parameters\n");
		exit(1);
	}
	r = ZSTD_compress2(ws->cctx, out, ZSTD_compressBound(PIECE), in, len);
	if (ZSTD_isError(r)) {
		fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(r));
		exit(1);
	}
	return r;
}

static int zstd_setup(struct zstd_ws *ws, int level)
{
	/*
	 * A static context, as the kernel's preallocated workspace: a
	 * dynamic one would be freed and reallocated as the parameters
	 * change between small and large pieces (malloc and page faults,
	 * not codec cost).  ZSTD_estimateCCtxSize() covers every size.
	 */
	size_t sz = ZSTD_estimateCCtxSize(level);

	ws->level = level;
	ws->mem = malloc(sz);
	ws->cctx = ws->mem ? ZSTD_initStaticCCtx(ws->mem, sz) : NULL;
	if (!ws->cctx || zstd_params(ws->cctx, level, PIECE)) {
		free(ws->mem);
		return -ENOMEM;
	}
	return 0;
}

struct lzo_ws {
	unsigned char mem[LZO1X_1_15_MEM_COMPRESS];
};

static size_t lzo_piece(void *arg, const unsigned char *in, size_t len,
			unsigned char *out)
{
	struct lzo_ws *ws = arg;
	size_t off, total = 4;	/* the kernel's 4-byte total length header */

	for (off = 0; off < len; off += PAGE) {
		lzo_uint seg = len - off < PAGE ? len - off : PAGE;
		lzo_uint olen = 0;

		if (lzo1x_1_15_compress(in + off, seg, out, &olen, ws->mem) != LZO_E_OK) {
			fprintf(stderr, "lzo: compression failed\n");
			exit(1);
		}
		total += 4 + olen;	/* 4-byte segment header */
	}
	return total;
}

struct zlib_ws {
	z_stream s;
};

static size_t zlib_piece(void *arg, const unsigned char *in, size_t len,
			 unsigned char *out)
{
	struct zlib_ws *ws = arg;
	z_stream *s = &ws->s;
	size_t off;
	int ret;

	if (deflateReset(s) != Z_OK)
		exit(1);
	s->next_out = out;
	s->avail_out = 2 * PIECE;
	for (off = 0; off < len; off += PAGE) {
		s->next_in = (unsigned char *)in + off;
		s->avail_in = len - off < PAGE ? len - off : PAGE;
		ret = deflate(s, Z_SYNC_FLUSH);
		if (ret != Z_OK || s->avail_in) {
			fprintf(stderr, "zlib: deflate %d\n", ret);
			exit(1);
		}
	}
	ret = deflate(s, Z_FINISH);
	if (ret != Z_STREAM_END) {
		fprintf(stderr, "zlib: finish %d\n", ret);
		exit(1);
	}
	return s->total_out;
}

static void run(const char *name, piece_fn fn, void *ws, const struct sample *sm,
		unsigned char *out)
{
	double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
	size_t f, start = 0, off, outlen = 0;

	for (f = 0; f < sm->nfiles; f++) {
		for (off = start; off < sm->ends[f]; off += PIECE) {
			size_t len = sm->ends[f] - off;

			outlen += fn(ws, sm->buf + off, len < PIECE ? len : PIECE, out);
		}
		start = sm->ends[f];
	}
	printf("%s %zu %zu %.6f %.6f\n", name, sm->len, outlen,
	       now(CLOCK_THREAD_CPUTIME_ID) - c0, now(CLOCK_MONOTONIC) - w0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	size_t max = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1024) << 20;
	struct sample sm = { 0 };
	struct zstd_ws z1, z3;
	struct lzo_ws *lw = malloc(sizeof(*lw));
	struct zlib_ws zw = { 0 };
	unsigned char *out = malloc(2 * PIECE + ZSTD_compressBound(PIECE));
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err;

	if (!lw || !out)
		return 1;
	while (sm.len < max && (n = getdelim(&line, &cap, '\0', stdin)) > 0) {
		err = read_file(&sm, line, max);
		if (err)
			fprintf(stderr, "codec-speed: %s: %s\n", line, strerror(-err));
	}
	free(line);
	if (!sm.len) {
		fprintf(stderr, "codec-speed: no data (file names, NUL-separated, on stdin)\n");
		return 1;
	}
	if (lzo_init() != LZO_E_OK || zstd_setup(&z1, 1) || zstd_setup(&z3, 3) ||
	    deflateInit(&zw.s, 3) != Z_OK) {
		fprintf(stderr, "codec-speed: codec setup failed\n");
		return 1;
	}
	run("zstd:1", zstd_piece, &z1, &sm, out);
	run("zstd:3", zstd_piece, &z3, &sm, out);
	run("lzo", lzo_piece, lw, &sm, out);
	run("zlib:3", zlib_piece, &zw, &sm, out);
	free(z1.mem);
	free(z3.mem);
	deflateEnd(&zw.s);
	free(lw);
	free(out);
	free(sm.buf);
	free(sm.ends);
	return 0;
}
