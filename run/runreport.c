// SPDX-License-Identifier: GPL-2.0
/*
 * A run's report (run.h, run_internal.h): each setting's figures from the
 * finished estimate (both layout models, extrapolated when sampled), the
 * decision figures, the sampled rows estimated band by band, the widths
 * --sample=auto asks for, the report itself and --plot's SVG.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include "estimate/estimate.h"
#include "estimate/estrun.h"
#include "estimate/layout.h"
#include "estimate/levels.h"
#include "estimate/rewrite.h"
#include "report/compare.h"
#include "report/decide.h"
#include "report/fields.h"
#include "report/rows.h"
#include "scan/sharing.h"
#include "scan/waste.h"
#include "report/find.h"
#include "walk/mounts.h"
#include "run/run.h"
#include "run/run_internal.h"

long run_current_setting(const struct est_setting *est, size_t nest,
			 const char *path)
{
	char buf[64], err[128];
	struct est_setting *cur = NULL;
	size_t n = 0, i;
	long found = -1;

	if (!path || mounts_compress_option(path, buf, sizeof(buf)) != 1 ||
	    est_parse_list(buf, &cur, &n, err, sizeof(err)))
		return -1;
	for (i = 0; n == 1 && i < nest && found < 0; i++)
		if (est[i].alg == cur->alg && est[i].level == cur->level &&
		    est[i].force == cur->force)
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

	estrun_get_result(run->estimate.est, i, &res);
	layout_total(run->estimate.layout, i, &t);
	re->input = res.est.input;
	re->compress_mbps = res.est.compress_mbps;
	re->decompress_mbps = res.est.decompress_mbps;
	re->sampled = res.sampled;
	re->units_read = res.units_read;
	re->units = res.units;
	re->data_read = res.data_read;
	re->data = res.data;
	/* the same layout needs each file's extent items: root */
	re->same_layout = run->have_usage && !run->fiemap;
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
	long cur = run_current_setting(run->opt->est, run->opt->nest,
				       run->first_path);
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
		if (run->estimate.est)
			est_models(run, i, &re[i]);
		if (run->estimate.rewrite && run->have_usage &&
		    run->estimate.est) {
			struct layout_total tw;
			struct estrun_result rt;
			uint64_t new_disk;

			estrun_get_result(run->estimate.est,
					  run->estimate.twin[i], &rt);
			layout_total(run->estimate.layout,
				     run->estimate.twin[i], &tw);
			/* sampled: the rewritten files' new extents
			 * estimated as a total of their own */
			new_disk = rt.have_rewrite ? rt.rewrite_disk
						   : tw.rewrite_disk;
			re[i].have_rewrite = 1;
			re[i].rewrite_change = (int64_t)new_disk -
				(int64_t)rewrite_freed(run->estimate.rewrite);
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
	if (!run->estimate.est)
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
			w *= estrun_predict(run->estimate.est, i,
					    re.same_layout, frac);
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
	const size_t n = fx->run->estimate.nall, B = SAMPLE_ROW_BANDS;
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

	if (!run->rows || !run->sample.sampling || !run->estimate.est ||
	    run->sample.rows_sampled || !run_dx_count(run))
		return 0;	/* no sums by band kept with the rows */
	fx.bands = calloc(run->estimate.nall, sizeof(*fx.bands));
	if (!fx.bands)
		return -ENOMEM;
	for (i = 0; i < run->estimate.nall; i++)
		estrun_band_ratios(run->estimate.est, i, &fx.bands[i]);
	rows_each(run->rows, rows_sampled, &fx);
	free(fx.bands);
	run->sample.rows_sampled = 1;
	return 0;
}

struct find_keep {
	const struct find *find;
	const struct report *r;
};

static int find_keep(void *arg, const struct report_row *row)
{
	const struct find_keep *fk = arg;

	return find_match(fk->find, fk->r, row);
}

