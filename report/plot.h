/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --plot=FILE.svg: for the settings estimated, the compression ratio
 * (uncompressed / disk) against the single-thread compress speed and
 * against the decompress speed, two charts side by side, as in the
 * compression-level comparisons people draw for btrfs, for the user's own
 * data.  With report rows, one series per row beside the total.  Plain
 * SVG 1.1 written with stdio: no library beyond libc (the speed axes are
 * logarithmic, computed with frexp()).
 */
#ifndef COMPSIZE_PLOT_H
#define COMPSIZE_PLOT_H

#include <stddef.h>
#include <stdio.h>

struct plot_series {
	const char *name;	/* "TOTAL" or a row's path, any bytes */
	const double *ratio;	/* per setting; <= 0: no point */
};

struct plot_in {
	size_t nset;
	const char *const *setting;	/* names, e.g. "compress=zstd:3" */
	const double *compress_mbps;	/* per setting, single thread */
	const double *decompress_mbps;
	const struct plot_series *series;
	size_t nseries;
	const char *title;		/* e.g. the paths; any bytes */
};

/* Write the SVG to out.  Returns 0, or -EINVAL with nothing to plot (no
 * setting with a speed and a ratio). */
int plot_svg(FILE *out, const struct plot_in *in);

/* log10(x) for x > 0 without libm, to ~1e-9 (for tests). */
double plot_log10(double x);

#endif
