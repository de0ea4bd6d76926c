// SPDX-License-Identifier: GPL-2.0
/*
 * estrun: worker threads and the bounded file queue for --estimate; the
 * progress line is progress.c's, a sample's units and sums estsample.c's
 * (estrun_internal.h is what the two share).
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "estimate/plugin.h"
#include "estimate/estrun.h"
#include "estimate/estrun_internal.h"
#include "lib/array.h"
#include "report/progress.h"
#include "seen.h"
#include "estimate/tally.h"
#include "lib/thread.h"

/*
 * Files queued, running or not yet delivered, per worker: enough to keep
 * the workers busy while the main thread does something else (the usage
 * scan of a large directory; a time slice lost to other load), few enough
 * to bound open fds and memory (a few hundred bytes a slot): at most
 * ESTRUN_MAX_SLOTS and a quarter of RLIMIT_NOFILE, but never fewer than
 * ESTRUN_MIN_SLOTS_PER_JOB a worker.  With a few slots a worker, the
 * workers wait for work during every such scan.
 */
#define ESTRUN_SLOTS_PER_JOB	512
#define ESTRUN_MIN_SLOTS_PER_JOB 4
#define ESTRUN_MIN_SLOTS	8
#define ESTRUN_MAX_SLOTS	4096
/* The tally walks beside the estimate only with at least this many
 * descriptors allowed (estrun_fds_to_spare()). */
#define ESTRUN_TALLY_MIN_FDS	256
/*
 * Files queued and not yet taken by a worker have their reads started
 * (est_ops.ahead()) while there are at most this many bytes of such reads:
 * a cold tree's files are then read many at a time, ahead of workers
 * busy compressing, and the page cache they fill stays bounded ...
 */
#define ESTRUN_AHEAD_BYTES	(64u * 1024 * 1024)
/* ... and only when at least this many files are queued: with fewer the
 * walk is what the workers wait for (a warm tree, a fast scan), and the
 * read-ahead a worker does for its own batch is enough. */
#define ESTRUN_AHEAD_QUEUED	256
/*
 * A worker takes queued files of 512 KiB or less together, up to
 * ESTRUN_BATCH_FILES and this much data, and the estimator's files() takes
 * them setting by setting.  Once the walk is done a worker takes at most
 * its share of what is left, so the workers finish together.
 */
#define ESTRUN_BATCH_BYTES	(4u * 1024 * 1024)
#define ESTRUN_SMALL		(512u * 1024)

/* ---- workers ---- */

/* The oldest queued slot, taken off the queue; under the lock. */
static struct estrun_slot *estrun_take(struct estrun *r)
{
	size_t k = r->queue[r->qhead];

	r->qhead = (r->qhead + 1) % r->nslots;
	r->queued--;
	r->ahead_bytes -= r->slots[k].asked;
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
	bytes = w->batch[k]->bytes;
	r->bytes_waiting -= bytes;
	k++;
	if ((uint64_t)w->batch[0]->st.st_size > ESTRUN_SMALL)
		return k;
	while (k < ESTRUN_BATCH_FILES && r->queued) {
		next = &r->slots[r->queue[r->qhead]];
		if ((uint64_t)next->st.st_size > ESTRUN_SMALL ||
		    bytes + next->bytes > budget)
			break;
		w->batch[k] = estrun_take(r);
		bytes += next->bytes;
		r->bytes_waiting -= next->bytes;
		k++;
	}
	return k;
}

/*
 * A file defragment stops rewriting at sl->stop: its disk in one go (what
 * the rewrite writes) is that of one write of its data before it
 * (est_ops.writes(), as files()' in one go is of the whole file).
 * Returns 0 or the file's error.
 */
static int estrun_cut(struct estrun_worker *w, struct estrun_slot *sl)
{
	const size_t n = w->r->n;
	const struct est_write wr = { .start = 0, .end = sl->stop };
	size_t i;
	int ret;

	if (!sl->delta)
		return 0;
	ret = w->r->ops->writes(w->ctx, sl->fd, &sl->st, &wr, 1, 1, w->part);
	for (i = 0; !ret && i < n; i++)
		sl->delta[EST_WRITTEN(n) + 3 * i + 2] = w->part[3 * i];
	return ret;
}