int run_report(struct run *run, FILE *out, FILE *err)
{
	struct report r;
	int ret;

	run_fill_report(run, &r);
	if (run->sharing) {
		sharing_total(run->sharing, &run->excl);
		/* else only --find's predicates asked for it */
		if (run->opt->exclusive) {
			r.excl = &run->excl;
			r.show |= REPORT_SHOW_EXCLUSIVE;
		}
		if (run->rows)
			rows_set_exclusive(run->rows, run->sharing);
	}
	if (run->levels) {
		r.levels = levels_rows(run->levels, &r.nlevels);
		r.show |= REPORT_SHOW_LEVELS;
	}
	if (run->opt->subvolumes) {
		/* the kernel's figures, per subvolume (subvols.h) */
		r.excl = &run->excl;
		r.excl_no_types = 1;
		r.show |= REPORT_SHOW_EXCLUSIVE | REPORT_SHOW_SUBVOLUMES;
	}
	if (run->waste) {
		size_t t;

		run->waste_total = waste_total(run->waste);
		for (t = 0; t < CS_NTYPES; t++)
			run->waste_type[t] = waste_type(run->waste, t);
		if (run->opt->waste) {
			r.waste = &run->waste_total;
			r.waste_type = run->waste_type;
			r.show |= REPORT_SHOW_WASTE;
		}
		if (run->rows)
			rows_set_waste(run->rows, run->waste);
	}
	if (run_rows_sampled(run))
		return -ENOMEM;
	r.tree = run->ncdu;
	r.timestamp = (int64_t)time(NULL);
	if (run->opt->nest) {
		r.cpus = run_default_jobs();
		free(run->estimate.est_report);
		run->estimate.est_report = collect_estimates(run, r.cpus);
		if (!run->estimate.est_report)
			return -ENOMEM;
		r.est = run->estimate.est_report;
		r.nest = run->opt->nest;
		r.est_stride = run->estimate.nall;
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
	if (run->rows) {
		struct find_keep fk = { run->opt->find, &r };

		if (fk.find)
			rows_keep(run->rows, find_keep, &fk);
		r.rows = rows_result(run->rows, &r.nrows);
	}
	if (run->spool) {
		/* rows lost (ENOSPC...): no report rather than part of one */
		errno = 0;
		if (fflush(run->spool) || ferror(run->spool)) {
			fprintf(err, "compsize: the rows' temporary file: %s\n",
				strerror(errno ? errno : EIO));
			return 1;
		}
		r.spool = run->spool;
		r.rows = NULL;
		r.nrows = rows_streamed(run->rows);
	}
	if (run->opt->compare) {
		char why[256];

		if (compare_check_fs(run->opt->compare, &r, why, sizeof(why))) {
			fputs("compsize: ", err);
			fmt_table_path(err, run->opt->compare_path);
			fprintf(err, ": %s\n", why);
			return -EXDEV;
		}
		if (run->rows &&
		    compare_rows(run->opt->compare, &r,
				 run->opt->sort == ROW_SORT_DELTA,
				 run->opt->top, &r.rows, &r.nrows))
			return -ENOMEM;
		r.cmp = run->opt->compare;
		r.cmp_path = run->opt->compare_path;
		r.show |= REPORT_SHOW_COMPARE;
	}
	run->report = r;
	if (run->opt->find && r.format == REPORT_TABLE) {
		find_print(out, &run->report, run->opt->find_nul);
		return 0;
	}
	ret = report_print(out, err, &run->report);
	if (ret < 0 && ret != -ENOMEM && r.spool) {
		/* the rows' text could not be kept or read back */
		fprintf(err, "compsize: the rows' temporary file: %s\n",
			strerror(-ret));
		return 1;
	}
	return ret;
}

int run_plot(struct run *run, const char *path)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 8);
	mode_t mask;
	FILE *f;
	int fd, ret;

	if (!tmp)
		return -ENOMEM;
	/* A name nobody else can have made: mkstemp() creates it with
	 * O_EXCL, so neither a file nor a symlink planted beside path is
	 * followed; rename() then replaces path itself, never its target. */
	snprintf(tmp, len + 8, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		goto fail;
	}
	/* mkstemp() makes it 0600: the mode fopen() would have given */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto fail_unlink;
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
	errno = 0;
	if (!ret && (fflush(f) || ferror(f)))
		ret = errno ? -errno : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (!ret) {
		free(tmp);
		return 0;
	}
fail_unlink:
	unlink(tmp);
	if (ret == -ENOMEM) {
		free(tmp);
		return ret;
	}
fail:
	free(tmp);
	run_say_path(run, path, strerror(-ret));
	return -1;
}
