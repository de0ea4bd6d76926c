/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of a run (run.h) and the calls between the files that make
 * it up, in the order a run uses them:
 *
 *   run.c        the walk's callbacks: usage, rows, the deferred fast
 *                scan, the errors; run_create() to run_paths()
 *   runsample.c  --sample: the pre-pass (run_sample()), what the walk
 *                draws, leaves out and knows without a stat
 *   runest.c     each file's estimate: its extents, its plan in the
 *                layout, its queueing, the estimator's callbacks
 *   runreport.c  the report of it all: the estimates' figures, the
 *                sampled rows, the intervals, --plot
 *
 * Not for other modules: run.h is the interface.
 */
#ifndef COMPSIZE_RUN_INTERNAL_H
#define COMPSIZE_RUN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include "report/report.h"
#include "sample/sample.h"
#include "scan/sharing.h"

struct progress;

struct est_setting;
struct estrun;
struct extent_info;
struct layout;
struct mounts;
struct ncdu;
struct options;
struct levels;
struct progress;
struct prune;
struct rewrite;
struct rows;
struct run_env;
struct run_fiemap;
struct sample_bands;
struct sampleplan_kept;
struct search_batch;
struct seen_set;
struct usage_ctx;

/*
 * The deferred fast scan (--estimate only): the walk reads every file
 * under a directory for its data, and the fast scan counts that
 * directory's usage once, later.  Three states:
 *
 *   none     depth == -1, fd == -1: nothing deferred.  on_dir() may start
 *            a fast scan (then: pending, or counted when it can't wait).
 *   pending  depth >= 0, fd >= 0: the directory at depth (path, st) is
 *            being read for its data; its usage is not counted yet, and
 *            no file under it is searched.  Its scan runs on fd when
 *            estrun's queue is full (run_est_idle()) -> counted, or when
 *            the walk leaves it (on_leave_dir()) -> none.
 *   counted  depth >= 0, fd == -1: its usage is in (scanned early, or at
 *            once for want of a descriptor, or its scan failed and was
 *            reported); files under it are still read for estimates but
 *            not searched.  Leaving it -> none.
 *
 * Only one directory at a time: nothing under a pending or counted one
 * starts another.
 */
struct deferred {
	int depth;
	int fd;			/* a copy of the directory's descriptor */
	struct stat st;
	char *path;
};

/* What is said on the way while the tally tells whether a full estimate
 * is too long (opt->auto_after). */
struct run_hold {
	/* held here until then (dropped if it is too long) */
	FILE *held;
	char *held_buf;
	size_t held_len;
	int size_known;		/* the tally's total was looked at */
	double too_big;		/* seconds the full estimate would take */
	uint64_t too_big_bytes;
};

/* --estimate: the settings, the workers and what each file counts. */
struct run_est {
	struct estrun *est;	/* NULL until the first file estimated */
	struct layout *layout;	/* with --estimate: what each file counts */
	struct extent_info *ext;	/* the file being planned's extents */
	size_t next, cap_ext;
	uint64_t inline_key;	/* of its inline extent */
	uint64_t *est_rows;	/* layout_resolve()'s per-row shares */
	size_t cap_est_rows;
	struct rewrite *rewrite;	/* NULL without --rewrite (or root) */
	uint64_t rw_stop;	/* plan_file()'s: rewrite_file()'s *stop */
	/* The settings estimated: opt->est, then with --rewrite the
	 * compress-force twin of each compress= one not asked for already
	 * (defrag -c compresses with force semantics); twin[i] is the index
	 * of setting i's force twin (i itself for a forced one). */
	struct est_setting *est_all;
	size_t nall;
	size_t *twin;
	/* the estimate's files' extents, a run of inodes a search */
	struct search_batch *batch;
	struct report_est *est_report;	/* collect_estimates() */
};

/* --sample: the design drawn from, the pre-pass's findings and the
 * pruned walk. */
