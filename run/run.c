// SPDX-License-Identifier: GPL-2.0
/*
 * The run (run.h): the walk's callbacks, which decide for each directory
 * whether the fast scan counts it whole or the walk goes in, and for each
 * file whether it is searched for its usage and gets a row; the deferred
 * fast scan that lets estimating and counting overlap; errors kept for
 * the report; the held messages of a full estimate that may turn into a
 * sample.  A file's estimate is runest.c's, --sample runsample.c's, the
 * report runreport.c's (run_internal.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "estimate/estimate.h"
#include "estimate/estrun.h"
#include "estimate/layout.h"
#include "estimate/levels.h"
#include "estimate/rewrite.h"
#include "report/format.h"
#include "report/ncdu.h"
#include "report/progress.h"
#include "report/report.h"
#include "report/rows.h"
#include "report/spool.h"
#include "sample/prune.h"
#include "sample/sampleplan.h"
#include "scan/fastscan.h"
#include "scan/search.h"
#include "scan/sharing.h"
#include "scan/waste.h"
#include "report/find.h"
#include "scan/usage.h"
#include "seen.h"
#include "walk/mounts.h"
#include "walk/walk.h"
#include "run/run.h"
#include "run/run_internal.h"
#include "run/subvols.h"

/*
 * run->est_all: the settings asked for, then with --rewrite the
 * compress-force twin of each compress= one (defrag -c compresses with
 * force semantics).  Returns 0 or -ENOMEM.
 */
static int plan_settings(struct run *run)
{
	const struct options *opt = run->opt;
	size_t i, j;

	run->estimate.est_all = opt->est;
	run->estimate.nall = opt->nest;
	if (!opt->rewrite || !opt->nest)
		return 0;
	run->estimate.est_all =
		calloc(2 * opt->nest, sizeof(*run->estimate.est_all));
	run->estimate.twin = calloc(opt->nest, sizeof(*run->estimate.twin));
	if (!run->estimate.est_all || !run->estimate.twin)
		return -ENOMEM;
	memcpy(run->estimate.est_all, opt->est, opt->nest * sizeof(*opt->est));
	for (i = 0; i < opt->nest; i++) {
		struct est_setting f = opt->est[i];

		f.force = true;
		for (j = 0; j < run->estimate.nall; j++)
			if (run->estimate.est_all[j].alg == f.alg &&
			    run->estimate.est_all[j].level == f.level &&
			    run->estimate.est_all[j].force)
				break;
		if (j == run->estimate.nall)
			run->estimate.est_all[run->estimate.nall++] = f;
		run->estimate.twin[i] = j;
	}
	return 0;
}

/* The values estrun_opts.sample_dx() gives a file, kept with each report
 * row: 0 without a sample. */
size_t run_dx_count(const struct run *run)
{
	return run->opt->sample || run->opt->sample_bytes ?
	       (4 + 2 * run->estimate.nall) * SAMPLE_ROW_BANDS : 0;
}

static int find_keep_now(void *arg, const struct report_row *row)
{
	return find_match(arg, NULL, row);
}

/* rows_stream_fn: a row to the spool, in the report's format. */
static int stream_row(void *arg, const struct report_row *row, size_t i)
{
	struct run *run = arg;

	return report_stream_row(run->spool, &run->stream_report, row, i);
}

/*
 * Rows in the walk's order whose figures are all known when they close
 * (no estimate, exclusive bytes, waste or levels; not filtered by --find
 * or matched by --compare afterwards) go to a spool as they close, in a
 * format that prints them after the totals (JSON, CSV): memory stays flat
 * with --per-file on any number of files.  COMPSIZE_STREAM=0 keeps them
 * in memory instead, as with a sort: the tests' oracle (091).  Without a
 * spool they are kept, as before.
 */
static void stream_rows(struct run *run)
{
	const struct options *opt = run->opt;
	const char *env = getenv("COMPSIZE_STREAM");

	if (!run->rows || opt->nest || opt->sort != ROW_SORT_WALK ||
	    opt->top || opt->exclusive || opt->subvolumes || opt->find ||
	    opt->waste || opt->compare || opt->levels ||
	    !report_can_stream(opt->format) || (env && !strcmp(env, "0")))
		return;
	run->spool = spool_create();
	if (!run->spool)
		return;
	run_fill_report(run, &run->stream_report);
	rows_stream(run->rows, stream_row, run);
}

struct run *run_create(const struct options *opt, const struct run_env *env)
{
	struct run *run = calloc(1, sizeof(*run));
	unsigned need;
	size_t i;

