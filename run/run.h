/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run: the walk over the arguments (walk.h) feeding the usage
 * accumulator (usage.h, or the fast scan of whole subtrees, fastscan.h),
 * the --depth/--per-file rows (rows.h) and the estimator's workers
 * (estrun.h); then the report (report.h) of what they gathered.
 *
 * main() fills a struct options from the command line and drives a run:
 * run_create(), run_sample() with --sample, run_paths(), run_report(),
 * run_free().  Per-path failures are printed as they happen
 * ("compsize: PATH: cause"), kept for the report and counted
 * (run_failed()); the run goes on.
 */
#ifndef COMPSIZE_RUN_H
#define COMPSIZE_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report/format.h"
#include "report/report.h"

struct est_setting;
struct find;

/* What the command line asks for. */
struct options {
	struct fmt_units units;	/* -b, --raw, --iec, --kbytes...: the
				 * table's sizes */
	int one_fs;		/* -x */
	int walk;		/* --walk: no fast scan */
	enum report_format format;
	int depth;		/* --depth=N, -1 when not given */
	int per_file;		/* --per-file */
	enum row_sort sort;
	size_t top;		/* --top=N, 0 for all */
	struct est_setting *est;	/* --estimate */
	size_t nest;
	unsigned jobs;		/* -j N; 0: one per online CPU */
	double sample;		/* --sample=PERCENT as a fraction, or 0 */
	uint64_t sample_bytes;	/* --sample=SIZE, or 0 */
	uint64_t seed;		/* --seed=N */
	/* --sample=auto / --precision=P%: the 95% half-width asked for, as
	 * a fraction of the estimate (compsize.c samples in rounds until
	 * every setting's is at most that), or 0 */
	double precision;
	/* Without a sample: when the full estimate would take more than
	 * this many seconds (from the tally's data and the settings' cost),
	 * stop early, run_too_big() says so; 0: never */
	double auto_after;
	double dev_write, dev_read;	/* --device-speed, MB/s, or 0 */
	const char *plot;	/* --plot=FILE.svg, or NULL */
	int rewrite;		/* --rewrite */
	int exclusive;		/* --exclusive */
	int subvolumes;		/* --subvolumes (implies exclusive) */
	int histogram;		/* --histogram */
	struct compare *compare;	/* --compare=FILE, read; or NULL */
	const char *compare_path;	/* ... FILE */
	/* --assume=SETTING: without root, what compressed extents were
	 * written with (their disk bytes re-derived so); NULL: each
	 * file's property, else its mount option */
	struct est_setting *assume;
	int levels;		/* --levels */
	int progress;		/* --progress 1, --no-progress 0, else -1:
				 * when standard error is a terminal */
	struct find *find;	/* --find=PREDICATES (find.h), or NULL */
	int find_nul;		/* -0: NUL after each path found */
	int waste;		/* --waste */
};

/* -j: more threads than this is a typo */
#define RUN_MAX_JOBS 1024

/* What main() learnt of the process before the run. */
struct run_env {
	int usage;		/* CAP_SYS_ADMIN: the current usage can be
				 * read (every tree search needs it) */
	/* not root: the usage from FIEMAP, compressed extents' disk bytes
	 * re-derived from their data (runfiemap.c; needs the plugin) */
	int fiemap;
	int fast;		/* the fast scan sees what the walk sees (no
				 * permission check can stop the walk) */
	/* Set by a signal handler (SIGUSR1): the run prints the statistics
	 * gathered so far at its next tick and clears it.  May be NULL. */
	volatile sig_atomic_t *want_stats;
};

struct run;

/* opt and env must outlive the run.  Returns NULL when out of memory. */
struct run *run_create(const struct options *opt, const struct run_env *env);
void run_free(struct run *run);

/*
 * --sample: a first walk of paths[0..n) lists the files' data sizes,
 * reading no data, and plans the sample of opt->sample_bytes (or of the
 * fraction opt->sample of the whole) that run_paths() estimates.
 * Errors are left for run_paths() to report.  Returns 0 or -ENOMEM.
 */
int run_sample(struct run *run, char *const *paths, int n);

/*
 * Walk paths[0..n) in order, accounting usage, rows and estimates, then
 * wait for the estimates and, with --exclusive, resolve which extents
 * are shared.  Returns 0 when every argument was walked (some paths may
 * have failed: run_failed()); or a negative errno that aborted the run:
 * -ENOMEM (nothing printed), -EPERM when the usage needs root
 * (run_needs_root(); printed), another -errno (printed).
 */
int run_paths(struct run *run, char *const *paths, int n);

/*
 * Where the run writes what it says on the way (paths that fail, mounts
 * skipped): stderr unless set.  A round of --sample=auto that may not be
 * the last writes into a buffer, printed if it is.
 */
void run_set_err(struct run *run, FILE *err);

/*
 * After run_paths() with a sample: the largest 95% half-width of the
 * estimates' disk, as a fraction of the estimate (0 when nothing was
 * sampled or the estimate is 0); *data_read and *data the bytes of data
 * the sample read and the data it was drawn from, *units_read the units
 * it read.
 */
double run_sample_width(struct run *run, uint64_t *data_read, uint64_t *data,
			uint64_t *units_read);

/*
 * What run_sample_width() would be with a sample of frac of the data (the
 * same seed and floors), foretold from this run's draws
 * (estrun_predict()).
 */
double run_sample_predict(struct run *run, double frac);

/*
 * run_paths() returned -ECANCELED because the full estimate would take
 * more than opt->auto_after seconds: the seconds it would take (0 when
 * it did not stop for that), and the data it would read in *bytes.
 * What the run said on the way until it knew is not printed.
 */
double run_too_big(const struct run *run, uint64_t *bytes);

/* The run stopped because reading metadata needs CAP_SYS_ADMIN. */
int run_needs_root(const struct run *run);

/* Paths that could not be read. */
unsigned long run_failed(const struct run *run);

/*
 * Print the report of what run_paths() gathered to out (and compsize
 * 1.5's "nothing to report" lines to err), as report_print() does:
 * returns 0, 1 when there was nothing to report (or a --sample drew no
 * unit at all: said on err, nothing printed), -EXDEV when the report of
 * --compare is of other filesystems (said on err, nothing printed), or
 * -ENOMEM.
 */
int run_report(struct run *run, FILE *out, FILE *err);

/*
 * --plot: after run_report(), the SVG of its estimates (report_plot())
 * into path, titled with the first argument, whole or not at all (a
 * temporary file beside it, renamed).  Returns 0, -ENOMEM, or -1 after
 * reporting the failure on stderr.
 */
int run_plot(struct run *run, const char *path);

#endif
