// SPDX-License-Identifier: GPL-2.0
/*
 * ctx: the estimator as the program sees it, a struct est_ctx per thread:
 * files (or parts of large files, for the sampler) in, per-setting totals
 * out, and the struct est_ops table that
 * compsize-estimate.so exports (estimate.h).  Files larger than a chunk
 * are read and estimated one chunk at a time (read.c, writepath.c); the
 * others are read whole into a batch, and each setting then runs over the
 * whole batch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/plugin/internal.h"

/*
 * Files of one chunk or less are read into a batch of up to this much
 * (each padded to a sector) and this many files, and each setting then
 * runs over the whole batch (est_batch_run()): one codec after another
 * on 4 MiB instead of all four on each file in turn, which runs about as
 * fast as each codec over all of the data at once (bench/codec-speed.c
 * measures both).
 */
#define EST_BATCH_BYTES (4u * 1024 * 1024)
#define EST_BATCH_FILES 512

/* A file of one chunk or less read into the batch (est_files()). */
struct est_pending {
	int fd;
	uint64_t isize;
	size_t off;			/* in est_ctx.arena */
	bool keep_cache;
	int ret;
	int *err;			/* est_files()' */
	uint64_t *delta;
	double weight;			/* est_files()' */
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
	/* est_files()'s per-setting scratch: n for a file (fst, facct,
	 * wacct and raw), n for each file of the batch (bfst and bacct),
	 * EST_BATCH_FILES * n allocated with the batch */
	struct est_fstate *fst;
	struct est_acct *facct;
	struct est_acct *wacct;	/* est_one(): as written, when read twice */
	struct est_acct *iacct;	/* est_one(): est_inline_first()'s */
	bool *raw;
	int err;	/* a kept piece failed to decompress (est_merge()) */
	/* est_files(): the files ahead, est_ahead()'s answers, a ring */
	int cached[EST_AHEAD_FILES];
	uint64_t asked[EST_AHEAD_FILES];
	/* The batch, allocated at the first small file. */
	uint8_t *arena;
	size_t arena_used;
	struct est_pending *pend;
	size_t npend;
	struct est_fstate *bfst;
	struct est_acct *bacct;
	bool *bwas;	/* est_writes(): NOCOMPRESS before a write */
	struct est_fstate *ifst;	/* est_writes(): an EST_WRITE_INDEP's */
	/* est_part(): the compress= decisions of the last range started */
	bool *part_raw;
	bool part_valid;
	uint64_t part_dev, part_ino, part_rs;
};

static void est_free(struct est_ctx *ctx);