struct run_sample {
	struct sample_design design;	/* --sample */
	struct sample_devs devs;	/* ... design.devs (run_name_dev()) */
	int sampling;		/* ... drawn from (0: read everything) */
	struct sample_bands *bands;	/* ... and the files' ratio bands */
	/* directories the pre-pass counted with the fast scan, by
	 * sample_key(st_dev, st_ino): the walk only reads under them */
	struct seen_set *prescanned;
	/* --sample: NULL, or the only files whose extents the same-layout
	 * model must know when they are not drawn (sampleplan_run()), and
	 * NULL or the extent items the pre-pass kept of them (kept_sharer()) */
	struct seen_set *sharers;
	struct sampleplan_kept *kept;
	/* --sample: the pre-pass's fast scan met a bad item (left out) */
	int prescan_bad;
	/* --sample: NULL, or the directory the pre-pass listed (the only
	 * one; the walk starts at it) whose walk need not meet every file,
	 * on st_dev prune_dev (prune.h); prune_state: 0 none yet, 1 its
	 * names listed, 2 planned, 3 the walk in it, leaving out what
	 * run_count_left_out() counts when it leaves, 4 done, -1 none
	 * (another directory listed, or what prune.h can't serve) */
	struct prune *prune;
	dev_t prune_dev;
	uint64_t prune_root;
	int prune_state;
	/* run_count_left_out() is counting a file: not drawn, not a sharer,
	 * met once (prune_need() said so) */
	int left_out;
	/* --sample: the st_dev and subvolume of the directory the pre-pass
	 * counted that the walk is in, and what stands for the st_dev of
	 * the subvolumes nested below it in the keys (sample_subvol_dev()) */
	dev_t pre_dev;
	uint64_t pre_id;
	struct run_keydev {
		dev_t dev;
		uint64_t key;
	} *keydevs;
	size_t nkeydevs, cap_keydevs;
	int rows_sampled;	/* rows_sampled() was applied */
};

struct run {
	const struct options *opt;
	const struct run_env *env;
	FILE *err;		/* what is said on the way: run_set_err() */
	struct run_hold hold;
	struct run_est estimate;
	struct run_sample sample;
	struct usage_ctx *usage;
	struct mounts *mounts;	/* NULL until the first directory */
	struct rows *rows;	/* NULL without --depth/--per-file */
	/* rows streamed as they close (stream_rows()), or NULL: */
	FILE *spool;		/* their text (spool.h) */
	struct report stream_report;	/* what their format needs */
	struct progress *prog;	/* the scan's progress line, or NULL */
	struct ncdu *ncdu;	/* NULL but with --format=ncdu */
	char (*uuids)[37];	/* the report's filesystems (run_fill_report()) */
	struct sharing *sharing;	/* NULL without --exclusive */
	struct waste *waste;	/* NULL without --waste or a waste
				 * predicate */
	uint64_t waste_type[CS_NTYPES];	/* its totals by type, at the end */
	uint64_t waste_total;
	struct levels *levels;	/* NULL without --levels */
	struct progress *levels_prog;	/* its progress line, or NULL */
	dev_t top_dev;		/* st_dev of the argument being walked */
	struct sharing_result excl;	/* --exclusive's totals, at the end */
	struct deferred deferred;
	int have_usage;		/* usage was read, and every file was on
				 * btrfs */
	uint64_t alloc_bytes;	/* st_blocks of the files, in bytes */
	unsigned long failed;	/* paths that could not be read */
	struct report_error *errors;	/* those of them with memory to keep */
	size_t nerrors, cap_errors;
	int needs_root;		/* aborted: metadata needs CAP_SYS_ADMIN */
	struct run_fiemap *fiemap;	/* not root (env->fiemap), else NULL */
	int fiemap_used;	/* some usage came from FIEMAP */
	char *const *paths;	/* run_paths()'s arguments (the progress
				 * line's early total walks them too) */
	int npaths;
	const char *first_path;	/* the first argument: --plot's title, and
				 * whose mount options tell the current
				 * setting */
	struct report report;	/* run_report()'s, for run_plot() */
	dev_t *subvol_devs;	/* --subvolumes: the filesystems listed */
	size_t nsubvol_devs, cap_subvol_devs;
	/* subvolumes found deleted during the scan, each said once */
	char **gone;
	size_t ngone, cap_gone;
	/* the depths of the subvolume roots the walk is in (on_dir()) */
	int *walked_subvols;
	size_t nwalked_subvols, cap_walked_subvols;
};

/* ---- run.c ---- */

/* "compsize: PATH: what" on run->err, the path escaped as in the table: a
 * name must not reach a terminal as a control sequence. */
void run_say_path(const struct run *run, const char *path, const char *what);

/* path could not be read: say so, count it and keep it for the report. */
void run_report_failure(struct run *run, const char *path, const char *cause);

/* Report what usage_file() or fastscan_dir() returned for path; returns
 * 0 to go on or a negative errno to abort the walk. */
int run_scan_result(struct run *run, const char *path, int ret);

/*
 * The subvolume at path (arg: the run) was deleted while the run read it
 * (a snapshot pruned on a timer): said once a path, as a warning.  What
 * was read of it stays counted, nothing else is left out, and the exit
 * status is not touched: as a file the walk finds gone (walk.c,
 * ignorable()), it is no error.  Returns 0 or -ENOMEM.
 */