	if (!run)
		return NULL;
	run->opt = opt;
	run->env = env;
	run->err = stderr;
	if (opt->nest && opt->auto_after > 0) {
		run->hold.held = open_memstream(&run->hold.held_buf,
						&run->hold.held_len);
		if (!run->hold.held) {
			free(run);
			return NULL;
		}
		run->err = run->hold.held;
	}
	run->deferred.depth = -1;
	run->deferred.fd = -1;
	run->have_usage = env->usage || env->fiemap;
	run->usage = usage_create();
	if (!run->usage)
		goto fail;
	if (opt->histogram) {
		run->usage->stats.hist = calloc(1, sizeof(struct cs_hist));
		if (!run->usage->stats.hist)
			goto fail;
	}
	if (env->fiemap) {
		run->fiemap = run_fiemap_create(opt->assume);
		if (!run->fiemap)
			goto fail;
	}
	if (plan_settings(run))
		goto fail;
	if (opt->rewrite && env->usage) {
		run->estimate.rewrite = rewrite_create();
		if (!run->estimate.rewrite)
			goto fail;
	}
	if (opt->nest) {
		/* files written in steps as written, a sample's read
		 * whole too (estrun_submit_writes()) */
		run->estimate.layout = layout_create(run->estimate.nall, 1);
		run->estimate.batch = search_batch_create();
		if (!run->estimate.layout || !run->estimate.batch)
			goto fail;
		for (i = 0; i < run->estimate.nall; i++)
			layout_set_force(run->estimate.layout, i,
					 run->estimate.est_all[i].force);
	}
	/* --subvolumes: the kernel's figures, per filesystem (qgroup.h) */
	need = opt->find ? find_needs(opt->find) : 0;
	if ((opt->exclusive || (need & FIND_NEED_EXCLUSIVE)) &&
	    !opt->subvolumes) {
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
	if (opt->waste || (need & FIND_NEED_WASTE)) {
		run->waste = waste_create();
		if (!run->waste)
			goto fail;
		usage_set_waste(run->usage, run->waste);
		/* For the tests (086): the backref walk alone must agree. */
		if (getenv("COMPSIZE_WASTE") &&
		    !strcmp(getenv("COMPSIZE_WASTE"), "backref"))
			waste_walk_only(run->waste);
	}
	if (opt->levels) {
		run->levels = levels_create();
		if (!run->levels)
			goto fail;
	}
	if (opt->format == REPORT_NCDU) {
		run->ncdu = ncdu_create();
		if (!run->ncdu)
			goto fail;
	}
	if (opt->depth >= 0 || opt->per_file || opt->subvolumes) {
		/* with estimates, each row holds both models (layout.h) */
		run->rows =
			/* --sort=delta: compare.c sorts and cuts */
			rows_create(opt->sort == ROW_SORT_DELTA ?
				    ROW_SORT_WALK : opt->sort,
				    opt->sort == ROW_SORT_DELTA ? 0 : opt->top,
				    2 * run->estimate.nall,
				    run_dx_count(run));
		if (!run->rows)
			goto fail;
		/* --find: rows dropped as they close when the usage decides,
		 * else kept until what decides is known */
		if (opt->find && !need)
			rows_filter(run->rows, find_keep_now,
				    (void *)opt->find);
		else if (opt->find)
			rows_defer_cut(run->rows);
		stream_rows(run);
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
	if (run->hold.held)
		fclose(run->hold.held);
	free(run->hold.held_buf);
	for (i = 0; i < run->nerrors; i++) {
		free(run->errors[i].path);
		free(run->errors[i].error);
	}
	free(run->errors);
	for (i = 0; i < run->ngone; i++)
		free(run->gone[i]);
	free(run->gone);
	free(run->walked_subvols);
	if (run->deferred.fd >= 0)
		close(run->deferred.fd);
	free(run->deferred.path);
	free(run->estimate.est_report);
	estrun_free(run->estimate.est);
	sample_devs_free(&run->sample.devs);
	sample_bands_free(run->sample.bands);
	seen_free(run->sample.prescanned);
	seen_free(run->sample.sharers);
	sampleplan_kept_free(run->sample.kept);
	prune_free(run->sample.prune);
	free(run->sample.keydevs);
	layout_free(run->estimate.layout);
	search_batch_free(run->estimate.batch);
	rewrite_free(run->estimate.rewrite);
	if (run->estimate.est_all != run->opt->est)
		free(run->estimate.est_all);
	free(run->estimate.twin);
	free(run->estimate.ext);
	free(run->estimate.est_rows);
	free(run->subvol_devs);
	rows_free(run->rows);
	if (run->spool)
		fclose(run->spool);
	progress_stop(run->prog);
	ncdu_free(run->ncdu);
	if (run->usage)
		free(run->usage->stats.hist);
	free(run->uuids);
	usage_free(run->usage);
	sharing_free(run->sharing);
	waste_free(run->waste);
	run_fiemap_free(run->fiemap);
	progress_stop(run->levels_prog);
	levels_free(run->levels);
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
void run_say_path(const struct run *run, const char *path,
		  const char *what)
{
	progress_clear(run->prog);
	fputs("compsize: ", run->err);
	fmt_table_path(run->err, path);
	fprintf(run->err, ": %s\n", what);
}

/* path could not be read: say so, count it and keep it for the report. */
void run_report_failure(struct run *run, const char *path,
			const char *cause)
{
	struct report_error *e;

	estrun_clear_progress(run->estimate.est);
	progress_clear(run->levels_prog);
	run_say_path(run, path, cause);
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
	run_report_failure(arg, path, strerror(err));
}

int run_gone(void *arg, const char *path)
{
	struct run *run = arg;
	char **g;
	size_t i;

	for (i = 0; i < run->ngone; i++)
		if (!strcmp(run->gone[i], path))
			return 0;
	g = array_grow(run->gone, &run->cap_gone, run->ngone, sizeof(*g));
	if (!g)
		return -ENOMEM;
	run->gone = g;
	g[run->ngone] = strdup(path);
	if (!g[run->ngone])
		return -ENOMEM;
	run->ngone++;
	estrun_clear_progress(run->estimate.est);
	run_say_path(run, path, "subvolume deleted during the scan");
	return 0;
}

void run_fill_report(struct run *run, struct report *r)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->format = run->opt->format;
	r->units = run->opt->units;
	r->total = &run->usage->stats;
	r->have_usage = run->have_usage;
	r->fiemap = run->fiemap_used;
	r->alloc_bytes = run->alloc_bytes;
	r->errors = run->errors;
	r->nerrors = run->nerrors;
	if (run->opt->histogram && run->have_usage)
		r->show |= REPORT_SHOW_HISTOGRAM;
	/* the filesystems met, fsids[0] standing for none */
	free(run->uuids);
	run->uuids = NULL;
	if (run->usage->nfsids > 1)
		run->uuids = calloc(run->usage->nfsids - 1,
				    sizeof(*run->uuids));
	if (run->uuids) {
		for (i = 1; i < run->usage->nfsids; i++) {
			const uint8_t *u = run->usage->fsids[i].fsid;

			snprintf(run->uuids[i - 1], sizeof(run->uuids[0]),
				 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
				 u[0], u[1], u[2], u[3], u[4], u[5], u[6],
				 u[7], u[8], u[9], u[10], u[11], u[12],
				 u[13], u[14], u[15]);
		}
		r->uuids = run->uuids;
		r->nuuids = run->usage->nfsids - 1;
	}
}

/* What a held run said, said now; what it says from now on, as it does. */
static void release_held(struct run *run)
{
	if (!run->hold.held)
		return;
	if (!fclose(run->hold.held) && run->hold.held_len)
		fwrite(run->hold.held_buf, 1, run->hold.held_len, stderr);
	run->hold.held = NULL;
	if (run->err != stderr && !run->hold.too_big)
		run->err = stderr;
}

/*
 * CPU seconds a GB of data costs a setting in a full estimate, on one
 * core: a rough model fitted to system files (bench/RESULTS.md), only to
 * tell a minute from an hour.
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

/* opt->auto_after: once the tally knows the data, whether the full
 * estimate would take longer; returns -ECANCELED to stop the walk. */
static int check_size(struct run *run)
{
	uint64_t bytes;
	double cost = 0;
	size_t i;

	if (run->hold.size_known || !run->estimate.est ||
	    !estrun_tallied(run->estimate.est, &bytes))
		return 0;
	run->hold.size_known = 1;
	for (i = 0; i < run->estimate.nall; i++)
		cost += setting_cost(&run->estimate.est_all[i]);
	cost *= (double)bytes / 1e9 /
		(run->opt->jobs ? run->opt->jobs : run_default_jobs());
	if (cost <= run->opt->auto_after) {
		release_held(run);
		return 0;
	}
	run->hold.too_big = cost;
	run->hold.too_big_bytes = bytes;
	return -ECANCELED;
}

double run_too_big(const struct run *run, uint64_t *bytes)
{
	*bytes = run->hold.too_big_bytes;
	return run->hold.too_big;
}

int run_tick(void *arg)
{
	struct run *run = arg;
	struct report r;
	int ret;

	if (run->hold.too_big)
		return -ECANCELED;
	if (run->hold.held) {
		ret = check_size(run);
		if (ret)
			return ret;
	}

	if (run->env->want_stats && *run->env->want_stats) {
		/* Partial statistics, as compsize 1.5 prints them; on stderr
		 * when stdout is JSON or CSV, which must stay whole. */
		FILE *out = run->opt->format == REPORT_TABLE ? stdout : stderr;

		*run->env->want_stats = 0;
		progress_clear(run->prog);
		run_fill_report(run, &r);
		r.format = REPORT_TABLE;
		report_print(out, stderr, &r);
		fflush(out);
	}
	return 0;
}

/* Report what usage_file() or fastscan_dir() returned for path; returns
 * 0 to go on or a negative errno to abort the walk. */
int run_scan_result(struct run *run, const char *path, int ret)
{
	struct usage_ctx *usage = run->usage;
	char msg[128];

	switch (ret) {
	case 0:
		return 0;
	case -ENOMEM:
	case -ECANCELED:	/* run_tick(): the full estimate is too long */
		return ret;
	case -EPERM:
		/* Every other file would fail the same way. */
		run_say_path(run, path, "reading btrfs metadata needs root (CAP_SYS_ADMIN)");
		run->needs_root = 1;
		return ret;
	case -EUCLEAN:
		snprintf(msg, sizeof(msg), "%s at file offset %llu",
			 extent_strerror(usage->bad_item),
			 (unsigned long long)usage->bad_offset);
		run_report_failure(run, path, msg);
		return 0;
	case -ENOTTY:
		run_report_failure(run, path, "not on a btrfs filesystem");
		return 0;
	default:
		snprintf(msg, sizeof(msg), "SEARCH_V2: %s", strerror(-ret));
		run_report_failure(run, path, msg);
		return 0;
	}
}

int run_fastscan_result(struct run *run, const char *path, int ret)
{
	struct usage_ctx *usage = run->usage;
	size_t at, n = strlen(path);
	char *full;
	int err = 0;

	for (at = 0; !err && at < usage->gone_len;
	     at += strlen(usage->gone + at) + 1) {
		/* joined as the walk joins a name to its directory */
		if (asprintf(&full, "%s%s%s", path,
			     n && path[n - 1] == '/' ? "" : "/",
			     usage->gone + at) < 0) {
			err = -ENOMEM;
			break;
		}
		err = run_gone(run, full);
		free(full);
	}
	usage->gone_len = 0;
	if (err)
		return err;
	if (ret == -ENOENT)
		return run_gone(run, path);
	return run_scan_result(run, path, ret);
}

static int on_enter_fs(void *arg, int fd, const char *path,
		       const struct stat *st, int top)
{
	struct run *run = arg;
	int ret;

	if (top)
		run->top_dev = st->st_dev;
	if (run->sample.sampling)
		run_name_dev(run, fd, st);
	if (!top && run->sample.sampling && run->sample.bands &&
	    run->deferred.depth >= 0) {
		ret = run_map_subvol(run, fd, st);
		if (ret)
			return ret;
	}
	ret = usage_probe_fs(run->usage, fd, st);
	if (ret == -ENOMEM)
		return ret;
	if (run->fiemap && (ret == -EPERM || ret == 1)) {
		/* not root: each file's FIEMAP, walked (a snapshot's
		 * stand-in for a nested subvolume has no filesystem) */
		ret = usage_fs_of(run->usage, st->st_dev) ?
		      run_fiemap_enter_fs(run, path, st) : 0;
		return ret ? ret : WALK_ENTER;
	}
	if (!run->env->usage && ret != 0) {
		/* --estimate without root: btrfs, its usage unreadable */
		run->have_usage = 0;
		return WALK_ENTER;
	}
	/* A nested subvolume deleted since its parent's entries were read
	 * is left out, as a file that vanished: the walk would find it
	 * empty, or read a tree no path reaches any more. */
	if (ret == 1 && !top && run->env->usage && S_ISDIR(st->st_mode) &&
	    st->st_ino == BTRFS_FIRST_FREE_OBJECTID &&
	    fastscan_gone(run->usage, fd, 0)) {
		ret = run_gone(run, path);
		return ret < 0 ? ret : WALK_SKIP;
	}
	if (ret == 1)
		return WALK_ENTER;
	if (ret == -EPERM)
		return run_scan_result(run, path, ret);
	if (ret == 0 && top && run->opt->nest) {
		/* Estimating an argument off btrfs: its data is read, with
		 * no current usage.  Below an argument the estimate follows
		 * the usage report's tree: other filesystems (procfs,
		 * tmpfs...) are skipped with its warning. */
		run->have_usage = 0;
		return WALK_ENTER;
	}
	if (ret < 0) {
		run_report_failure(run, path, strerror(-ret));
	} else if (top) {
		run_report_failure(run, path, "not on a btrfs filesystem");
	} else {
		/* 1.5 dies here; a tmpfs or ext4 mount inside the tree is
		 * simply not part of what compsize measures. */
		run_say_path(run, path, "skipped: not a btrfs filesystem");
		if (run->ncdu && ncdu_excluded(run->ncdu, path, st))
			return -ENOMEM;
	}
	return WALK_SKIP;
}

/* A report row opens or closes: the rows and the estimates' levels. */
static int row_open(struct run *run, const char *path)
{
	int ret = rows_open(run->rows, run->usage, path);
	uint64_t *p;
	size_t need;

	if (!ret && run->levels) {
		ret = levels_push(run->levels);
		if (ret) {
			rows_close(run->rows, run->usage);
			return ret;
		}
	}
	if (ret || !run->estimate.layout)
		return ret;
	ret = layout_push(run->estimate.layout);
	if (ret) {
		rows_close(run->rows, run->usage);
		return ret;
	}
	/* layout_resolve() fills 6 values a setting for each open row */
	need = rows_open_count(run->rows) * 6 * run->estimate.nall;
	if (need > run->estimate.cap_est_rows) {
		p = realloc(run->estimate.est_rows, need * sizeof(*p));
		if (!p)
			return -ENOMEM;
		run->estimate.est_rows = p;
		run->estimate.cap_est_rows = need;
	}
	return 0;
}

static int row_close(struct run *run)
{
	struct report_level *l;
	size_t n;

	if (run->levels) {
		l = levels_pop(run->levels, &n);
		rows_set_levels(run->rows, l, n);
	}
	if (run->estimate.layout)
		layout_pop(run->estimate.layout);
	return rows_close(run->rows, run->usage);
}

/*
 * Estimating: the walk reads every file under dir for its data, and the
 * fast scan counts its usage later (scan_deferred()): the first time
 * estrun's queue is full (run_est_idle()), or when the walk leaves dir.  So
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

	if (run->sample.prescanned &&
	    seen_contains(run->sample.prescanned,
			  sample_key(st->st_dev, st->st_ino))) {
		/* counted by the pre-pass (sample_dir()) */
		d->depth = depth;
		run->sample.pre_dev = st->st_dev;
		if (fastscan_probe(fd, &run->sample.pre_id))
			run->sample.pre_id = 0;
		/* the walk leaves out what run_count_left_out() counts when
		 * it leaves the directory */
		if (run->sample.prune_state == 2 &&
		    st->st_dev == run->sample.prune_dev &&
		    st->st_ino == run->sample.prune_root)
			run->sample.prune_state = 3;
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
				   run_tick, run);
	}
	ret = run_fastscan_result(run, path, ret);
	return ret < 0 ? ret : WALK_ENTER;
}

