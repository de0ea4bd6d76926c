// SPDX-License-Identifier: GPL-2.0
/*
 * estimate: btrfs write-path emulation for `compsize --estimate`.
 *
 * A file is cut the way writeback cuts it (fs/btrfs/inode.c): dirty ranges
 * of at most 128 MiB per data run (btrfs_run_delalloc_range()), 512 KiB
 * async chunks (run_delalloc_compressed()), pieces of at most 128 KiB
 * (compress_file_range()). Each piece goes through the same codec, level,
 * parameters and framing as the kernel's; the kernel's rules then decide
 * what is stored compressed, raw or inline.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/fs.h>
#include "est-internal.h"

/*
 * One compressed piece in this many (per setting and thread, the first
 * one included) is kept with its input and later decompressed again and
 * compared with it: enough for the decompress speed figure and as a check
 * of the codec, while decompressing everything cost about a third of the
 * CPU time of a run (perf, 4 settings).  The sizes predicted never depend
 * on it.
 *
 * The kept pieces are decompressed together, back to back, when their
 * batch is full (EST_DBATCH_BYTES of input or EST_DBATCH_MAX pieces) and
 * when the results are read (est_get_result(), est_merge()).  Decompressing
 * each piece on its own right after compressing it measured the decoder
 * with its tables evicted by the other settings' encoders: zstd:1 read
 * 1,415 MB/s estimated alone and 1,110 MB/s next to three other settings,
 * and the figure fell further the rarer the pieces were.  Back to back
 * it depends on neither.
 */
#define EST_VERIFY_EVERY 64
#define EST_DBATCH_BYTES (256u * 1024)
#define EST_DBATCH_MAX 32
#define EST_MEMO 8
/* Page cache dropped behind the reads in steps of this much. */
#define EST_DROP_BEHIND (8u * 1024 * 1024)
/*
 * Files of one chunk or less are read into a batch of up to this much
 * (each padded to a sector) and this many files, and each setting then
 * runs over the whole batch (est_batch_run()): one codec after another
 * on 4 MiB instead of all four on each file in turn.  In codec-speed
 * terms the four codecs over the bench sample took 3.61 s of CPU one
 * file at a time, 3.56 s in batches of 2 MiB and 3.49 s in batches of
 * 4 MiB, as fast as each codec over all of it (medians of 4 runs).
 */
#define EST_BATCH_BYTES (4u * 1024 * 1024)
#define EST_BATCH_FILES 512

/* Heuristic answers for one chunk: every compress= setting asks the
 * same questions of the same bytes. */
struct est_memo {
	unsigned n;
	uint64_t start[EST_MEMO], end[EST_MEMO];
	bool v[EST_MEMO];
};

struct est_worker {
	size_t n;
	const struct est_setting *s;	/* the owning ctx's copy */
	uint32_t sectorsize;
	void **ws;			/* one codec workspace per setting */
	uint8_t *chunk;			/* one async chunk, sector padded */
	uint8_t *out;			/* one compressed piece */
	uint8_t *back;			/* one piece decompressed back */
	uint32_t *verify;		/* per setting: pieces until the next check */
	struct est_dbatch *dbatch;	/* per setting: pieces kept to check */
	/* Codec time in the chunk being estimated (est_codec_t0()) */
	uint64_t *cwall, *dwall;	/* per setting: compress, decompress ns */
	bool timing;			/* a codec ran: the clocks below are set */
	uint64_t t_cpu0, t_wall0;
	/* The chunk being estimated: chunk (est_load()), or a file of a
	 * batch; its heuristic answers. */
	const uint8_t *data;
	struct est_memo *memo;
	struct est_memo memo_own;	/* chunk's */
	bool keep_cache;		/* the file was all cached before */
	uint64_t drop_from;		/* file offset not yet dropped */
	bool no_cachestat;		/* the kernel has no cachestat() */
	bool no_nowait;			/* preadv2(RWF_NOWAIT) refused */
};

/* A file of one chunk or less read into the batch (est_files()). */
struct est_pending {
	int fd;
	uint64_t isize;
	size_t off;			/* in est_ctx.arena */
	bool keep_cache;
	int ret;
	int *err;			/* est_files()' */
	uint64_t *delta;
	struct est_memo memo;
};

struct est_ctx {
	size_t n;
	struct est_setting *s;
	uint32_t sectorsize;
	struct est_worker *w;
	struct est_acct *acct;
	uint64_t input;
	uint64_t files;
	/* est_files()'s per-setting scratch: n for a file, n for each
	 * file of the batch (fst, facct and raw), EST_BATCH_FILES * n
	 * allocated with the batch */
	struct est_fstate *fst;
	struct est_acct *facct;
	bool *raw;
	int err;	/* a kept piece failed to decompress (est_merge()) */
	/* The batch, allocated at the first small file. */
	uint8_t *arena;
	size_t arena_used;
	struct est_pending *pend;
	size_t npend;
	struct est_fstate *bfst;
	struct est_acct *bacct;
	bool *braw;
	/* est_part(): the compress= decisions of the last range started */
	bool *part_raw;
	bool part_valid;
	uint64_t part_dev, part_ino, part_rs;
};

/* Compressed pieces kept to decompress and check (EST_VERIFY_EVERY). */
struct est_dbatch {
	uint8_t *in;			/* their inputs, back to back */
	uint8_t *out;			/* their compressed bytes */
	size_t in_used, out_used;
	unsigned n;
	uint32_t len[EST_DBATCH_MAX], clen[EST_DBATCH_MAX];
};

/* Per file and setting: the sticky BTRFS_INODE_NOCOMPRESS flag. */
struct est_fstate {
	bool nocompress;
	bool raw;		/* whole current dirty range written raw */
};

