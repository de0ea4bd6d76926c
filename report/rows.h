/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Report rows for --depth and --per-file: each row is what compsize would
 * report for that path alone (its own dedup), gathered in the one walk.
 * Rows open and close along the walk; a closed row keeps only its non-zero
 * types (with its path in an arena, without --top), and with --top only
 * the best rows are kept, so memory grows with
 * the rows printed, not with the files scanned (with --estimate, plus 16
 * bytes for every row opened: a file's estimate may come back after its
 * row closed, and finds it and the rows around it by token).
 */
#ifndef COMPSIZE_ROWS_H
#define COMPSIZE_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include "report/model.h"
#include "scan/usage.h"

struct sharing;

struct rows;

/* top 0 keeps every row; nest is the number of estimate settings, extra
 * the number of signed values each row keeps after them
 * (rows_add_extra()). */
struct rows *rows_create(enum row_sort sort, size_t top, size_t nest,
			 size_t extra);
void rows_free(struct rows *rows);

/* Open a row for path: from now on, what ctx accounts is added to it.
 * Returns 0 or -ENOMEM. */
int rows_open(struct rows *rows, struct usage_ctx *ctx, const char *path);

/* Close the innermost open row.  Returns 0 or -ENOMEM. */
int rows_close(struct rows *rows, struct usage_ctx *ctx);

/* --subvolumes: the innermost open row is subvolume id, read-only or
 * not. */
void rows_set_subvol(struct rows *rows, uint64_t id, int readonly);
/* ... and deleted, not yet cleaned (no path) */
void rows_set_deleting(struct rows *rows);
/* ... whose exclusive figures are the kernel's qgroup ones (qgroup.h) */
struct qgroup_root;
void rows_set_kernel(struct rows *rows, const struct qgroup_root *qr);

/* --levels: the innermost open row's levels (n of them, taken: freed
 * with the row), from levels_pop(). */
struct report_level;
void rows_set_levels(struct rows *rows, struct report_level *l, size_t n);

/*
 * Stream the rows, in the walk's order, as they close: fn gets each one
 * (its index in that order, from 0) instead of the rows keeping it, and
 * may return -errno to fail rows_close().  Only without a sort or --top,
 * estimates or --exclusive (their figures come after the row closes);
 * rows_result() then has none, rows_streamed() counts them.
 */
typedef int (*rows_stream_fn)(void *arg, const struct report_row *row,
			      size_t i);
void rows_stream(struct rows *rows, rows_stream_fn fn, void *arg);
size_t rows_streamed(const struct rows *rows);

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

/* Add extra signed values (rows_create()) to the rows of token, as
 * rows_add_est(): each row's are at est[3 * nest], as int64_t. */
void rows_add_extra(struct rows *rows, size_t token, const int64_t *v);

/* Call fn for each closed row (after every estimate is back, before
 * rows_result()): it may change the row's estimates. */
void rows_each(struct rows *rows, void (*fn)(void *arg,
					     struct report_row *row),
	       void *arg);

/* With --exclusive, once sharing_resolve() is done: each closed row's
 * exclusive bytes.  Call before rows_result(). */
void rows_set_exclusive(struct rows *rows, const struct sharing *sh);

/* With waste (waste.h), once waste_resolve() is done: each closed row's
 * waste.  Call before rows_result(). */
struct waste;
void rows_set_waste(struct rows *rows, const struct waste *w);

/* Rows are cut to --top only in rows_result(), after rows_keep(): what
 * decides which rows are kept is known at the end. */
void rows_defer_cut(struct rows *rows);

/* Drop each row keep(arg, row) does not hold of as it closes (what
 * decides is known then): memory for the rows kept only. */
void rows_filter(struct rows *rows,
		 int (*keep)(void *arg, const struct report_row *row),
		 void *arg);

/* Keep only the closed rows keep(arg, row) holds of.  Call before
 * rows_result(). */
void rows_keep(struct rows *rows,
	       int (*keep)(void *arg, const struct report_row *row),
	       void *arg);

/* The closed rows, sorted and cut to --top; valid until rows_free(). */
const struct report_row *rows_result(struct rows *rows, size_t *n);

#endif
