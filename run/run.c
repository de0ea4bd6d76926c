// SPDX-License-Identifier: GPL-2.0
/*
 * The run (run.h): the walk's callbacks, which decide for each directory
 * whether the fast scan counts it whole or the walk goes in, and for each
 * file whether it is searched for its usage, gets a row and is queued for
 * an estimate; the deferred fast scan that lets estimating and counting
 * overlap; the --sample pre-pass; and the report of it all.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/array.h"
#include "report/decide.h"
#include "estimate/estimate.h"
#include "estimate/estrun.h"
#include "scan/fastscan.h"
#include "report/fields.h"
#include "report/format.h"
#include "estimate/layout.h"
#include "walk/mounts.h"
#include "report/ncdu.h"
#include "scan/pending.h"
#include "sample/prune.h"
#include "estimate/rewrite.h"
#include "report/rows.h"
#include "sample/sample.h"
#include "sample/sampleplan.h"
#include "scan/search.h"
#include "run/run.h"
#include "scan/sharing.h"
#include "run/subvols.h"
#include "scan/usage.h"
#include "walk/walk.h"
#include "walk/walkorder.h"

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
 *            estrun's queue is full (est_idle()) -> counted, or when the
 *            walk leaves it (on_leave_dir()) -> none.
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

struct run {
	const struct options *opt;
	const struct run_env *env;
	FILE *err;		/* what is said on the way: run_set_err() */
	/* opt->auto_after: what is said is held here until the tally tells
	 * whether the full estimate is too long (then it is dropped) */
	FILE *held;
	char *held_buf;
	size_t held_len;
	int size_known;		/* the tally's total was looked at */
	double too_big;		/* seconds the full estimate would take */
	uint64_t too_big_bytes;
	struct usage_ctx *usage;
	struct mounts *mounts;	/* NULL until the first directory */
	struct rows *rows;	/* NULL without --depth/--per-file */
	struct ncdu *ncdu;	/* NULL but with --format=ncdu */
	struct estrun *est;	/* NULL until the first file estimated */
	struct layout *layout;	/* with --estimate: what each file counts */
	struct extent_info *ext;	/* the file being planned's extents */
	size_t next, cap_ext;
	uint64_t inline_key;	/* of its inline extent */
	uint64_t *est_rows;	/* layout_resolve()'s per-row shares */
	size_t cap_est_rows;
	struct sharing *sharing;	/* NULL without --exclusive */
	struct rewrite *rewrite;	/* NULL without --rewrite (or root) */
	uint64_t rw_stop;	/* plan_file()'s: rewrite_file()'s *stop */
	dev_t top_dev;		/* st_dev of the argument being walked */
	/* The settings estimated: opt->est, then with --rewrite the
	 * compress-force twin of each compress= one not asked for already
	 * (defrag -c compresses with force semantics); twin[i] is the index
	 * of setting i's force twin (i itself for a forced one). */
	struct est_setting *est_all;
	size_t nall;
	size_t *twin;
	struct sharing_result excl;	/* --exclusive's totals, at the end */
	struct sample_design design;	/* --sample */
	struct sample_devs devs;	/* ... design.devs (name_dev()) */
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
	/* the estimate's files' extents, a run of inodes a search */
	struct search_batch *batch;
	/* --sample: NULL, or the directory the pre-pass listed (the only
	 * one; the walk starts at it) whose walk need not meet every file,
	 * on st_dev prune_dev (prune.h); prune_state: 0 none yet, 1 its
	 * names listed, 2 planned, 3 the walk in it, leaving out what
	 * count_left_out() counts when it leaves, 4 done, -1 none
	 * (another directory listed, or what prune.h can't serve) */
	struct prune *prune;
	dev_t prune_dev;
	uint64_t prune_root;
	int prune_state;
	/* count_left_out() is counting a file: not drawn, not a sharer,
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
	struct deferred deferred;
	int have_usage;		/* usage was read, and every file was on
				 * btrfs */
	uint64_t alloc_bytes;	/* st_blocks of the files, in bytes */
	unsigned long failed;	/* paths that could not be read */
	struct report_error *errors;	/* those of them with memory to keep */
	size_t nerrors, cap_errors;
	int needs_root;		/* aborted: metadata needs CAP_SYS_ADMIN */
	struct report_est *est_report;	/* collect_estimates() */
	char *const *paths;	/* run_paths()'s arguments (the progress
				 * line's early total walks them too) */
	int npaths;
	const char *first_path;	/* the first argument: --plot's title, and
				 * whose mount options tell the current
				 * setting */
	struct report report;	/* run_report()'s, for run_plot() */
	dev_t *subvol_devs;	/* --subvolumes: the filesystems listed */
	size_t nsubvol_devs, cap_subvol_devs;
	int rows_sampled;	/* rows_sampled() was applied */
};

/*
 * run->est_all: the settings asked for, then with --rewrite the
 * compress-force twin of each compress= one (defrag -c compresses with
 * force semantics).  Returns 0 or -ENOMEM.
 */
static int plan_settings(struct run *run)
{
	const struct options *opt = run->opt;
	size_t i, j;

	run->est_all = opt->est;
	run->nall = opt->nest;
	if (!opt->rewrite || !opt->nest)
		return 0;
	run->est_all = calloc(2 * opt->nest, sizeof(*run->est_all));
	run->twin = calloc(opt->nest, sizeof(*run->twin));
	if (!run->est_all || !run->twin)
		return -ENOMEM;
	memcpy(run->est_all, opt->est, opt->nest * sizeof(*opt->est));
	for (i = 0; i < opt->nest; i++) {
		struct est_setting f = opt->est[i];

		f.force = true;
		for (j = 0; j < run->nall; j++)
			if (run->est_all[j].alg == f.alg &&
			    run->est_all[j].level == f.level &&
			    run->est_all[j].force)
				break;
		if (j == run->nall)
			run->est_all[run->nall++] = f;
		run->twin[i] = j;
	}
	return 0;
}

/* The values estrun_opts.sample_dx() gives a file, kept with each report
 * row: 0 without a sample. */
static size_t run_dx_count(const struct run *run)
{
	return run->opt->sample || run->opt->sample_bytes ?
	       (4 + 2 * run->nall) * SAMPLE_ROW_BANDS : 0;
}

struct run *run_create(const struct options *opt, const struct run_env *env)
{
	struct run *run = calloc(1, sizeof(*run));
	size_t i;

	if (!run)
		return NULL;
	run->opt = opt;
	run->env = env;
	run->err = stderr;
	if (opt->nest && opt->auto_after > 0) {
		run->held = open_memstream(&run->held_buf, &run->held_len);
		if (!run->held) {
			free(run);
			return NULL;
		}
		run->err = run->held;
	}
	run->deferred.depth = -1;
	run->deferred.fd = -1;
	run->have_usage = env->usage;
	run->usage = usage_create();
	if (!run->usage)
		goto fail;
	if (plan_settings(run))
		goto fail;
	if (opt->rewrite && env->usage) {
		run->rewrite = rewrite_create();
		if (!run->rewrite)
			goto fail;
	}
	if (opt->nest) {
		/* files written in steps as written, a sample's read
		 * whole too (estrun_submit_writes()) */
		run->layout = layout_create(run->nall, 1);
		run->batch = search_batch_create();
		if (!run->layout || !run->batch)
			goto fail;
		for (i = 0; i < run->nall; i++)
			layout_set_force(run->layout, i, run->est_all[i].force);
	}
	if (opt->exclusive) {
		run->sharing = sharing_create();
		if (!run->sharing)
			goto fail;
		usage_set_sharing(run->usage, run->sharing);
		/* For the tests (046): each exact method alone must agree. */
		if (getenv("COMPSIZE_SHARING") &&
		    !strcmp(getenv("COMPSIZE_SHARING"), "read"))
			sharing_set_method(run->sharing, SHARING_READ);
		if (getenv("COMPSIZE_SHARING") &&
		    !strcmp(getenv("COMPSIZE_SHARING"), "backref"))
			sharing_set_method(run->sharing, SHARING_BACKREF);
	}
	if (opt->format == REPORT_NCDU) {
		run->ncdu = ncdu_create();
		if (!run->ncdu)
			goto fail;
	}
	if (opt->depth >= 0 || opt->per_file || opt->subvolumes) {
		/* with estimates, each row holds both models (layout.h) */
		run->rows = rows_create(opt->sort, opt->top, 2 * run->nall,
					run_dx_count(run));
		if (!run->rows)
			goto fail;
	}
	return run;
fail:
	run_free(run);
	return NULL;
}

