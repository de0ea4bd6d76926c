/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sampleplan: the pre-pass of --sample.  Lists the files under the paths
 * with fstatat() (walk_opts.stat_files: none opened), a file with several
 * links once, and where btrfs metadata can be read (root) each file's
 * current ratio band from its extent items (one tree search per file on
 * its subvolume's descriptor), then plans sample.c's design for the
 * budget.  See docs/sampling.md.
 */
#ifndef COMPSIZE_SAMPLEPLAN_H
#define COMPSIZE_SAMPLEPLAN_H

#include <stdint.h>
#include "sample.h"
#include "walk.h"

struct sampleplan_opts {
	uint64_t bytes;		/* data to read, or 0 for ... */
	double frac;		/* ... this fraction of all of it */
	uint64_t seed;
	int bands;		/* read the current ratio bands (root) */
};

/*
 * Walk paths[0..n) as wo says (stat_files forced) and plan the design
 * into *d.  *sampling is 0 when the budget covers all the data (read
 * everything), else 1; *bands is NULL or the bands found (free with
 * sample_bands_free()).  Paths that can't be read are left to the real
 * walk to report.  Returns 0 or -ENOMEM.
 */
int sampleplan_run(char *const *paths, int n, const struct walk_opts *wo,
		   const struct sampleplan_opts *o, struct sample_design *d,
		   int *sampling, struct sample_bands **bands);

#endif
