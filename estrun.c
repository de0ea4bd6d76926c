// SPDX-License-Identifier: GPL-2.0
/*
 * estrun: worker threads, the bounded file queue, sampling and the
 * progress line for --estimate.
 *
 * Parallelism is per file.  Under compress= the heuristic and the sticky
 * NOCOMPRESS flag make a file one sequential computation; under
 * compress-force 512 KiB chunks would be independent, but one list mixes
 * both kinds and a file is read once for all settings, so files are never
 * split: a single huge file is estimated by one thread.
 *
 * Locking: one mutex guards the queues and the counters.  A slot is free
 * (on the main thread's free list), queued (in the FIFO the workers take
 * from), running, or done (in the FIFO the main thread delivers from, in
 * the order the files finished).  Only the calling (main) thread moves a
 * slot free -> queued and done -> free, only workers queued -> running ->
 * done; a slot's contents belong to whoever moved it last, so they are
 * read and written without the lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "estrun.h"
#include "format.h"

/*
 * Files queued, running or not yet delivered, per worker: enough to keep
 * the workers busy while the main thread does something else (the usage
 * scan of a directory of 15,000 files takes it 50 ms; a time slice lost to
 * other load), few enough to bound open fds and memory (~200 bytes a
 * slot): at most ESTRUN_MAX_SLOTS and a quarter of RLIMIT_NOFILE, but
 * never fewer than ESTRUN_MIN_SLOTS_PER_JOB a worker.  With 8 slots for 2
 * workers each worker waited ~400 times a run, 0.13-0.22 s in all; with
 * 512 about 15 ms, during that scan; with 1024, not at all.
 */
#define ESTRUN_SLOTS_PER_JOB	512
#define ESTRUN_MIN_SLOTS_PER_JOB 4
#define ESTRUN_MIN_SLOTS	8
#define ESTRUN_MAX_SLOTS	4096
/*
 * A worker takes queued files of 512 KiB or less together, up to this
 * many and this much data, and est_files() estimates them setting by
 * setting.  Once the walk is done a worker takes at most its share of what
 * is left, so the workers finish together.
 */
#define ESTRUN_BATCH_FILES	256
#define ESTRUN_BATCH_BYTES	(4u * 1024 * 1024)
#define ESTRUN_SMALL		(512u * 1024)
/* Progress: nothing before this, then a redraw at most this often. */
#define ESTRUN_PROGRESS_DELAY_NS	1000000000ull
#define ESTRUN_PROGRESS_TICK_NS		200000000ull

struct estrun_slot {
	int fd;
	char *path;
	struct stat st;
	size_t token;
	int err;
	uint64_t *delta;	/* 3 values a setting, unscaled */
};

struct estrun_worker {
	struct estrun *r;
	struct est_ctx *ctx;
	/* the batch being estimated */
	struct estrun_slot *batch[ESTRUN_BATCH_FILES];
	int fd[ESTRUN_BATCH_FILES], err[ESTRUN_BATCH_FILES];
	struct stat st[ESTRUN_BATCH_FILES];
	uint64_t *delta[ESTRUN_BATCH_FILES];
	pthread_t th;
	int started;
};

struct estrun {
	size_t n;
	struct est_setting *s;
	uint32_t sectorsize;
	int sampling;
	double f;
	double pps;			/* > 0: read with probability c * x */
	uint64_t seed;
	estrun_done_fn done;
	int (*idle)(void *arg);
	void *arg;

	pthread_mutex_t lock;
	pthread_cond_t work;		/* a slot was queued, or stop */
	pthread_cond_t finished;	/* a slot is done */
	struct estrun_slot *slots;
	size_t nslots;
	/* Rings of nslots slot indices: queued (submission order) and done
	 * (completion order); the free list is the main thread's alone. */
	size_t *queue, qhead, queued;
	size_t *done_q, dhead, ndone;
	size_t *free_list, nfree;
	size_t busy;			/* slots not free */
	size_t wake_done;		/* wake the main thread at this many */
	uint64_t *deltas;		/* nslots * 3n */
	int stop;
	struct estrun_worker *w;
	unsigned jobs;