/* ---- worker: everything one thread needs, no shared state ---- */

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
	free(w->out);
	free(w->back);
	free(w->verify);
	if (w->dbatch)
		for (i = 0; i < w->n; i++) {
			free(w->dbatch[i].in);
			free(w->dbatch[i].out);
		}
	free(w->dbatch);
	free(w->cwall);
	free(w->dwall);
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
	w->dbatch = calloc(n ? n : 1, sizeof(*w->dbatch));
	w->cwall = calloc(n ? n : 1, sizeof(*w->cwall));
	w->dwall = calloc(n ? n : 1, sizeof(*w->dwall));
	w->memo = &w->memo_own;
	w->data = w->chunk;
	if (!w->ws || !w->chunk || !w->out || !w->back || !w->verify ||
	    !w->dbatch || !w->cwall || !w->dwall)
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

/* ---- the write path ---- */

/* est_heuristic() on the loaded chunk (which starts at cs), remembered. */
static bool est_heur(struct est_worker *w, uint64_t cs, uint64_t start,
		     uint64_t end)
{
	unsigned k;
	bool v;

	struct est_memo *m = w->memo;

	for (k = 0; k < m->n; k++)
		if (m->start[k] == start && m->end[k] == end)
			return m->v[k];
	v = est_heuristic(w->data, cs, start, end);
	if (m->n < EST_MEMO) {
		m->start[m->n] = start;
		m->end[m->n] = end;
		m->v[m->n++] = v;
	}
	return v;
}

static uint64_t est_round_up(uint64_t v, uint32_t a)
{
	return (v + a - 1) / a * a;
}

static uint64_t est_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Codec time.  Each codec call is timed with CLOCK_MONOTONIC, which the
 * vDSO reads in ~20 ns; the thread's CPU clock is a system call (~0.4 us)
 * and reading it around every call was 176,000 calls, ~2% of a run, on
 * 20,000 small files with four settings.  The CPU clock is read once
 * around the chunk's codec work instead (from the first codec call to the
 * end of the chunk, est_time_end()) and the calls' wall times are scaled
 * by its CPU / wall: the same as timing each call on the CPU clock when
 * the thread keeps its CPU, and the time it was preempted spread over
 * the chunk otherwise.  Returns the start of one call.
 */
static uint64_t est_codec_t0(struct est_worker *w)
{
	uint64_t now;

	if (!w->timing) {
		/* first, so that its system call isn't timed as codec */
		w->t_cpu0 = est_clock_ns(CLOCK_THREAD_CPUTIME_ID);
		w->timing = true;
		now = est_clock_ns(CLOCK_MONOTONIC);
		w->t_wall0 = now;
		return now;
	}
	return est_clock_ns(CLOCK_MONOTONIC);
}

static uint64_t est_scale(uint64_t v, uint64_t cpu, uint64_t wall)
{
	if (!v || cpu >= wall)
		return v;
	return (uint64_t)((double)v * cpu / wall + 0.5);
}

/* The chunk's codec times, as CPU time, into acct (one per setting). */
static void est_time_end(struct est_worker *w, struct est_acct *acct)
{
	uint64_t cpu, wall;
	size_t i;

	if (!w->timing)
		return;
	wall = est_clock_ns(CLOCK_MONOTONIC) - w->t_wall0;
	cpu = est_clock_ns(CLOCK_THREAD_CPUTIME_ID) - w->t_cpu0;
	for (i = 0; i < w->n; i++) {
		acct[i].comp_ns += est_scale(w->cwall[i], cpu, wall);
		acct[i].dec_ns += est_scale(w->dwall[i], cpu, wall);
		w->cwall[i] = 0;
		w->dwall[i] = 0;
	}
	w->timing = false;
}

static uint32_t est_max_inline(uint32_t sectorsize)
{
	return EST_MAX_INLINE < sectorsize ? EST_MAX_INLINE : sectorsize;
}

/*
 * cow_file_range() for [start, end) written raw, end sector aligned:
 * inline if it is the whole file, starts at 0, is smaller than a sector
 * and fits max_inline (can_cow_file_range_inline()); else raw extents.
 */
static void est_raw(const struct est_worker *w, uint64_t start, uint64_t end,
		    uint64_t isize, struct est_acct *acct)
{
	if (start == 0 && isize < w->sectorsize &&
	    isize <= est_max_inline(w->sectorsize) && end >= isize) {
		acct->disk += isize;
		acct->ram += isize;
		return;
	}
	acct->disk += end - start;
	acct->ram += end - start;
}

/*
 * Decompress setting i's kept pieces back to back, compare each with its
 * input and count them in acct (that setting's).  Returns 0, -EIO if one
 * comes back different, or the codec's error.
 */
static int est_dbatch_flush(struct est_worker *w, size_t i,
			    struct est_acct *acct)
{
	const struct est_codec_ops *ops = est_codec(w->s[i].alg);
	struct est_dbatch *b = &w->dbatch[i];
	size_t in_off = 0, out_off = 0;
	uint64_t t0;
	unsigned k;
	int ret = 0;

	for (k = 0; k < b->n && !ret; k++) {
		t0 = est_codec_t0(w);
		ret = ops->decompress(w->ws[i], w->sectorsize, b->out + out_off,
				      b->clen[k], w->back, b->len[k]);
		w->dwall[i] += est_clock_ns(CLOCK_MONOTONIC) - t0;
		acct->dec_out += b->len[k];
		if (!ret && memcmp(w->back, b->in + in_off, b->len[k]))
			ret = -EIO;
		in_off += b->len[k];
		out_off += b->clen[k];
	}
	b->n = 0;
	b->in_used = 0;
	b->out_used = 0;
	return ret;
}