static struct est_ctx *est_create(const struct est_setting *s, size_t n,
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
	ctx->wacct = calloc(n ? n : 1, sizeof(*ctx->wacct));
	ctx->iacct = calloc(n ? n : 1, sizeof(*ctx->iacct));
	ctx->raw = calloc(n ? n : 1, sizeof(*ctx->raw));
	ctx->part_raw = calloc(n ? n : 1, sizeof(*ctx->part_raw));
	ctx->bwas = calloc(n ? n : 1, sizeof(*ctx->bwas));
	ctx->ifst = calloc(n ? n : 1, sizeof(*ctx->ifst));
	if (!ctx->s || !ctx->acct || !ctx->fst || !ctx->facct || !ctx->wacct ||
	    !ctx->iacct || !ctx->raw || !ctx->part_raw || !ctx->bwas || !ctx->ifst)
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

/* The codec time and bytes of src into dst. */
static void est_acct_time(struct est_acct *dst, const struct est_acct *src)
{
	dst->comp_in += src->comp_in;
	dst->comp_ns += src->comp_ns;
	dst->dec_out += src->dec_out;
	dst->dec_ns += src->dec_ns;
}

static void est_acct_add(struct est_acct *dst, const struct est_acct *src)
{
	dst->disk += src->disk;
	dst->ram += src->ram;
	est_acct_time(dst, src);
}

static void est_free(struct est_ctx *ctx)
{
	if (!ctx)
		return;
	est_worker_free(ctx->w);
	free(ctx->s);
	free(ctx->acct);
	free(ctx->fst);
	free(ctx->facct);
	free(ctx->wacct);
	free(ctx->iacct);
	free(ctx->raw);
	free(ctx->part_raw);
	free(ctx->bwas);
	free(ctx->ifst);
	free(ctx->arena);
	free(ctx->pend);
	free(ctx->bfst);
	free(ctx->bacct);
	free(ctx);
}

/*
 * A file's results (estimate.h, est_ops.files()' delta: NULL or 6n): the
 * fresh copy's (acct) into the totals and delta, as written (same) and
 * as written in one go (onego: acct, or a pass of its own) at
 * EST_WRITTEN(n); the codec time of every pass into the totals.
 */
static void est_account(struct est_ctx *ctx, uint64_t isize,
			const struct est_acct *acct,
			const struct est_acct *same,
			const struct est_acct *onego, uint64_t *delta)
{
	const size_t n = ctx->n;
	size_t i;

	for (i = 0; i < n; i++) {
		if (isize) {
			est_acct_add(&ctx->acct[i], &acct[i]);
			if (onego != acct)
				est_acct_time(&ctx->acct[i], &onego[i]);
			if (same != onego)
				est_acct_time(&ctx->acct[i], &same[i]);
		}
		if (delta) {
			delta[3 * i] = isize ? acct[i].disk : 0;
			delta[3 * i + 1] = isize ? acct[i].ram : 0;
			delta[3 * i + 2] = isize;
			delta[EST_WRITTEN(n) + 3 * i] =
				isize ? same[i].disk : 0;
			delta[EST_WRITTEN(n) + 3 * i + 1] =
				isize ? same[i].ram : 0;
			delta[EST_WRITTEN(n) + 3 * i + 2] =
				isize ? onego[i].disk : 0;
		}
	}
	ctx->input += isize;
	ctx->files++;
}

/* The file read as cp writes its copy (a new inode: no flags) into acct. */
static int est_copy(struct est_ctx *ctx, int fd, const struct stat *st,
		    struct est_acct *acct)
{
	memset(ctx->fst, 0, ctx->n * sizeof(*ctx->fst));
	memset(ctx->raw, 0, ctx->n * sizeof(*ctx->raw));
	return est_file_runs(ctx->w, fd, st, est_dense(st) ? EST_COPY_WHOLE :
			     EST_COPY_RUNS, ctx->fst, ctx->raw, acct, NULL);
}

/*
 * A file of est_one() that is not batched: its data runs as written
 * (holes skipped, its inode flags kept) into written, and when a copy
 * would differ, read again as cp writes the copy (enum est_runs) into
 * acct: flagged (an inode flag keeps it raw under some setting); or
 * est_dense() with holes or preallocated extents, which cp writes as
 * zeros; or not, with a block of zeros in its data, which cp leaves a
 * hole.  Returns 0 or -errno; *two says whether acct was filled.
 */
static int est_long(struct est_ctx *ctx, int fd, const struct stat *st,
		    bool flagged, struct est_acct *written,
		    struct est_acct *acct, bool *two)
{
	const bool dense = est_dense(st);
	bool holes = false;
	int ret;

	*two = false;
	ret = est_file_runs(ctx->w, fd, st, EST_AS_WRITTEN, ctx->fst,
			    ctx->raw, written, &holes);
	if (ret || !(flagged || (dense ? holes : ctx->w->zeros)))
		return ret;
	*two = true;
	return est_copy(ctx, fd, st, acct);
}

/*
 * A file that holds an inline extent of inl bytes at offset 0 and is
 * longer (est_ops.files()' inl), as written: that extent's write (a file
 * of inl bytes then) and after it the data runs past the first sector,
 * the inode's flags (ctx->raw) and NOCOMPRESS carried, into same.
 * Returns 0 or -errno.
 */
static int est_inline_first(struct est_ctx *ctx, int fd,
			    const struct stat *st, uint32_t inl,
			    struct est_acct *same)
{
	struct est_worker *w = ctx->w;
	int ret;

	w->drop_from = 0;
	ret = est_run(w, est_load_fd, &fd, 0, inl, inl, ctx->fst, ctx->raw,
		      same);
	if (!ret)
		ret = est_runs_between(w, fd, ctx->sectorsize, st->st_size,
				       st->st_size, ctx->fst, ctx->raw, same);
	memset(ctx->fst, 0, ctx->n * sizeof(*ctx->fst));
	return ret;
}

/* Whether any of the n flags is set. */
static bool est_any(const bool *raw, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (raw[i])
			return true;
	return false;
}

/* The batch's memory, all of it or none (ctx->arena stays NULL, and the
 * next small file tries again). */
static int est_batch_alloc(struct est_ctx *ctx)
{
	size_t n = ctx->n ? ctx->n : 1;

	ctx->pend = calloc(EST_BATCH_FILES, sizeof(*ctx->pend));
	ctx->bfst = calloc(EST_BATCH_FILES * n, sizeof(*ctx->bfst));
	ctx->bacct = calloc(EST_BATCH_FILES * n, sizeof(*ctx->bacct));
	if (ctx->pend && ctx->bfst && ctx->bacct)
		ctx->arena = malloc(EST_BATCH_BYTES);
	if (ctx->arena)
		return 0;
	free(ctx->pend);
	free(ctx->bfst);
	free(ctx->bacct);
	ctx->pend = NULL;
	ctx->bfst = NULL;
	ctx->bacct = NULL;
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
	const double weight = w->weight;	/* the file est_one() is at */
	struct est_pending *p;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < ctx->npend; k++) {
			p = &ctx->pend[k];
			if (p->ret)
				continue;
			w->weight = p->weight;
			p->ret = est_small(w, i, ctx->arena + p->off, &p->memo,
					   p->isize, &ctx->bfst[k * n + i],
					   &ctx->bacct[k * n + i]);
		}
		/* one span of codec time per setting and batch */
		est_measure_end(w, ctx->acct);
	}
	for (k = 0; k < ctx->npend; k++) {
		p = &ctx->pend[k];
		est_read_done(p->fd, p->keep_cache);
		*p->err = p->ret;
		if (!p->ret)
			est_account(ctx, p->isize, &ctx->bacct[k * n],
				    &ctx->bacct[k * n], &ctx->bacct[k * n],
				    p->delta);
	}
	w->memo = &w->memo_own;
	w->weight = weight;
	ctx->npend = 0;
	ctx->arena_used = 0;
}

