/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a report holds: the grand total (compsize 1.5's table), --depth and
 * --per-file rows, --estimate results and the errors met, and the views
 * every format reads them through (a row's estimate, the grand total as a
 * row).  The renderers (table.h, json.h, csv.h, prom.h, ncdu.h) read this
 * and the columns of fields.h, never each other; report.h picks one.  The
 * JSON and CSV schemas are in man/compsize.8.
 *
 * The structures here need no kernel or btrfs header: output code can use
 * them alone.
 */
#ifndef COMPSIZE_MODEL_H
#define COMPSIZE_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report/decide.h"
#include "scan/extent.h"
#include "report/format.h"
#include "scan/sharing.h"

struct ncdu;
struct compare;

enum report_format {
	REPORT_TABLE,
	REPORT_JSON,
	REPORT_CSV,
	REPORT_NCDU,		/* ncdu's JSON export (ncdu.h) */
	REPORT_PROMETHEUS,	/* Prometheus text (prom.h) */
};

/* Bits of struct report's show: optional fields a run asked for.  An
 * optional column comes after compsize 1.5's in the table, and after every
 * default column in CSV, so that those keep their positions. */
enum report_show {
	REPORT_SHOW_EXCLUSIVE = 0x1,	/* --exclusive */
	REPORT_SHOW_SUBVOLUMES = 0x2,	/* --subvolumes */
	REPORT_SHOW_WASTE = 0x4,	/* --waste */
	REPORT_SHOW_HISTOGRAM = 0x8,	/* --histogram */
	REPORT_SHOW_COMPARE = 0x10,	/* --compare */
	REPORT_SHOW_LEVELS = 0x20,	/* --levels */
};

/* --compare: a row's or a type's change since the report compared
 * (compare.h; the fields_change table names these). */
enum change_status {
	CHANGE_KEPT,		/* in both reports */
	CHANGE_ADDED,		/* only in this one */
	CHANGE_REMOVED,		/* only in the one compared: 0 now */
};

struct report_change {
	int status;		/* enum change_status */
	int64_t disk, uncomp, refd, files;	/* now less then */
};

/* --histogram: one size class of one type (the fields_hist table names
 * these; scan/extent.h says what a class is). */
struct report_hist {
	unsigned type;		/* row index of struct cs_stats */
	uint64_t size_max;	/* the longest extent the class holds */
	uint64_t extents, ninline, disk, uncomp;
};

/* --levels: the compressed extents of one algorithm whose bytes the same
 * set of levels reproduce (fields_level, fields.h). */
struct report_level {
	uint8_t type;		/* btrfs's compression type byte */
	/* EST_LEVEL_BIT(l) (estimate.h) for each level l; 0: none (the
	 * codec here is not the one that wrote it) */
	uint64_t mask;
	uint64_t extents;
	uint64_t disk;		/* their disk bytes */
};

/* The sizes a report shows for the total, a row, or one type of either
 * (the fields_size table names each one). */
struct report_sizes {
	uint64_t disk;		/* bytes on disk, each extent once */
	uint64_t uncomp;	/* the same extents before compression */
	uint64_t refd;		/* bytes the files reference */
	uint64_t excl;		/* --exclusive: what deleting them frees, */
	uint64_t excl_data;	/* ... of it data extents */
	uint64_t excl_meta;	/* ... and metadata (sharing.h, qgroup.h) */
	uint64_t qg_rfer;	/* --subvolumes: the kernel's qgroup rfer */
	uint64_t waste;		/* --waste: disk bytes no reference reaches
				 * (waste.h) */
};

struct row_type {
	unsigned type;		/* row index of struct cs_stats */
	struct report_sizes size;
	struct report_change change;	/* --compare */
};

/* The total, or one --depth/--per-file row. */
struct report_row {
	char *path;		/* NULL for the grand total */
	/* the fields_count table names these */
	uint64_t files, extents, refs, ninline, nfrag;
	uint64_t id;		/* --subvolumes: the subvolume's id, */
	int readonly;		/* ... and 1 when it is read-only, */
	int deleting;		/* ... or deleted, not yet cleaned */
	struct report_sizes size;
	struct row_type *types;	/* the types with data, in row order */
	unsigned ntypes;
	/* With --estimate: per setting, predicted disk and uncompressed
	 * bytes and the input read (3 values a setting); else NULL. */
	uint64_t *est;
	size_t est_token;	/* rows_est_token() while it was open; 0 */
	uint64_t seq;		/* position in the walk's order */
	uint32_t share_row;	/* its sharing row (sharing.h), 0: none */
	uint32_t waste_row;	/* its waste row (waste.h), 0: none */
	struct report_change change;	/* --compare */
	/* --levels: its extents by type and set of levels, each once */
	struct report_level *levels;
	size_t nlevels;
};

enum row_sort {
	ROW_SORT_WALK,		/* the walk's order: a directory after its contents */
	ROW_SORT_DISK,		/* most disk usage first */
	ROW_SORT_SAVED,		/* most bytes saved by compression first */
	ROW_SORT_RATIO,		/* best compression (lowest Perc) first */
	ROW_SORT_NAME,		/* by path, bytewise */
	ROW_SORT_EXCLUSIVE,	/* most exclusive bytes first */
	ROW_SORT_WASTE,		/* most waste first */
	ROW_SORT_DELTA,		/* --compare: the largest change of disk
				 * usage first, growth or not (compare.h) */
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
	/* same layout: the part of disk extrapolated from overwritten
	 * writes' remains (layout_total.extrap_disk) */
	uint64_t disk_extrapolated;
	/* same layout, when extrapolated: what the kernel uses at least and
	 * at most, whatever the data that is gone was (layout_total) */
	uint64_t disk_min, disk_max;
	double compress_mbps;	/* single-thread codec speed on this data */
	double decompress_mbps;
	int current;		/* the filesystem is mounted with it now */
	int have_rewrite;	/* --rewrite on btrfs as root */
	int64_t rewrite_change;	/* the filesystem's change, bytes */
	double rewrite_ci95;	/* sampled: half-width of its 95% interval */
	struct decide_out dec;	/* all-core speeds, CPU cost, on a device */
	int sampled;		/* disk is extrapolated from a sample */
	double disk_ci95;	/* half-width of the 95% interval, bytes */
	double fresh_ci95;	/* the same of disk_fresh */
	uint64_t units_read;	/* sampled: units read (sample.h), */
	uint64_t units;		/* ... of so many, */
	uint64_t data_read;	/* their data bytes, */
	uint64_t data;		/* ... of so many */
};

struct report_error {
	char *path;
	char *error;
};

struct report {
	enum report_format format;
	struct fmt_units units;		/* the table's sizes (-b, --iec...) */
	/* REPORT_SHOW_* bits: the optional fields shown */
	unsigned show;
	const struct cs_stats *total;
	/* 0 when the current usage could not be read (not btrfs, not root:
	 * --estimate only); alloc_bytes (st_blocks) stands in for it. */
	int have_usage;
	/* the usage came from FIEMAP, not the tree search (not root):
	 * compressed extents' disk bytes re-derived */
	int fiemap;
	uint64_t alloc_bytes;
	/* With estimates a row's est holds 6 values a setting: same
	 * layout's disk, uncompressed, input for each setting (3 * nest),
	 * then the fresh copy's (rows_create() with 2 * nest). */
	const struct report_row *rows;
	size_t nrows;
	const struct report_est *est;
	size_t nest;
	unsigned cpus;			/* for the all-core figures */
	size_t est_stride;		/* settings in a row's est blocks */
	double dev_write_mbps, dev_read_mbps;	/* --device-speed, or 0 */
	const struct report_error *errors;
	size_t nerrors;
	/* --exclusive: the totals of the arguments (rows carry their own in
	 * size.excl); NULL without. */
	const struct sharing_result *excl;
	/* --subvolumes: excl holds no figures by type (the kernel's are
	 * per subvolume) */
	int excl_no_types;
	/* --waste: the totals' waste, and by row of struct cs_stats; NULL
	 * without */
	const uint64_t *waste;
	const uint64_t *waste_type;
	/* --format=ncdu: the tree to print (ncdu.h) and the time of the
	 * run, for its metadata */
	const struct ncdu *tree;
	int64_t timestamp;
	/* JSON: the filesystems of the files, each a UUID
	 * ("0f3c...-..."), in the order met */
	char (*uuids)[37];
	size_t nuuids;
	/* --compare: the report compared (compare.h); the grand total's
	 * change is applied by report_total_row(), the rows' are in rows */
	const struct compare *cmp;
	const char *cmp_path;	/* its file, for the table's title */
	/* --levels: the rows, by type and lowest level */
	const struct report_level *levels;
	size_t nlevels;
	/* Rows streamed as they closed (report_stream_row()): nrows of
	 * them, already in this format, in spool (spool.h), rows NULL. */
	FILE *spool;
};

/* One setting's estimate as the formats show it (report_est_view()):
 * the run's, or a row's part of it; fields_est (fields.h) reads it. */
struct est_view {
	/* a row's has only setting, input, disk, uncompressed and
	 * disk_fresh (the fields_est flagged FIELD_ROW_EST) */
	struct report_est e;
	/* derived for the formats: */
	int64_t change;		/* disk less today's usage (the run's only) */
	uint64_t cpus;		/* the report's, for the all-core figures */
};

/* Fill *row from st (path, est and size.excl left alone): the sums over
 * every type, and the types with data.  Returns 0 or -ENOMEM. */
int report_row_fill(struct report_row *row, const struct cs_stats *st);

/* Free what *row holds and zero it. */
void report_row_clear(struct report_row *row);

/* Row's estimate of setting i: 3 values (disk, uncompressed, input) in
 * the report's model (same layout on btrfs, else fresh copy), or with
 * fresh set the fresh copy's. */
const uint64_t *report_row_est(const struct report *r,
			       const struct report_row *row, size_t i,
			       int fresh);

/* Setting i's estimate into *v: the run's when row is NULL, else row's. */
void report_est_view(const struct report *r, size_t i,
		     const struct report_row *row, struct est_view *v);

/* Today's disk usage of the files, to compare estimates with: the sum
 * over every type, or without usage (not btrfs, not root) the files'
 * allocation. */
uint64_t report_current_disk(const struct report *r);

/* The grand total as a row into *total (report_row_clear() it after),
 * with --exclusive's figures; without usage, no sizes and no types.
 * Returns 0 or -ENOMEM. */
int report_total_row(const struct report *r, struct report_row *total);

/* --histogram: the classes of r's total that hold an extent, by type
 * (row order) then size, into a new array *out of *n (free() it; NULL
 * and 0 without --histogram).  Returns 0 or -ENOMEM. */
int report_hist_rows(const struct report *r, struct report_hist **out,
		     size_t *n);

/* 1 when r has nothing to report (compsize 1.5's "No files." and "All
 * empty or still-delalloced files."): no file, or no data; else 0. */
int report_nothing(const struct report *r);

#endif