/*
 * Keep setting i's piece in (len bytes, compressed to w->out, clen bytes)
 * to decompress later, decompressing the batch first if it is full.
 * Returns 0, -ENOMEM, or as est_dbatch_flush().
 */
static int est_dbatch_add(struct est_worker *w, size_t i, const uint8_t *in,
			  size_t len, size_t clen, struct est_acct *acct)
{
	struct est_dbatch *b = &w->dbatch[i];
	int ret;

	if (!b->in) {
		/* only estimates that compress something need them */
		b->in = malloc(EST_DBATCH_BYTES);
		b->out = malloc(EST_DBATCH_BYTES);
		if (!b->in || !b->out)
			return -ENOMEM;
	}
	if (b->n == EST_DBATCH_MAX || b->in_used + len > EST_DBATCH_BYTES ||
	    b->out_used + clen > EST_DBATCH_BYTES) {
		ret = est_dbatch_flush(w, i, acct);
		if (ret)
			return ret;
	}
	memcpy(b->in + b->in_used, in, len);
	memcpy(b->out + b->out_used, w->out, clen);
	b->in_used += len;
	b->out_used += clen;
	b->len[b->n] = len;
	b->clen[b->n++] = clen;
	return 0;
}

/*
 * Every setting's kept pieces, decompressed into acct (one per setting),
 * their time settled.  Returns 0 or the first est_dbatch_flush() error.
 */
static int est_dbatch_flush_all(struct est_worker *w, struct est_acct *acct)
{
	size_t i;
	int ret = 0, r;

	for (i = 0; i < w->n; i++) {
		r = est_dbatch_flush(w, i, &acct[i]);
		if (!ret)
			ret = r;
	}
	est_time_end(w, acct);
	return ret;
}

/*
 * compress_file_range() for one async chunk [cs, ce) (ce sector aligned, at
 * most 512 KiB) of a dirty range of a file of size isize. w->data holds
 * the chunk's bytes, zero padded past EOF up to ce.
 */
static int est_chunk(struct est_worker *w, size_t i, struct est_fstate *fst,
		     uint64_t cs, uint64_t ce, uint64_t isize,
		     struct est_acct *acct)
{
	const struct est_setting *s = &w->s[i];
	const struct est_codec_ops *ops = est_codec(s->alg);
	const uint32_t ss = w->sectorsize;
	uint64_t actual_end = isize < ce ? isize : ce;
	uint64_t p = cs, t0;
	long clen;
	int ret;

	if (fst->raw)
		goto raw;
	while (p < ce) {
		const uint8_t *in = w->data + (p - cs);
		uint64_t len, in_r, out_r, cap;

		if (actual_end <= p)
			goto raw;
		len = actual_end - p;
		/* 6.18: a piece of one sector or less not at 0 saves nothing */
		if (len <= ss && p > 0)
			goto raw;
		if (len > EST_PIECE_MAX)
			len = EST_PIECE_MAX;
		/* inode_need_compress() per piece, against the chunk end */
		if (!s->force &&
		    (fst->nocompress || !est_heur(w, cs, p, ce - 1)))
			goto raw;

		/* output pages: as many as the chunk has left, at most 32 */
		cap = est_round_up(ce - p, EST_PAGE_SIZE);
		if (cap > EST_OUT_MAX)
			cap = EST_OUT_MAX;
		t0 = est_codec_t0(w);
		clen = ops->compress(w->ws[i], ss, in, len, w->out, cap);
		w->cwall[i] += est_clock_ns(CLOCK_MONOTONIC) - t0;
		acct->comp_in += len;
		if (clen < 0)
			return (int)clen;
		if (clen > 0 && !w->verify[i]--) {
			w->verify[i] = EST_VERIFY_EVERY - 1;
			ret = est_dbatch_add(w, i, in, len, clen, acct);
			if (ret)
				return ret;
		}
		/* cow_file_range_inline() before the sector rule */
		if (clen > 0 && p == 0 && isize <= ss && len >= isize &&
		    (uint64_t)clen <= est_max_inline(ss)) {
			acct->disk += clen;
			acct->ram += isize;
			return 0;
		}
		in_r = est_round_up(len, ss);
		out_r = est_round_up(clen, ss);
		/* must save at least one sector, else mark_incompressible */
		if (clen == 0 || out_r + ss > in_r) {
			if (!s->force)
				fst->nocompress = true;
			goto raw;
		}
		acct->disk += out_r;
		acct->ram += in_r;
		p += in_r;
	}
	return 0;
raw:
	/* cleanup_and_bail_uncompressed: the rest of the chunk goes raw */
	if (p < ce)
		est_raw(w, p, ce, isize, acct);
	return 0;
}

/* Start a dirty range: btrfs_run_delalloc_range()'s compress decision. */
static void est_range_begin(struct est_worker *w, size_t i,
			    struct est_fstate *fst, uint64_t rs, uint64_t re)
{
	const struct est_setting *s = &w->s[i];

	fst->raw = false;
	if (s->force)
		return;
	if (fst->nocompress || !est_heur(w, rs, rs, re - 1))
		fst->raw = true;
}

/*
 * cachestat(2) (Linux 6.5): whether [off, off + len) of fd is all in the
 * page cache.  0 when it is not or can't be told.  The uapi headers here
 * may predate it: the call is made by number, which is the same on every
 * architecture (the unified syscall table).
 */
#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif
struct est_cachestat_range {
	uint64_t off, len;
};
struct est_cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