/* Estimate the k files of w->batch, outside the lock. */
static void estrun_batch(struct estrun_worker *w, size_t k)
{
	struct estrun_slot *sl = w->batch[0];
	size_t i;

	if (w->r->sampling && (uint64_t)sl->st.st_size > SAMPLE_CHUNK) {
		/* a big file, alone in its batch: its units drawn */
		sl->err = estrun_parts(w, sl);
		close(sl->fd);
		sl->fd = -1;
		return;
	}
	for (i = 0; i < k; i++) {
		sl = w->batch[i];
		w->fd[i] = sl->fd;
		w->st[i] = sl->st;
		w->cached[i] = sl->cached;
		w->inl[i] = sl->inl;
		w->delta[i] = sl->delta;
		if (w->r->sampling)
			w->weight[i] = estrun_weight(w->r, sl->h);
	}
	/* a full estimate's files count once each (NULL) */
	w->r->ops->files(w->ctx, k, w->fd, w->st, w->cached, w->inl,
			 w->r->sampling ? w->weight : NULL, w->err, w->delta);
	for (i = 0; i < k; i++) {
		sl = w->batch[i];
		sl->err = w->err[i];
		/* written in steps: each write as it was written too (a
		 * sample's file read whole: the same layout's share) */
		if (!sl->err && sl->ng)
			sl->err = w->r->ops->writes(w->ctx, sl->fd, &sl->st,
						    sl->wr, sl->nw, sl->ng,
						    sl->gdelta);
		sl->gdone = !sl->err && sl->ng;
		if (!sl->err && sl->stop && !w->r->sampling)
			sl->err = estrun_cut(w, sl);
		if (w->r->sampling && !sl->err)
			sl->err = estrun_whole(sl, w->r->n);
		close(sl->fd);
		sl->fd = -1;
	}
}

static void *estrun_worker_main(void *arg)
{
	struct estrun_worker *w = arg;
	struct estrun *r = w->r;
	size_t i, k;

	thread_block_signals();
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
			r->bytes_done += w->batch[i]->bytes;
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

/* tally_bytes_fn: reads only what estrun_create() set. */
static uint64_t estrun_tally_bytes(void *arg, const struct stat *st)
{
	return estrun_cost(arg, st);
}

/* progress_counts_fn: the files' bytes done, and the total: exact once the
 * walk is done, else the tally's (tally.h) once it has seen every file. */
static void estrun_counts(void *arg, uint64_t *done, uint64_t *total,
			  int *total_known)
{
	struct estrun *r = arg;
	uint64_t t = 0;
	int tallied = r->tally && tally_get(r->tally, &t);

	pthread_mutex_lock(&r->lock);
	*done = r->bytes_done;
	*total = r->walk_done || r->bytes_queued > t ? r->bytes_queued : t;
	*total_known = r->walk_done || tallied;
	pthread_mutex_unlock(&r->lock);
}

void estrun_clear_progress(struct estrun *r)
{
	if (r)
		progress_clear(r->prog);
}

/* ---- setup and teardown ---- */

static void estrun_stop(struct estrun *r)
{
	unsigned i;

	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_broadcast(&r->work);
	pthread_mutex_unlock(&r->lock);
	for (i = 0; i < r->jobs; i++)
		if (r->w[i].started) {
			pthread_join(r->w[i].th, NULL);
			r->w[i].started = 0;
		}
	tally_stop(r->tally);
	r->tally = NULL;
	progress_stop(r->prog);
	r->prog = NULL;
}

void estrun_free(struct estrun *r)
{
	size_t i;

	if (!r)
		return;
	if (r->w) {
		estrun_stop(r);
		for (i = 0; i < r->jobs; i++) {
			r->ops->free(r->w[i].ctx);
			free(r->w[i].part);
			free(r->w[i].nocomp);
			free(r->w[i].at);
			free(r->w[i].limit);
			free(r->w[i].scaled);
			free(r->w[i].units);
		}
	}
	for (i = 0; r->slots && i < r->nslots; i++) {
		/* never read (stopped): what was read ahead goes again */
		if (r->slots[i].fd >= 0 && r->slots[i].asked)
			posix_fadvise(r->slots[i].fd, 0, 0,
				      POSIX_FADV_DONTNEED);
		if (r->slots[i].fd >= 0)
			close(r->slots[i].fd);
		free(r->slots[i].path);
		free(r->slots[i].wr);
		free(r->slots[i].gdelta);
		free(r->slots[i].su);
		free(r->slots[i].pw);
	}
	estrun_later_free(r);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->work);
	pthread_cond_destroy(&r->finished);
	if (r->ops)
		r->ops->free(r->total);
	free(r->slots);
	free(r->deltas);
	free(r->ncs);
	free(r->pop_known);
	free(r->known);
	free(r->dxd);
	free(r->dx);
	free(r->acc_rw);
	free(r->known_rw);
	free(r->queue);
	free(r->done_q);
	free(r->free_list);
	free(r->w);
	free(r->acc);
	free(r->raw);
	free(r->f);
	free(r->ak);
	free(r->pf);
	free(r->pt);
	free(r->bs);
	seen_free(r->links);
	free(r->scratch);
	free(r->s);
	free(r);
}

