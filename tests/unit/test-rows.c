// SPDX-License-Identifier: GPL-2.0
/* Report rows: per-row dedup, sorting, --top. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "report/rows.h"

static void extent(struct extent_info *ei, uint8_t comp, uint64_t bytenr,
		   uint64_t disk, uint64_t ram)
{
	memset(ei, 0, sizeof(*ei));
	ei->type = 1;	/* BTRFS_FILE_EXTENT_REG */
	ei->compression = comp;
	ei->disk_bytenr = bytenr;
	ei->disk_num_bytes = disk;
	ei->ram_bytes = ram;
	ei->num_bytes = ram;
}

/* One row per directory a, b, c with a shared extent between a and b; the
 * parent row counts the shared extent once, each child once too. */
static void test_nested_rows(void)
{
	struct usage_ctx *ctx = usage_create();
	struct rows *rows = rows_create(ROW_SORT_WALK, 0, 0, 0);
	const struct report_row *r;
	struct extent_info ei;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
	CU_ASSERT_EQUAL(rows_open(rows, ctx, "top"), 0);
	CU_ASSERT_EQUAL(rows_open(rows, ctx, "top/a"), 0);
	usage_begin_file(ctx);
	extent(&ei, 3, 1 << 20, 4096, 131072);
	CU_ASSERT_EQUAL(usage_account(ctx, 0, &ei), 0);
	CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	CU_ASSERT_EQUAL(rows_open(rows, ctx, "top/b"), 0);
	usage_begin_file(ctx);
	CU_ASSERT_EQUAL(usage_account(ctx, 0, &ei), 0);	/* shared */
	extent(&ei, 0, 2 << 20, 65536, 65536);
	CU_ASSERT_EQUAL(usage_account(ctx, 0, &ei), 0);
	CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	CU_ASSERT_EQUAL(rows_open_count(rows), 1);
	CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);

	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_STRING_EQUAL(r[0].path, "top/a");
	CU_ASSERT_EQUAL(r[0].size.disk, 4096);
	CU_ASSERT_STRING_EQUAL(r[1].path, "top/b");
	CU_ASSERT_EQUAL(r[1].size.disk, 4096 + 65536);	/* its own dedup */
	CU_ASSERT_EQUAL(r[1].ntypes, 2);
	CU_ASSERT_STRING_EQUAL(r[2].path, "top");
	CU_ASSERT_EQUAL(r[2].size.disk, 4096 + 65536);
	CU_ASSERT_EQUAL(r[2].size.refd, 2 * 131072 + 65536);
	CU_ASSERT_EQUAL(r[2].files, 2);
	CU_ASSERT_EQUAL(r[2].extents, 2);
	CU_ASSERT_EQUAL(r[2].refs, 3);
	/* the grand total agrees */
	CU_ASSERT_EQUAL(ctx->stats.disk[3] + ctx->stats.disk[0], 4096 + 65536);
	rows_free(rows);
	usage_free(ctx);
}

/* Rows with disk d and uncompressed u, named by their walk position. */
static struct rows *make_rows(enum row_sort sort, size_t top,
			      struct usage_ctx *ctx, const uint64_t (*du)[2],
			      size_t n)
{
	struct rows *rows = rows_create(sort, top, 0, 0);
	struct extent_info ei;
	char name[16];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "r%zu", i);
		CU_ASSERT_EQUAL(rows_open(rows, ctx, name), 0);
		usage_begin_file(ctx);
		extent(&ei, 3, (i + 1) << 24, du[i][0], du[i][1]);
		CU_ASSERT_EQUAL(usage_account(ctx, 0, &ei), 0);
		CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	}
	return rows;
}

static void test_sort_top(void)
{
	static const uint64_t du[][2] = {
		{ 100, 1000 },	/* r0: 10%, saves 900 */
		{ 500, 500 },	/* r1: 100%, saves 0 */
		{ 300, 3000 },	/* r2: 10%, saves 2700 */
		{ 50, 100 },	/* r3: 50%, saves 50 */
		{ 500, 600 },	/* r4: 83%, saves 100 */
	};
	struct usage_ctx *ctx = usage_create();
	const struct report_row *r;
	struct rows *rows;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	rows = make_rows(ROW_SORT_DISK, 0, ctx, du, 5);
	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	/* ties (r1, r4) keep the walk's order */
	CU_ASSERT_STRING_EQUAL(r[0].path, "r1");
	CU_ASSERT_STRING_EQUAL(r[1].path, "r4");
	CU_ASSERT_STRING_EQUAL(r[2].path, "r2");
	CU_ASSERT_STRING_EQUAL(r[4].path, "r3");
	rows_free(rows);

	rows = make_rows(ROW_SORT_SAVED, 2, ctx, du, 5);
	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(r[0].path, "r2");
	CU_ASSERT_STRING_EQUAL(r[1].path, "r0");
	rows_free(rows);

	rows = make_rows(ROW_SORT_RATIO, 3, ctx, du, 5);
	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_STRING_EQUAL(r[0].path, "r0");
	CU_ASSERT_STRING_EQUAL(r[1].path, "r2");
	CU_ASSERT_STRING_EQUAL(r[2].path, "r3");
	rows_free(rows);

	rows = make_rows(ROW_SORT_NAME, 0, ctx, du, 5);
	r = rows_result(rows, &n);
	CU_ASSERT_STRING_EQUAL(r[0].path, "r0");
	CU_ASSERT_STRING_EQUAL(r[4].path, "r4");
	rows_free(rows);
	usage_free(ctx);
}