int run_gone(void *arg, const char *path);

/* What fastscan_dir() or fastscan_list() returned for the directory
 * path: each nested subvolume it found deleted (usage_ctx.gone) said by
 * run_gone(), -ENOENT (the directory's own subvolume deleted) too, the
 * rest as run_scan_result(). */
int run_fastscan_result(struct run *run, const char *path, int ret);

/* The walk's tick (walk_ops.tick), also the scans': the statistics so
 * far printed when asked (run_env.want_stats); 0, or -ECANCELED when the
 * full estimate is foretold too long (options.auto_after). */
int run_tick(void *arg);

/* The report of what was gathered so far, without the estimates. */
void run_fill_report(struct run *run, struct report *r);

/* Which of the n settings est the filesystem of path is mounted with
 * now: its index, or -1 (none, or path NULL). */
long run_current_setting(const struct est_setting *est, size_t n,
			 const char *path);

/* The values estrun_opts.sample_dx() gives a file, kept with each report
 * row: 0 without a sample. */
size_t run_dx_count(const struct run *run);

/* -j default: one worker per online CPU. */
unsigned run_default_jobs(void);

/* estrun's queue is full (estrun_opts.idle): the deferred scan now. */
int run_est_idle(void *arg);

/* A regular file open on *fd, or (-1) not opened in directory dirfd:
 * its usage, its row and its estimate. */
int run_one_file(struct run *run, int *fd, int dirfd, const char *name,
		 const char *path, const struct stat *st, int depth);

/* ---- runest.c ---- */

/* Queue the file on *fd for its estimate; estrun takes the descriptor
 * (*fd = -1) when it reads the file.  Its extents are searched on sfd. */
int run_estimate_file(struct run *run, int *fd, int sfd, const char *path,
		      const struct stat *st);

/* A file kept by layout_resolve() is settled: its rows' shares. */
void run_on_settled(void *arg, size_t user, const uint64_t *out,
		    size_t nrows);

/* ---- runsample.c ---- */

/* --sample: the key of the file (dev, ino) in run->bands. */
uint64_t run_sample_key(const struct run *run, dev_t dev, ino_t ino);

/* --sample: whether a unit of file st is drawn. */
int run_drawn(const struct run *run, const struct stat *st);

/* --sample: whether file (dev, ino) is one of the pre-pass's sharers;
 * all are when they are not known. */
int run_sharer(const struct run *run, dev_t dev, ino_t ino);

/* --sample: name st's device in the draws by its filesystem's id. */
void run_name_dev(struct run *run, int fd, const struct stat *st);

/* --sample: a subvolume nested below a directory the pre-pass counted:
 * its files' keys.  Returns 0 or -ENOMEM. */
int run_map_subvol(struct run *run, int fd, const struct stat *st);

/* --sample: open a file the walk listed without opening it: its
 * descriptor, -1 when it need not be opened, -2 when it could not be. */
int run_open_late(struct run *run, int dirfd, const char *name,
		  const char *path, const struct stat *st);

/* walk_ops.known and walk_ops.skip_dir: what the walk need not stat or
 * meet under a directory the pre-pass counted. */
int run_on_known(void *arg, dev_t dev, ino_t ino, struct stat *st);
int run_on_skip_dir(void *arg, dev_t dev, ino_t dir_ino, ino_t ino);

/* --sample: the walk leaves the directory the pre-pass listed: count
 * the files it left out. */
int run_count_left_out(struct run *run, const char *path, int depth);

/* ---- runfiemap.c ---- */

/* The usage without root, from FIEMAP (docs/rootless.md).  assume:
 * --assume's setting or NULL (kept).  Returns NULL when out of memory. */
struct run_fiemap *run_fiemap_create(const struct est_setting *assume);
void run_fiemap_free(struct run_fiemap *f);

/*
 * A btrfs filesystem (st->st_dev) entered at path, whose metadata the
 * run may not search: learn the setting its compressed extents are
 * re-derived with and say it once on run->err ("not root: ...").
 * Returns 0 or -ENOMEM.
 */
int run_fiemap_enter_fs(struct run *run, const char *path,
			const struct stat *st);

/*
 * Count the regular file open on fd into the usage from its FIEMAP, the
 * compressed extents' disk bytes re-derived from its data.  A failed
 * FIEMAP or read is reported (run_report_failure()) and the run goes
 * on.  Returns 0 or -ENOMEM.
 */
int run_fiemap_file(struct run *run, int fd, const char *path,
		    const struct stat *st);

#endif