	/* Totals; the ratio sums and input_all belong to the main thread. */
	struct est_ctx *total;		/* merged by estrun_finish() */
	struct estrun_ratio *rdisk, *runc;
	uint64_t input_all;		/* st_size of every file submitted */
	uint64_t data_all;		/* their estrun_data_bytes() */
	uint64_t files_read;
	uint64_t *scratch;		/* 3n: answers for files not sampled */

	/* Progress; counters under lock, the terminal under draw_lock. */
	int progress_fd;
	pthread_t prog;
	int prog_started;
	pthread_cond_t prog_wake;
	pthread_mutex_t draw_lock;
	int drawn;
	uint64_t t0_ns;
	uint64_t rchar0;
	uint64_t bytes_queued;		/* st_size of the sampled files */
	uint64_t bytes_waiting;		/* of those still in the queue */
	uint64_t bytes_done;
	int walk_done;
};

/* ---- sampling ---- */

static uint64_t estrun_round(double v)
{
	return v <= 0 ? 0 : (uint64_t)(v + 0.5);
}

static uint64_t estrun_mix(uint64_t z)
{
	/* splitmix64's finalizer */
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t estrun_hash(uint64_t dev, uint64_t ino, uint64_t seed)
{
	return estrun_mix(estrun_mix(estrun_mix(seed) ^ dev) ^ ino);
}

/*
 * What the ratio estimator scales by: the bytes of data in the file.  Not
 * st_size: a sparse file's holes cost nothing, and one 40 MB sparse file
 * in the sample would drag the ratio of every other file down.  The
 * allocation (st_blocks; uncompressed bytes on btrfs) stands for it;
 * a filesystem that reports none gets st_size.
 */
uint64_t estrun_data_bytes(const struct stat *st)
{
	uint64_t alloc = (uint64_t)st->st_blocks * 512;

	if (!alloc || alloc > (uint64_t)st->st_size)
		return st->st_size;
	return alloc;
}

/*
 * With --sample, a file of x data bytes is read with probability
 * min(1, c * max(x, ESTRUN_PPS_FLOOR)): proportional to its size, so that
 * one big file in or out does not swing the estimate, but no less than a
 * file of one 128 KiB piece, so that the tiny files, whose ratio varies
 * most (inline or a whole sector), don't get enormous weights.
 */
#define ESTRUN_PPS_FLOOR (128u * 1024)

static double estrun_pps_pi(double c, uint64_t x)
{
	double p = c * (x > ESTRUN_PPS_FLOOR ? x : ESTRUN_PPS_FLOOR);

	return p < 1 ? p : 1;
}

/* The probability that file st is in the sample. */
static double estrun_pi(const struct estrun *r, const struct stat *st)
{
	uint64_t x;

	if (!r->sampling)
		return 1;
	if (!r->pps)
		return r->f;
	x = estrun_data_bytes(st);
	/* empty files cost nothing to read */
	return !x ? 1 : estrun_pps_pi(r->pps, x);
}

int estrun_sampled(const struct estrun *r, const struct stat *st)
{
	uint64_t h;

	if (!r->sampling)
		return 1;
	h = estrun_hash(st->st_dev, st->st_ino, r->seed);
	return (double)(h >> 11) * 0x1p-53 < estrun_pi(r, st);
}

/* Expected data bytes read with that c. */
static double estrun_expected(const uint64_t *x, size_t n, double c)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i] ? estrun_pps_pi(c, x[i]) * x[i] : 0;
	return sum;
}

double estrun_plan(const uint64_t *x, size_t n, uint64_t budget)
{
	double lo = 0, hi = 0, c, total = 0;
	uint64_t min = 0;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		total += x[i];
		if (x[i] && (!min || x[i] < min))
			min = x[i];
	}
	if (!min || budget >= total)
		return 0;
	/* c = 1 / min reads everything: bisect below it */
	hi = 1.0 / (min > ESTRUN_PPS_FLOOR ? min : ESTRUN_PPS_FLOOR);
	for (k = 0; k < 100; k++) {
		c = (lo + hi) / 2;
		if (estrun_expected(x, n, c) < budget)
			lo = c;
		else
			hi = c;
	}
	return hi;
}