/* --top over many rows keeps memory to about twice the rows kept. */
static void test_top_many(void)
{
	struct usage_ctx *ctx = usage_create();
	struct rows *rows = rows_create(ROW_SORT_DISK, 10, 0, 0);
	const struct report_row *r;
	struct extent_info ei;
	size_t i, n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	for (i = 0; i < 10000; i++) {
		CU_ASSERT_EQUAL_FATAL(rows_open(rows, ctx, "f"), 0);
		usage_begin_file(ctx);
		/* disk sizes in a scrambled order */
		extent(&ei, 0, (i + 1) << 24, (i * 7919) % 10007 + 1, 1 << 20);
		usage_account(ctx, 0, &ei);
		CU_ASSERT_EQUAL_FATAL(rows_close(rows, ctx), 0);
	}
	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 10);
	for (i = 1; i < n; i++)
		CU_ASSERT(r[i - 1].size.disk >= r[i].size.disk);
	/* the largest of (i * 7919) % 10007 + 1 for i < 10000 */
	CU_ASSERT(r[0].size.disk >= 9990);
	rows_free(rows);
	usage_free(ctx);
}

/* A row with one file of disk bytes d, estimated later by token. */
static size_t est_row(struct rows *rows, struct usage_ctx *ctx,
		      const char *path, uint64_t bytenr, uint64_t d)
{
	struct extent_info ei;
	size_t token;

	CU_ASSERT_EQUAL(rows_open(rows, ctx, path), 0);
	usage_begin_file(ctx);
	extent(&ei, 0, bytenr, d, d);
	CU_ASSERT_EQUAL(usage_account(ctx, 0, &ei), 0);
	token = rows_est_token(rows);
	CU_ASSERT_NOT_EQUAL(token, 0);
	CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	return token;
}

/*
 * Estimates come back after their rows closed: each goes to its own row
 * and to the rows that were open around it, and one for a row --top has
 * cut goes only to those still kept.
 */