static bool est_all_cached(struct est_worker *w, int fd, uint64_t len)
{
	struct est_cachestat_range range = { 0, len };
	struct est_cachestat cs;

	if (w->no_cachestat || !len)
		return false;
	if (syscall(SYS_cachestat, fd, &range, &cs, 0)) {
		w->no_cachestat = errno == ENOSYS;
		return false;
	}
	return cs.nr_cache >= (len + EST_PAGE_SIZE - 1) / EST_PAGE_SIZE;
}

/*
 * Read len bytes of fd at off into buf, the first got of them already
 * there: until all are, or end of file.  Returns the bytes in buf, or
 * -errno.
 */
static ssize_t est_pread(int fd, uint8_t *buf, uint64_t len, uint64_t off,
			 uint64_t got)
{
	ssize_t r;

	while (got < len) {
		r = pread(fd, buf + got, len - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += r;
	}
	return got;
}

/*
 * Load chunk bytes [cs, min(ce, isize)) from mem or fd and zero pad to ce.
 * What is read is dropped from the page cache again, unless the whole
 * file was cached before (w->keep_cache): then it is someone's working
 * set, and dropping it cost time as well.  Per file, not per chunk: the
 * kernel's readahead for one chunk would make the next look cached.
 */
static int est_load(struct est_worker *w, const uint8_t *mem, int fd,
		    uint64_t cs, uint64_t ce, uint64_t isize)
{
	uint64_t want = (isize < ce ? isize : ce) - cs, got = 0;
	ssize_t r;

	w->data = w->chunk;
	w->memo = &w->memo_own;
	w->memo->n = 0;
	if (mem) {
		memcpy(w->chunk, mem + cs, want);
		got = want;
	}
	if (got < want) {
		/* short if the file shrank under us: what was read is
		 * estimated */
		r = est_pread(fd, w->chunk, want, cs, got);
		if (r < 0)
			return (int)r;
		got = r;
	}
	memset(w->chunk + got, 0, ce - cs - got);
	/* Pages just read sit in per-CPU LRU batches where DONTNEED can't
	 * take them: drop what is a few chunks behind, the rest at the end
	 * of the file (est_file). */
	if (!mem && !w->keep_cache && cs >= w->drop_from + EST_DROP_BEHIND) {
		posix_fadvise(fd, w->drop_from, cs - w->drop_from,
			      POSIX_FADV_DONTNEED);
		w->drop_from = cs;
	}
	return 0;
}

/*
 * Account data run [start, end) (end is the hole start or EOF) for every
 * setting in mask (NULL: all). Settings with raw[i] set are charged raw.
 */
static int est_run(struct est_worker *w, const uint8_t *mem, int fd,
		   uint64_t start, uint64_t end, uint64_t isize,
		   struct est_fstate *fst, const bool *raw,
		   struct est_acct *acct)
{
	uint64_t rs, re, cs, ce, aend = est_round_up(end, w->sectorsize);
	size_t i;
	int ret;

	for (rs = start; rs < aend; rs = re) {
		re = rs + EST_RANGE_MAX < aend ? rs + EST_RANGE_MAX : aend;
		for (cs = rs; cs < re; cs = ce) {
			ce = cs + EST_CHUNK_SIZE < re ? cs + EST_CHUNK_SIZE : re;
			ret = est_load(w, mem, fd, cs, ce, isize);
			if (ret)
				return ret;
			for (i = 0; !ret && i < w->n; i++) {
				if (raw && raw[i]) {
					est_raw(w, cs, ce, isize, &acct[i]);
					continue;
				}
				if (cs == rs)
					est_range_begin(w, i, &fst[i], rs, re);
				ret = est_chunk(w, i, &fst[i], cs, ce, isize,
						&acct[i]);
			}
			est_time_end(w, acct);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int est_buffer(struct est_worker *w, size_t i, const uint8_t *data,
	       uint64_t size, struct est_acct *acct)
{
	struct est_worker one = *w;
	struct est_fstate fst = { 0 };
	int ret, r;

	if (i >= w->n)
		return -EINVAL;
	one.n = 1;
	one.s = &w->s[i];
	one.ws = &w->ws[i];
	one.verify = &w->verify[i];
	one.dbatch = &w->dbatch[i];
	one.cwall = &w->cwall[i];
	one.dwall = &w->dwall[i];
	ret = est_run(&one, data, -1, 0, size, size, &fst, NULL, acct);
	r = est_dbatch_flush_all(&one, acct);
	return ret ? ret : r;
}

/* ---- context ---- */

struct est_ctx *est_create(const struct est_setting *s, size_t n,
			   uint32_t sectorsize)
{
	struct est_ctx *ctx;

	if (!sectorsize)
		sectorsize = 4096;
	if (sectorsize < 4096 || sectorsize > 65536 ||
	    (sectorsize & (sectorsize - 1)) || (n && !s)) {
		errno = EINVAL;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		goto nomem;
	ctx->n = n;
	ctx->sectorsize = sectorsize;
	ctx->s = calloc(n ? n : 1, sizeof(*ctx->s));
	ctx->acct = calloc(n ? n : 1, sizeof(*ctx->acct));
	ctx->fst = calloc(n ? n : 1, sizeof(*ctx->fst));
	ctx->facct = calloc(n ? n : 1, sizeof(*ctx->facct));
	ctx->raw = calloc(n ? n : 1, sizeof(*ctx->raw));
	ctx->part_raw = calloc(n ? n : 1, sizeof(*ctx->part_raw));
	if (!ctx->s || !ctx->acct || !ctx->fst || !ctx->facct || !ctx->raw ||
	    !ctx->part_raw)
		goto nomem;
	if (n)
		memcpy(ctx->s, s, n * sizeof(*s));
	ctx->w = est_worker_create(ctx->s, n, sectorsize);
	if (!ctx->w)
		goto nomem;
	return ctx;
nomem:
	est_free(ctx);
	errno = ENOMEM;
	return NULL;
}

static void est_acct_add(struct est_acct *dst, const struct est_acct *src)
{
	dst->disk += src->disk;
	dst->ram += src->ram;
	dst->comp_in += src->comp_in;
	dst->comp_ns += src->comp_ns;
	dst->dec_out += src->dec_out;
	dst->dec_ns += src->dec_ns;
}

void est_free(struct est_ctx *ctx)
{
	if (!ctx)
		return;
	est_worker_free(ctx->w);
	free(ctx->s);
	free(ctx->acct);
	free(ctx->fst);
	free(ctx->facct);
	free(ctx->raw);
	free(ctx->part_raw);
	free(ctx->arena);
	free(ctx->pend);
	free(ctx->bfst);
	free(ctx->bacct);
	free(ctx->braw);
	free(ctx);
}

/*
 * Inode flags that stop compression, read with FS_IOC_GETFLAGS. nodatacow
 * (chattr +C) fails btrfs_inode_can_compress() for every setting;
 * nocompress (chattr +m, BTRFS_INODE_NOCOMPRESS) stops compress= but
 * inode_need_compress() lets compress-force= override it. A filesystem
 * without the ioctl reports nothing, which is fine.
 */
#define EST_NEVER	1
#define EST_NOT_UNFORCED 2

static int est_inode_flags(int fd)
{
	int flags = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &flags))
		return 0;
	if (flags & FS_NOCOW_FL)
		return EST_NEVER;
	if (flags & FS_NOCOMP_FL)
		return EST_NOT_UNFORCED;
	return 0;
}

/* Whether len bytes at p are all zero. */
static bool est_all_zero(const uint8_t *p, size_t len)
{
	return !len || (!p[0] && !memcmp(p, p + 1, len - 1));
}

/*
 * Read a file of one chunk or less whole into buf (isize bytes), trying
 * first without waiting (RWF_NOWAIT): if all of it comes back that way it
 * was all in the page cache, which sets *keep_cache as est_all_cached()
 * would, without that system call.  Then look for holes in what was read
 * instead of asking: a hole reads as zeros, so when no sector of the file
 * is all zeros it has none and is one data run [0, isize), without the
 * SEEK_HOLE (1.5-2 us each, a tree search; most files of a tree are
 * small).  Returns 1 then; 0 when the caller must look for holes itself
 * (*keep_cache set either way); or -errno.
 *
 * Short of the whole file, the file counts as not all cached, and that is
 * not always so: NOWAIT also stops at a cached folio that carries the
 * readahead mark (seen on 25 of 2,075 files read by cat just before), and
 * those get dropped.  cachestat() after the short read can't tell either:
 * the refused read has already started readahead of the rest.
 */
static int est_preload(struct est_worker *w, int fd, uint64_t isize,
		       uint8_t *buf, bool *keep_cache)
{
	const uint32_t ss = w->sectorsize;
	uint64_t got = 0, off;
	ssize_t r;

	*keep_cache = false;
	if (!w->no_nowait) {
		struct iovec iov = { buf, isize };

		r = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
		if (r >= 0)
			got = r;
		else if (errno == EOPNOTSUPP || errno == EINVAL ||
			 errno == ENOSYS)
			w->no_nowait = true;
		else if (errno != EAGAIN && errno != EINTR)
			return -errno;
		*keep_cache = got == isize;
	}
	if (w->no_nowait)
		*keep_cache = est_all_cached(w, fd, isize);
	r = est_pread(fd, buf, isize, 0, got);
	if (r < 0)
		return (int)r;
	/* shrunk under us: the hole check decides */
	if ((uint64_t)r < isize)
		return 0;
	for (off = 0; off < isize; off += ss)
		if (est_all_zero(buf + off,
				 isize - off < ss ? isize - off : ss))
			return 0;
	return 1;
}

/*
 * The first data run: [0, hole) if one SEEK_HOLE says the file starts with
 * data (*data = 0), which for a file without holes is the only run.  The
 * same answer as SEEK_DATA then SEEK_HOLE from 0, with one system call
 * (each is 1.5-2 us on btrfs: a tree search).  Returns 0 when the caller
 * must look with SEEK_DATA (a hole at 0, or an error to be told apart).
 */
static uint64_t est_first_run(int fd, uint64_t isize)
{
	off_t h = lseek(fd, 0, SEEK_HOLE);

	if (h <= 0)
		return 0;
	return (uint64_t)h < isize ? (uint64_t)h : isize;
}

/*
 * Account file fd of isize bytes (more than 0) into acct (n), the data runs
 * found with SEEK_HOLE and SEEK_DATA and read chunk by chunk:
 * ctx->w->keep_cache must be set.  Returns 0 or -errno.
 */
static int est_file_runs(struct est_ctx *ctx, int fd, uint64_t isize,
			 struct est_fstate *fst, const bool *raw,
			 struct est_acct *acct)
{
	uint64_t pos = 0, data, hole;
	int ret;

	ctx->w->drop_from = 0;
	hole = est_first_run(fd, isize);
	if (hole) {
		ret = est_run(ctx->w, NULL, fd, 0, hole, isize, fst, raw,
			      acct);
		if (ret)
			return ret;
		pos = est_round_up(hole, ctx->sectorsize);
	}
	while (pos < isize) {
		off_t d = lseek(fd, pos, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break;		/* only a hole up to EOF */
		if (d < 0 && pos == 0) {
			/* no SEEK_DATA here: treat the file as all data */
			data = 0;
			hole = isize;
		} else if (d < 0) {
			return -errno;
		} else {
			h = lseek(fd, d, SEEK_HOLE);
			if (h < 0)
				return -errno;
			data = d;
			hole = (uint64_t)h < isize ? (uint64_t)h : isize;
		}
		if (data >= isize)
			break;
		/* holes are sector aligned on the target; be safe anyway */
		data -= data % ctx->sectorsize;
		ret = est_run(ctx->w, NULL, fd, data, hole, isize, fst, raw,
			      acct);
		if (ret)
			return ret;
		pos = est_round_up(hole, ctx->sectorsize);
	}
	return 0;
}

/* A file's results: into the totals, and *delta (NULL or 3n). */
static void est_account(struct est_ctx *ctx, uint64_t isize,
			const struct est_acct *acct, uint64_t *delta)
{
	size_t i;

	for (i = 0; i < ctx->n; i++) {
		if (isize)
			est_acct_add(&ctx->acct[i], &acct[i]);
		if (delta) {
			delta[3 * i] = isize ? acct[i].disk : 0;
			delta[3 * i + 1] = isize ? acct[i].ram : 0;
			delta[3 * i + 2] = isize;
		}
	}
	ctx->input += isize;
	ctx->files++;
}

/* raw[i]: setting i stores the file raw whatever it holds (inode flags). */
static void est_raw_flags(struct est_ctx *ctx, int fd, bool *raw)
{
	int flags = est_inode_flags(fd);
	size_t i;

	for (i = 0; i < ctx->n; i++)
		raw[i] = flags == EST_NEVER ||
			 (flags == EST_NOT_UNFORCED && !ctx->s[i].force);
}

/* The batch's memory, all of it or none (ctx->arena stays NULL, and the
 * next small file tries again). */
static int est_batch_alloc(struct est_ctx *ctx)
{
	size_t n = ctx->n ? ctx->n : 1;

	ctx->pend = calloc(EST_BATCH_FILES, sizeof(*ctx->pend));
	ctx->bfst = calloc(EST_BATCH_FILES * n, sizeof(*ctx->bfst));
	ctx->bacct = calloc(EST_BATCH_FILES * n, sizeof(*ctx->bacct));
	ctx->braw = calloc(EST_BATCH_FILES * n, sizeof(*ctx->braw));
	if (ctx->pend && ctx->bfst && ctx->bacct && ctx->braw)
		ctx->arena = malloc(EST_BATCH_BYTES);
	if (ctx->arena)
		return 0;
	free(ctx->pend);
	free(ctx->bfst);
	free(ctx->bacct);
	free(ctx->braw);
	ctx->pend = NULL;
	ctx->bfst = NULL;
	ctx->bacct = NULL;
	ctx->braw = NULL;
	return -ENOMEM;
}

/*
 * Estimate the files read into the batch: every setting over all of them
 * in turn, then each file's results out.  A file's error (a codec's)
 * leaves it out of the totals.
 */
static void est_batch_run(struct est_ctx *ctx)
{
	struct est_worker *w = ctx->w;
	const size_t n = ctx->n;
	struct est_pending *p;
	uint64_t aend;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < ctx->npend; k++) {
			p = &ctx->pend[k];
			if (p->ret)
				continue;
			aend = est_round_up(p->isize, ctx->sectorsize);
			w->data = ctx->arena + p->off;
			w->memo = &p->memo;
			if (ctx->braw[k * n + i]) {
				est_raw(w, 0, aend, p->isize,
					&ctx->bacct[k * n + i]);
				continue;
			}
			est_range_begin(w, i, &ctx->bfst[k * n + i], 0, aend);
			p->ret = est_chunk(w, i, &ctx->bfst[k * n + i], 0,
					   aend, p->isize,
					   &ctx->bacct[k * n + i]);
		}
		/* one span of codec time per setting and batch */
		est_time_end(w, ctx->acct);
	}
	for (k = 0; k < ctx->npend; k++) {
		p = &ctx->pend[k];
		if (!p->keep_cache)
			posix_fadvise(p->fd, 0, 0, POSIX_FADV_DONTNEED);
		*p->err = p->ret;
		if (!p->ret)
			est_account(ctx, p->isize, &ctx->bacct[k * n], p->delta);
	}
	w->memo = &w->memo_own;
	ctx->npend = 0;
	ctx->arena_used = 0;
}

/*
 * One file of est_files(): accounted now, or read into the batch (a file
 * of one chunk or less without holes) and accounted by est_batch_run().
 * Returns 0 (*err set, or to be set by the batch) or -ENOMEM.
 */
static int est_one(struct est_ctx *ctx, int fd, const struct stat *st,
		   int *err, uint64_t *delta)
{
	struct est_acct *acct = ctx->facct;
	uint64_t isize = st->st_size, slot;
	struct est_pending *p;
	size_t n = ctx->n;
	int ret = 0;

	*err = 0;
	if (!S_ISREG(st->st_mode)) {
		*err = -EINVAL;
		return 0;
	}
	if (!isize) {
		est_account(ctx, 0, acct, delta);
		return 0;
	}
	memset(ctx->fst, 0, n * sizeof(*ctx->fst));
	memset(acct, 0, n * sizeof(*acct));
	if (isize > EST_CHUNK_SIZE) {
		est_raw_flags(ctx, fd, ctx->raw);
		ctx->w->keep_cache = est_all_cached(ctx->w, fd, isize);
		ret = est_file_runs(ctx, fd, isize, ctx->fst, ctx->raw, acct);
		goto done;
	}
	if (!ctx->arena && est_batch_alloc(ctx)) {
		*err = -ENOMEM;
		return -ENOMEM;
	}
	slot = est_round_up(isize, ctx->sectorsize);
	if (ctx->npend == EST_BATCH_FILES ||
	    ctx->arena_used + slot > EST_BATCH_BYTES)
		est_batch_run(ctx);
	p = &ctx->pend[ctx->npend];
	ret = est_preload(ctx->w, fd, isize, ctx->arena + ctx->arena_used,
			  &p->keep_cache);
	ctx->w->keep_cache = p->keep_cache;
	if (ret < 0)
		goto done;
	if (!ret) {
		/* a sector of zeros, a hole or not: the long way */
		est_raw_flags(ctx, fd, ctx->raw);
		ret = est_file_runs(ctx, fd, isize, ctx->fst, ctx->raw, acct);
		goto done;
	}
	/* zero padded to the sector, as a chunk is */
	memset(ctx->arena + ctx->arena_used + isize, 0, slot - isize);
	p->fd = fd;
	p->isize = isize;
	p->off = ctx->arena_used;
	p->ret = 0;
	p->err = err;
	p->delta = delta;
	p->memo.n = 0;
	est_raw_flags(ctx, fd, &ctx->braw[ctx->npend * n]);
	memset(&ctx->bfst[ctx->npend * n], 0, n * sizeof(*ctx->bfst));
	memset(&ctx->bacct[ctx->npend * n], 0, n * sizeof(*ctx->bacct));
	ctx->arena_used += slot;
	ctx->npend++;
	return 0;
done:
	if (!ctx->w->keep_cache)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	*err = ret;
	if (!ret)
		est_account(ctx, isize, acct, delta);
	return ret == -ENOMEM ? ret : 0;
}

int est_files(struct est_ctx *ctx, size_t nf, const int *fd,
	      const struct stat *st, int *err, uint64_t *const *delta)
{
	size_t f;
	int ret = 0;

	for (f = 0; f < nf && !ret; f++)
		ret = est_one(ctx, fd[f], &st[f], &err[f],
			      delta ? delta[f] : NULL);
	/* out of memory: the rest is not looked at */
	for (; f < nf; f++)
		err[f] = ret;
	if (ctx->npend)
		est_batch_run(ctx);
	return ret;
}

int est_file(struct est_ctx *ctx, int fd, const struct stat *st,
	     uint64_t *delta)
{
	int err, ret;

	ret = est_files(ctx, 1, &fd, st, &err, &delta);
	return ret ? ret : err;
}

/*
 * The compress= decision that starts the dirty range [rs, re): from the
 * range's first 128 KiB (all btrfs_compress_heuristic() samples), into
 * fst[i].raw, remembered for the next part of the same range.
 */
static int est_part_range(struct est_ctx *ctx, int fd, const struct stat *st,
			  uint64_t rs, uint64_t re, struct est_fstate *fst)
{
	struct est_worker *w = ctx->w;
	uint64_t le = rs + EST_PIECE_MAX < re ? rs + EST_PIECE_MAX : re;
	size_t i;
	int ret;

	if (ctx->part_dev == st->st_dev && ctx->part_ino == st->st_ino &&
	    ctx->part_rs == rs && ctx->part_valid) {
		for (i = 0; i < ctx->n; i++)
			fst[i].raw = ctx->part_raw[i];
		return 0;
	}
	ret = est_load(w, NULL, fd, rs, le, st->st_size);
	if (ret)
		return ret;
	for (i = 0; i < ctx->n; i++) {
		est_range_begin(w, i, &fst[i], rs, re);
		ctx->part_raw[i] = fst[i].raw;
	}
	ctx->part_dev = st->st_dev;
	ctx->part_ino = st->st_ino;
	ctx->part_rs = rs;
	ctx->part_valid = true;
	return 0;
}

int est_part(struct est_ctx *ctx, int fd, const struct stat *st, uint64_t off,
	     uint64_t len, uint64_t *delta, bool *nocomp)
{
	struct est_worker *w = ctx->w;
	struct est_acct *acct = ctx->facct;
	const uint64_t isize = st->st_size;
	const uint32_t ss = ctx->sectorsize;
	uint64_t end, aend, rs, re, pos, data, hole;
	size_t i;
	int ret = 0;

	if (!S_ISREG(st->st_mode) || off % EST_CHUNK_SIZE || off >= isize ||
	    !len || len > EST_CHUNK_SIZE)
		return -EINVAL;
	end = off + len < isize ? off + len : isize;
	aend = est_round_up(end, ss);
	memset(ctx->fst, 0, ctx->n * sizeof(*ctx->fst));
	memset(acct, 0, ctx->n * sizeof(*acct));
	est_raw_flags(ctx, fd, ctx->raw);
	w->keep_cache = est_all_cached(w, fd, isize);
	w->drop_from = off;
	if ((uint64_t)st->st_blocks * 512 >= isize) {
		/* no hole: one data run from 0, cut every 128 MiB */
		rs = off - off % EST_RANGE_MAX;
		re = rs + EST_RANGE_MAX < est_round_up(isize, ss) ?
		     rs + EST_RANGE_MAX : est_round_up(isize, ss);
		if (rs != off) {
			ret = est_part_range(ctx, fd, st, rs, re, ctx->fst);
			if (ret)
				goto out;
		}
		ret = est_load(w, NULL, fd, off, aend, isize);
		for (i = 0; !ret && i < ctx->n; i++) {
			if (ctx->raw[i]) {
				est_raw(w, off, aend, isize, &acct[i]);
				continue;
			}
			if (rs == off)
				est_range_begin(w, i, &ctx->fst[i], rs, re);
			ret = est_chunk(w, i, &ctx->fst[i], off, aend, isize,
					&acct[i]);
		}
		est_time_end(w, acct);
		goto out;
	}
	/* Holes: each run of data in the part as a range of its own. */
	for (pos = off; pos < end; pos = est_round_up(hole, ss)) {
		off_t d = lseek(fd, pos, SEEK_DATA), h;

		if (d < 0 && errno == ENXIO)
			break;
		if (d < 0) {
			ret = -errno;
			goto out;
		}
		if ((uint64_t)d >= end)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0) {
			ret = -errno;
			goto out;
		}
		data = d - d % ss;
		hole = (uint64_t)h < end ? (uint64_t)h : end;
		ret = est_run(w, NULL, fd, data, hole, isize, ctx->fst,
			      ctx->raw, acct);
		if (ret)
			goto out;
	}
out:
	if (!w->keep_cache)
		posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
	if (ret)
		return ret;
	for (i = 0; i < ctx->n; i++) {
		est_acct_add(&ctx->acct[i], &acct[i]);
		if (delta) {
			delta[3 * i] = acct[i].disk;
			delta[3 * i + 1] = acct[i].ram;
			delta[3 * i + 2] = end - off;
		}
		if (nocomp)
			nocomp[i] = ctx->fst[i].nocompress;
	}
	ctx->input += end - off;
	return 0;
}

int est_nocompress_at(struct est_ctx *ctx, int fd, const struct stat *st,
		      const uint64_t *limit, uint64_t *at)
{
	struct est_worker *w = ctx->w;
	struct est_acct *acct = ctx->facct;
	const uint64_t isize = st->st_size;
	const uint64_t aend = est_round_up(isize, ctx->sectorsize);
	uint64_t rs = 0, re = 0, cs, ce, end = 0;
	size_t i, left = 0;
	int ret = 0;

	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	est_raw_flags(ctx, fd, ctx->raw);
	memset(ctx->fst, 0, ctx->n * sizeof(*ctx->fst));
	for (i = 0; i < ctx->n; i++) {
		at[i] = UINT64_MAX;
		/* compress-force= ignores the flag; raw files never set it */
		ctx->part_raw[i] = ctx->s[i].force || ctx->raw[i] ||
				   !limit[i];
		left += !ctx->part_raw[i];
		if (!ctx->part_raw[i] && limit[i] > end)
			end = limit[i];
	}
	/* part_raw is borrowed: est_part()'s memory of it is gone */
	ctx->part_valid = false;
	/* a sparse file's ranges start at its runs of data: not followed */
	if ((uint64_t)st->st_blocks * 512 < isize)
		return 0;
	w->keep_cache = est_all_cached(w, fd, isize);
	w->drop_from = 0;
	if (end > aend)
		end = aend;
	for (cs = 0; cs < end && left && !ret; cs = ce) {
		if (cs == re) {
			rs = cs;
			re = rs + EST_RANGE_MAX < aend ? rs + EST_RANGE_MAX : aend;
		}
		ce = cs + EST_CHUNK_SIZE < re ? cs + EST_CHUNK_SIZE : re;
		ret = est_load(w, NULL, fd, cs, ce, isize);
		for (i = 0; !ret && i < ctx->n; i++) {
			if (ctx->part_raw[i] || at[i] != UINT64_MAX)
				continue;
			if (cs >= limit[i]) {
				ctx->part_raw[i] = true;
				left--;
				continue;
			}
			if (cs == rs)
				est_range_begin(w, i, &ctx->fst[i], rs, re);
			memset(&acct[i], 0, sizeof(acct[i]));
			ret = est_chunk(w, i, &ctx->fst[i], cs, ce, isize,
					&acct[i]);
			if (ctx->fst[i].nocompress) {
				at[i] = cs;
				left--;
			}
		}
		est_time_end(w, ctx->acct);
	}
	if (!w->keep_cache)
		posix_fadvise(fd, 0, cs, POSIX_FADV_DONTNEED);
	return ret;
}

/* Decompress what is kept (est_dbatch_add()) into the totals. */
static void est_ctx_flush(struct est_ctx *ctx)
{
	int ret = est_dbatch_flush_all(ctx->w, ctx->acct);

	if (ret && !ctx->err)
		ctx->err = ret;
}

int est_merge(struct est_ctx *dst, struct est_ctx *src)
{
	size_t i;

	if (dst->n != src->n || dst->sectorsize != src->sectorsize)
		return -EINVAL;
	for (i = 0; i < dst->n; i++)
		if (dst->s[i].alg != src->s[i].alg ||
		    dst->s[i].level != src->s[i].level ||
		    dst->s[i].force != src->s[i].force)
			return -EINVAL;
	est_ctx_flush(src);
	if (src->err)
		return src->err;
	for (i = 0; i < dst->n; i++)
		est_acct_add(&dst->acct[i], &src->acct[i]);
	dst->input += src->input;
	dst->files += src->files;
	return 0;
}

void est_get_result(struct est_ctx *ctx, size_t i, struct est_result *out)
{
	const struct est_acct *a;

	memset(out, 0, sizeof(*out));
	est_ctx_flush(ctx);
	if (i >= ctx->n)
		return;
	a = &ctx->acct[i];
	out->input = ctx->input;
	out->disk = a->disk;
	out->uncompressed = a->ram;
	out->files = ctx->files;
	if (a->comp_ns)
		out->compress_mbps = a->comp_in / (a->comp_ns / 1e9) / 1e6;
	if (a->dec_ns)
		out->decompress_mbps = a->dec_out / (a->dec_ns / 1e9) / 1e6;
}
