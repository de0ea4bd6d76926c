// SPDX-License-Identifier: GPL-2.0
/*
 * A run's estimates, file by file (run_internal.h): what the estimate
 * counts of each file (its extents from a search, or from what the
 * --sample pre-pass kept; its plan in the layout, layout.h), its queueing
 * on estrun's workers, and the callbacks through which each estimate
 * comes back to the layout and the rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "estimate/estimate.h"
#include "estimate/estrun.h"
#include "estimate/layout.h"
#include "estimate/rewrite.h"
#include "report/rows.h"
#include "sample/sample.h"
#include "sample/sampleplan.h"
#include "scan/extent.h"
#include "scan/search.h"
#include "scan/usage.h"
#include "seen.h"
#include "run/run.h"
#include "run/run_internal.h"

/* A file's estimate is back (token: its layout ticket): its error, or
 * its shares of the totals and of the rows open when it was found. */
static int on_est_done(void *arg, const char *path, int err, size_t token,
		       const uint64_t *delta, const uint64_t *gdelta)
{
	struct run *run = arg;
	size_t nrows, rows_token;

	layout_resolve(run->estimate.layout, token, err ? NULL : delta,
		       err ? NULL : gdelta, run->estimate.est_rows, &nrows,
		       &rows_token);
	if (err == -ENOMEM)
		return err;
	if (err) {
		run_report_failure(run, path, strerror(-err));
		return 0;
	}
	if (run->rows)
		rows_add_est_each(run->rows, rows_token, run->estimate.est_rows,
				  nrows);
	return 0;
}

/* --sample with --rewrite: whether a file drawn is rewritten. */
static int on_est_rewritten(void *arg, size_t token)
{
	struct run *run = arg;

	return layout_rewritten(run->estimate.layout, token);
}

/* --sample: a file's sums by band, before on_est_done(): to the rows
 * that were open when it was found. */
static void on_est_dx(void *arg, size_t token, const int64_t *dx)
{
	struct run *run = arg;

	rows_add_extra(run->rows, layout_user(run->estimate.layout, token), dx);
}

/* A sampled file's units, before on_est_done() or once every file is
 * planned (on_est_deferred()): their same-layout share. */
static void on_est_factors(void *arg, size_t token, const uint64_t *raw,
			   const uint64_t *gdelta, double *f)
{
	struct run *run = arg;

	layout_factors(run->estimate.layout, token, raw, gdelta, f);
}

/* A sampled big file's parts: their own same-layout factors. */
static int on_est_part_factors(void *arg, size_t token, uint64_t size,
			       uint64_t n, double *f, double *tmp)
{
	struct run *run = arg;

	return layout_part_factors(run->estimate.layout, token, size, n, f,
				   tmp);
}

static int on_est_bucket_scales(void *arg, size_t token, size_t nb,
				double *s)
{
	struct run *run = arg;

	return layout_bucket_scales(run->estimate.layout, token, nb, s);
}

/* Whether a sampled file's factors wait for every file (written in
 * steps, a write of it overwritten: another file may claim its
 * extents). */
static int on_est_deferred(void *arg, size_t token)
{
	struct run *run = arg;

	return layout_tentative(run->estimate.layout, token);
}

/* A file kept by layout_resolve() is settled: its rows' shares. */
void run_on_settled(void *arg, size_t user, const uint64_t *out,
		    size_t nrows)
{
	struct run *run = arg;

	if (run->rows)
		rows_add_est_each(run->rows, user, out, nrows);
}

static int collect_extent(const struct search_item *item, void *arg)
{
	struct run *run = arg;
	struct extent_info *e;

	if (item->type != BTRFS_EXTENT_DATA_KEY)
		return 0;
	e = array_grow(run->estimate.ext, &run->estimate.cap_ext,
		       run->estimate.next, sizeof(*e));
	if (!e)
		return -ENOMEM;
	run->estimate.ext = e;
	/* malformed items are the usage report's to tell */
	if (extent_parse(item->data, item->len, 0,
			 &run->estimate.ext[run->estimate.next]))
		return 0;
	run->estimate.ext[run->estimate.next].file_pos = item->offset;
	if (run->estimate.ext[run->estimate.next].type ==
	    BTRFS_FILE_EXTENT_INLINE)
		run->estimate.inline_key =
			extent_inline_key(item->data, item->len);
	run->estimate.next++;
	return 0;
}

static uint64_t est_key(void *arg, const struct stat *st)
{
	return run_sample_key(arg, st->st_dev, st->st_ino);
}

/*
 * --sample: a file not drawn and not a sharer: nothing of it is
 * estimated, and what it meets first nothing else meets, so its extents
 * need not be searched (--walk searches them all: the tests' reference).
 */