/* The deferred scan of the directory being read: pending -> counted. */
static int scan_deferred(struct run *run)
{
	struct deferred *d = &run->deferred;
	int fd = d->fd;
	int ret;

	d->fd = -1;
	ret = fastscan_dir(run->usage, fd, &d->st, run->opt->one_fs, run_tick,
			   run);
	close(fd);
	/* It was probed: 1 means it changed under us, as any failed
	 * search would. */
	if (ret == 1)
		ret = run_scan_result(run, d->path, -ENOENT);
	else
		ret = run_fastscan_result(run, d->path, ret);
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
int run_est_idle(void *arg)
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
unsigned run_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > RUN_MAX_JOBS ? RUN_MAX_JOBS : (unsigned)n;
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
	int ret, ret2;

	if (run->fiemap) {
		ret = run_fiemap_file(run, fd, path, st);
		ret2 = ncdu_file(run->ncdu, path, st,
				 disk_total(&run->usage->stats) - before);
		return ret ? ret : ret2;
	}
	ret = usage_file(run->usage, fd, st);
	ret2 = ncdu_file(run->ncdu, path, st,
			 disk_total(&run->usage->stats) - before);
	ret = run_scan_result(run, path, ret);
	return ret ? ret : ret2;
}

/* --levels: the file's compressed extents read; a failure is the path's,
 * but for those every file would meet. */