void run_free(struct run *run)
{
	size_t i;

	if (!run)
		return;
	if (run->held)
		fclose(run->held);
	free(run->held_buf);
	for (i = 0; i < run->nerrors; i++) {
		free(run->errors[i].path);
		free(run->errors[i].error);
	}
	free(run->errors);
	if (run->deferred.fd >= 0)
		close(run->deferred.fd);
	free(run->deferred.path);
	free(run->est_report);
	estrun_free(run->est);
	sample_devs_free(&run->devs);
	sample_bands_free(run->bands);
	seen_free(run->prescanned);
	seen_free(run->sharers);
	sampleplan_kept_free(run->kept);
	prune_free(run->prune);
	free(run->keydevs);
	layout_free(run->layout);
	search_batch_free(run->batch);
	rewrite_free(run->rewrite);
	if (run->est_all != run->opt->est)
		free(run->est_all);
	free(run->twin);
	free(run->ext);
	free(run->est_rows);
	free(run->subvol_devs);
	rows_free(run->rows);
	ncdu_free(run->ncdu);
	usage_free(run->usage);
	sharing_free(run->sharing);
	mounts_free(run->mounts);
	free(run);
}

int run_needs_root(const struct run *run)
{
	return run->needs_root;
}

unsigned long run_failed(const struct run *run)
{
	return run->failed;
}

/* "compsize: PATH: what" on run->err, the path escaped as in the table: a
 * name must not reach a terminal as a control sequence. */
static void say_path(const struct run *run, const char *path,
		     const char *what)
{
	fputs("compsize: ", run->err);
	fmt_table_path(run->err, path);
	fprintf(run->err, ": %s\n", what);
}

/* path could not be read: say so, count it and keep it for the report. */
static void report_failure(struct run *run, const char *path,
			   const char *cause)
{
	struct report_error *e;

	estrun_clear_progress(run->est);
	say_path(run, path, cause);
	run->failed++;
	/* out of memory there only leaves the mark out */
	if (run->ncdu)
		ncdu_error(run->ncdu, path);
	e = array_grow(run->errors, &run->cap_errors, run->nerrors,
		       sizeof(*e));
	if (!e)
		return;	/* still counted: the exit status is 1 */
	run->errors = e;
	e = &run->errors[run->nerrors];
	e->path = strdup(path);
	e->error = strdup(cause);
	if (e->path && e->error) {
		run->nerrors++;
	} else {
		free(e->path);
		free(e->error);
	}
}

static void on_error(void *arg, const char *path, int err)
{
	report_failure(arg, path, strerror(err));
}

static void fill_report(struct run *run, struct report *r)
{
	memset(r, 0, sizeof(*r));
	r->format = run->opt->format;
	r->units = run->opt->units;
	r->total = &run->usage->stats;
	r->have_usage = run->have_usage;
	r->alloc_bytes = run->alloc_bytes;
	r->errors = run->errors;
	r->nerrors = run->nerrors;
}

/* What a held run said, said now; what it says from now on, as it does. */
static void release_held(struct run *run)
{
	if (!run->held)
		return;
	if (!fclose(run->held) && run->held_len)
		fwrite(run->held_buf, 1, run->held_len, stderr);
	run->held = NULL;
	if (run->err != stderr && !run->too_big)
		run->err = stderr;
}

/*
 * CPU seconds a GB of data costs a setting in a full estimate, on one
 * core, roughly as measured here on system files (bench/RESULTS.md):
 * lzo 2, zstd 4 up to level 3, 17 at 9 and 90 at 15, zlib 11 at level 1
 * and 36 at 9.  Only to tell a minute from an hour.
 */
static double setting_cost(const struct est_setting *s)
{
	double c = 17;
	int l;

	switch (s->alg) {
	case EST_LZO:
		return 2;
	case EST_ZSTD:
		if (s->level <= 3)
			return 4;
		if (s->level <= 9)
			return 4 + 2.2 * (s->level - 3);
		for (l = 9; l < s->level; l++)
			c *= 1.3;
		return c;
	case EST_ZLIB:
		return 11 + 3.1 * (s->level - 1);
	}
	return 4;
}

static unsigned default_jobs(void);

/* opt->auto_after: once the tally knows the data, whether the full
 * estimate would take longer; returns -ECANCELED to stop the walk. */
static int check_size(struct run *run)
{
	uint64_t bytes;
	double cost = 0;
	size_t i;

	if (run->size_known || !run->est ||
	    !estrun_tallied(run->est, &bytes))
		return 0;
	run->size_known = 1;
	for (i = 0; i < run->nall; i++)
		cost += setting_cost(&run->est_all[i]);
	cost *= (double)bytes / 1e9 /
		(run->opt->jobs ? run->opt->jobs : default_jobs());
	if (cost <= run->opt->auto_after) {
		release_held(run);
		return 0;
	}
	run->too_big = cost;
	run->too_big_bytes = bytes;
	return -ECANCELED;
}

double run_too_big(const struct run *run, uint64_t *bytes)
{
	*bytes = run->too_big_bytes;
	return run->too_big;
}

static int on_tick(void *arg)
{
	struct run *run = arg;
	struct report r;
	int ret;

	if (run->too_big)
		return -ECANCELED;
	if (run->held) {
		ret = check_size(run);
		if (ret)
			return ret;
	}

	if (run->env->want_stats && *run->env->want_stats) {
		/* Partial statistics, as compsize 1.5 prints them; on stderr
		 * when stdout is JSON or CSV, which must stay whole. */
		FILE *out = run->opt->format == REPORT_TABLE ? stdout : stderr;

		*run->env->want_stats = 0;
		fill_report(run, &r);
		r.format = REPORT_TABLE;
		report_print(out, stderr, &r);
		fflush(out);
	}
	return 0;
}

/* Report what usage_file() or fastscan_dir() returned for path; returns
 * 0 to go on or a negative errno to abort the walk. */
static int scan_result(struct run *run, const char *path, int ret)
{
	struct usage_ctx *usage = run->usage;
	char msg[128];

	switch (ret) {
	case 0:
		return 0;
	case -ENOMEM:
	case -ECANCELED:	/* on_tick(): the full estimate is too long */
		return ret;
	case -EPERM:
		/* Every other file would fail the same way. */
		say_path(run, path, "reading btrfs metadata needs root (CAP_SYS_ADMIN)");
		run->needs_root = 1;
		return ret;
	case -EUCLEAN:
		snprintf(msg, sizeof(msg), "%s at file offset %llu",
			 extent_strerror(usage->bad_item),
			 (unsigned long long)usage->bad_offset);
		report_failure(run, path, msg);
		return 0;
	case -ENOTTY:
		report_failure(run, path, "not on a btrfs filesystem");
		return 0;
	default:
		snprintf(msg, sizeof(msg), "SEARCH_V2: %s", strerror(-ret));
		report_failure(run, path, msg);
		return 0;
	}
}

/*
 * --sample: a subvolume nested below a directory the pre-pass counted:
 * its files' keys use what sample_listed() gave them.  Returns 0 or
 * -ENOMEM.
 */
static int map_subvol(struct run *run, int fd, const struct stat *st)
{
	struct run_keydev *k;
	uint64_t id;
	size_t i;

	if (fastscan_probe(fd, &id) || id == run->pre_id)
		return 0;
	for (i = 0; i < run->nkeydevs; i++)
		if (run->keydevs[i].dev == st->st_dev)
			return 0;
	k = array_grow(run->keydevs, &run->cap_keydevs, run->nkeydevs,
		       sizeof(*k));
	if (!k)
		return -ENOMEM;
	run->keydevs = k;
	k[run->nkeydevs].dev = st->st_dev;
	k[run->nkeydevs++].key = sample_subvol_dev(run->pre_dev, id);
	return 0;
}

/* --sample: name st's device in the draws (struct sample_devs) by its
 * filesystem's id, from fd on it, before any of its files is drawn. */
static void name_dev(struct run *run, int fd, const struct stat *st)
{
	struct statfs sf;
	uint64_t id = 0;

	if (!fstatfs(fd, &sf))
		id = (uint64_t)(uint32_t)sf.f_fsid.__val[0] << 32 |
		     (uint32_t)sf.f_fsid.__val[1];
	sample_devs_add(&run->devs, st->st_dev, id);
}