/* A non-negative term, rounded to a whole number so that the sums are
 * exact and independent of the order the threads deliver in. */
static unsigned __int128 estrun_term(long double v)
{
	return v <= 0 ? 0 : (unsigned __int128)(v + 0.5L);
}

void estrun_ratio_add(struct estrun_ratio *a, uint64_t x, uint64_t y,
		      double pi)
{
	long double w = 1.0L / pi, w2 = (1.0L - pi) / ((long double)pi * pi);

	a->n++;
	a->sx += estrun_term(w * x);
	a->sy += estrun_term(w * y);
	a->sxx += estrun_term(w2 * x * x);
	a->syy += estrun_term(w2 * y * y);
	a->sxy += estrun_term(w2 * x * y);
}

/* Square root by Newton's method from above: no libm for one call (the
 * fuzzing and sanitizer builds don't let sqrtl() inline). */
static long double estrun_sqrt(long double v)
{
	long double x, nx;
	int k;

	if (!(v > 0))
		return 0;
	x = v > 1 ? v : 1;
	for (k = 0; k < 400; k++) {
		nx = (x + v / x) / 2;
		if (nx >= x)
			break;
		x = nx;
	}
	return x;
}

double estrun_ratio_estimate(const struct estrun_ratio *a, double X,
			     double *ci95)
{
	long double R, see, var;

	if (a->n < 2 || !a->sx) {
		/* One unit says nothing of the spread. */
		*ci95 = X;
		return a->sx ? X * ((long double)a->sy / a->sx) : 0;
	}
	R = (long double)a->sy / a->sx;
	/* sum of (y - R x)^2 from exact sums; cancellation can leave a
	 * tiny negative */
	see = (long double)a->syy - 2 * R * (long double)a->sxy +
	      R * R * (long double)a->sxx;
	if (see < 0)
		see = 0;
	see *= (long double)a->n / (a->n - 1);
	var = (X / (long double)a->sx) * (X / (long double)a->sx) * see;
	if (var < 0)
		var = 0;
	*ci95 = 1.96 * estrun_sqrt(var);
	return X * R;
}

/* ---- workers ---- */