static int levels_one(struct run *run, int fd, const char *path,
		      const struct stat *st)
{
	char msg[128];
	int ret = levels_file(run->levels, fd, st);

	switch (ret) {
	case 0:
	case -ENOMEM:
		return ret;
	case -EPERM:
		run_say_path(run, path, "--levels: reading extents as stored (BTRFS_IOC_ENCODED_READ) needs root (CAP_SYS_ADMIN)");
		run->needs_root = 1;
		return ret;
	case -EOPNOTSUPP:
		run_report_failure(run, path, "--levels: not on btrfs, or the kernel has no BTRFS_IOC_ENCODED_READ (5.18 or later)");
		return 0;
	default:
		snprintf(msg, sizeof(msg), "--levels: %s", strerror(-ret));
		run_report_failure(run, path, msg);
		return 0;
	}
}

/* A regular file open on *fd, or (-1) not opened in directory dirfd. */
int run_one_file(struct run *run, int *fd, int dirfd, const char *name,
		 const char *path, const struct stat *st, int depth)
{
	int row = run->rows && (depth == 0 || (run->opt->per_file &&
					      (run->opt->depth < 0 ||
					       depth <= run->opt->depth)));
	int ret = 0, own = -1;

	if (*fd < 0) {
		/* listed, not opened (stat_files): open it if needed */
		own = run_open_late(run, dirfd, name, path, st);
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
	} else if (run->fiemap && usage_fs_of(run->usage, st->st_dev)) {
		ret = run_fiemap_file(run, *fd, path, st);
	} else if (run->env->usage && (!run->opt->nest ||
				       usage_fs_of(run->usage, st->st_dev))) {
		ret = run_scan_result(run, path,
				      usage_file(run->usage, *fd, st));
	} else {
		/* Estimating without root, or on another filesystem: no
		 * usage to read, and no error either; the file is counted
		 * with nothing known of its extents. */
		usage_begin_file(run->usage);
	}
	run->alloc_bytes += (uint64_t)st->st_blocks * 512;
	if (!ret && run->levels && *fd >= 0)
		ret = levels_one(run, *fd, path, st);
	if (!ret && run->opt->nest)
		ret = run_estimate_file(run, fd, *fd >= 0 ? *fd : dirfd, path,
					st);
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
	return run_one_file(arg, fd, -1, NULL, path, st, depth);
}

