/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What estrun.c (the workers, the file queue, delivery) and estsample.c
 * (a sample's units: read by the workers, summed on the calling thread)
 * share: the run's state, a queue slot and a worker.  Not for other
 * modules: estrun.h is the interface.  Locking and ownership are
 * estrun.c's (see there): a slot belongs to whoever moved it last, the
 * sums to the calling thread.
 */
#ifndef COMPSIZE_ESTRUN_INTERNAL_H
#define COMPSIZE_ESTRUN_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "estimate/estimate.h"
#include "sample/sample.h"

struct est_ops;
struct est_ctx;
struct estrun_result;
struct progress;
struct seen_set;
struct tally;

/* The most files a worker takes off the queue at once (estrun.c). */
#define ESTRUN_BATCH_FILES	256

struct estrun_slot {
	int fd;
	char *path;
	struct stat st;
	size_t token;
	int err;
	uint64_t *delta;	/* 6n as est_ops.files() gives, unscaled */
	/* a file written in steps (estrun_submit_writes()): its writes,
	 * ng groups, and 3n values a group from est_ops.writes() */
	struct est_write *wr;
	size_t nw, cap_wr, ng;
	uint64_t *gdelta;
	size_t cap_gd;
	int gdone;		/* gdelta holds the file's groups */
	uint32_t inl;		/* est_ops.files()' inl */
	uint64_t stop;		/* estrun_submit_writes()' */
	unsigned h;		/* sampling: the file's stratum */
	unsigned band;		/* its current ratio band */
	const uint8_t *pb;	/* NULL or its parts' bands (sample.h) */
	struct sample_cur cur;	/* its current ratios, where known */
	int scaled;		/* delta already divided by each unit's pi */
	uint64_t bytes;		/* bytes to read: st_size, or its units' */
	signed char cached;	/* est_ops.ahead()'s answer, or -1 */
	uint64_t asked;		/* ... and the bytes it asked for */
	/* sampling: the units read, 3 + 2n values each (stratum, bytes,
	 * unit index, then disk and uncompressed of each setting), into the
	 * sums when the file is delivered */
	uint64_t *su;
	size_t nsu, cap_su;
	/* a big file read in parts and written in steps: for each unit
	 * read, in the order of su, ESTRUN_PW(n) values a write bucket that
	 * reaches its part (estrun_unit_writes()) */
	double *pw;
	size_t npw, cap_pw;
	/* n: where NOCOMPRESS is set in a big file read by parts, for each
	 * setting (the offset of the part that sets it, found following the
	 * file from its start), UINT64_MAX where not known; has_nc is 0 for
	 * a file read whole, or one with holes (NOCOMPRESS not followed) */
	uint64_t *nc;
	int has_nc;
	double aux;		/* known_share()'s */
	size_t popl;		/* 0, or its place in estrun.popl, plus 1 */
};

/* A file whose share of the same layout is known once every file is
 * (estrun_opts.deferred): its units' place in pop_same, for
 * estrun_settle(). */
struct estrun_popl {
	struct stat st;
	size_t token;
	unsigned band;
	const uint8_t *pb;
	struct sample_cur cur;
	double aux;		/* known_share()'s, at estrun_settle() */
	int dead;		/* its estimate failed: left out */
};

struct estrun_worker {
	struct estrun *r;
	struct est_ctx *ctx;
	/* the batch being estimated */
	struct estrun_slot *batch[ESTRUN_BATCH_FILES];
	int fd[ESTRUN_BATCH_FILES], err[ESTRUN_BATCH_FILES];
	double weight[ESTRUN_BATCH_FILES];	/* sampling: estrun_weight() */
	signed char cached[ESTRUN_BATCH_FILES];
	uint32_t inl[ESTRUN_BATCH_FILES];
	struct stat st[ESTRUN_BATCH_FILES];
	uint64_t *delta[ESTRUN_BATCH_FILES];
	/* sampling: a unit's results */
	uint64_t *part;		/* 3n */
	bool *nocomp;		/* n: part()'s */
	uint64_t *at;		/* n: where NOCOMPRESS is set, or max */
	uint64_t *limit;	/* n: nocompress_at()'s */
	double *scaled;		/* 2n: a big file's units over their pi */
	/* a big file's units read so far: offset, x, length, then disk,
	 * uncompressed and NOCOMPRESS set, for each setting */
	uint64_t *units;
	size_t cap_units;
	pthread_t th;
	int started;
};

struct estrun {
	const struct est_ops *ops;	/* the estimator (estimate/plugin.h) */
	size_t n;
	struct est_setting *s;
	uint32_t sectorsize;
	int sampling;
	struct sample_design design;
	const struct sample_bands *bands;
	uint64_t (*key)(void *arg, const struct stat *st);
	/* estrun_create()'s done (estrun_done_fn) */
	int (*done)(void *arg, const char *path, int err, size_t token,
		    const uint64_t *delta, const uint64_t *gdelta);
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
	uint64_t *deltas;		/* nslots * 6n */
	uint64_t *ncs;			/* nslots * n: the slots' nc */
	int stop;
	struct estrun_worker *w;
	unsigned jobs;

	/* Totals; pop, links and input_all belong to the main thread. */
	struct est_ctx *total;		/* merged by estrun_finish() */
	/* sampling: 4n sums of the units read, for each setting disk and
	 * uncompressed, then the same times the files' factors */
	struct sample_acc *acc;
	void (*factors)(void *arg, size_t token, const uint64_t *raw,
			const uint64_t *gdelta, double *f);
	int (*deferred)(void *arg, size_t token);
	int (*part_factors)(void *arg, size_t token, uint64_t size,
			    uint64_t n, double *f, double *tmp);
	int (*bucket_scales)(void *arg, size_t token, size_t nb, double *s);
	double *bs;			/* bucket_scales()' */
	size_t cap_bs;
	/* files whose units wait for estrun_settle(): copies of their
	 * slots, owning their su, nc and gdelta */
	struct estrun_slot *later;
	size_t nlater, cap_later;
	struct estrun_popl *popl;
	size_t npopl, cap_popl;
	uint64_t *raw;			/* 2n: factors()' */
	double *f;			/* 2n */
	/* a big file's parts: estrun_pop_same()'s shares, and
	 * estrun_part_factors()' factors and their room */
	double *ak, *pf, *pt;
	size_t cap_ak, cap_pf, cap_pt;
	double (*known_share)(void *arg, size_t token, const struct stat *st);
	void (*sample_dx)(void *arg, size_t token, const int64_t *dx);
	/* estrun_opts.rewritten(), and by setting the rewrite's sums and
	 * known raw total (estrun_result.rewrite_disk) */
	int (*rewritten)(void *arg, size_t token);
	struct sample_acc *acc_rw;
	double *known_rw;
	double *dxd;		/* (4 + 2n) * SAMPLE_ROW_BANDS: estrun_dx()'s */
	int64_t *dx;
	struct sample_pop pop;		/* every file's units */
	/* ... each unit's bytes times its file's known_share(): the same
	 * layout's auxiliary totals */
	struct sample_pop pop_same;
	/* 2n: for each setting, the units of pop, then of pop_same, whose
	 * prediction is known without a draw (raw after NOCOMPRESS in a
	 * file of its own strata: estrun_add_units()), and 4n: their
	 * totals, as acc */
	struct sample_pop *pop_known;
	double *known;
	uint64_t units_read, data_read;	/* of every unit drawn */
	struct seen_set *links;		/* files with more than one link */
	uint64_t input_all;		/* st_size of every file submitted */
	uint64_t files_read;
	uint64_t *scratch;		/* 6n: answers for files not sampled */

	/* Progress: the line (progress.c) and its counters, under lock. */
	int progress_fd;
	struct progress *prog;
	struct tally *tally;		/* the total, early; NULL: none */
	uint64_t bytes_queued;		/* estrun_cost() of the files queued */
	uint64_t bytes_waiting;		/* of those still in the queue */
	uint64_t bytes_done;
	int walk_done;
	uint64_t ahead_bytes;		/* asked for, of files queued */
};

static inline uint64_t estrun_round(double v)
{
	return v <= 0 ? 0 : (uint64_t)(v + 0.5);
}

/* ---- estsample.c: the sample's side, for estrun.c ---- */

/* What the pre-pass knew of file st, in one look-up (sample_bands_file()). */
void estrun_file_bands(const struct estrun *r, const struct stat *st,
		       struct sample_file_bands *fb);

/*
 * What a file costs (the progress line, the queue's bytes): the bytes it
 * will read, its data (not st_size: a sparse file's holes are skipped,
 * SEEK_DATA) or, with a sample, its units drawn, fb what the pre-pass
 * knew of it.
 */
uint64_t estrun_cost_of(const struct estrun *r, const struct stat *st,
			const struct sample_file_bands *fb);

/* estrun_cost_of(), looked up. */
uint64_t estrun_cost(const struct estrun *r, const struct stat *st);

/* What a unit of stratum h stands for in the speed figures (est_ops'
 * weight): 1 / its probability. */
double estrun_weight(const struct estrun *r, unsigned h);

/*
 * Hand estrun_opts.sample_dx() file st's sums by band: its units' data
 * bytes, its drawn units' (sl's, or none when sl is NULL) data bytes over
 * their probability, and their predictions over it.
 */
void estrun_dx(struct estrun *r, const struct stat *st, size_t token,
	       const struct estrun_slot *sl);

/* On a worker: the drawn units of big file sl read, each part alone
 * (estsample.c).  Returns 0 or -errno. */
int estrun_parts(struct estrun_worker *w, struct estrun_slot *sl);

/* On a worker: a whole file sampled, estimated with sl->err 0, as one
 * unit.  Returns 0 or -ENOMEM. */
int estrun_whole(struct estrun_slot *sl, size_t n);

/*
 * A file submitted with sampling, of band, pb and cur (fb's): its units
 * into the population, and into the same layout's at its known share
 * (*aux), or its place kept for estrun_settle() where that share waits
 * (estrun_opts.deferred: *popl its place plus 1).  Returns 0 or -ENOMEM.
 */
int estrun_sample_submit(struct estrun *r, const struct stat *st,
			 size_t token, unsigned band, const uint8_t *pb,
			 const struct sample_cur *cur, double *aux,
			 size_t *popl);

/* A sampled file whose estimate failed: its units out of the
 * populations.  Returns 0 or -ENOMEM. */
int estrun_sample_failed(struct estrun *r, const struct estrun_slot *sl);

/*
 * A sampled file read: its units into the sums (or kept for
 * estrun_settle()), its sums by band to estrun_opts.sample_dx(), and its
 * values over its unit's probability (a file read whole), before
 * done().  Returns 0 or -ENOMEM.
 */
int estrun_sample_read(struct estrun *r, struct estrun_slot *sl);

/* The copies the deferred files' units kept for estrun_settle(), freed. */
void estrun_later_free(struct estrun *r);

/* Setting i's sampled totals and intervals into *out, after
 * estrun_finish(); i < r->n, r->sampling. */
void estrun_sample_result(const struct estrun *r, size_t i,
			  struct estrun_result *out);

#endif