static int extents_unneeded(const struct run *run, const struct stat *st)
{
	return run->sample.sampling && !run->opt->walk &&
	       !run->estimate.rewrite &&
	       !run_sharer(run, st->st_dev, st->st_ino) && !run_drawn(run, st);
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

	if (!run->sample.sampling || run->opt->walk || run->estimate.rewrite ||
	    run->sample.left_out || !run->sample.kept ||
	    run->sample.prescan_bad)
		return 0;
	v = seen_value(run->sample.sharers, run_sample_key(run, st->st_dev,
						    st->st_ino));
	n = sampleplan_kept_count(v);
	if (!n)
		return 0;
	e = array_grow(run->estimate.ext, &run->estimate.cap_ext, n - 1,
		       sizeof(*e));
	if (!e)
		return -ENOMEM;
	run->estimate.ext = e;
	sampleplan_kept_get(run->sample.kept, v, run->estimate.ext,
			    &run->estimate.inline_key);
	run->estimate.next = n;
	return 1;
}

/* A file submitted to a sample: its known share of the same layout, 1
 * when it shares nothing (whether its extents were searched or not). */
static double on_est_known(void *arg, size_t token, const struct stat *st)
{
	struct run *run = arg;
	double a = layout_known_share(run->estimate.layout, token);

	return a >= 0 && !run_sharer(run, st->st_dev, st->st_ino) ? 1 : a;
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
		.once = run->sample.left_out,
	};
	int ret;

	run->estimate.rw_stop = 0;
	if (run->env->usage && fs && !extents_unneeded(run, st)) {
		run->estimate.next = 0;
		ret = kept_sharer(run, st);
		if (!ret)
			ret = search_batch_file_extents(run->estimate.batch, fd,
							st->st_dev, st->st_ino,
							fs->nodesize,
							collect_extent, run);
		else if (ret == 1)
			ret = 0;
		if (ret == -ENOMEM)
			return ret;
		f.have_extents = !ret;
		f.fs_idx = fs->fs_idx;
		f.ext = run->estimate.ext;
		f.next = run->estimate.next;
		f.sectorsize = fs->sectorsize;
		f.size = st->st_size;
		f.inline_key = run->estimate.inline_key;
		/* defragment -r walks with FTW_MOUNT: nothing beyond the
		 * argument's st_dev (nested subvolumes, mounts) */
		if (run->estimate.rewrite && f.have_extents &&
		    st->st_dev == run->top_dev) {
			ret = rewrite_file(run->estimate.rewrite, fs->fs_idx,
					   fd, st, run->estimate.ext,
					   run->estimate.next,
					   &run->estimate.rw_stop);
			if (ret == -ENOMEM)
				return ret;
			/* a subvolume that can't be told: not rewritten */
			f.rewrite = ret != 1 ? 0 :
				    st->st_nlink ? (uint32_t)st->st_nlink : 1;
		}
	}
	return layout_plan(run->estimate.layout, &f,
			   run->rows ? rows_est_token(run->rows) : 0, ticket,
			   skip);
}

/* Queue the file on *fd; estrun takes the descriptor (*fd = -1) when it
 * reads the file.  Its extents are searched on sfd (*fd, or with --sample
 * its directory when it was not opened). */
int run_estimate_file(struct run *run, int *fd, int sfd, const char *path,
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
		layout_drop(run->estimate.layout, ticket);
		return 0;
	}
	if (!run->estimate.est) {
		const struct usage_fs *fs = usage_fs_of(run->usage,
							st->st_dev);
		struct estrun_opts eo = {
			.s = run->estimate.est_all,
			.n = run->estimate.nall,
			.jobs = run->opt->jobs ? run->opt->jobs
					       : run_default_jobs(),
			.design = run->sample.sampling ? &run->sample.design
						       : NULL,
			.bands = run->sample.bands,
			.key = est_key,
			/* for a person watching, not for scripts, unless
			 * --progress asks (full lines, for a log) */
			.progress_fd =
				run->opt->progress > 0 ||
						(run->opt->progress < 0 &&
						 isatty(STDERR_FILENO))
					? STDERR_FILENO
					: -1,
			.paths = run->paths,
			.npaths = run->npaths,
			.one_fs = run->opt->one_fs,
			/* The first filesystem read decides the sector size. */
			.sectorsize = fs ? fs->sectorsize : 4096,
			.idle = run_est_idle,
			.factors = on_est_factors,
			.part_factors = on_est_part_factors,
			.bucket_scales = on_est_bucket_scales,
			.deferred = on_est_deferred,
			.known_share = on_est_known,
			.sample_dx = run->rows ? on_est_dx : NULL,
			.rewritten =
				run->estimate.rewrite ? on_est_rewritten : NULL,
		};

		run->estimate.est = estrun_create(&eo, on_est_done, run);
		if (!run->estimate.est) {
			ret = -errno;
			layout_drop(run->estimate.layout, ticket);
			return ret;
		}
	}
	/* Its estimate goes to the rows open now, whenever it comes back:
	 * rows close without waiting for it, so the workers never run dry
	 * at a row's end (--depth, --per-file).  A failure ends the run:
	 * the ticket, resolved or not, goes with the layout. */
	ng = layout_writes(run->estimate.layout, ticket, &wr, &nw);
	return estrun_submit_writes(run->estimate.est, fd, path, st, ticket, wr,
				    nw, ng,
				    layout_inline(run->estimate.layout, ticket),
				    run->estimate.rw_stop);
}