/* --sample: a file listed in dirfd, not opened (walk_opts.stat_files). */
static int on_file_at(void *arg, int dirfd, const char *name, const char *path,
		      const struct stat *st, int depth)
{
	int fd = -1;

	return run_one_file(arg, &fd, dirfd, name, path, st, depth);
}

/* Whether dir gets a row, and whether it must be walked entry by entry. */
static int enter_dir(struct run *run, int fd, const char *path,
		     const struct stat *st, int depth)
{
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
	    run->deferred.depth >= 0 || run->levels ||
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
	ret = fastscan_dir(run->usage, fd, st, run->opt->one_fs, run_tick, run);
	if (ret == 1)
		return WALK_ENTER;
	ret = run_fastscan_result(run, path, ret);
	if (ret < 0)
		return ret;
	if (row)
		ret = row_close(run);
	return ret < 0 ? ret : WALK_SKIP;
}

static int on_dir(void *arg, int fd, const char *path, const struct stat *st,
		  int depth)
{
	struct run *run = arg;
	int ret = enter_dir(run, fd, path, st, depth), *d;

	/* The root of a subvolume the walk reads: whether it was deleted
	 * meanwhile is asked when the walk leaves it (on_leave_dir()). */
	if (ret == WALK_ENTER && run->env->usage &&
	    st->st_ino == BTRFS_FIRST_FREE_OBJECTID &&
	    usage_fs_of(run->usage, st->st_dev)) {
		d = array_grow(run->walked_subvols, &run->cap_walked_subvols,
			       run->nwalked_subvols, sizeof(*d));
		if (!d)
			return -ENOMEM;
		run->walked_subvols = d;
		d[run->nwalked_subvols++] = depth;
	}
	return ret;
}