/*
 * One file of est_files(): accounted now, or read into the batch (a file
 * of one chunk or less without holes, inode flags or an inline extent it
 * outgrew) and accounted by est_batch_run().
 * Returns 0 (*err set, or to be set by the batch) or -ENOMEM.
 */
static int est_one(struct est_ctx *ctx, int fd, const struct stat *st,
		   int cached, uint32_t inl, int *err, uint64_t *delta)
{
	struct est_acct *acct = ctx->facct, *written = ctx->wacct;
	struct est_acct *same = written;
	uint64_t isize = st->st_size, slot;
	struct est_pending *p;
	size_t n = ctx->n;
	bool flagged, grown, two = false;
	int ret = 0;

	*err = 0;
	if (!S_ISREG(st->st_mode) || !(ctx->w->weight >= 0)) {
		*err = -EINVAL;
		return 0;
	}
	if (!isize) {
		est_account(ctx, 0, acct, acct, acct, delta);
		return 0;
	}
	memset(ctx->fst, 0, n * sizeof(*ctx->fst));
	memset(acct, 0, n * sizeof(*acct));
	memset(written, 0, n * sizeof(*written));
	/* a flagged or grown file may be read again, never batched */
	est_raw_flags(ctx->w, fd, ctx->raw);
	flagged = est_any(ctx->raw, n);
	grown = inl && inl < isize && inl <= ctx->sectorsize;
	if (isize > EST_CHUNK_SIZE || flagged || grown) {
		ctx->w->keep_cache = cached < 0 ?
			est_all_cached(ctx->w, fd, isize) : cached;
		if (grown) {
			/* the same layout's; est_long() then as ever, for
			 * the copy and the one go that defragment writes */
			same = ctx->iacct;
			memset(same, 0, n * sizeof(*same));
			ret = est_inline_first(ctx, fd, st, inl, same);
		}
		if (!ret)
			ret = est_long(ctx, fd, st, flagged, written, acct,
				       &two);
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
			  cached, &p->keep_cache);
	ctx->w->keep_cache = p->keep_cache;
	if (ret < 0)
		goto done;
	if (!ret) {
		/* a sector of zeros, a hole or not: the long way */
		ret = est_long(ctx, fd, st, false, written, acct, &two);
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
	p->weight = ctx->w->weight;
	p->memo.n = 0;
	memset(&ctx->bfst[ctx->npend * n], 0, n * sizeof(*ctx->bfst));
	memset(&ctx->bacct[ctx->npend * n], 0, n * sizeof(*ctx->bacct));
	ctx->arena_used += slot;
	ctx->npend++;
	return 0;
done:
	est_read_done(fd, ctx->w->keep_cache);
	*err = ret;
	if (!ret)
		est_account(ctx, isize, two ? acct : written, same, written,
			    delta);
	return ret == -ENOMEM ? ret : 0;
}

static int est_ahead_op(struct est_ctx *ctx, int fd, uint64_t len,
			uint64_t *asked)
{
	int cached;

	*asked = est_ahead(ctx->w, fd, len, &cached);
	return cached;
}

static int est_files(struct est_ctx *ctx, size_t nf, const int *fd,
		     const struct stat *st, const signed char *cached,
		     const uint32_t *inl, const double *weight, int *err,
		     uint64_t *const *delta)
{
	uint64_t ahead = 0;
	size_t f, a = 0, k;
	int ret = 0;

	/*
	 * Cold files are read at the device's latency, one after the other:
	 * keep the reads of the next files in flight (est_ahead()) while
	 * one is estimated, up to EST_AHEAD_MAX bytes and EST_AHEAD_FILES
	 * files ahead.  Whether each was cached is asked first, for the
	 * page-cache policy; a file the caller asked about (ahead()) is
	 * not asked again.
	 */
	for (f = 0; f < nf && !ret; f++) {
		for (; a < nf && a < f + EST_AHEAD_FILES &&
		       (a == f || ahead < EST_AHEAD_MAX); a++) {
			k = a % EST_AHEAD_FILES;
			ctx->cached[k] = cached ? cached[a] : -1;
			ctx->asked[k] = 0;
			if (ctx->cached[k] < 0 && S_ISREG(st[a].st_mode))
				ctx->asked[k] = est_ahead(ctx->w, fd[a],
							  st[a].st_size,
							  &ctx->cached[k]);
			ahead += ctx->asked[k];
		}
		k = f % EST_AHEAD_FILES;
		ahead -= ctx->asked[k];
		ctx->w->weight = weight ? weight[f] : 1;
		ret = est_one(ctx, fd[f], &st[f], ctx->cached[k],
			      inl ? inl[f] : 0, &err[f],
			      delta ? delta[f] : NULL);
	}
	/* stopped (out of memory): what was asked for and not read goes */
	for (k = f; k < a; k++)
		if (ctx->asked[k % EST_AHEAD_FILES])
			est_read_done(fd[k], false);
	/* out of memory: the rest is not looked at */
	for (; f < nf; f++)
		err[f] = ret;
	if (ctx->npend)
		est_batch_run(ctx);
	return ret;
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
	ret = est_load_chunk(w, est_load_fd, &fd, rs, le, st->st_size);
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

static int est_part(struct est_ctx *ctx, int fd, const struct stat *st,
		    uint64_t off, uint64_t len, double weight, uint64_t *delta,
		    bool *nocomp)
{
	struct est_worker *w = ctx->w;
	struct est_acct *acct = ctx->facct;
	const uint64_t isize = st->st_size;
	const uint32_t ss = ctx->sectorsize;
	uint64_t end, aend, rs, re;
	size_t i;
	int ret = 0;

	if (!S_ISREG(st->st_mode) || off % EST_CHUNK_SIZE || off >= isize ||
	    !len || len > EST_CHUNK_SIZE || !(weight >= 0))
		return -EINVAL;
	w->weight = weight;
	end = off + len < isize ? off + len : isize;
	aend = est_round_up(end, ss);
	memset(ctx->fst, 0, ctx->n * sizeof(*ctx->fst));
	memset(acct, 0, ctx->n * sizeof(*acct));
	est_raw_flags(ctx->w, fd, ctx->raw);
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
		ret = est_load_chunk(w, est_load_fd, &fd, off, aend, isize);
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
		est_measure_end(w, acct);
		goto out;
	}
	/* Holes: each run of data in the part as a range of its own. */
	ret = est_runs_between(w, fd, off, end, isize, ctx->fst, ctx->raw,
			       acct);
out:
	est_read_done_range(fd, w->keep_cache, off, len);
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

static int est_nocompress_at(struct est_ctx *ctx, int fd,
			     const struct stat *st, const uint64_t *limit,
			     uint64_t *at)
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
	/* data read to follow the file's state, no unit of a sample: no
	 * share of the speed figures either */
	w->weight = 0;
	est_raw_flags(ctx->w, fd, ctx->raw);
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
		ret = est_load_chunk(w, est_load_fd, &fd, cs, ce, isize);
		memset(acct, 0, ctx->n * sizeof(*acct));
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
			ret = est_chunk(w, i, &ctx->fst[i], cs, ce, isize,
					&acct[i]);
			if (ctx->fst[i].nocompress) {
				at[i] = cs;
				left--;
			}
		}
		/* the span ends here; what the chunks use is no unit's */
		est_measure_end(w, acct);
	}
	est_read_done_range(fd, w->keep_cache, 0, cs);
	return ret;
}