/* How many files may be in the queue: see ESTRUN_SLOTS_PER_JOB. */
/* pthread_create(), whose EAGAIN is mostly no memory for the stack (a
 * small RLIMIT_AS) and is reported as such. */
static int estrun_thread(pthread_t *th, void *(*fn)(void *), void *arg)
{
	int ret = pthread_create(th, NULL, fn, arg);

	return ret == EAGAIN ? -ENOMEM : -ret;
}

/*
 * Whether the tally's walk (tally.h) may run beside the estimate's: it
 * keeps directories open too, and where descriptors are scarce (a low
 * RLIMIT_NOFILE) the estimate's own walk must have them.
 */
static int estrun_fds_to_spare(void)
{
	struct rlimit rl;

	return getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	       rl.rlim_cur >= ESTRUN_TALLY_MIN_FDS;
}

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
	r->acc = calloc(4 * (o->n ? o->n : 1), sizeof(*r->acc));
	r->raw = calloc(2 * (o->n ? o->n : 1), sizeof(*r->raw));
	r->f = calloc(2 * (o->n ? o->n : 1), sizeof(*r->f));
	r->links = seen_create();
	r->scratch = calloc(2 * n3, sizeof(*r->scratch));
	r->nslots = estrun_nslots(o->jobs);
	r->wake_done = r->nslots / 2;
	r->slots = calloc(r->nslots, sizeof(*r->slots));
	r->deltas = calloc(r->nslots * 2 * n3, sizeof(*r->deltas));
	r->ncs = calloc(r->nslots * (n3 / 3), sizeof(*r->ncs));
	r->pop_known = calloc(2 * (n3 / 3), sizeof(*r->pop_known));
	r->known = calloc(4 * (n3 / 3), sizeof(*r->known));
	r->queue = calloc(r->nslots, sizeof(*r->queue));
	r->done_q = calloc(r->nslots, sizeof(*r->done_q));
	r->free_list = calloc(r->nslots, sizeof(*r->free_list));
	r->w = calloc(o->jobs, sizeof(*r->w));
	r->acc_rw = calloc(n3 / 3, sizeof(*r->acc_rw));
	r->known_rw = calloc(n3 / 3, sizeof(*r->known_rw));
	r->dxd = calloc((4 + 2 * (n3 / 3)) * SAMPLE_ROW_BANDS, sizeof(*r->dxd));
	r->dx = calloc((4 + 2 * (n3 / 3)) * SAMPLE_ROW_BANDS, sizeof(*r->dx));
	if (!r->s || !r->acc || !r->raw || !r->f || !r->links || !r->scratch ||
	    !r->slots || !r->deltas || !r->ncs || !r->pop_known ||
	    !r->known || !r->queue || !r->done_q ||
	    !r->free_list || !r->w || !r->dxd || !r->dx || !r->acc_rw ||
	    !r->known_rw)
		return -ENOMEM;
	for (i = 0; i < o->jobs; i++) {
		r->w[i].part = calloc(n3, sizeof(*r->w[i].part));
		r->w[i].nocomp = calloc(n3, sizeof(*r->w[i].nocomp));
		r->w[i].at = malloc(n3 * sizeof(*r->w[i].at));
		r->w[i].limit = calloc(n3, sizeof(*r->w[i].limit));
		r->w[i].scaled = calloc(n3, sizeof(*r->w[i].scaled));
		if (!r->w[i].part || !r->w[i].nocomp ||
		    !r->w[i].at || !r->w[i].limit || !r->w[i].scaled)
			return -ENOMEM;
		memset(r->w[i].at, 0xff, n3 * sizeof(*r->w[i].at));
	}
	if (o->n)
		memcpy(r->s, o->s, o->n * sizeof(*o->s));
	for (i = 0; i < r->nslots; i++) {
		r->slots[i].fd = -1;
		r->slots[i].delta = r->deltas + i * 2 * n3;
		r->slots[i].nc = r->ncs + i * (n3 / 3);
		/* handed out from the start of the array first */
		r->free_list[i] = r->nslots - 1 - i;
	}
	r->nfree = r->nslots;
	return 0;
}