static void test_late_estimates(void)
{
	static const uint64_t d1[3] = { 1, 2, 3 }, d10[3] = { 10, 20, 30 },
		d100[3] = { 100, 200, 300 }, d1000[3] = { 1000, 2000, 3000 };
	struct usage_ctx *ctx = usage_create();
	struct rows *rows = rows_create(ROW_SORT_DISK, 0, 1, 0);
	const struct report_row *r;
	size_t n, ta, tb, ttop;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
	CU_ASSERT_EQUAL(rows_est_token(rows), 0);
	CU_ASSERT_EQUAL(rows_open(rows, ctx, "top"), 0);
	ttop = rows_est_token(rows);
	ta = est_row(rows, ctx, "top/a", 1 << 20, 8192);
	tb = est_row(rows, ctx, "top/b", 2 << 20, 4096);
	CU_ASSERT_EQUAL(rows_est_token(rows), ttop);
	rows_add_est(rows, ta, d1);
	rows_add_est(rows, ttop, d100);	/* a file of top itself */
	CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	rows_add_est(rows, tb, d10);	/* after top closed too */
	CU_ASSERT_EQUAL(rows_est_token(rows), 0);
	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT_STRING_EQUAL(r[0].path, "top");
	CU_ASSERT_EQUAL(r[0].est[0], 111);
	CU_ASSERT_EQUAL(r[0].est[2], 333);
	CU_ASSERT_STRING_EQUAL(r[1].path, "top/a");
	CU_ASSERT_EQUAL(r[1].est[1], 2);
	CU_ASSERT_STRING_EQUAL(r[2].path, "top/b");
	CU_ASSERT_EQUAL(r[2].est[1], 20);
	rows_free(rows);

	/* --top 2: top/b (the smallest) is cut when the result is taken;
	 * what comes for it later still counts in top */
	rows = rows_create(ROW_SORT_DISK, 2, 1, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
	CU_ASSERT_EQUAL(rows_open(rows, ctx, "top"), 0);
	ta = est_row(rows, ctx, "top/a", 3 << 20, 8192);
	tb = est_row(rows, ctx, "top/b", 4 << 20, 4096);
	CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	rows_add_est(rows, tb, d1000);
	rows_add_est(rows, ta, d1);
	CU_ASSERT_STRING_EQUAL(r[0].path, "top");
	CU_ASSERT_EQUAL(r[0].est[0], 1001);
	CU_ASSERT_STRING_EQUAL(r[1].path, "top/a");
	CU_ASSERT_EQUAL(r[1].est[0], 1);
	/* a token from nowhere changes nothing */
	rows_add_est(rows, 99, d1000);
	CU_ASSERT_EQUAL(r[0].est[0], 1001);
	rows_free(rows);
	usage_free(ctx);
}

/* rows_each() on every closed row: adds one to est[k]. */
static void bump(void *arg, struct report_row *row)
{
	row->est[*(const size_t *)arg]++;
}

/* A sample's extra values (rows_add_extra()) go up the rows as the
 * estimates do, signed, after the 3 * nest estimates; rows_each() sees
 * every closed row. */
static void test_extra_values(void)
{
	static const int64_t e1[2] = { 5, -7 }, e2[2] = { 100, 3 };
	static const uint64_t d[3] = { 1, 2, 3 };
	struct usage_ctx *ctx = usage_create();
	struct rows *rows = rows_create(ROW_SORT_WALK, 0, 1, 2);
	const struct report_row *r;
	size_t n, ta, ttop, k = 3;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
	CU_ASSERT_EQUAL(rows_open(rows, ctx, "top"), 0);
	ttop = rows_est_token(rows);
	ta = est_row(rows, ctx, "top/a", 1 << 20, 8192);
	rows_add_est(rows, ta, d);
	rows_add_extra(rows, ta, e1);
	rows_add_extra(rows, ttop, e2);
	CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	rows_add_extra(rows, ta, e1);	/* after both closed */
	rows_each(rows, bump, &k);
	r = rows_result(rows, &n);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_STRING_EQUAL(r[0].path, "top/a");
	CU_ASSERT_EQUAL((int64_t)r[0].est[3], 11);
	CU_ASSERT_EQUAL((int64_t)r[0].est[4], -14);
	CU_ASSERT_EQUAL(r[0].est[2], 3);
	CU_ASSERT_STRING_EQUAL(r[1].path, "top");
	CU_ASSERT_EQUAL((int64_t)r[1].est[3], 111);
	CU_ASSERT_EQUAL((int64_t)r[1].est[4], -11);
	CU_ASSERT_EQUAL(r[1].est[0], 1);
	rows_free(rows);
	usage_free(ctx);
}

struct streamed {
	size_t n;
	char paths[4][16];
	uint64_t disk[4];
};

static int on_row(void *arg, const struct report_row *row, size_t i)
{
	struct streamed *st = arg;

	CU_ASSERT_EQUAL(i, st->n);
	if (st->n < 4) {
		snprintf(st->paths[st->n], sizeof(st->paths[0]), "%s", row->path);
		st->disk[st->n] = row->size.disk;
	}
	st->n++;
	return i == 2 ? -ENOSPC : 0;
}

/* Streamed rows come in the walk's order, each once, none kept; the
 * callback's error is rows_close()'s. */
static void test_streamed(void)
{
	struct usage_ctx *ctx = usage_create();
	struct rows *rows = rows_create(ROW_SORT_WALK, 0, 0, 0);
	struct streamed st = { 0 };
	struct extent_info ei;
	size_t n, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rows);
	rows_stream(rows, on_row, &st);
	extent(&ei, 3, 1 << 20, 4096, 131072);
	CU_ASSERT_EQUAL(rows_open(rows, ctx, "top"), 0);
	/* two files of the same extent */
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(rows_open(rows, ctx, i ? "top/b" : "top/a"), 0);
		usage_begin_file(ctx);
		CU_ASSERT_EQUAL(usage_account(ctx, 0, &ei), 0);
		CU_ASSERT_EQUAL(rows_close(rows, ctx), 0);
	}
	CU_ASSERT_EQUAL(rows_close(rows, ctx), -ENOSPC);
	CU_ASSERT_EQUAL(st.n, 3);
	CU_ASSERT_STRING_EQUAL(st.paths[0], "top/a");
	CU_ASSERT_STRING_EQUAL(st.paths[1], "top/b");
	CU_ASSERT_STRING_EQUAL(st.paths[2], "top");
	CU_ASSERT_EQUAL(st.disk[2], 4096);
	CU_ASSERT_EQUAL(rows_streamed(rows), 3);
	rows_result(rows, &n);
	CU_ASSERT_EQUAL(n, 0);
	rows_free(rows);
	usage_free(ctx);
}

static CU_TestInfo tests[] = {
	{ "rows streamed as they close", test_streamed },
	{ "nested rows dedup apart", test_nested_rows },
	{ "sort keys and top", test_sort_top },
	{ "top over many rows", test_top_many },
	{ "estimates after their rows closed", test_late_estimates },
	{ "a sample's extra values", test_extra_values },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(rows, tests)