static int est_writes(struct est_ctx *ctx, int fd, const struct stat *st,
		      const struct est_write *wr, size_t nw, size_t ng,
		      uint64_t *gdelta)
{
	struct est_worker *w = ctx->w;
	struct est_acct *acct = ctx->facct;
	const uint64_t isize = st->st_size;
	const size_t n = ctx->n;
	uint64_t end, lo = UINT64_MAX, hi = 0;
	size_t k, i;
	bool *was;
	int ret = 0;

	if (!S_ISREG(st->st_mode))
		return -EINVAL;
	was = ctx->bwas;
	for (k = 0; k < nw; k++)
		if (wr[k].group >= ng)
			return -EINVAL;
	memset(gdelta, 0, ng * 3 * n * sizeof(*gdelta));
	w->weight = 1;
	/* part_raw is borrowed: est_part()'s memory of it is gone */
	ctx->part_valid = false;
	est_raw_flags(w, fd, ctx->raw);
	/* one inode: its NOCOMPRESS flag outlives each write */
	memset(ctx->fst, 0, n * sizeof(*ctx->fst));
	for (i = 0; i < n; i++)
		ctx->fst[i].raw = true;	/* until a write decides */
	w->keep_cache = est_all_cached(w, fd, isize);
	w->drop_from = 0;
	for (k = 0; k < nw && !ret; k++) {
		uint64_t *g = &gdelta[3 * n * wr[k].group];

		end = wr[k].end < isize ? wr[k].end : isize;
		if (wr[k].start >= end)
			continue;
		lo = wr[k].start < lo ? wr[k].start : lo;
		hi = end > hi ? end : hi;
		memset(acct, 0, n * sizeof(*acct));
		for (i = 0; i < n; i++)
			was[i] = ctx->fst[i].nocompress;
		if (wr[k].grid > wr[k].start)
			ret = -EINVAL;
		w->gridded = true;
		w->grid = wr[k].grid;
		w->indep = !!(wr[k].flags & EST_WRITE_INDEP);
		w->begin = !!(wr[k].flags & EST_WRITE_BEGIN);
		if (!ret && w->indep) {
			/* a bound: the inode's state is not this write's */
			memcpy(ctx->ifst, ctx->fst, n * sizeof(*ctx->fst));
			ret = est_runs_between(w, fd, wr[k].start, end, isize,
					       ctx->ifst, ctx->raw, acct);
		} else if (!ret) {
			ret = est_runs_between(w, fd, wr[k].start, end, isize,
					       ctx->fst, ctx->raw, acct);
		}
		w->gridded = false;
		w->indep = false;
		w->begin = false;
		/* raw under compress=, but run through the write path all
		 * the same: where it sets NOCOMPRESS matters to what follows */
		for (i = 0; (wr[k].flags & EST_WRITE_RAW_UNFORCED) &&
			    !(wr[k].flags & EST_WRITE_INDEP) && i < n; i++)
			if (!ctx->s[i].force && !ctx->raw[i])
				acct[i].disk = acct[i].ram =
					est_round_up(end, ctx->sectorsize) -
					wr[k].start;
		for (i = 0; i < n; i++) {
			struct est_fstate *f = &ctx->fst[i];

			/* set by the piece the cut shortened: not as written */
			if ((wr[k].flags & EST_WRITE_CUT_END) && !was[i] &&
			    f->nocompress && f->nocomp_end >= end &&
			    f->nocomp_end - f->nocomp_at < EST_PIECE_MAX)
				f->nocompress = false;
			g[3 * i] += acct[i].disk;
			g[3 * i + 1] += acct[i].ram;
			g[3 * i + 2] += end - wr[k].start;
			/* the codecs' time only: the data is counted once,
			 * by files() */
			acct[i].disk = acct[i].ram = 0;
			est_acct_add(&ctx->acct[i], &acct[i]);
		}
	}
	/* what was read: a big file's part read alone, the rest of it
	 * as it was */
	if (hi > lo)
		est_read_done_range(fd, w->keep_cache, lo, hi - lo);
	return ret;
}

