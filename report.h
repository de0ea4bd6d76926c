/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole report: the grand total (compsize 1.5's table), --depth and
 * --per-file rows, --estimate results and the errors met, rendered as a
 * table, JSON or CSV.  The JSON and CSV schemas are in man/compsize.8.
 */
#ifndef COMPSIZE_REPORT_H
#define COMPSIZE_REPORT_H

#include <stdio.h>
#include "decide.h"
#include "extent.h"
#include "rows.h"
#include "sharing.h"

enum report_format {
	REPORT_TABLE,
	REPORT_JSON,
	REPORT_CSV,
};

struct report_est {
	char setting[48];	/* canonical, e.g. "compress=zstd:3" */
	uint64_t input;		/* bytes of file data read */
	uint64_t disk;		/* predicted disk usage: same layout when
				 * same_layout, else fresh copy */
	uint64_t uncompressed;	/* predicted uncompressed size */
	int same_layout;	/* the current usage was read (btrfs, root) */
	uint64_t disk_same, uncompressed_same;	/* same layout (layout.h) */
	uint64_t disk_fresh, uncompressed_fresh;	/* fresh copy */
	double compress_mbps;	/* single-thread codec speed on this data */
	double decompress_mbps;
	int current;		/* the filesystem is mounted with it now */
	struct decide_out dec;	/* all-core speeds, CPU cost, on a device */
	int sampled;		/* disk is extrapolated from a sample */
	double disk_ci95;	/* half-width of the 95% interval, bytes */
};

struct report_error {
	char *path;
	char *error;
};

struct report {
	enum report_format format;
	int bytes;			/* -b: raw bytes in the table */
	const struct cs_stats *total;
	/* 0 when the current usage could not be read (not btrfs, not root:
	 * --estimate only); alloc_bytes (st_blocks) stands in for it. */
	int have_usage;
	uint64_t alloc_bytes;
	/* With estimates a row's est holds 6 values a setting: same
	 * layout's disk, uncompressed, input for each setting (3 * nest),
	 * then the fresh copy's (rows_create() with 2 * nest). */
	const struct report_row *rows;
	size_t nrows;
	const struct report_est *est;
	size_t nest;
	unsigned cpus;			/* for the all-core figures */
	double dev_write_mbps, dev_read_mbps;	/* --device-speed, or 0 */
	const struct report_error *errors;
	size_t nerrors;
	/* --exclusive: the totals of the arguments (rows carry their own);
	 * NULL without. */
	const struct sharing_result *excl;
};

/*
 * Print r to out.  In table form with nothing to report, compsize 1.5's
 * "No files." or "All empty or still-delalloced files." goes to err and 1
 * is returned; JSON and CSV are always printed whole, and return 1 in the
 * same case.  Returns 0 otherwise.
 */
int report_print(FILE *out, FILE *err, const struct report *r);

/*
 * The --plot SVG of r's estimates (plot.h) to out, with title: the total
 * and each row as a series.  Returns 0, -EINVAL with nothing to plot, or
 * -ENOMEM.
 */
int report_plot(FILE *out, const struct report *r, const char *title);

#endif
