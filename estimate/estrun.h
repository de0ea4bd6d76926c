/* SPDX-License-Identifier: GPL-2.0 */
/*
 * estrun: the --estimate runtime.  Files found by the walk are handed to
 * worker threads (-j N), each with its own est_ctx, through a bounded
 * queue; per-file results come back on the calling thread through a
 * callback, so report rows are only ever touched by that thread.  With
 * --sample, the units of a sample_design (sample.h: small files whole,
 * 512 KiB parts of big ones) are read and the totals are its estimates
 * with a 95% interval.  An optional progress line is shown (progress.h).
 * See docs/estimate.md and docs/sampling.md.
 */
#ifndef COMPSIZE_ESTRUN_H
#define COMPSIZE_ESTRUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "estimate/estimate.h"
#include "sample/sample.h"

struct estrun_opts {
	const struct est_setting *s;	/* copied */
	size_t n;
	uint32_t sectorsize;	/* as for est_ops.create() */
	unsigned jobs;		/* worker threads, 1 or more */
	/* NULL to read every file; else the sample (copied): the units of
	 * each file (sample.h) drawn by the design are read, and the
	 * totals are the design's estimates. */
	const struct sample_design *design;
	/* NULL, or each file's current ratio band (the caller's, kept
	 * until estrun_free()): its units' stratum */
	const struct sample_bands *bands;
	/* NULL, or the key of file st in bands (sample_key() where NULL),
	 * called with estrun_create()'s arg */
	uint64_t (*key)(void *arg, const struct stat *st);
	int progress_fd;	/* where to show progress (progress.h), or -1 */
	/* The arguments, for the progress line's early total (tally.h):
	 * kept, not copied; npaths 0: the total comes at the walk's end. */
	char *const *paths;
	int npaths;
	int one_fs;		/* -x */
	/* NULL, or work for the submitting thread while the queue is full,
	 * called with estrun_create()'s arg instead of waiting: returns 1
	 * when it did some (the queue is looked at again), 0 when it has
	 * none, or a negative errno that estrun_submit() returns. */
	int (*idle)(void *arg);
	/* NULL, or with sampling, for a file whose units drawn were read,
	 * just before done(), or for a file deferred() says waits, from
	 * estrun_settle(): by how much its units count in the same layout
	 * (layout_factors(): raw and f hold 2 values a setting, disk and
	 * uncompressed; gdelta NULL, or for a file read whole and written
	 * in steps est_ops.writes()' values); NULL counts them as they
	 * are. */
	void (*factors)(void *arg, size_t token, const uint64_t *raw,
			const uint64_t *gdelta, double *f);
	/* NULL, or with sampling, for each file as it is submitted:
	 * whether its factors can only be known once every file is
	 * (layout_tentative()); its place in the same layout's population,
	 * and its units drawn once read, then wait for estrun_settle() */
	int (*deferred)(void *arg, size_t token);
	/* NULL, or with sampling, for a big file read in parts or with
	 * bands for its parts (as factors() and known_share() are asked):
	 * the n parts' own factors for the same layout, for every setting,
	 * into f (-1 for a part whose file's factors stand), tmp room for
	 * n values: layout_part_factors().  Returns 0 where the file's
	 * stand for every part. */
	int (*part_factors)(void *arg, size_t token, uint64_t size,
			    uint64_t n, double *f, double *tmp);
	/* NULL, or with sampling, for a big file read in parts and written
	 * in steps, as part_factors() is asked on delivery: the scale of
	 * each of its nb write buckets (est_write.group) into s, -1 for one
	 * left out: layout_bucket_scales().  Returns 0 where the file's
	 * factors stand.  A write that lies whole in a part drawn is then
	 * estimated as it was written (est_ops.writes()), and the rest of
	 * the part by its writes' bytes. */
	int (*bucket_scales)(void *arg, size_t token, size_t nb, double *s);
	/* NULL, or with sampling, for each file as it is submitted: what
	 * is known of its share of the same layout before it is read
	 * (layout_known_share()), the same layout's auxiliary: it must not
	 * depend on whether the file is drawn */
	double (*known_share)(void *arg, size_t token, const struct stat *st);
	/* NULL, or with sampling, for each file read in part or not at all,
	 * just before done() (not for a second link nor a failure): its
	 * sums by band (each unit's sample_row_band()), B =
	 * SAMPLE_ROW_BANDS values each: its units' data bytes, at dx[0]; its
	 * drawn units' data bytes over their probability, at dx[B]; their
	 * predictions over it, at dx[(2 + 2i + q) * B] for setting i, disk
	 * (q 0) and uncompressed (q 1); its units' current disk bytes (0
	 * where not known), at dx[(2 + 2n) * B], and its drawn units' over
	 * their probability, at dx[(3 + 2n) * B] for n settings: (4 + 2n) *
	 * B values.  A report row adds up its files'
	 * and is estimated band by band from them (runreport.c rows_sampled(),
	 * docs/sampling.md, Report rows), where the plain sum of its
	 * files' deltas is 0 for a row with no unit drawn. */
	void (*sample_dx)(void *arg, size_t token, const int64_t *dx);
	/* NULL, or with sampling, for a file whose units drawn were read,
	 * before done(): whether `btrfs filesystem defragment -c` would
	 * rewrite it (rewrite.h; a second link to it is never asked).  Its
	 * units drawn count in estrun_result.rewrite_disk, the others' as
	 * 0: the rewrite's new extents estimated as a total of their own,
	 * with their own interval. */
	int (*rewritten)(void *arg, size_t token);
};