static int on_enter_fs(void *arg, int fd, const char *path,
		       const struct stat *st, int top)
{
	struct run *run = arg;
	int ret;

	if (top)
		run->top_dev = st->st_dev;
	if (run->sampling)
		name_dev(run, fd, st);
	if (!top && run->sampling && run->bands &&
	    run->deferred.depth >= 0) {
		ret = map_subvol(run, fd, st);
		if (ret)
			return ret;
	}
	ret = usage_probe_fs(run->usage, fd, st);
	if (ret == -ENOMEM)
		return ret;
	if (!run->env->usage && ret != 0) {
		/* --estimate without root: btrfs, its usage unreadable */
		run->have_usage = 0;
		return WALK_ENTER;
	}
	if (ret == 1)
		return WALK_ENTER;
	if (ret == -EPERM)
		return scan_result(run, path, ret);
	if (ret == 0 && top && run->opt->nest) {
		/* Estimating an argument off btrfs: its data is read, with
		 * no current usage.  Below an argument the estimate follows
		 * the usage report's tree: other filesystems (procfs,
		 * tmpfs...) are skipped with its warning. */
		run->have_usage = 0;
		return WALK_ENTER;
	}
	if (ret < 0) {
		report_failure(run, path, strerror(-ret));
	} else if (top) {
		report_failure(run, path, "not on a btrfs filesystem");
	} else {
		/* 1.5 dies here; a tmpfs or ext4 mount inside the tree is
		 * simply not part of what compsize measures. */
		say_path(run, path, "skipped: not a btrfs filesystem");
		if (run->ncdu && ncdu_excluded(run->ncdu, path, st))
			return -ENOMEM;
	}
	return WALK_SKIP;
}

/* A file's estimate is back (token: its layout ticket): its error, or
 * its shares of the totals and of the rows open when it was found. */
static int on_est_done(void *arg, const char *path, int err, size_t token,
		       const uint64_t *delta, const uint64_t *gdelta)
{
	struct run *run = arg;
	size_t nrows, rows_token;

	layout_resolve(run->layout, token, err ? NULL : delta,
		       err ? NULL : gdelta, run->est_rows, &nrows,
		       &rows_token);
	if (err == -ENOMEM)
		return err;
	if (err) {
		report_failure(run, path, strerror(-err));
		return 0;
	}
	if (run->rows)
		rows_add_est_each(run->rows, rows_token, run->est_rows, nrows);
	return 0;
}

/* --sample with --rewrite: whether a file drawn is rewritten. */
static int on_est_rewritten(void *arg, size_t token)
{
	struct run *run = arg;

	return layout_rewritten(run->layout, token);
}

/* --sample: a file's sums by band, before on_est_done(): to the rows
 * that were open when it was found. */
static void on_est_dx(void *arg, size_t token, const int64_t *dx)
{
	struct run *run = arg;

	rows_add_extra(run->rows, layout_user(run->layout, token), dx);
}

/* A sampled file's units, before on_est_done() or once every file is
 * planned (on_est_deferred()): their same-layout share. */
static void on_est_factors(void *arg, size_t token, const uint64_t *raw,
			   const uint64_t *gdelta, double *f)
{
	struct run *run = arg;

	layout_factors(run->layout, token, raw, gdelta, f);
}

/* A sampled big file's parts: their own same-layout factors. */
static int on_est_part_factors(void *arg, size_t token, uint64_t size,
			       uint64_t n, double *f, double *tmp)
{
	struct run *run = arg;

	return layout_part_factors(run->layout, token, size, n, f, tmp);
}

static int on_est_bucket_scales(void *arg, size_t token, size_t nb,
				double *s)
{
	struct run *run = arg;

	return layout_bucket_scales(run->layout, token, nb, s);
}

/* Whether a sampled file's factors wait for every file (written in
 * steps, a write of it overwritten: another file may claim its
 * extents). */
static int on_est_deferred(void *arg, size_t token)
{
	struct run *run = arg;

	return layout_tentative(run->layout, token);
}

/* A file kept by layout_resolve() is settled: its rows' shares. */
static void on_settled(void *arg, size_t user, const uint64_t *out,
		       size_t nrows)
{
	struct run *run = arg;

	if (run->rows)
		rows_add_est_each(run->rows, user, out, nrows);
}

/* A report row opens or closes: the rows and the estimates' levels. */
static int row_open(struct run *run, const char *path)
{
	int ret = rows_open(run->rows, run->usage, path);
	uint64_t *p;
	size_t need;

	if (ret || !run->layout)
		return ret;
	ret = layout_push(run->layout);
	if (ret) {
		rows_close(run->rows, run->usage);
		return ret;
	}
	/* layout_resolve() fills 6 values a setting for each open row */
	need = rows_open_count(run->rows) * 6 * run->nall;
	if (need > run->cap_est_rows) {
		p = realloc(run->est_rows, need * sizeof(*p));
		if (!p)
			return -ENOMEM;
		run->est_rows = p;
		run->cap_est_rows = need;
	}
	return 0;
}

static int row_close(struct run *run)
{
	if (run->layout)
		layout_pop(run->layout);
	return rows_close(run->rows, run->usage);
}

/*
 * Estimating: the walk reads every file under dir for its data, and the
 * fast scan counts its usage later (scan_deferred()): the first time
 * estrun's queue is full (est_idle()), or when the walk leaves dir.  So
 * the estimate's workers get files from the start and the scan runs while
 * they have plenty queued: on the same cores, but with none idle.  No
 * file under it is searched again.  none -> pending, or -> counted when
 * there is no descriptor or memory to keep (struct deferred).
 */
static int defer_scan(struct run *run, int fd, const char *path,
		      const struct stat *st, int depth)
{
	struct deferred *d = &run->deferred;
	uint64_t id;
	int ret;

	if (run->prescanned &&
	    seen_contains(run->prescanned, sample_key(st->st_dev, st->st_ino))) {
		/* counted by the pre-pass (sample_dir()) */
		d->depth = depth;
		run->pre_dev = st->st_dev;
		if (fastscan_probe(fd, &run->pre_id))
			run->pre_id = 0;
		/* the walk leaves out what count_left_out() counts when
		 * it leaves the directory */
		if (run->prune_state == 2 && st->st_dev == run->prune_dev &&
		    st->st_ino == run->prune_root)
			run->prune_state = 3;
		return WALK_ENTER;
	}
	ret = fastscan_probe(fd, &id);
	if (ret == 1)
		return WALK_ENTER;
	d->depth = depth;
	if (!ret) {
		d->path = strdup(path);
		d->fd = d->path ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (d->fd >= 0) {
			d->st = *st;
			return WALK_ENTER;
		}
		free(d->path);
		d->path = NULL;
		/* No descriptor or memory to spare: count it now. */
		ret = fastscan_dir(run->usage, fd, st, run->opt->one_fs,
				   on_tick, run);
	}
	ret = scan_result(run, path, ret);
	return ret < 0 ? ret : WALK_ENTER;
}

/* The deferred scan of the directory being read: pending -> counted. */
static int scan_deferred(struct run *run)
{
	struct deferred *d = &run->deferred;
	int fd = d->fd;
	int ret;

	d->fd = -1;
	ret = fastscan_dir(run->usage, fd, &d->st, run->opt->one_fs, on_tick,
			   run);
	close(fd);
	/* It was probed: 1 means it changed under us, as any failed
	 * search would. */
	if (ret == 1)
		ret = -ENOENT;
	ret = scan_result(run, d->path, ret);
	free(d->path);
	d->path = NULL;
	return ret;
}

/*
 * estrun's queue is full: the workers have plenty to do, so count the
 * usage of the directory being read now rather than when the walk leaves
 * it, where the last directory's scan would run with the workers done
 * and idle.  The rows open now are those of the directory and above it
 * (defer_scan() is not used below a row), which is where its usage goes
 * either way.
 */
static int est_idle(void *arg)
{
	struct run *run = arg;
	int ret;

	if (run->deferred.fd < 0)
		return 0;
	ret = scan_deferred(run);
	return ret < 0 ? ret : 1;
}

/* -j default: one worker per online CPU.  Asked only when estimating:
 * sysconf() parses /sys, which costs a scan resident pages of libc. */
static unsigned default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > RUN_MAX_JOBS ? RUN_MAX_JOBS : (unsigned)n;
}

static int collect_extent(const struct search_item *item, void *arg)
{
	struct run *run = arg;
	struct extent_info *e;

	if (item->type != BTRFS_EXTENT_DATA_KEY)
		return 0;
	e = array_grow(run->ext, &run->cap_ext, run->next, sizeof(*e));
	if (!e)
		return -ENOMEM;
	run->ext = e;
	/* malformed items are the usage report's to tell */
	if (extent_parse(item->data, item->len, 0, &run->ext[run->next]))
		return 0;
	run->ext[run->next].file_pos = item->offset;
	if (run->ext[run->next].type == BTRFS_FILE_EXTENT_INLINE)
		run->inline_key = extent_inline_key(item->data, item->len);
	run->next++;
	return 0;
}

/* --sample: the key of the file (dev, ino) in run->bands. */
static uint64_t sample_key_of(const struct run *run, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < run->nkeydevs; i++)
		if (run->keydevs[i].dev == dev)
			return sample_key(run->keydevs[i].key, ino);
	return sample_key(dev, ino);
}

static uint64_t est_key(void *arg, const struct stat *st)
{
	return sample_key_of(arg, st->st_dev, st->st_ino);
}