static void estrun_block_signals(void)
{
	sigset_t all;

	/* Signals go to the main thread, with their default or compsize's
	 * own dispositions; this thread never takes one. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

/* The oldest queued slot, taken off the queue; under the lock. */
static struct estrun_slot *estrun_take(struct estrun *r)
{
	size_t k = r->queue[r->qhead];

	r->qhead = (r->qhead + 1) % r->nslots;
	r->queued--;
	return &r->slots[k];
}

/* Slot sl is done; under the lock. */
static void estrun_put_done(struct estrun *r, struct estrun_slot *sl)
{
	r->done_q[(r->dhead + r->ndone) % r->nslots] = sl - r->slots;
	r->ndone++;
}

/*
 * Take the next files off the queue into w->batch (under the lock): the
 * oldest, and after it, if they are all small, more small ones up to the
 * batch's limits.  Returns how many.
 */
static size_t estrun_take_batch(struct estrun *r, struct estrun_worker *w)
{
	uint64_t budget = ESTRUN_BATCH_BYTES, bytes;
	const struct estrun_slot *next;
	size_t k = 0;

	if (r->walk_done && r->bytes_waiting / (2 * r->jobs) < budget)
		budget = r->bytes_waiting / (2 * r->jobs);
	w->batch[k] = estrun_take(r);
	bytes = w->batch[k]->st.st_size;
	r->bytes_waiting -= bytes;
	k++;
	if (bytes > ESTRUN_SMALL)
		return k;
	while (k < ESTRUN_BATCH_FILES && r->queued) {
		next = &r->slots[r->queue[r->qhead]];
		if ((uint64_t)next->st.st_size > ESTRUN_SMALL ||
		    bytes + next->st.st_size > budget)
			break;
		w->batch[k] = estrun_take(r);
		bytes += next->st.st_size;
		r->bytes_waiting -= next->st.st_size;
		k++;
	}
	return k;
}

/* Estimate the k files of w->batch, outside the lock. */
static void estrun_batch(struct estrun_worker *w, size_t k)
{
	struct estrun_slot *sl;
	size_t i;

	for (i = 0; i < k; i++) {
		sl = w->batch[i];
		w->fd[i] = sl->fd;
		w->st[i] = sl->st;
		w->delta[i] = sl->delta;
	}
	est_files(w->ctx, k, w->fd, w->st, w->err, w->delta);
	for (i = 0; i < k; i++) {
		sl = w->batch[i];
		sl->err = w->err[i];
		close(sl->fd);
		sl->fd = -1;
	}
}

static void *estrun_worker_main(void *arg)
{
	struct estrun_worker *w = arg;
	struct estrun *r = w->r;
	size_t i, k;

	estrun_block_signals();
	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->stop && !r->queued)
			pthread_cond_wait(&r->work, &r->lock);
		if (r->stop)
			break;
		k = estrun_take_batch(r, w);
		pthread_mutex_unlock(&r->lock);
		estrun_batch(w, k);
		pthread_mutex_lock(&r->lock);
		for (i = 0; i < k; i++) {
			estrun_put_done(r, w->batch[i]);
			r->bytes_done += w->batch[i]->st.st_size;
		}
		/* Wake the main thread for a batch, not for every file: a
		 * context switch a file cost more than the small ones. */
		if (r->ndone >= r->wake_done || r->ndone == r->busy)
			pthread_cond_signal(&r->finished);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ---- progress ---- */

static uint64_t estrun_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Bytes this process has read so far (rchar), which moves inside a large
 * file too; 0 if /proc is not there. */
static uint64_t estrun_rchar(void)
{
	char buf[512];
	uint64_t v = 0;
	ssize_t len;
	char *p;
	int fd;

	fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return 0;
	buf[len] = 0;
	p = strstr(buf, "rchar:");
	if (p)
		v = strtoull(p + 6, NULL, 10);
	return v;
}

/* fmt_size() pads for table columns; the progress line doesn't. */
static const char *estrun_size(uint64_t v, char buf[FMT_BUF])
{
	const char *p = fmt_size(v, 0, buf);

	while (*p == ' ')
		p++;
	return p;
}

static void estrun_draw(struct estrun *r, uint64_t now)
{
	char line[160], a[FMT_BUF], b[FMT_BUF], c[FMT_BUF];
	const char *sa, *sb, *sc;
	uint64_t done, queued, rchar, rate, secs;
	int walk_done, len;

	pthread_mutex_lock(&r->lock);
	done = r->bytes_done;
	queued = r->bytes_queued;
	walk_done = r->walk_done;
	pthread_mutex_unlock(&r->lock);
	rchar = estrun_rchar();
	if (rchar > r->rchar0 && rchar - r->rchar0 > done)
		done = rchar - r->rchar0;
	if (walk_done && done > queued)
		done = queued;
	rate = done * 1000000000ull / (now - r->t0_ns);
	sa = estrun_size(done, a);
	sb = estrun_size(rate, b);
	if (walk_done) {
		sc = estrun_size(queued, c);
		secs = rate ? (queued - done) / rate : 0;
		len = snprintf(line, sizeof(line),
			       "\rcompsize: estimate: %s of %s read, %s/s, ETA %" PRIu64
			       ":%02" PRIu64 "\033[K", sa, sc, sb, secs / 60,
			       secs % 60);
	} else {
		len = snprintf(line, sizeof(line),
			       "\rcompsize: estimate: %s read, %s/s\033[K", sa, sb);
	}
	pthread_mutex_lock(&r->draw_lock);
	if (write(r->progress_fd, line, len) == len)
		r->drawn = 1;
	pthread_mutex_unlock(&r->draw_lock);
}

static void *estrun_progress_main(void *arg)
{
	struct estrun *r = arg;
	struct timespec ts;
	uint64_t now, next;

	estrun_block_signals();
	pthread_mutex_lock(&r->lock);
	next = r->t0_ns + ESTRUN_PROGRESS_DELAY_NS;
	while (!r->stop) {
		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		pthread_cond_timedwait(&r->prog_wake, &r->lock, &ts);
		if (r->stop)
			break;
		now = estrun_now_ns();
		if (now < next)
			continue;
		next = now + ESTRUN_PROGRESS_TICK_NS;
		pthread_mutex_unlock(&r->lock);
		estrun_draw(r, now);
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

void estrun_clear_progress(struct estrun *r)
{
	static const char clear[] = "\r\033[K";

	if (!r || r->progress_fd < 0)
		return;
	pthread_mutex_lock(&r->draw_lock);
	if (r->drawn && write(r->progress_fd, clear, sizeof(clear) - 1) > 0)
		r->drawn = 0;
	pthread_mutex_unlock(&r->draw_lock);
}

/* ---- setup and teardown ---- */

static void estrun_stop(struct estrun *r)
{
	unsigned i;

	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_broadcast(&r->work);
	pthread_cond_broadcast(&r->prog_wake);
	pthread_mutex_unlock(&r->lock);
	for (i = 0; i < r->jobs; i++)
		if (r->w[i].started) {
			pthread_join(r->w[i].th, NULL);
			r->w[i].started = 0;
		}
	if (r->prog_started) {
		pthread_join(r->prog, NULL);
		r->prog_started = 0;
	}
	estrun_clear_progress(r);
}

void estrun_free(struct estrun *r)
{
	size_t i;

	if (!r)
		return;
	if (r->w) {
		estrun_stop(r);
		for (i = 0; i < r->jobs; i++)
			est_free(r->w[i].ctx);
	}
	for (i = 0; r->slots && i < r->nslots; i++) {
		if (r->slots[i].fd >= 0)
			close(r->slots[i].fd);
		free(r->slots[i].path);
	}
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->draw_lock);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->finished);
	pthread_cond_destroy(&r->prog_wake);
	est_free(r->total);
	free(r->slots);
	free(r->deltas);
	free(r->queue);
	free(r->done_q);
	free(r->free_list);
	free(r->w);
	free(r->rdisk);
	free(r->runc);
	free(r->scratch);
	free(r->s);
	free(r);
}

/* How many files may be in the queue: see ESTRUN_SLOTS_PER_JOB. */
static size_t estrun_nslots(unsigned jobs)
{
	size_t n = (size_t)jobs * ESTRUN_SLOTS_PER_JOB, max = ESTRUN_MAX_SLOTS;
	size_t min = (size_t)jobs * ESTRUN_MIN_SLOTS_PER_JOB;
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < max)
		max = rl.rlim_cur / 4;
	if (n > max)
		n = max;
	if (n < min)
		n = min;
	return n < ESTRUN_MIN_SLOTS ? ESTRUN_MIN_SLOTS : n;
}

