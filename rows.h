/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report rows for --depth and --per-file: each row is what compsize would
 * report for that path alone (its own dedup), gathered in the one walk.
 * Rows open and close along the walk; a closed row keeps only its non-zero
 * types, and with --top only the best rows are kept, so memory grows with
 * the rows printed, not with the files scanned (with --estimate, plus 16
 * bytes for every row opened: a file's estimate may come back after its
 * row closed, and finds it and the rows around it by token).
 */
#ifndef COMPSIZE_ROWS_H
#define COMPSIZE_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "extent.h"
#include "scan.h"

struct sharing;

struct row_type {
	unsigned type;		/* row index of struct cs_stats */
	uint64_t disk, uncomp, refd;
};

struct report_row {
	char *path;		/* NULL for the grand total */
	uint64_t files, extents, refs, ninline, nfrag;
	uint64_t disk, uncomp, refd;
	struct row_type *types;
	unsigned ntypes;
	/* With --estimate: per setting, predicted disk and uncompressed
	 * bytes and the input read (3 values a setting); else NULL. */
	uint64_t *est;
	size_t est_token;	/* rows_est_token() while it was open; 0 */
	uint64_t seq;		/* position in the walk's order */
	uint32_t share_row;	/* its sharing row (sharing.h), 0: none */
	uint64_t exclusive;	/* with --exclusive: what deleting it frees */
};

enum row_sort {
	ROW_SORT_WALK,		/* the walk's order: a directory after its contents */
	ROW_SORT_DISK,		/* most disk usage first */
	ROW_SORT_SAVED,		/* most bytes saved by compression first */
	ROW_SORT_RATIO,		/* best compression (lowest Perc) first */
	ROW_SORT_NAME,		/* by path, bytewise */
	ROW_SORT_EXCLUSIVE,	/* most exclusive bytes first */
};

/* Fill *row from st (path and est left alone).  Returns 0 or -ENOMEM. */
int row_from_stats(struct report_row *row, const struct cs_stats *st);
void row_clear(struct report_row *row);

struct rows;

/* top 0 keeps every row; nest is the number of estimate settings. */
struct rows *rows_create(enum row_sort sort, size_t top, size_t nest);
void rows_free(struct rows *rows);

/* Open a row for path: from now on, what ctx accounts is added to it.
 * Returns 0 or -ENOMEM. */
int rows_open(struct rows *rows, struct scan_ctx *ctx, const char *path);

/* Close the innermost open row.  Returns 0 or -ENOMEM. */
int rows_close(struct rows *rows, struct scan_ctx *ctx);

/* Rows open now. */
size_t rows_open_count(const struct rows *rows);

/* With estimates: the innermost open row and the rows around it, as a
 * token for rows_add_est() (0: no row open). */
size_t rows_est_token(const struct rows *rows);

/* Add one file's estimate (3 values a setting, as in report_row.est) to
 * the rows of token, taken when the file was found: open or closed since,
 * except rows --top has cut. */
void rows_add_est(struct rows *rows, size_t token, const uint64_t *delta);

/* rows_add_est() with a delta of its own for each row: the k-th row up
 * from token's (k < n; 0 is token's own row) gets the 3 * nest values at
 * deltas[k * 3 * nest], the rows above the n-th nothing. */
void rows_add_est_each(struct rows *rows, size_t token,
		       const uint64_t *deltas, size_t n);

/* With --exclusive, once sharing_resolve() is done: each closed row's
 * exclusive bytes.  Call before rows_result(). */
void rows_set_exclusive(struct rows *rows, const struct sharing *sh);

/* The closed rows, sorted and cut to --top; valid until rows_free(). */
const struct report_row *rows_result(struct rows *rows, size_t *n);

#endif