/* --sample: whether a unit of file st is drawn. */
static int drawn(const struct run *run, const struct stat *st)
{
	uint64_t key;

	if (run->left_out)
		return 0;
	key = sample_key_of(run, st->st_dev, st->st_ino);
	return sample_file_in_parts(&run->design, st->st_dev, st->st_ino,
				    st->st_size, sample_data_bytes(st),
				    sample_bands_get(run->bands, key),
				    sample_bands_parts(run->bands, key,
					sample_units(st->st_size,
						     sample_data_bytes(st))));
}

/* --sample: whether file st is one of the pre-pass's sharers (it
 * references an extent or inline bytes another file references too, or
 * holds preallocated space or part of an extent: sampleplan_run()); all
 * are when they are not known. */
static int sharer(const struct run *run, dev_t dev, ino_t ino)
{
	return !run->left_out &&
	       (!run->sharers ||
		seen_contains(run->sharers, sample_key_of(run, dev, ino)));
}

/*
 * --sample: a file not drawn and not a sharer: nothing of it is
 * estimated, and what it meets first nothing else meets, so its extents
 * need not be searched (--walk searches them all: the tests' reference).
 */
static int extents_unneeded(const struct run *run, const struct stat *st)
{
	return run->sampling && !run->opt->walk && !run->rewrite &&
	       !sharer(run, st->st_dev, st->st_ino) && !drawn(run, st);
}

/*
 * --sample: a sharer whose extent items the pre-pass kept
 * (sampleplan_kept_get()), into run->ext: it need not be searched again
 * (--walk and a rewrite search every file's; a pre-pass that met a bad
 * item may have left one out).  Returns 1 when so, 0 when not, or -ENOMEM.
 */
