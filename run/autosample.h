/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --sample=auto: a sample in rounds, each larger than the last, until the
 * 95% interval of every setting's estimate is as narrow as asked; and a
 * full estimate foretold to take too long (run_too_big()) turned into
 * one.  main() chooses it; the runs are run.h's.
 */
#ifndef COMPSIZE_AUTOSAMPLE_H
#define COMPSIZE_AUTOSAMPLE_H

#include "run/run.h"

/* The 95% half-width asked for, as a fraction of the estimate, unless
 * --precision says */
#define AUTOSAMPLE_PRECISION	0.02
/* A full estimate foretold longer than this (seconds) samples instead,
 * without --no-sample (options.auto_after) */
#define AUTOSAMPLE_AFTER	60

/*
 * --sample=auto: samples of growing size until the 95% half-width of
 * every setting's estimate is at most opt->precision of it.  The
 * half-width goes as one over the square root of the data read, so each
 * round aims, from the last one's width, 25% beyond what should do; past
 * half of the data a full estimate costs little more and is exact.  Each
 * round is a run of its own (the same seed: a larger sample keeps every
 * unit a smaller one drew, and reads those again); what a round says on
 * the way is kept and printed only for the last, the report's, followed
 * by a line on stderr saying what the rounds read.  opt->sample is set
 * for each round.  *out is the last round's run (NULL when out of
 * memory).  Returns run_paths()' result, or -ENOMEM.
 */
int autosample_rounds(struct options *opt, const struct run_env *env,
		      char *const *paths, int npaths, struct run **out);

/*
 * *run's run_paths() returned -ECANCELED and run_too_big() says the full
 * estimate would take too long: say so on stderr, free *run and sample
 * instead (autosample_rounds() at AUTOSAMPLE_PRECISION, opt->precision
 * and opt->auto_after set so).  *run is then the last round's.  Returns
 * as autosample_rounds().
 */
int autosample_instead(struct options *opt, const struct run_env *env,
		       char *const *paths, int npaths, struct run **run);

#endif