static int estrun_alloc(struct estrun *r, const struct estrun_opts *o)
{
	size_t i, n3 = 3 * (o->n ? o->n : 1);

	r->s = calloc(o->n ? o->n : 1, sizeof(*r->s));
	r->rdisk = calloc(o->n ? o->n : 1, sizeof(*r->rdisk));
	r->runc = calloc(o->n ? o->n : 1, sizeof(*r->runc));
	r->scratch = calloc(n3, sizeof(*r->scratch));
	r->nslots = estrun_nslots(o->jobs);
	r->wake_done = r->nslots / 2;
	r->slots = calloc(r->nslots, sizeof(*r->slots));
	r->deltas = calloc(r->nslots * n3, sizeof(*r->deltas));
	r->queue = calloc(r->nslots, sizeof(*r->queue));
	r->done_q = calloc(r->nslots, sizeof(*r->done_q));
	r->free_list = calloc(r->nslots, sizeof(*r->free_list));
	r->w = calloc(o->jobs, sizeof(*r->w));
	if (!r->s || !r->rdisk || !r->runc || !r->scratch || !r->slots ||
	    !r->deltas || !r->queue || !r->done_q || !r->free_list || !r->w)
		return -ENOMEM;
	if (o->n)
		memcpy(r->s, o->s, o->n * sizeof(*o->s));
	for (i = 0; i < r->nslots; i++) {
		r->slots[i].fd = -1;
		r->slots[i].delta = r->deltas + i * n3;
		/* handed out from the start of the array first */
		r->free_list[i] = r->nslots - 1 - i;
	}
	r->nfree = r->nslots;
	return 0;
}