static int kept_sharer(struct run *run, const struct stat *st)
{
	struct extent_info *e;
	uint64_t v;
	size_t n;

	if (!run->sampling || run->opt->walk || run->rewrite ||
	    run->left_out || !run->kept || run->prescan_bad)
		return 0;
	v = seen_value(run->sharers, sample_key_of(run, st->st_dev,
						   st->st_ino));
	n = sampleplan_kept_count(v);
	if (!n)
		return 0;
	e = array_grow(run->ext, &run->cap_ext, n - 1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	run->ext = e;
	sampleplan_kept_get(run->kept, v, run->ext, &run->inline_key);
	run->next = n;
	return 1;
}

/* A file submitted to a sample: its known share of the same layout, 1
 * when it shares nothing (whether its extents were searched or not). */
static double on_est_known(void *arg, size_t token, const struct stat *st)
{
	struct run *run = arg;
	double a = layout_known_share(run->layout, token);

	return a >= 0 && !sharer(run, st->st_dev, st->st_ino) ? 1 : a;
}

/*
 * What the estimate counts of the file (layout.h): its inode once, its
 * extents once, at every level.  The extents come from a search of its
 * items, or of a run of inodes with it (search_batch_file_extents(); btrfs
 * and root); otherwise it counts as all new.  Sets *ticket,
 * and *skip when nothing of it counts anywhere.
 */
static int plan_file(struct run *run, int fd, const struct stat *st,
		     size_t *ticket, int *skip)
{
	const struct usage_fs *fs = usage_fs_of(run->usage, st->st_dev);
	struct layout_file f = {
		.dev = st->st_dev,
		.ino = st->st_ino,
		.once = run->left_out,
	};
	int ret;

	run->rw_stop = 0;
	if (run->env->usage && fs && !extents_unneeded(run, st)) {
		run->next = 0;
		ret = kept_sharer(run, st);
		if (!ret)
			ret = search_batch_file_extents(run->batch, fd,
							st->st_dev, st->st_ino,
							fs->nodesize,
							collect_extent, run);
		else if (ret == 1)
			ret = 0;
		if (ret == -ENOMEM)
			return ret;
		f.have_extents = !ret;
		f.fs_idx = fs->fs_idx;
		f.ext = run->ext;
		f.next = run->next;
		f.sectorsize = fs->sectorsize;
		f.size = st->st_size;
		f.inline_key = run->inline_key;
		/* defragment -r walks with FTW_MOUNT: nothing beyond the
		 * argument's st_dev (nested subvolumes, mounts) */
		if (run->rewrite && f.have_extents &&
		    st->st_dev == run->top_dev) {
			ret = rewrite_file(run->rewrite, fs->fs_idx, fd, st,
					   run->ext, run->next, &run->rw_stop);
			if (ret == -ENOMEM)
				return ret;
			/* a subvolume that can't be told: not rewritten */
			f.rewrite = ret != 1 ? 0 :
				    st->st_nlink ? (uint32_t)st->st_nlink : 1;
		}
	}
	return layout_plan(run->layout, &f,
			   run->rows ? rows_est_token(run->rows) : 0, ticket,
			   skip);
}

/* Queue the file on *fd; estrun takes the descriptor (*fd = -1) when it
 * reads the file.  Its extents are searched on sfd (*fd, or with --sample
 * its directory when it was not opened). */
static int estimate_file(struct run *run, int *fd, int sfd, const char *path,
			 const struct stat *st)
{
	const struct est_write *wr;
	size_t ticket, nw, ng;
	int ret, skip;

	ret = plan_file(run, sfd, st, &ticket, &skip);
	if (ret)
		return ret;
	if (skip) {
		/* a hard link met before at every level: cp -a keeps it */
		layout_drop(run->layout, ticket);
		return 0;
	}
	if (!run->est) {
		const struct usage_fs *fs = usage_fs_of(run->usage,
							st->st_dev);
		struct estrun_opts eo = {
			.s = run->est_all,
			.n = run->nall,
			.jobs = run->opt->jobs ? run->opt->jobs : default_jobs(),
			.design = run->sampling ? &run->design : NULL,
			.bands = run->bands,
			.key = est_key,
			/* for a person watching, not for scripts, unless
			 * --progress asks (full lines, for a log) */
			.progress_fd = run->opt->progress > 0 ||
				       (run->opt->progress < 0 &&
					isatty(STDERR_FILENO)) ? STDERR_FILENO : -1,
			.paths = run->paths,
			.npaths = run->npaths,
			.one_fs = run->opt->one_fs,
			/* The first filesystem read decides the sector size. */
			.sectorsize = fs ? fs->sectorsize : 4096,
			.idle = est_idle,
			.factors = on_est_factors,
			.part_factors = on_est_part_factors,
			.bucket_scales = on_est_bucket_scales,
			.deferred = on_est_deferred,
			.known_share = on_est_known,
			.sample_dx = run->rows ? on_est_dx : NULL,
			.rewritten = run->rewrite ? on_est_rewritten : NULL,
		};

		run->est = estrun_create(&eo, on_est_done, run);
		if (!run->est) {
			ret = -errno;
			layout_drop(run->layout, ticket);
			return ret;
		}
	}
	/* Its estimate goes to the rows open now, whenever it comes back:
	 * rows close without waiting for it, so the workers never run dry
	 * at a row's end (--depth, --per-file).  A failure ends the run:
	 * the ticket, resolved or not, goes with the layout. */
	ng = layout_writes(run->layout, ticket, &wr, &nw);
	return estrun_submit_writes(run->est, fd, path, st, ticket, wr, nw,
				    ng, layout_inline(run->layout, ticket),
				    run->rw_stop);
}

/*
 * With --sample on the fast scan, the walk lists files without opening
 * them (walk_opts.stat_files): a file is opened only when its usage is
 * read file by file (not under a directory the fast scan counts) or the
 * sample draws a unit of it.  Returns its descriptor, -1 when it need not
 * be opened, or -2 when it could not be (gone: left out, as the walk
 * does; any other cause reported).
 */
static int open_late(struct run *run, int dirfd, const char *name,
		     const char *path, const struct stat *st)
{
	struct stat now;
	int fd;

	if (run->deferred.depth >= 0 && !drawn(run, st))
		return -1;
	fd = openat(dirfd, name, O_RDONLY | O_NOATIME | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && !fstat(fd, &now) && now.st_ino == st->st_ino &&
	    now.st_dev == st->st_dev)
		return fd;
	if (fd >= 0) {
		close(fd);	/* replaced since it was listed */
		errno = ENOENT;
	}
	if (errno != ENOENT)
		report_failure(run, path, strerror(errno));
	return -2;
}

static uint64_t disk_total(const struct cs_stats *st)
{
	uint64_t sum = 0;
	unsigned t;

	for (t = 0; t < CS_NTYPES; t++)
		sum += st->disk[t];
	return sum;
}

/*
 * --format=ncdu: the file's usage, and its entry in the tree with what it
 * added to the total's disk usage: each extent goes to the first file met
 * that references it, in the walk's order, so the tree adds up to the
 * report's Disk Usage.  The entry comes before any failure is reported,
 * which then marks it.
 */
static int ncdu_one_file(struct run *run, int fd, const char *path,
			 const struct stat *st)
{
	uint64_t before = disk_total(&run->usage->stats);
	int ret = usage_file(run->usage, fd, st), ret2;

	ret2 = ncdu_file(run->ncdu, path, st,
			 disk_total(&run->usage->stats) - before);
	ret = scan_result(run, path, ret);
	return ret ? ret : ret2;
}

/* A regular file open on *fd, or (-1) not opened in directory dirfd. */
static int one_file(struct run *run, int *fd, int dirfd, const char *name,
		    const char *path, const struct stat *st, int depth)
{
	int row = run->rows && (depth == 0 || (run->opt->per_file &&
					      (run->opt->depth < 0 ||
					       depth <= run->opt->depth)));
	int ret = 0, own = -1;

	if (*fd < 0) {
		/* listed, not opened (stat_files): open it if needed */
		own = open_late(run, dirfd, name, path, st);
		if (own == -2)
			return 0;
		*fd = own;
	}
	if (row) {
		ret = row_open(run, path);
		if (ret)
			goto out;
	}
	if (run->deferred.depth >= 0) {
		/* its usage came with its directory's fast scan */
	} else if (run->ncdu) {
		ret = ncdu_one_file(run, *fd, path, st);
	} else if (run->env->usage && (!run->opt->nest ||
				       usage_fs_of(run->usage, st->st_dev))) {
		ret = scan_result(run, path, usage_file(run->usage, *fd, st));
	} else {
		/* Estimating without root, or on another filesystem: no
		 * usage to read, and no error either; the file is counted
		 * with nothing known of its extents. */
		usage_begin_file(run->usage);
	}
	run->alloc_bytes += (uint64_t)st->st_blocks * 512;
	if (!ret && run->opt->nest)
		ret = estimate_file(run, fd, *fd >= 0 ? *fd : dirfd, path, st);
	if (row && !ret)
		ret = row_close(run);
out:
	if (own >= 0 && *fd >= 0)
		close(*fd);	/* opened here and not taken by estrun */
	return ret;
}

static int on_file(void *arg, int *fd, const char *path,
		   const struct stat *st, int depth)
{
	return one_file(arg, fd, -1, NULL, path, st, depth);
}

/* st_blocks * 512 of a btrfs file whose inode item holds nbytes:
 * btrfs_getattr() rounds them up to a sector (no delalloc counted: a
 * committed inode item has none); nbytes when the sector is not known. */
static uint64_t stat_bytes(uint64_t nbytes, uint32_t sectorsize)
{
	if (sectorsize < 512)
		return nbytes;
	return (nbytes + sectorsize - 1) / sectorsize * sectorsize;
}

/*
 * --sample: a regular file under a directory the pre-pass counted (so
 * nothing is mounted beneath it) is as its inode item said then
 * (sample_bands_facts()): no fstatat().  A file drawn is opened and
 * checked (open_late()).
 */
static int known_stat(struct run *run, dev_t dev, ino_t ino, struct stat *st)
{
	const struct usage_fs *fs = usage_fs_of(run->usage, dev);
	struct sample_facts f;

	if (!fs || fs->sectorsize < 512 ||
	    !sample_bands_facts(run->bands, sample_key_of(run, dev, ino), &f))
		return 0;
	memset(st, 0, sizeof(*st));
	st->st_dev = dev;
	st->st_ino = ino;
	st->st_mode = S_IFREG;
	st->st_nlink = f.nlink;
	st->st_size = (off_t)f.size;
	st->st_blocks = (blkcnt_t)(stat_bytes(f.nbytes, fs->sectorsize) / 512);
	return 1;
}

/* The walk meets file ino in a directory on dev: 2 when it is left out
 * (count_left_out() counts it), else as known_stat(). */
static int on_known(void *arg, dev_t dev, ino_t ino, struct stat *st)
{
	struct run *run = arg;

	if (run->deferred.depth < 0)
		return 0;
	if (run->prune_state == 3 && dev == run->prune_dev &&
	    prune_counted(run->prune, ino))
		return 2;
	return known_stat(run, dev, ino, st);
}

/* The walk meets subdirectory ino of directory dir_ino on dev: left out
 * when nothing under it is to be met (prune_skip_dir()). */
static int on_skip_dir(void *arg, dev_t dev, ino_t dir_ino, ino_t ino)
{
	struct run *run = arg;

	return run->prune_state == 3 && run->deferred.depth >= 0 &&
	       dev == run->prune_dev &&
	       prune_skip_dir(run->prune, dir_ino, ino);
}

/* --sample: a file listed in dirfd, not opened (walk_opts.stat_files). */
static int on_file_at(void *arg, int dirfd, const char *name, const char *path,
		      const struct stat *st, int depth)
{
	int fd = -1;

	return one_file(arg, &fd, dirfd, name, path, st, depth);
}

/*
 * --sample: the walk leaves the directory at path the pre-pass listed,
 * where prune_plan() found the files it need not meet, and which it left
 * out (on_known(), on_skip_dir()).  Count each now as the walk would
 * (one_file(): none is opened, drawn or shared), from what the pre-pass
 * knew of it, while the workers estimate what was drawn.  Only files
 * nothing depends on the order of are counted so: the estimates are the
 * walk's.
 */
static int count_left_out(struct run *run, const char *path, int depth)
{
	const uint64_t *ino;
	struct stat st;
	size_t i, n = prune_ahead(run->prune, &ino);
	int fd, ret = 0;

	for (i = 0; !ret && i < n; i++) {
		if ((i & 1023) == 1023) {
			ret = on_tick(run);
			if (ret)
				break;
		}
		if (!known_stat(run, run->prune_dev, ino[i], &st))
			continue;
		fd = -1;
		run->left_out = 1;
		ret = one_file(run, &fd, -1, NULL, path, &st, depth + 1);
		run->left_out = 0;
	}
	run->prune_state = 4;
	return ret;
}

/* Whether dir gets a row, and whether it must be walked entry by entry. */
static int on_dir(void *arg, int fd, const char *path, const struct stat *st,
		  int depth)
{
	struct run *run = arg;
	/* --per-file with --depth: files and directories down to depth N,
	 * as du -a -d N */
	int row = run->rows && depth <= run->opt->depth;
	int ret;

	if (run->ncdu) {
		/* every file is searched alone: its own share of the usage */
		ret = ncdu_dir(run->ncdu, path, st);
		return ret ? ret : WALK_ENTER;
	}
	if (row) {
		ret = row_open(run, path);
		if (ret)
			return ret;
	}
	/* The fast scan can't tell rows apart below it: not above the
	 * deepest row, nor with a row per file; and once a directory is
	 * counted, nothing under it is counted again. */
	if (run->opt->walk || !run->env->usage || !run->env->fast ||
	    run->deferred.depth >= 0 ||
	    (run->rows && (depth < run->opt->depth ||
			   (run->opt->per_file && run->opt->depth < 0))))
		return WALK_ENTER;
	if (!run->mounts) {
		run->mounts = mounts_create();
		if (!run->mounts)
			return -ENOMEM;
	}
	if (mounts_beneath(run->mounts, st))
		return WALK_ENTER;
	if (run->opt->nest)
		return defer_scan(run, fd, path, st, depth);
	ret = fastscan_dir(run->usage, fd, st, run->opt->one_fs, on_tick, run);
	if (ret == 1)
		return WALK_ENTER;
	ret = scan_result(run, path, ret);
	if (ret < 0)
		return ret;
	if (row)
		ret = row_close(run);
	return ret < 0 ? ret : WALK_SKIP;
}

static int on_leave_dir(void *arg, const char *path, int depth)
{
	struct run *run = arg;
	int ret = 0;

	(void)path;
	if (run->ncdu)
		ncdu_leave(run->ncdu);
	if (depth == run->deferred.depth && run->prune_state == 3)
		ret = count_left_out(run, path, depth);
	if (depth == run->deferred.depth) {
		/* pending or counted -> none */
		run->deferred.depth = -1;
		if (run->deferred.fd >= 0)
			ret = scan_deferred(run);
	}
	/* Out of memory here leaves the row out; rows_close reports it. */
	if (run->rows && depth <= run->opt->depth)
		row_close(run);
	return ret;
}

/* The subvolume a sample_dir() scan started in, whose files' keys are
 * known: their st_dev is the directory's. */
struct sample_scan {
	struct sampleplan *p;
	int fd;			/* the directory's */
	dev_t dev;
	uint64_t id;
	uint32_t sectorsize;	/* the filesystem's (usage_probe_fs()) */
	struct prune *prune;	/* NULL, or the names' */
	struct walkorder *order;	/* NULL, or where the walk meets them */
	int by_names;	/* a file listed not in inode order (by_names) */
	/* the directory a stale file was last stat'ed in (stale_stat()) */
	uint64_t stat_tree, stat_dir;
	dev_t stat_dev;
	int stat_fd;
};

/*
 * The stat of a file whose inode item may lag behind (fastscan_file.stale):
 * by its first name in its directory, opened once for the files that
 * follow in it (alone, about half the cost of a handle opened and closed
 * for each), else through its own handle.  The name must lead to the file
 * itself (its inode number, on its directory's device: not something
 * mounted over it).  0, or -1 when neither finds it a regular file.
 */
static int stale_stat(struct sample_scan *sc, const struct fastscan_file *f,
		      struct stat *st)
{
	int fd, ret;

	if (f->name_len && f->parent) {
		if (sc->stat_fd < 0 || sc->stat_tree != f->tree_id ||
		    sc->stat_dir != f->parent) {
			if (sc->stat_fd >= 0)
				close(sc->stat_fd);
			/* generation 0: any (btrfs_get_dentry()); what is
			 * found there is checked by its inode number */
			sc->stat_fd = pending_open(sc->fd, f->tree_id,
						   f->parent, 0,
						   O_PATH | O_DIRECTORY);
			sc->stat_tree = f->tree_id;
			sc->stat_dir = f->parent;
			if (sc->stat_fd >= 0 && fstat(sc->stat_fd, st)) {
				close(sc->stat_fd);
				sc->stat_fd = -1;
			}
			sc->stat_dev = sc->stat_fd >= 0 ? st->st_dev : 0;
		}
		if (sc->stat_fd >= 0 &&
		    !fstatat(sc->stat_fd, f->name, st, AT_SYMLINK_NOFOLLOW) &&
		    st->st_ino == f->ino && st->st_dev == sc->stat_dev &&
		    S_ISREG(st->st_mode))
			return 0;
	}
	fd = pending_open(sc->fd, f->tree_id, f->ino, f->generation, O_PATH);
	ret = fd >= 0 && !fstat(fd, st) && S_ISREG(st->st_mode) ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* A file's key as sample_listed() gives it (walkorder_ranks()). */
static uint64_t sample_scan_key(void *arg, uint64_t tree_id, uint64_t ino)
{
	const struct sample_scan *sc = arg;

	return sample_key(tree_id == sc->id ? sc->dev :
			  sample_subvol_dev(sc->dev, tree_id), ino);
}

static int sample_place(void *arg, uint64_t tree_id, uint64_t dir,
			uint64_t index, uint64_t child, int kind)
{
	const struct sample_scan *sc = arg;

	return walkorder_entry(sc->order, tree_id, dir, index, child, kind);
}

/* The files the scan listed, in the order the walk meets them
 * (walkorder.h): out of memory, as they were. */
static void sample_scan_order(struct sample_scan *sc, uint64_t root,
			      size_t since)
{
	struct walkorder_rank *r;
	size_t n;
	int listed = 0;

	/* listed through names, the files came in batches: never in the
	 * order walkorder_ranks() calls listed */
	if (walkorder_ranks(sc->order, sc->id, root, sample_scan_key, sc, &r,
			    &n, sc->by_names ? NULL : &listed) || listed)
		return;
	/* the entries' memory back first */
	walkorder_free(sc->order);
	sc->order = NULL;
	sampleplan_reorder(sc->p, since, r, n);
	free(r);
}

static int sample_listed(void *arg, const struct fastscan_file *f)
{
	struct sample_scan *sc = arg;
	struct sample_facts facts = {
		.size = f->size,
		.nbytes = f->nbytes,
		.nlink = f->nlink,
	};
	const struct sample_facts *known = &facts;
	struct stat st;
	uint64_t nb, x;

	sc->by_names |= f->by_names;
	if (f->stale) {
		/* Its inode item may lag behind (a change not committed):
		 * the file's own stat, as the walk's pre-pass sees it, so
		 * that both draw the same sample.  Without it the walk
		 * stats the file (known_stat() fails). */
		known = NULL;
		if (!stale_stat(sc, f, &st)) {
			facts.size = (uint64_t)st.st_size;
			facts.nbytes = (uint64_t)st.st_blocks * 512;
			facts.nlink = (uint32_t)st.st_nlink;
			known = &facts;
		}
	}
	/* as sample_data_bytes() of the stat the walk has of it
	 * (known_stat()): an inline extent with others after it leaves
	 * nbytes off a sector's multiple */
	nb = stat_bytes(facts.nbytes, sc->sectorsize);
	x = nb && nb <= facts.size ? nb : facts.size;

	/* a nested subvolume's st_dev is not known here: its files are
	 * keyed by it and the walk maps its st_dev to the same when it
	 * enters it (on_enter_fs()) */
	uint64_t dev = f->tree_id == sc->id ? sc->dev :
		       sample_subvol_dev(sc->dev, f->tree_id);

	return sampleplan_add(sc->p, sample_key(dev, f->ino), facts.nlink,
			      facts.size, x,
			      facts.size ? sample_band(1, f->ram, f->disk) : 0,
			      facts.size ? sample_file_q(facts.size, x, f->ram,
							 f->disk) : 0,
			      sampleplan_name_kind(facts.nlink, f->name),
			      known);
}

static int sample_ref(void *arg, const struct extent_info *ei,
		      const uint8_t *item, size_t len)
{
	const struct sample_scan *sc = arg;

	return sampleplan_ref(sc->p, ei, item, len);
}

static int sample_entry(void *arg, uint64_t tree_id, uint64_t dir,
			uint64_t child, uint8_t loc_type, uint8_t ftype)
{
	const struct sample_scan *sc = arg;

	return prune_entry(sc->prune, tree_id, dir, child, loc_type, ftype);
}

/* --sample: whether the walk must meet the file ino of the directory the
 * pre-pass listed: unless it is known, has one link, and is neither drawn
 * nor a sharer (count_left_out()). */
static int prune_need(void *arg, uint64_t ino)
{
	struct run *run = arg;
	struct stat st;

	if (!known_stat(run, run->prune_dev, ino, &st) || st.st_nlink != 1)
		return 1;
	return drawn(run, &st) || sharer(run, st.st_dev, st.st_ino);
}

/*
 * The pre-pass meets a directory: where the walk would count it with the
 * fast scan, count it now, and list its files and their current ratios
 * from the same items (sampleplan_add()); the walk then only reads the
 * files drawn under it (defer_scan() finds it counted).
 */
static int sample_dir(void *arg, struct sampleplan *p, int fd,
		      const char *path, const struct stat *st, int depth)
{
	struct run *run = arg;
	struct fastscan_listener ls = {
		.file = sample_listed,
		.ref = sample_ref,
		.names = 1,	/* their kinds: sampleplan_name_kind() */
	};
	struct sample_scan sc = { .p = p, .fd = fd, .dev = st->st_dev,
				.stat_fd = -1 };
	const struct usage_fs *fs;
	size_t since = sampleplan_files(p);
	int ret;

	(void)depth;
	/* the walk's draws start before it: prune_need() */
	name_dev(run, fd, st);
	if (!run->mounts) {
		run->mounts = mounts_create();
		if (!run->mounts)
			return -ENOMEM;
	}
	ret = usage_probe_fs(run->usage, fd, st);
	if (ret == -ENOMEM)
		return ret;
	/* anything else odd: the walk finds and reports it */
	if (ret != 1 || mounts_beneath(run->mounts, st) ||
	    fastscan_probe(fd, &sc.id))
		return WALK_ENTER;
	fs = usage_fs_of(run->usage, st->st_dev);
	sc.sectorsize = fs ? fs->sectorsize : 0;
	if (!run->prescanned) {
		run->prescanned = seen_create();
		if (!run->prescanned)
			return -ENOMEM;
	}
	/* the first directory listed: its names too (prune.h) */
	if (!run->prune_state) {
		sc.prune = prune_create(sc.id, st->st_ino);
		if (!sc.prune)
			return -ENOMEM;
		ls.entry = sample_entry;
	}
	/* the walk's order, for which of the files that share counts */
	sc.order = walkorder_create();
	if (!sc.order) {
		prune_free(sc.prune);
		return -ENOMEM;
	}
	ls.place = sample_place;
	ls.arg = &sc;
	ret = fastscan_list(run->usage, fd, st, run->opt->one_fs, on_tick,
			    run, &ls);
	if (!ret)
		sample_scan_order(&sc, st->st_ino, since);
	walkorder_free(sc.order);
	if (sc.stat_fd >= 0)
		close(sc.stat_fd);
	if (sc.prune && !ret) {
		run->prune = sc.prune;
		run->prune_dev = st->st_dev;
		run->prune_root = st->st_ino;
		run->prune_state = 1;
	} else {
		prune_free(sc.prune);
		if (ret != 1) {
			/* a second directory, or a scan that failed */
			prune_free(run->prune);
			run->prune = NULL;
			run->prune_state = -1;
		}
	}
	if (ret == 1)
		return WALK_ENTER;
	run->prescan_bad |= ret == -EUCLEAN;
	if (seen_insert(run->prescanned, sample_key(st->st_dev, st->st_ino)) < 0)
		return -ENOMEM;
	ret = scan_result(run, path, ret);
	return ret < 0 ? ret : WALK_SKIP;
}

int run_sample(struct run *run, char *const *paths, int n)
{
	const struct walk_opts wo = { .one_fs = run->opt->one_fs };
	struct sampleplan_opts so = {
		.bytes = run->opt->sample_bytes,
		.frac = run->opt->sample,
		.seed = run->opt->seed,
		/* the files' current ratio, where it can be read */
		.bands = run->env->usage,
		.sharers = 1,
		/* the interval printed is the same layout's, unless a
		 * rewrite's change is asked (report_est.disk_ci95) */
		.weigh_away = !run->rewrite,
		/* as on_dir() decides for the walk: without rows, the fast
		 * scan counts whole directories */
		.dir = run->env->usage && run->env->fast && !run->opt->walk &&
		       !run->rows ? sample_dir : NULL,
		.arg = run,
	};
	int ret;

	ret = sampleplan_run(paths, n, &wo, &so, &run->design, &run->sampling,
			     &run->bands, &run->sharers, &run->kept);
	run->design.devs = &run->devs;
	/* What the walk need not meet: with one path, which the pre-pass
	 * listed, where no file is read for its usage, none rewritten and
	 * no rows kept. */
	if (!ret && run->prune_state == 1 && run->sampling && n == 1 &&
	    !run->rewrite && !run->ncdu && !run->rows && !run->opt->walk) {
		ret = prune_plan(run->prune, prune_need, run);
		run->prune_state = 2;
	}
	if (run->prune_state != 2) {
		prune_free(run->prune);
		run->prune = NULL;
		run->prune_state = -1;
	}
	return ret;
}

/* --subvolumes: the rows of every subvolume of path's filesystem, once
 * per filesystem.  Returns 0 to go on or a negative errno to abort. */
static int subvolumes_of(struct run *run, const char *path)
{
	struct stat st;
	dev_t *d;
	size_t i;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		report_failure(run, path, strerror(errno));
		ret = 0;
		goto out;
	}
	ret = usage_probe_fs(run->usage, fd, &st);
	if (ret <= 0) {
		ret = scan_result(run, path, ret ? ret : -ENOTTY);
		goto out;
	}
	for (i = 0; i < run->nsubvol_devs; i++)
		if (run->subvol_devs[i] == st.st_dev)
			goto out;
	d = array_grow(run->subvol_devs, &run->cap_subvol_devs,
		       run->nsubvol_devs, sizeof(*d));
	if (!d) {
		ret = -ENOMEM;
		goto out;
	}
	run->subvol_devs = d;
	d[run->nsubvol_devs++] = st.st_dev;
	ret = scan_result(run, path, subvols_scan(run->usage, run->rows, fd,
						  &st, on_tick, run));
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

int run_paths(struct run *run, char *const *paths, int n)
{
	const struct walk_ops ops = {
		.file = on_file,
		.file_at = on_file_at,
		.known = on_known,
		.skip_dir = on_skip_dir,
		.enter_fs = on_enter_fs,
		.dir = on_dir,
		.leave_dir = on_leave_dir,
		.tick = on_tick,
		.error = on_error,
	};
	/* A sample reads few files: list them without opening them all
	 * where the fast scan counts the usage. */
	const struct walk_opts wo = {
		.one_fs = run->opt->one_fs,
		.stat_files = run->sampling && run->env->usage &&
			      run->env->fast && !run->opt->walk,
	};
	int i, ret = 0;

	run->first_path = n ? paths[0] : NULL;
	run->paths = paths;
	run->npaths = n;
	for (i = 0; i < n && !ret; i++)
		ret = run->opt->subvolumes ? subvolumes_of(run, paths[i])
					   : walk_path(paths[i], &wo, &ops, run);
	/* the walk is done: the tally too, unless it failed */
	if (!ret && run->held)
		ret = check_size(run);
	if (!run->too_big)
		release_held(run);
	if (!ret && run->est) {
		ret = estrun_finish(run->est);
		if (!ret) {
			/* a sample's files that waited for their shares */
			layout_settle_claims(run->layout);
			ret = estrun_settle(run->est);
			if (!ret)
				ret = layout_settle(run->layout, on_settled,
						    run);
		}
		/* -EIO: a piece kept to check did not decompress back */
		if (ret == -EIO)
			fputs("compsize: --estimate: a codec did not decompress its own output\n",
			      run->err);
		else if (ret && ret != -ENOMEM)
			fprintf(run->err, "compsize: --estimate: %s\n",
				strerror(-ret));
	}
	if (!ret && run->opt->rewrite && !run->have_usage) {
		fputs("compsize: --rewrite: needs the current usage (btrfs and root): not computed\n",
		      run->err);
		run->failed++;
	}
	if (!ret && run->rewrite && run->have_usage) {
		/* the old extents the rewrite frees: one look at the rest
		 * of the filesystem, as for --exclusive */
		ret = rewrite_resolve(run->rewrite, on_tick, run);
		if (ret && ret != -ENOMEM)
			fprintf(run->err, "compsize: --rewrite: %s\n",
				strerror(-ret));
	}
	if (!ret && run->sharing) {
		ret = sharing_resolve(run->sharing, on_tick, run);
		if (ret && ret != -ENOMEM)
			fprintf(run->err, "compsize: --exclusive: %s\n",
				strerror(-ret));
		if (ret == -EPERM)
			run->needs_root = 1;
	}
	return ret;
}

/* Which of the settings the filesystem of path is mounted with now: its
 * index, or -1. */
static long current_setting(const struct options *opt, const char *path)
{
	char buf[64], err[128];
	struct est_setting *cur = NULL;
	size_t n = 0, i;
	long found = -1;

	if (!path || mounts_compress_option(path, buf, sizeof(buf)) != 1 ||
	    est_parse_list(buf, &cur, &n, err, sizeof(err)))
		return -1;
	for (i = 0; n == 1 && i < opt->nest; i++)
		if (opt->est[i].alg == cur->alg &&
		    opt->est[i].level == cur->level &&
		    opt->est[i].force == cur->force)
			found = (long)i;
	free(cur);
	return found;
}

/* Setting i's totals from a finished estimate: the same-layout and
 * fresh-copy models (layout.h), extrapolated when sampled. */
static void est_models(struct run *run, size_t i, struct report_est *re)
{
	struct estrun_result res;
	struct layout_total t;

	estrun_get_result(run->est, i, &res);
	layout_total(run->layout, i, &t);
	re->input = res.est.input;
	re->compress_mbps = res.est.compress_mbps;
	re->decompress_mbps = res.est.decompress_mbps;
	re->sampled = res.sampled;
	re->units_read = res.units_read;
	re->units = res.units;
	re->data_read = res.data_read;
	re->data = res.data;
	re->same_layout = run->have_usage;
	if (!res.sampled) {
		re->disk_fresh = t.fresh_disk;
		re->uncompressed_fresh = t.fresh_uncomp;
		re->disk_same = t.disk;
		re->uncompressed_same = t.uncomp;
		re->disk_extrapolated = t.extrap_disk;
		re->disk_min = t.disk - t.extrap_lo;
		re->disk_max = t.disk + t.extrap_hi;
		re->disk_ci95 = 0;
		re->fresh_ci95 = 0;
	} else {
		/* extrapolated: each model's share of the sampled files'
		 * estimates */
		re->disk_fresh = layout_scale(res.est.disk, t.fresh_disk,
					      t.est_disk);
		re->uncompressed_fresh = layout_scale(res.est.uncompressed,
						      t.fresh_uncomp,
						      t.est_uncomp);
		/* sampled itself: each unit's prediction times its
		 * file's same-layout factor, and prealloc extents as they
		 * are (layout_factors()) */
		re->disk_same = res.disk_same + t.prealloc_disk;
		re->uncompressed_same = res.uncompressed_same +
					t.prealloc_uncomp;
		/* scaled as the estimate is */
		re->fresh_ci95 = res.disk_ci95;
		if (t.est_disk)
			re->fresh_ci95 *= (double)t.fresh_disk / t.est_disk;
	}
	if (re->same_layout) {
		re->disk = re->disk_same;
		re->uncompressed = re->uncompressed_same;
		re->disk_ci95 = res.sampled ? res.same_ci95 : 0;
	} else {
		re->disk = re->disk_fresh;
		re->uncompressed = re->uncompressed_fresh;
		re->disk_ci95 = re->fresh_ci95;
	}
}

/* The estimates of the whole run, for the report, with the decision
 * figures for cpus cores (decide.h). */
static struct report_est *collect_estimates(struct run *run, unsigned cpus)
{
	struct report_est *re = calloc(run->opt->nest, sizeof(*re));
	long cur = current_setting(run->opt, run->first_path);
	size_t i;

	if (!re)
		return NULL;
	for (i = 0; i < run->opt->nest; i++) {
		struct decide_in din = {
			.cpus = cpus,
			.dev_write_mbps = run->opt->dev_write,
			.dev_read_mbps = run->opt->dev_read,
		};

		re[i].current = (long)i == cur;
		est_setting_name(&run->opt->est[i], re[i].setting,
				 sizeof(re[i].setting));
		if (run->est)
			est_models(run, i, &re[i]);
		if (run->rewrite && run->have_usage && run->est) {
			struct layout_total tw;
			struct estrun_result rt;
			uint64_t new_disk;

			estrun_get_result(run->est, run->twin[i], &rt);
			layout_total(run->layout, run->twin[i], &tw);
			/* sampled: the rewritten files' new extents
			 * estimated as a total of their own */
			new_disk = rt.have_rewrite ? rt.rewrite_disk
						   : tw.rewrite_disk;
			re[i].have_rewrite = 1;
			re[i].rewrite_change = (int64_t)new_disk -
				(int64_t)rewrite_freed(run->rewrite);
			re[i].rewrite_ci95 = rt.have_rewrite ? rt.rewrite_ci95
							     : 0;
		}
		din.disk = re[i].disk;
		din.uncompressed = re[i].uncompressed;
		din.compress_mbps = re[i].compress_mbps;
		din.decompress_mbps = re[i].decompress_mbps;
		decide(&din, &re[i].dec);
	}
	return re;
}

void run_set_err(struct run *run, FILE *err)
{
	run->err = err;
}

/* The widest of the sampled settings' relative half-widths: now (frac 0),
 * or foretold for a sample of frac (estrun_predict()); with what the last
 * setting read. */
static double sample_widest(struct run *run, double frac,
			    uint64_t *data_read, uint64_t *data,
			    uint64_t *units_read)
{
	struct report_est re;
	double w, worst = 0;
	size_t i;

	*data_read = *data = *units_read = 0;
	if (!run->est)
		return 0;
	for (i = 0; i < run->opt->nest; i++) {
		memset(&re, 0, sizeof(re));
		est_models(run, i, &re);
		if (!re.sampled)
			continue;
		*data_read = re.data_read;
		*data = re.data;
		*units_read = re.units_read;
		if (!re.disk)
			continue;
		w = re.disk_ci95 / re.disk;
		if (frac > 0)
			w *= estrun_predict(run->est, i, re.same_layout, frac);
		if (w > worst)
			worst = w;
	}
	return worst;
}

double run_sample_width(struct run *run, uint64_t *data_read, uint64_t *data,
			uint64_t *units_read)
{
	return sample_widest(run, 0, data_read, data, units_read);
}

double run_sample_predict(struct run *run, double frac)
{
	uint64_t r, d, u;

	return sample_widest(run, frac, &r, &d, &u);
}

/* rows_sampled()'s: each setting's ratios and slopes by band
 * (estrun_band_ratios()). */
struct rows_fix {
	const struct run *run;
	struct estrun_bands *bands;
};

/* t rounded, at least 0. */
static uint64_t fix_round(double t)
{
	return t <= 0 ? 0 : t >= 18446744073709549568.0 ? UINT64_MAX :
	       (uint64_t)(t + 0.5);
}

/*
 * --sample: a report row's estimates (docs/sampling.md, Report rows),
 * from its files' sums by band (estrun_opts.sample_dx()): in each band,
 * the row's data times what its drawn units there predict over their
 * data (each over its probability), or with no unit drawn there the
 * whole sample's ratio for the band; so a row none of whose units was
 * drawn is estimated from its data, not 0, and a row whose units were all
 * read keeps its exact figures.  Where the current disk bytes are known
 * (as root on btrfs), the same on what the band's slope on them leaves
 * (y - b c), plus b times the row's current bytes.  The same layout's
 * figure is the row's own share of it (its same-layout over its
 * fresh-copy sum), or with nothing drawn what its extents hold once over
 * what its files reference (the usage report's Uncompressed over
 * Referenced).
 */
static void rows_sampled(void *arg, struct report_row *row)
{
	const struct rows_fix *fx = arg;
	const size_t n = fx->run->nall, B = SAMPLE_ROW_BANDS;
	const int64_t *X, *Xd, *Y, *C, *Cd;
	uint64_t *same, *fresh;
	double e[2], ht[2], p, ps, b;
	size_t i, q, c;

	if (!row->est)
		return;
	X = (const int64_t *)(row->est + 6 * n);
	Xd = X + B;
	C = X + (2 + 2 * n) * B;
	Cd = C + B;
	p = row->size.refd && row->size.uncomp < row->size.refd ?
	    (double)row->size.uncomp / (double)row->size.refd : 1;
	for (i = 0; i < n; i++) {
		const struct estrun_bands *eb = &fx->bands[i];

		same = row->est + 3 * i;
		fresh = row->est + 3 * n + 3 * i;
		for (q = 0; q < 2; q++) {
			Y = X + (2 + 2 * i + q) * B;
			for (c = 0, e[q] = ht[q] = 0; c < B; c++) {
				b = eb->b[q][c];
				ht[q] += (double)Y[c];
				e[q] += b * (double)C[c] +
					(Xd[c] > 0 ? (double)X[c] *
					 ((double)Y[c] - b * (double)Cd[c]) /
					 (double)Xd[c] :
					 (eb->r[q][c] - b * eb->rc[c]) *
					 (double)X[c]);
			}
			/* the rows' own rules on what the units predict
			 * (layout_resolve(): the inline rule) */
			if (ht[q] > 0)
				e[q] *= (double)fresh[q] / ht[q];
			ps = fresh[q] ? (double)same[q] / (double)fresh[q] : p;
			same[q] = fix_round(e[q] * ps);
			fresh[q] = fix_round(e[q]);
		}
	}
}

/* rows_sampled() on every row, once.  Returns 0 or -ENOMEM. */
static int run_rows_sampled(struct run *run)
{
	struct rows_fix fx = { run, NULL };
	size_t i;

	if (!run->rows || !run->sampling || !run->est || run->rows_sampled ||
	    !run_dx_count(run))
		return 0;	/* no sums by band kept with the rows */
	fx.bands = calloc(run->nall, sizeof(*fx.bands));
	if (!fx.bands)
		return -ENOMEM;
	for (i = 0; i < run->nall; i++)
		estrun_band_ratios(run->est, i, &fx.bands[i]);
	rows_each(run->rows, rows_sampled, &fx);
	free(fx.bands);
	run->rows_sampled = 1;
	return 0;
}

int run_report(struct run *run, FILE *out, FILE *err)
{
	struct report r;

	fill_report(run, &r);
	if (run->sharing) {
		sharing_total(run->sharing, &run->excl);
		r.excl = &run->excl;
		r.show |= REPORT_SHOW_EXCLUSIVE;
		if (run->opt->subvolumes)
			r.show |= REPORT_SHOW_SUBVOLUMES;
		if (run->rows)
			rows_set_exclusive(run->rows, run->sharing);
	}
	if (run_rows_sampled(run))
		return -ENOMEM;
	if (run->rows)
		r.rows = rows_result(run->rows, &r.nrows);
	r.tree = run->ncdu;
	r.timestamp = (int64_t)time(NULL);
	if (run->opt->nest) {
		r.cpus = default_jobs();
		free(run->est_report);
		run->est_report = collect_estimates(run, r.cpus);
		if (!run->est_report)
			return -ENOMEM;
		r.est = run->est_report;
		r.nest = run->opt->nest;
		r.est_stride = run->nall;
		r.dev_write_mbps = run->opt->dev_write;
		r.dev_read_mbps = run->opt->dev_read;
		if (r.est[0].sampled && r.est[0].units &&
		    !r.est[0].units_read) {
			/* Nothing to extrapolate from: say so, print
			 * nothing made up. */
			fprintf(err, "compsize: --sample: none of the %" PRIu64
				" units was drawn; use a larger sample\n",
				r.est[0].units);
			return 1;
		}
	}
	run->report = r;
	return report_print(out, err, &run->report);
}

int run_plot(struct run *run, const char *path)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);
	FILE *f;
	int ret;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len + 16, "%s.%ld.tmp", path, (long)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		ret = -errno;
		goto fail;
	}
	ret = report_plot(f, &run->report, run->first_path);
	if (ret == -EINVAL) {
		fclose(f);
		unlink(tmp);
		free(tmp);
		fputs("compsize: --plot: no estimate with a speed to plot\n",
		      stderr);
		return -1;
	}
	if (fflush(f) || ferror(f))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (!ret) {
		free(tmp);
		return 0;
	}
	unlink(tmp);
	if (ret == -ENOMEM) {
		free(tmp);
		return ret;
	}
fail:
	free(tmp);
	say_path(run, path, strerror(-ret));
	return -1;
}