static int on_leave_dir(void *arg, int fd, const char *path, int depth)
{
	struct run *run = arg;
	int ret = 0;

	if (run->ncdu)
		ncdu_leave(run->ncdu);
	if (depth == run->deferred.depth && run->sample.prune_state == 3)
		ret = run_count_left_out(run, path, depth);
	if (depth == run->deferred.depth) {
		/* pending or counted -> none */
		run->deferred.depth = -1;
		if (run->deferred.fd >= 0)
			ret = scan_deferred(run);
	}
	/* Deleted while the walk read it: what was read stays counted. */
	if (run->nwalked_subvols &&
	    run->walked_subvols[run->nwalked_subvols - 1] == depth) {
		run->nwalked_subvols--;
		if (!ret && fd >= 0 && fastscan_gone(run->usage, fd, 0))
			ret = run_gone(run, path);
	}
	/* Out of memory here leaves the row out; rows_close reports it. */
	if (run->rows && depth <= run->opt->depth)
		row_close(run);
	return ret;
}

/* A failed qgroup_compute() for path: said, and whether to go on (0). */
static int qgroup_failure(struct run *run, const char *path, int ret,
			  const char *dev)
{
	char msg[512];

	switch (ret) {
	case -ENOMEM:
	case -ECANCELED:
		return ret;
	case -EPERM:
		return run_scan_result(run, path, ret);
	case -ESTALE:
		run_report_failure(run, path, "the filesystem kept changing while its trees were read (three tries): exclusive space not computed");
		return 0;
	case -EOPNOTSUPP:
		run_report_failure(run, path, "a metadata profile whose layout compsize does not know: exclusive space not computed");
		return 0;
	}
	if (dev && *dev)
		snprintf(msg, sizeof(msg), "reading the device %s (read-only, for the tree nodes): %s",
			 dev, strerror(-ret));
	else
		snprintf(msg, sizeof(msg), "reading the extent tree: %s",
			 strerror(-ret));
	run_report_failure(run, path, msg);
	return 0;
}

