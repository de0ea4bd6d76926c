// SPDX-License-Identifier: GPL-2.0
/*
 * measure: what the estimate reports besides sizes.  Codec calls are
 * timed (the compress and decompress speed figures), and some compressed
 * pieces are decompressed again and compared with their input (a check
 * of the codec).  The sizes predicted never depend on any of it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "estimate/plugin/internal.h"

/*
 * One compressed piece in this many (per setting and thread, the first
 * one included) is kept with its input and later decompressed again and
 * compared with it: enough for the decompress speed figure and as a check
 * of the codec, while decompressing everything would cost a large share
 * of the CPU time of a run.
 *
 * The kept pieces are decompressed together, back to back, when their
 * batch is full (EST_DBATCH_BYTES of input or EST_DBATCH_MAX pieces) and
 * when the results are read (est_check_kept()).  Decompressing each piece
 * on its own right after compressing it measured the decoder with its
 * tables evicted by the other settings' encoders: the figure then
 * depended on how many settings ran and fell the rarer the pieces were.
 * Back to back it depends on neither.
 *
 * Every piece of a sampled unit (weight above 1: it stands for many) is
 * kept, and of the rest the first EST_VERIFY_FIRST bytes (per setting and
 * thread), then one in EST_VERIFY_EVERY, which then counts that many
 * times.  A sample kept two or three pieces before, and its decompress
 * figure moved 2- to 23-fold from one run to the next (bench/RESULTS.md,
 * 2026-11-27); decompressing all it reads costs it a few percent of its
 * CPU time.
 */
#define EST_VERIFY_EVERY 64
#define EST_VERIFY_FIRST (2u * 1024 * 1024)
#define EST_DBATCH_BYTES (256u * 1024)

/*
 * A batch of kept pieces is decompressed at least EST_DREPEAT_MIN times
 * and at most EST_DREPEAT_MAX, until the median of its times is within
 * EST_DREPEAT_TOL of the fastest (half of the passes or more agree: the
 * ones nothing disturbed); the median counts.  Each pass after the
 * first costs the run what the check did; with at least two of them
 * the median leaves out one disturbed pass at the least.
 */
#define EST_DREPEAT_MIN 3
#define EST_DREPEAT_MAX 9
#define EST_DREPEAT_TOL 0.05

static uint64_t est_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Codec time.  Each codec call is timed with CLOCK_MONOTONIC, which the
 * vDSO reads without entering the kernel; the thread's CPU clock is a
 * system call, and reading it around every call cost a visible share of
 * a run on trees of small files.  The CPU clock is read once
 * around the chunk's codec work instead (from the first codec call to the
 * end of the chunk, est_measure_end()) and the calls' wall times are scaled
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

/*
 * v scaled by cpu / wall.  A CPU clock that did not move (too coarse) says
 * nothing, and a time that was not 0 stays above 0: a thread all but
 * starved still gives a speed, never 0 MB/s.
 */
static double est_scale(double v, uint64_t cpu, uint64_t wall)
{
	if (!(v > 0) || !cpu || cpu >= wall)
		return v;
	return v * (double)cpu / (double)wall;
}

void est_measure_end(struct est_worker *w, struct est_acct *acct)
{
	uint64_t cpu, wall;
	size_t i;

	if (!w->timing)
		return;
	wall = est_clock_ns(CLOCK_MONOTONIC) - w->t_wall0;
	cpu = est_clock_ns(CLOCK_THREAD_CPUTIME_ID) - w->t_cpu0;
	for (i = 0; i < w->n; i++) {
		acct[i].comp_ns += est_scale(w->cwall[i], cpu, wall);
		w->cwall[i] = 0;
	}
	w->timing = false;
}

