// SPDX-License-Identifier: GPL-2.0
/*
 * --sample=auto (autosample.h): the rounds of growing samples, the
 * fraction each next round asks for, foretold from the last one's draws,
 * and the switch to it from a full estimate foretold too long.  Each
 * round is a whole run (run.h); this file only decides their sizes and
 * says what they read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "run/autosample.h"

/* --sample=auto: the first round's sample, and the most rounds */
#define AUTO_FIRST		0.01
#define AUTO_ROUNDS		6
/* ... and the fraction past which a round is the full estimate */
#define AUTO_FULL		0.5
/*
 * How far below --precision the next round aims: 1 + AUTO_MARGIN_K over
 * the square root of the units this round read, between AUTO_MARGIN_MIN
 * and AUTO_MARGIN_MAX: a round's width comes within about a third of the
 * one foretold from a few hundred units; the more units, the surer the
 * spreads the foretelling rests on (docs/sampling.md).
 */
#define AUTO_MARGIN_K	5.7
#define AUTO_MARGIN_MIN	1.118	/* 1.25 times the data */
#define AUTO_MARGIN_MAX	1.3

/*
 * --sample=auto: the fraction the next round asks for, between 2 and 16
 * times this round's f (up to AUTO_FULL where 16 f is foretold short
 * and that is not; 1, the full estimate, where 16 f is foretold no
 * narrower than this round and AUTO_FULL short).  The smallest whose
 * interval this round's draws foretell (run_sample_predict(): each
 * stratum's spread per unit, its draws under the larger design) within
 * precision over a margin that shrinks with the units read
 * (AUTO_MARGIN_K); where they can't tell, from the width w and the
 * fraction read (read of data), as one over the square root of the data
 * read, 25% more.
 */
static double sample_next(struct run *run, double f, double w,
			  double precision, uint64_t read, uint64_t data,
			  uint64_t units)
{
	double lo = 2 * f, hi = 16 * f, want, m, at_lo, at_hi;
	double next;
	int k;

	m = 1 + AUTO_MARGIN_K / sqrt(units ? (double)units : 1);
	m = m < AUTO_MARGIN_MIN ? AUTO_MARGIN_MIN :
	    m > AUTO_MARGIN_MAX ? AUTO_MARGIN_MAX : m;
	want = precision / m;
	at_lo = run_sample_predict(run, lo);
	if (at_lo > 0) {
		if (at_lo <= want)
			return lo;
		at_hi = run_sample_predict(run, hi);
		if (at_hi > want) {
			/* floors that made this round read several times f
			 * can leave 16 f short where half of the data would
			 * do; where not even that is foretold to do, 16 f,
			 * or the full estimate where 16 f is foretold no
			 * narrower (the floors' units again) */
			if (hi < AUTO_FULL &&
			    run_sample_predict(run, AUTO_FULL) <= want) {
				lo = hi;
				hi = AUTO_FULL;
			} else {
				return at_hi < 0.99 * w ? hi : 1;
			}
		}
		/* on the logarithm: the width falls as the fraction grows */
		for (k = 0; k < 30; k++) {
			next = sqrt(lo * hi);
			if (run_sample_predict(run, next) <= want)
				hi = next;
			else
				lo = next;
		}
		return hi;
	}
	/* from the fraction really read (16 draws a stratum at least
	 * make it more than asked on small trees) */
	next = data ? (double)read / data : f;
	next *= w / precision * (w / precision) * 1.25;
	if (next < 2 * f)
		next = 2 * f;
	if (next > 16 * f)
		next = 16 * f;
	return next;
}

/* v percent of d (0 where d is): two digits, none after the point from
 * 10% on (%g would print 100 as 1e+02).  Returns buf. */
static const char *share(char buf[16], double v, double d)
{
	v = d > 0 ? 100 * v / d : 0;
	snprintf(buf, 16, v >= 9.95 ? "%.0f%%" : "%.2g%%", v);
	return buf;
}

int autosample_rounds(struct options *opt, const struct run_env *env,
		      char *const *paths, int npaths, struct run **out)
{
	double f = AUTO_FIRST, w = 0, next;
	uint64_t read = 0, data = 0, units = 0, before = 0;
	struct run *run;
	char a[16], b[16], c[16], more[64] = "";
	char *buf = NULL;
	size_t len = 0;
	int round, ret, last;
	FILE *err;

	for (round = 1;; round++) {
		opt->sample = f < 1 ? f : 0;
		run = run_create(opt, env);
		err = run ? open_memstream(&buf, &len) : NULL;
		if (!err) {
			run_free(run);
			*out = NULL;
			return -ENOMEM;
		}
		run_set_err(run, err);
		ret = opt->sample ? run_sample(run, paths, npaths) : 0;
		if (!ret)
			ret = run_paths(run, paths, npaths);
		if (!ret && opt->sample)
			w = run_sample_width(run, &read, &data, &units);
		run_set_err(run, stderr);
		last = ret || !opt->sample || w <= opt->precision ||
		       round == AUTO_ROUNDS;
		if (fclose(err))
			ret = -ENOMEM;
		if (last || ret) {
			if (buf)
				fwrite(buf, 1, len, stderr);
			free(buf);
			break;
		}
		free(buf);
		buf = NULL;
		next = sample_next(run, f, w, opt->precision, read, data,
				   units);
		before += read;
		run_free(run);
		f = next > AUTO_FULL ? 1 : next;
	}
	*out = run;
	if (ret)
		return ret;
	/* what the rounds before read too: each reads its units again */
	if (!opt->sample) {
		share(a, (double)before, (double)data);
		if (round == 2)
			snprintf(more, sizeof(more), "; round 1 read %s of it",
				 a);
		else if (round > 2)
			snprintf(more, sizeof(more),
				 "; rounds 1-%d read %s of it", round - 1, a);
		fprintf(stderr, "compsize: --sample=auto: round %d: the full estimate (a 95%% half-width of %g%% needs more than half of the data)%s\n",
			round, opt->precision * 100, more);
	} else {
		if (round > 1)
			snprintf(more, sizeof(more), " (%s with the rounds before)",
				 share(a, (double)(read + before),
				       (double)data));
		fprintf(stderr, "compsize: --sample=auto: round %d read %s of the data%s; 95%% half-width %s of the estimate, %s %g%% asked\n",
			round, share(b, (double)read, (double)data), more,
			share(c, w, 1),
			w <= opt->precision ? "within the" : "wider than the",
			opt->precision * 100);
	}
	return 0;
}

int autosample_instead(struct options *opt, const struct run_env *env,
		       char *const *paths, int npaths, struct run **run)
{
	uint64_t big;
	double secs = run_too_big(*run, &big);

	fprintf(stderr, "compsize: --estimate: the full estimate of %.3g GB of data would take about %.0f minutes here: sampling instead (--sample=auto, a 95%% interval within %g%%); --no-sample makes the full estimate\n",
		big / 1e9, secs / 60 + 0.5, AUTOSAMPLE_PRECISION * 100);
	run_free(*run);
	*run = NULL;
	opt->precision = AUTOSAMPLE_PRECISION;
	opt->auto_after = 0;
	return autosample_rounds(opt, env, paths, npaths, run);
}
