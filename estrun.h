/* SPDX-License-Identifier: GPL-2.0 */
/*
 * estrun: the --estimate runtime.  Files found by the walk are handed to
 * worker threads (-j N), each with its own est_ctx, through a bounded
 * queue; per-file results come back on the calling thread through a
 * callback, so report rows are only ever touched by that thread.  With
 * --sample, a reproducible random subset of whole files is read and the
 * totals are extrapolated with a 95% confidence interval.  An optional
 * progress line is drawn on a terminal.  See docs/estimate.md.
 */
#ifndef COMPSIZE_ESTRUN_H
#define COMPSIZE_ESTRUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "estimate.h"

struct estrun_opts {
	const struct est_setting *s;	/* copied */
	size_t n;
	uint32_t sectorsize;	/* as for est_ops.create() */
	unsigned jobs;		/* worker threads, 1 or more */
	double sample;		/* every file read with this probability,
				 * (0, 1]; 0 or 1 reads every file */
	double pps;		/* instead, if > 0: a file of x data bytes
				 * (estrun_data_bytes()) is read with
				 * probability min(1, pps * max(x, 128 KiB)) */
	uint64_t seed;		/* picks the sample */
	int progress_fd;	/* a terminal to draw progress on, or -1 */
	/* NULL, or work for the submitting thread while the queue is full,
	 * called with estrun_create()'s arg instead of waiting: returns 1
	 * when it did some (the queue is looked at again), 0 when it has
	 * none, or a negative errno that estrun_submit() returns. */
	int (*idle)(void *arg);
};

/*
 * One submitted file is done: err is 0 or the -errno est_ops.files() gave
 * (then delta is NULL); delta holds 3 values a setting (disk,
 * uncompressed, input) as in report_row.est.  With sampling, a file not
 * sampled has disk and uncompressed 0 and its real input; a sampled one
 * has disk and uncompressed divided by the sampling fraction
 * (Horvitz-Thompson), rounded.  token is what was passed to
 * estrun_submit().  Runs on the thread calling estrun_submit(),
 * estrun_drain() or estrun_finish(); a non-zero return (a negative errno)
 * is returned by that call.
 */
typedef int (*estrun_done_fn)(void *arg, const char *path, int err,
			      size_t token, const uint64_t *delta);

struct estrun;

/*
 * Start opts->jobs worker threads.  Returns NULL with errno set (EINVAL:
 * bad settings, sector size or jobs; ENOMEM; or pthread_create()'s error).
 */
struct estrun *estrun_create(const struct estrun_opts *opts,
			     estrun_done_fn done, void *arg);

/* Stop and join the threads (pending files are dropped) and free. */
void estrun_free(struct estrun *r);

/*
 * Whether the file st would be read under the sampling options: a hash of
 * (st_dev, st_ino, seed) against its probability.  The same file and seed
 * always give the same answer.
 */
int estrun_sampled(const struct estrun *r, const struct stat *st);

/* The bytes of data in a file, which the sample is planned and scaled by:
 * st_blocks * 512 (holes cost nothing), at most st_size; st_size when the
 * filesystem reports no blocks. */
uint64_t estrun_data_bytes(const struct stat *st);

/*
 * Plan a sample of about budget data bytes from files of x[0..n) data
 * bytes, each read with probability proportional to its size (files under
 * 128 KiB as if they had 128 KiB): returns the c for estrun_opts.pps such
 * that the sum of min(1, c max(x, 128 KiB)) x is the budget, or 0 when the
 * budget covers everything.
 */
double estrun_plan(const uint64_t *x, size_t n, uint64_t budget);

/*
 * Queue the regular file open on *fd under path.  When it is queued
 * estrun takes the descriptor, closes it once the file is read, and sets
 * *fd to -1; otherwise *fd stays the caller's.  A file left out of the
 * sample is answered at once, without reading it.  Blocks while the queue
 * is full, delivering finished files meanwhile.  Returns 0, -ENOMEM or
 * what the callback returned.
 */
int estrun_submit(struct estrun *r, int *fd, const char *path,
		  const struct stat *st, size_t token);

/*
 * Wait for every submitted file and deliver its result.  Returns 0 or the
 * first non-zero callback return.
 */
int estrun_drain(struct estrun *r);

/* Erase the progress line, if one is drawn, before writing to stderr. */
void estrun_clear_progress(struct estrun *r);

/*
 * Drain, stop the threads, erase the progress line and merge the
 * per-thread totals.  Returns 0 or as estrun_drain().
 */
int estrun_finish(struct estrun *r);

struct estrun_result {
	struct est_result est;	/* input is every file's; disk and
				 * uncompressed extrapolated when sampled */
	int sampled;		/* 1 when only part of the files was read */
	double disk_ci95;	/* half-width of the 95% interval of disk */
	uint64_t files_read;	/* files actually estimated */
};

/* Setting i's totals after estrun_finish(); zeros if i is out of range. */
void estrun_get_result(const struct estrun *r, size_t i,
		       struct estrun_result *out);

/*
 * The sample estimator, on its own for tests: a ratio estimator of a
 * population total of y with known total X of x, from a Poisson sample
 * (unit i taken independently with probability pi_i).  The sums are of
 * terms rounded to whole numbers, exact, so independent of the order.
 */
struct estrun_ratio {
	uint64_t n;			/* units sampled */
	/* exact, so the result does not depend on the order of the units */
	unsigned __int128 sx, sy, sxx, syy, sxy;
};

void estrun_ratio_add(struct estrun_ratio *a, uint64_t x, uint64_t y,
		      double pi);

/*
 * Estimate of the total of y: X * R, R = sum(y / pi) / sum(x / pi) over the
 * sample; *ci95 is the half-width of its 95% interval, 1.96 * sqrt(V),
 * V = (X / sum(x / pi))^2 * n / (n - 1) * sum((1 - pi) / pi^2 * e^2) with
 * e = y - R x.  With fewer than two units sampled the interval is X.
 */
double estrun_ratio_estimate(const struct estrun_ratio *a, double X,
			     double *ci95);

/* splitmix64-based hash used for sampling, for tests. */
uint64_t estrun_hash(uint64_t dev, uint64_t ino, uint64_t seed);

#endif