/* The median of the n (at most EST_DREPEAT_MAX) values v, sorted. */
static double est_median(double *v, unsigned n)
{
	unsigned a, b;

	for (a = 1; a < n; a++)
		for (b = a; b && v[b - 1] > v[b]; b--) {
			double x = v[b];

			v[b] = v[b - 1];
			v[b - 1] = x;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Decompress setting i's kept pieces back to back, compare each with its
 * input and count them in acct (that setting's).  The batch is
 * decompressed again until its time is steady (see EST_DREPEAT_MIN) and
 * the median of its times counts: one pass of a batch lasts a fraction
 * of a millisecond, and on a busy machine a preemption, another
 * process's pass through the caches or a frequency change in it moved a
 * run's decompress figure three-fold.  The passes are timed on
 * CLOCK_MONOTONIC and not scaled by the thread's CPU time (est_scale()):
 * a pass that was preempted is one the median leaves out.  Returns 0,
 * -EIO if a piece comes back different, or the codec's error.
 */
static int est_dbatch_flush(struct est_worker *w, size_t i,
			    struct est_acct *acct)
{
	const struct est_codec_ops *ops = est_codec(w->s[i].alg);
	struct est_dbatch *b = &w->dbatch[i];
	double t[EST_DREPEAT_MAX], m = 0;
	size_t in_off, out_off;
	unsigned k, r;
	uint64_t t0;
	int ret = 0;

	for (r = 0; b->n && r < EST_DREPEAT_MAX && !ret; r++) {
		in_off = out_off = 0;
		t[r] = 0;
		for (k = 0; k < b->n && !ret; k++) {
			t0 = est_clock_ns(CLOCK_MONOTONIC);
			ret = ops->decompress(w->ws[i], w->sectorsize,
					      b->out + out_off, b->clen[k],
					      w->back, b->len[k]);
			t[r] += (double)(est_clock_ns(CLOCK_MONOTONIC) - t0) *
				b->wt[k];
			if (!r) {
				acct->dec_out += b->len[k] * b->wt[k];
				if (!ret &&
				    memcmp(w->back, b->in + in_off, b->len[k]))
					ret = -EIO;
			}
			in_off += b->len[k];
			out_off += b->clen[k];
		}
		if (r + 1 >= EST_DREPEAT_MIN) {
			double v[EST_DREPEAT_MAX], lo = t[0];
			unsigned q;

			for (q = 0; q <= r; q++) {
				v[q] = t[q];
				lo = t[q] < lo ? t[q] : lo;
			}
			m = est_median(v, r + 1);
			if (m <= lo * (1 + EST_DREPEAT_TOL))
				break;
		}
	}
	if (b->n && !ret)
		acct->dec_ns += m;
	b->n = 0;
	b->in_used = 0;
	b->out_used = 0;
	return ret;
}

/*
 * Keep setting i's piece in (len bytes, compressed to w->out, clen bytes,
 * weight wt in the decompress figure) to decompress later, decompressing
 * the batch first if it is full.  Returns 0, -ENOMEM, or as
 * est_dbatch_flush().
 */
static int est_dbatch_add(struct est_worker *w, size_t i, const uint8_t *in,
			  size_t len, size_t clen, double wt,
			  struct est_acct *acct)
{
	struct est_dbatch *b = &w->dbatch[i];
	int ret;

	if (!b->in || !b->out) {
		/* only estimates that compress something need them; after one
		 * failed, the one that did not is asked for again */
		if (!b->in)
			b->in = malloc(EST_DBATCH_BYTES);
		if (!b->out)
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
	b->wt[b->n] = wt;
	b->clen[b->n++] = clen;
	return 0;
}

int est_check_kept(struct est_worker *w, struct est_acct *acct)
{
	size_t i;
	int ret = 0, r;

	for (i = 0; i < w->n; i++) {
		r = est_dbatch_flush(w, i, &acct[i]);
		if (!ret)
			ret = r;
	}
	est_measure_end(w, acct);
	return ret;
}

long est_compress(struct est_worker *w, size_t i, const uint8_t *in,
		  size_t len, size_t cap, struct est_acct *acct)
{
	const struct est_codec_ops *ops = est_codec(w->s[i].alg);
	bool zero = len == EST_PIECE_MAX && !in[len - 1] && est_all_zero(in, len);
	uint64_t t0;
	double wt;
	long clen;
	int ret;

	/* every piece compresses on its own: zeros always alike (not
	 * timed: the speed is the codec's on the data) */
	if (zero && w->zclen[i] > 0 && (size_t)w->zclen[i] <= cap)
		return w->zclen[i];
	t0 = est_codec_t0(w);
	clen = ops->compress(w->ws[i], w->sectorsize, in, len, w->out, cap);
	w->cwall[i] += (double)(est_clock_ns(CLOCK_MONOTONIC) - t0) *
		       w->weight;
	acct->comp_in += len * w->weight;
	if (zero && clen > 0)
		w->zclen[i] = clen;
	if (clen <= 0)
		return clen;
	if (w->weight > 1 ||
	    (w->weight > 0 && w->vfirst[i] < EST_VERIFY_FIRST)) {
		w->vfirst[i] += len;
		wt = w->weight;
	} else if (!w->verify[i]--) {
		w->verify[i] = EST_VERIFY_EVERY - 1;
		wt = w->weight * EST_VERIFY_EVERY;
	} else {
		return clen;
	}
	ret = est_dbatch_add(w, i, in, len, clen, wt, acct);
	return ret ? ret : clen;
}