/*
 * One submitted file is done: err is 0 or the -errno est_ops.files() gave
 * (then delta is NULL); delta holds 6n values as est_ops.files()
 * gives them: 3 a setting (disk, uncompressed, input) as in
 * report_row.est for the fresh copy, then 3 a setting as the file is
 * written (EST_WRITTEN(n): disk, uncompressed, disk in one go).  With sampling, a file none
 * of whose units is drawn has disk and uncompressed 0 and its real input;
 * a sampled one has what its units drawn predict divided by their
 * probability (Horvitz-Thompson), rounded.  A second path to a file with
 * more than one link (the same st_dev and st_ino) is answered at once
 * with zeros: its data is estimated once, at the first path.  gdelta is
 * NULL, or for a file submitted with its writes (estrun_submit_writes())
 * est_ops.writes()' values (3 a setting and group).  token is what was passed to
 * estrun_submit().  Runs on the thread calling estrun_submit(),
 * estrun_drain() or estrun_finish(); a non-zero return (a negative errno)
 * is returned by that call.
 */
typedef int (*estrun_done_fn)(void *arg, const char *path, int err,
			      size_t token, const uint64_t *delta,
			      const uint64_t *gdelta);

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
 * Whether any unit of the file st is in the sample (always, without
 * one): a hash of (st_dev, st_ino, seed, unit) against its stratum's
 * probability.  The same file and seed always give the same answer.
 */
int estrun_sampled(const struct estrun *r, const struct stat *st);

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
 * estrun_submit() for a file written in steps: after its estimate in one
 * go, its nw writes (copied) of ng groups are estimated as written
 * (est_ops.writes()), with sampling only when the file is read whole (a
 * big file's parts are estimated in one go); inl is est_ops.files()' (0:
 * none).  stop: 0, or where defragment stops rewriting the file
 * (rewrite.h): its disk in one go, and with sampling the rewrite's
 * units, are of the data before it only.  ng, inl and stop 0 is
 * estrun_submit().
 */
int estrun_submit_writes(struct estrun *r, int *fd, const char *path,
			 const struct stat *st, size_t token,
			 const struct est_write *wr, size_t nw, size_t ng,
			 uint32_t inl, uint64_t stop);

/*
 * Wait for every submitted file and deliver its result.  Returns 0 or the
 * first non-zero callback return.
 */
int estrun_drain(struct estrun *r);

/*
 * The data a full estimate of the arguments will read (the tally's
 * total, tally.h) into *bytes: returns 1 once the tally has seen every
 * file, else 0 (not done, or no tally).
 */
int estrun_tallied(struct estrun *r, uint64_t *bytes);

/* Erase the progress line, if one is drawn, before writing to stderr. */
void estrun_clear_progress(struct estrun *r);

/*
 * Drain, stop the threads, erase the progress line and merge the
 * per-thread totals.  Returns 0 or as estrun_drain().
 */
int estrun_finish(struct estrun *r);

/*
 * With sampling, after estrun_finish() and once every file's factors can
 * be known (layout_settle_claims()): the units of the files whose factors
 * waited (estrun_opts.deferred) into the sums.  Before
 * estrun_get_result().  Returns 0 or -ENOMEM.
 */
int estrun_settle(struct estrun *r);

struct estrun_result {
	struct est_result est;	/* input is every file's; disk and
				 * uncompressed estimated when sampled */
	int sampled;		/* 1 when only part of the data was read */
	double disk_ci95;	/* half-width of the 95% interval of disk */
	/* with sampling: the units' predictions times their files'
	 * factors (estrun_opts.factors), estimated alike */
	uint64_t disk_same, uncompressed_same;
	double same_ci95;
	/* with sampling and estrun_opts.rewritten: the disk bytes of the
	 * files rewritten (fresh copy), and the half-width of its 95%
	 * interval */
	int have_rewrite;
	uint64_t rewrite_disk;
	double rewrite_ci95;
	uint64_t files_read;	/* files actually estimated (in part) */
	uint64_t units_read;	/* with sampling: units read, */
	uint64_t units;		/* ... of so many */
	uint64_t data_read;	/* data bytes of the units read, */
	uint64_t data;		/* ... of so many */
};

/*
 * With sampling, after estrun_finish(): setting i's ratios, in each band
 * (as estrun_opts.sample_dx()), of the fresh copy's estimated disk (r[0])
 * and uncompressed (r[1]) bytes and of the current disk bytes (rc) to
 * data bytes: its strata's ratio estimates weighted by their data, a band
 * no unit of which was drawn getting the whole sample's; and the slope of
 * each on the current disk bytes in the band (b: sample_band_slope(), 0
 * where they are not known).  Zeros without a sample or when i is out of
 * range.
 */
struct estrun_bands {
	double r[2][SAMPLE_ROW_BANDS];
	double rc[SAMPLE_ROW_BANDS];
	double b[2][SAMPLE_ROW_BANDS];
};
void estrun_band_ratios(const struct estrun *r, size_t i,
			struct estrun_bands *out);

/*
 * --sample: how much narrower setting i's interval (same: the same
 * layout's, else the fresh copy's disk bytes) would be with a sample of
 * frac of the data, the same seed and floors: the ratio of the standard
 * errors sample_predict_se() foretells to the ones now.  1 without a
 * sample or where it can't tell.
 */
double estrun_predict(const struct estrun *r, size_t i, int same,
		      double frac);

/* Setting i's totals after estrun_finish(); zeros if i is out of range. */
void estrun_get_result(const struct estrun *r, size_t i,
		       struct estrun_result *out);

#endif