struct estrun *estrun_create(const struct estrun_opts *o,
			     estrun_done_fn done, void *arg)
{
	struct estrun *r;
	unsigned i;
	int ret;

	if (!o->jobs || (o->n && !o->s) || !done) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		errno = ENOMEM;
		return NULL;
	}
	r->ops = est_plugin_ops();
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->work, NULL);
	pthread_cond_init(&r->finished, NULL);
	r->n = o->n;
	r->sectorsize = o->sectorsize;
	r->sampling = o->design != NULL;
	if (o->design)
		r->design = *o->design;
	r->bands = o->bands;
	r->key = o->key;
	r->done = done;
	r->idle = o->idle;
	r->factors = o->factors;
	r->deferred = o->deferred;
	r->part_factors = o->part_factors;
	r->bucket_scales = o->bucket_scales;
	r->known_share = o->known_share;
	r->sample_dx = o->sample_dx;
	r->rewritten = o->rewritten;
	r->arg = arg;
	r->jobs = o->jobs;
	r->progress_fd = o->progress_fd;
	ret = r->ops ? estrun_alloc(r, o) : -ENOSYS;
	if (ret)
		goto fail;
	r->total = r->ops->create(r->s, r->n, r->sectorsize);
	if (!r->total) {
		ret = -errno;
		goto fail;
	}
	for (i = 0; i < r->jobs; i++) {
		r->w[i].r = r;
		r->w[i].ctx = r->ops->create(r->s, r->n, r->sectorsize);
		if (!r->w[i].ctx) {
			ret = -errno;
			goto fail;
		}
	}
	for (i = 0; i < r->jobs; i++) {
		ret = estrun_thread(&r->w[i].th, estrun_worker_main, &r->w[i]);
		if (ret)
			goto fail;
		r->w[i].started = 1;
	}
	if (r->progress_fd >= 0) {
		r->prog = progress_start(r->progress_fd, "compsize: estimate: ",
					 estrun_counts, r);
		if (!r->prog) {
			ret = errno == EAGAIN ? -ENOMEM : -errno;
			goto fail;
		}
	}
	/*
	 * The tally's walk (tally.h) also reads the tree's metadata ahead of
	 * the estimate's walk: on a cold tree that walk would otherwise wait
	 * for each file's inode in turn while the workers wait for files.
	 * So it runs for a full estimate even without a progress line; a
	 * sample reads too little for it to pay.  Without it the line shows
	 * no total: not worth failing.
	 */
	if (o->npaths && (r->prog || !r->sampling) && estrun_fds_to_spare())
		r->tally = tally_start(o->paths, o->npaths, o->one_fs,
				       estrun_tally_bytes, r);
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
	if (sl->err) {
		/* Left out of the totals, and of the population sampled */
		r->input_all -= sl->st.st_size;
		if (r->sampling && estrun_sample_failed(r, sl))
			return -ENOMEM;
		return r->done(r->arg, sl->path, sl->err, sl->token, NULL,
			       NULL);
	}
	r->files_read++;
	if (r->sampling && estrun_sample_read(r, sl))
		return -ENOMEM;
	return r->done(r->arg, sl->path, 0, sl->token, sl->delta,
		       sl->gdone ? sl->gdelta : NULL);
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
	return estrun_submit_writes(r, fd, path, st, token, NULL, 0, 0, 0, 0);
}