/* --subvolumes: the rows of every subvolume of path's filesystem, once
 * per filesystem, with the kernel's qgroup figures computed first.
 * Returns 0 to go on or a negative errno to abort. */
static int subvolumes_of(struct run *run, const char *path)
{
	struct qgroup *q = NULL;
	struct stat st;
	char dev[256], msg[512];
	uint64_t data, meta;
	dev_t *d;
	size_t i;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st)) {
		run_report_failure(run, path, strerror(errno));
		ret = 0;
		goto out;
	}
	ret = usage_probe_fs(run->usage, fd, &st);
	if (ret <= 0) {
		ret = run_scan_result(run, path, ret ? ret : -ENOTTY);
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
	ret = qgroup_compute(fd, &q, dev, sizeof(dev), QGROUP_PARTIAL,
			     run_tick, run);
	if (!ret) {
		struct qgroup_stats qs;

		qgroup_stats(q, &qs);
		if (qs.unresolved) {
			/* exact only once committed: wait, never force it */
			run_say_path(run, path, "changes not yet committed: waiting for the filesystem's next commit (its commit interval, 30 s by default; btrfs filesystem sync ends the wait)");
			qgroup_free(q);
			q = NULL;
			ret = qgroup_compute(fd, &q, dev, sizeof(dev), 0,
					     run_tick, run);
		}
	}
	if (ret) {
		ret = qgroup_failure(run, path, ret, dev);
		goto out;
	}
	qgroup_live_total(q, &data, &meta);
	run->excl.exclusive += data + meta;
	run->excl.exclusive_data += data;
	run->excl.exclusive_metadata += meta;
	if (qgroup_check_kernel(fd, q, msg, sizeof(msg)) > 0)
		run_say_path(run, path, msg);
	ret = run_scan_result(run, path, subvols_scan(run->usage, run->rows, fd,
						      &st, q, run_tick, run_gone,
						      run));
out:
	qgroup_free(q);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* progress_scan_fn: what the usage has counted so far. */
static void scan_counts(void *arg, uint64_t *files, uint64_t *bytes)
{
	const struct run *run = arg;

	usage_progress(run->usage, files, bytes);
}

/* The scan's progress line on stderr, a terminal, or with --progress;
 * --estimate has its own (estrun.h). */
static void start_progress(struct run *run)
{
	const struct options *opt = run->opt;

	if (opt->nest || run->prog || !opt->progress ||
	    (opt->progress < 0 && !isatty(STDERR_FILENO)))
		return;
	/* if it can't start, the run goes on without a line */
	run->prog = progress_start_scan(STDERR_FILENO, "compsize: ",
					scan_counts, run);
}

static void stop_progress(struct run *run)
{
	progress_stop(run->prog);
	run->prog = NULL;
}

int run_paths(struct run *run, char *const *paths, int n)
{
	const struct walk_ops ops = {
		.file = on_file,
		.file_at = on_file_at,
		.known = run_on_known,
		.skip_dir = run_on_skip_dir,
		.enter_fs = on_enter_fs,
		.dir = on_dir,
		.leave_dir = on_leave_dir,
		.tick = run_tick,
		.error = on_error,
	};
	/* A sample reads few files: list them without opening them all
	 * where the fast scan counts the usage. */
	const struct walk_opts wo = {
		.one_fs = run->opt->one_fs,
		.stat_files = run->sample.sampling && run->env->usage &&
			      run->env->fast && !run->opt->walk,
	};
	int i, ret = 0;

	run->first_path = n ? paths[0] : NULL;
	/* what is left of overwritten extents is predicted relative to
	 * the setting the data was written with, taken to be the one the
	 * filesystem is mounted with (layout_set_anchor()), the one the
	 * report marks: the table says when it is not estimated */
	if (run->estimate.layout)
		layout_set_anchor(run->estimate.layout,
				  run_current_setting(run->opt->est,
						      run->opt->nest,
						      run->first_path));
	run->paths = paths;
	run->npaths = n;
	/* --levels reads slowly: a line for a person watching (the
	 * estimate's own when estimating too), or with --progress */
	if (run->levels && !run->opt->nest && !run->levels_prog &&
	    (run->opt->progress > 0 ||
	     (run->opt->progress < 0 && isatty(STDERR_FILENO))))
		run->levels_prog = progress_start(STDERR_FILENO,
						  "compsize: levels: ",
						  levels_counts, run->levels);
	else if (!run->levels)
		start_progress(run);
	for (i = 0; i < n && !ret; i++)
		ret = run->opt->subvolumes
			      ? subvolumes_of(run, paths[i])
			      : walk_path(paths[i], &wo, &ops, run);
	/* the walk is done: the tally too, unless it failed */
	if (!ret && run->hold.held)
		ret = check_size(run);
	if (!run->hold.too_big)
		release_held(run);
	if (!ret && run->estimate.est) {
		ret = estrun_finish(run->estimate.est);
		if (!ret) {
			/* a sample's files that waited for their shares */
			layout_settle_claims(run->estimate.layout);
			ret = estrun_settle(run->estimate.est);
			if (!ret)
				ret = layout_settle(run->estimate.layout,
						    run_on_settled, run);
		}
		/* -EIO: a piece kept to check did not decompress back */
		if (ret == -EIO)
			fputs("compsize: --estimate: a codec did not decompress its own output\n",
			      run->err);
		else if (ret && ret != -ENOMEM)
			fprintf(run->err, "compsize: --estimate: %s\n",
				strerror(-ret));
	}
	progress_stop(run->levels_prog);
	run->levels_prog = NULL;
	if (!ret && run->levels)
		levels_note(run->levels, run->err);
	if (!ret && run->opt->rewrite &&
	    (!run->estimate.rewrite || !run->have_usage)) {
		fputs("compsize: --rewrite: needs the current usage (btrfs and root): not computed\n",
		      run->err);
		run->failed++;
	}
	if (!ret && run->estimate.rewrite && run->have_usage) {
		/* the old extents the rewrite frees: one look at the rest
		 * of the filesystem, as for --exclusive */
		ret = rewrite_resolve(run->estimate.rewrite, run_tick, run);
		if (ret && ret != -ENOMEM)
			fprintf(run->err, "compsize: --rewrite: %s\n",
				strerror(-ret));
	}
	if (!ret && run->sharing) {
		ret = sharing_resolve(run->sharing, run_tick, run);
		stop_progress(run);
		if (ret && ret != -ENOMEM && sharing_error_path(run->sharing))
			fprintf(run->err, "compsize: --exclusive: reading the device %s (read-only, for the tree nodes): %s\n",
				sharing_error_path(run->sharing),
				strerror(-ret));
		else if (ret && ret != -ENOMEM)
			fprintf(run->err, "compsize: --exclusive: %s\n",
				strerror(-ret));
		if (!ret && sharing_inline_unsure(run->sharing))
			fputs("compsize: --exclusive: changes not yet committed: the inline data in leaves they touched counts as shared until the next commit\n",
			      run->err);
		if (ret == -EPERM)
			run->needs_root = 1;
	}
	if (!ret && run->waste) {
		ret = waste_resolve(run->waste, run_tick, run);
		if (ret && ret != -ENOMEM)
			fprintf(run->err, "compsize: --waste: %s\n",
				strerror(-ret));
		if (ret == -EPERM)
			run->needs_root = 1;
	}
	stop_progress(run);
	return ret;
}

void run_set_err(struct run *run, FILE *err)
{
	run->err = err;
}