struct estrun *estrun_create(const struct estrun_opts *o,
			     estrun_done_fn done, void *arg)
{
	pthread_condattr_t ca;
	struct estrun *r;
	unsigned i;
	int ret;

	if (!o->jobs || (o->n && !o->s) || !done || o->sample < 0 ||
	    o->sample > 1) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->draw_lock, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->finished, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->prog_wake, &ca);
	pthread_condattr_destroy(&ca);
	r->n = o->n;
	r->sectorsize = o->sectorsize;
	r->sampling = o->pps > 0 || (o->sample > 0 && o->sample < 1);
	r->f = o->sample > 0 && o->sample < 1 ? o->sample : 1;
	r->pps = o->pps;
	r->seed = o->seed;
	r->done = done;
	r->idle = o->idle;
	r->arg = arg;
	r->jobs = o->jobs;
	r->progress_fd = o->progress_fd;
	ret = estrun_alloc(r, o);
	if (ret)
		goto fail;
	r->total = est_create(r->s, r->n, r->sectorsize);
	if (!r->total) {
		ret = -errno;
		goto fail;
	}
	for (i = 0; i < r->jobs; i++) {
		r->w[i].r = r;
		r->w[i].ctx = est_create(r->s, r->n, r->sectorsize);
		if (!r->w[i].ctx) {
			ret = -errno;
			goto fail;
		}
	}
	for (i = 0; i < r->jobs; i++) {
		ret = -pthread_create(&r->w[i].th, NULL, estrun_worker_main,
				      &r->w[i]);
		if (ret)
			goto fail;
		r->w[i].started = 1;
	}
	r->t0_ns = estrun_now_ns();
	if (r->progress_fd >= 0) {
		r->rchar0 = estrun_rchar();
		ret = -pthread_create(&r->prog, NULL, estrun_progress_main, r);
		if (ret)
			goto fail;
		r->prog_started = 1;
	}
	return r;
fail:
	estrun_free(r);
	errno = -ret;
	return NULL;
}

/* ---- the calling thread's side ---- */

/* Hand one finished slot to the callback; called without the lock. */
static int estrun_deliver(struct estrun *r, struct estrun_slot *sl)
{
	uint64_t *d = sl->delta;
	size_t i;

	if (sl->err) {
		/* Left out of the extrapolation as of the exact totals. */
		r->input_all -= sl->st.st_size;
		r->data_all -= estrun_data_bytes(&sl->st);
		return r->done(r->arg, sl->path, sl->err, sl->token, NULL);
	}
	r->files_read++;
	if (r->sampling) {
		double pi = estrun_pi(r, &sl->st);
		uint64_t x = estrun_data_bytes(&sl->st);

		for (i = 0; i < r->n; i++) {
			estrun_ratio_add(&r->rdisk[i], x, d[3 * i], pi);
			estrun_ratio_add(&r->runc[i], x, d[3 * i + 1], pi);
			d[3 * i] = estrun_round(d[3 * i] / pi);
			d[3 * i + 1] = estrun_round(d[3 * i + 1] / pi);
		}
	}
	return r->done(r->arg, sl->path, 0, sl->token, d);
}