int estrun_submit_writes(struct estrun *r, int *fd, const char *path,
			 const struct stat *st, size_t token,
			 const struct est_write *wr, size_t nw, size_t ng,
			 uint32_t inl, uint64_t stop)
{
	struct estrun_slot *sl = NULL;
	struct sample_file_bands fb;
	struct sample_cur cur;
	const uint8_t *pb;
	uint64_t bytes;
	unsigned band;
	double aux = 1;
	size_t i, popl = 0;
	int ret, room;

	if (st->st_nlink > 1) {
		/* A file's data is estimated once, at its first path. */
		ret = seen_insert(r->links, sample_key(st->st_dev, st->st_ino));
		if (ret < 0)
			return ret;
		if (!ret) {
			memset(r->scratch, 0, 6 * r->n * sizeof(*r->scratch));
			return r->done(r->arg, path, 0, token, r->scratch,
				       NULL);
		}
	}
	r->input_all += st->st_size;
	/* what the pre-pass knew of it, looked up once */
	estrun_file_bands(r, st, &fb);
	band = fb.band;
	pb = fb.pb;
	cur.q = fb.q;
	cur.pq = fb.pq;
	if (r->sampling && estrun_sample_submit(r, st, token, band, pb, &cur,
						&aux, &popl))
		return -ENOMEM;
	bytes = estrun_cost_of(r, st, &fb);
	if (!bytes && r->sampling) {
		memset(r->scratch, 0, 6 * r->n * sizeof(*r->scratch));
		for (i = 0; i < r->n; i++)
			r->scratch[3 * i + 2] = st->st_size;
		estrun_dx(r, st, token, NULL);
		return r->done(r->arg, path, 0, token, r->scratch, NULL);
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
	sl->ng = sl->nw = sl->npw = 0;
	sl->gdone = 0;
	sl->inl = inl;
	sl->stop = stop < (uint64_t)st->st_size ? stop : 0;
	if (ng && nw) {
		/* a big file read in parts: its writes for the parts read
		 * (estrun_unit_writes()), no values of the whole file's */
		int whole = !r->sampling ||
			    (uint64_t)st->st_size <= SAMPLE_CHUNK;
		struct est_write *wp = array_grow(sl->wr, &sl->cap_wr, nw - 1,
						  sizeof(*wp));
		uint64_t *gp = NULL;

		if (wp)
			sl->wr = wp;
		if (wp && whole) {
			gp = array_grow(sl->gdelta, &sl->cap_gd,
					3 * r->n * ng - 1, sizeof(*gp));
			if (gp)
				sl->gdelta = gp;
		}
		if (!wp || (whole && !gp)) {
			free(sl->path);
			sl->path = NULL;
			return -ENOMEM;
		}
		memcpy(sl->wr, wr, nw * sizeof(*wr));
		sl->nw = nw;
		sl->ng = ng;
	}
	sl->fd = *fd;
	*fd = -1;
	sl->st = *st;
	sl->token = token;
	sl->err = 0;
	sl->h = sample_stratum(st->st_size, sample_data_bytes(st), band);
	sl->band = band;
	sl->pb = pb;
	sl->cur = cur;
	sl->scaled = 0;
	sl->nsu = 0;
	sl->has_nc = 0;
	sl->aux = aux;
	sl->popl = popl;
	sl->bytes = bytes;
	sl->cached = -1;
	sl->asked = 0;
	r->nfree--;
	/* A full estimate reads whole files: start reading this one now if
	 * what is asked of the files queued leaves room (only the workers
	 * change it meanwhile, down), and the workers have enough queued
	 * that this thread is ahead of them.  A sample reads parts: not
	 * worth it. */
	pthread_mutex_lock(&r->lock);
	room = r->ahead_bytes < ESTRUN_AHEAD_BYTES &&
	       r->queued >= ESTRUN_AHEAD_QUEUED;
	pthread_mutex_unlock(&r->lock);
	if (!r->sampling && room)
		sl->cached = (signed char)r->ops->ahead(r->total, sl->fd,
							st->st_size,
							&sl->asked);
	pthread_mutex_lock(&r->lock);
	r->queue[(r->qhead + r->queued) % r->nslots] = sl - r->slots;
	r->queued++;
	r->ahead_bytes += sl->asked;
	r->busy++;
	r->bytes_queued += bytes;
	r->bytes_waiting += bytes;
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

int estrun_tallied(struct estrun *r, uint64_t *bytes)
{
	*bytes = 0;
	return r->tally && tally_get(r->tally, bytes);
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
		ret = r->ops->merge(r->total, r->w[i].ctx);
		if (ret)
			return ret;
	}
	return 0;
}

void estrun_get_result(const struct estrun *r, size_t i,
		       struct estrun_result *out)
{
	memset(out, 0, sizeof(*out));
	if (i >= r->n)
		return;
	r->ops->get_result(r->total, i, &out->est);
	out->files_read = r->files_read;
	if (r->sampling)
		estrun_sample_result(r, i, out);
}