/* Decompress what is kept (est_dbatch_add()) into the totals. */
static void est_ctx_flush(struct est_ctx *ctx)
{
	int ret = est_check_kept(ctx->w, ctx->acct);

	if (ret && !ctx->err)
		ctx->err = ret;
}

static int est_merge(struct est_ctx *dst, struct est_ctx *src)
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

static void est_get_result(struct est_ctx *ctx, size_t i,
			   struct est_result *out)
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
	if (a->comp_ns > 0)
		out->compress_mbps = a->comp_in / (a->comp_ns / 1e9) / 1e6;
	if (a->dec_ns > 0)
		out->decompress_mbps = a->dec_out / (a->dec_ns / 1e9) / 1e6;
}

__attribute__((visibility("default")))
const struct est_ops compsize_est_ops = {
	.abi = EST_OPS_ABI,
	.result_size = sizeof(struct est_result),
	.version = COMPSIZE_VERSION,
	.create = est_create,
	.free = est_free,
	.files = est_files,
	.ahead = est_ahead_op,
	.part = est_part,
	.nocompress_at = est_nocompress_at,
	.writes = est_writes,
	.merge = est_merge,
	.get_result = est_get_result,
	.lvl_create = est_lvl_create,
	.lvl_free = est_lvl_free,
	.lvl_match = est_lvl_match,
	.lvl_codec = est_lvl_codec,
};