/* Deliver finished files; with wait, until none is left.  Called and
 * returns with the lock held. */
static int estrun_collect(struct estrun *r, int wait)
{
	struct estrun_slot *sl;
	int ret;

	for (;;) {
		if (!r->ndone) {
			if (!wait || !r->busy)
				return 0;
			while (r->ndone < r->busy)
				pthread_cond_wait(&r->finished, &r->lock);
			continue;
		}
		sl = &r->slots[r->done_q[r->dhead]];
		r->dhead = (r->dhead + 1) % r->nslots;
		r->ndone--;
		r->busy--;
		pthread_mutex_unlock(&r->lock);
		ret = estrun_deliver(r, sl);
		free(sl->path);
		sl->path = NULL;
		r->free_list[r->nfree++] = sl - r->slots;
		pthread_mutex_lock(&r->lock);
		if (ret)
			return ret;
	}
}

int estrun_submit(struct estrun *r, int *fd, const char *path,
		  const struct stat *st, size_t token)
{
	struct estrun_slot *sl = NULL;
	size_t i;
	int ret;

	r->input_all += st->st_size;
	r->data_all += estrun_data_bytes(st);
	if (!estrun_sampled(r, st)) {
		for (i = 0; i < r->n; i++)
			r->scratch[3 * i + 2] = st->st_size;
		return r->done(r->arg, path, 0, token, r->scratch);
	}
	pthread_mutex_lock(&r->lock);
	for (;;) {
		ret = estrun_collect(r, 0);
		if (ret || r->busy < r->nslots)
			break;
		if (r->idle) {
			/* Full: the caller's own work first, if it has any. */
			pthread_mutex_unlock(&r->lock);
			ret = r->idle(r->arg);
			pthread_mutex_lock(&r->lock);
			if (ret < 0)
				break;
			if (ret) {
				ret = 0;
				continue;
			}
		}
		/* Full: wait until half of it is done. */
		while (r->ndone < r->wake_done && r->ndone < r->busy)
			pthread_cond_wait(&r->finished, &r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	if (ret)
		return ret;
	sl = &r->slots[r->free_list[r->nfree - 1]];
	sl->path = strdup(path);
	if (!sl->path)
		return -ENOMEM;
	sl->fd = *fd;
	*fd = -1;
	sl->st = *st;
	sl->token = token;
	sl->err = 0;
	r->nfree--;
	pthread_mutex_lock(&r->lock);
	r->queue[(r->qhead + r->queued) % r->nslots] = sl - r->slots;
	r->queued++;
	r->busy++;
	r->bytes_queued += st->st_size;
	r->bytes_waiting += st->st_size;
	pthread_cond_signal(&r->work);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

int estrun_drain(struct estrun *r)
{
	int ret;

	pthread_mutex_lock(&r->lock);
	ret = estrun_collect(r, 1);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int estrun_finish(struct estrun *r)
{
	unsigned i;
	int ret;

	pthread_mutex_lock(&r->lock);
	r->walk_done = 1;
	ret = estrun_collect(r, 1);
	pthread_mutex_unlock(&r->lock);
	if (ret)
		return ret;
	estrun_stop(r);
	for (i = 0; i < r->jobs; i++) {
		ret = est_merge(r->total, r->w[i].ctx);
		if (ret)
			return ret;
	}
	return 0;
}

void estrun_get_result(const struct estrun *r, size_t i,
		       struct estrun_result *out)
{
	double ci;

	memset(out, 0, sizeof(*out));
	if (i >= r->n)
		return;
	est_get_result(r->total, i, &out->est);
	out->files_read = r->files_read;
	if (!r->sampling)
		return;
	out->sampled = 1;
	out->est.input = r->input_all;
	out->est.disk = estrun_round(estrun_ratio_estimate(&r->rdisk[i],
				r->data_all, &out->disk_ci95));
	out->est.uncompressed = estrun_round(estrun_ratio_estimate(&r->runc[i],
				r->data_all, &ci));
}
