// SPDX-License-Identifier: GPL-2.0
/* Report rows: open along the walk, compacted when closed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/arena.h"
#include "lib/array.h"
#include "report/rows.h"
#include "scan/qgroup.h"
#include "scan/sharing.h"
#include "scan/waste.h"

struct open_row {
	char *path;
	uint64_t *est;
	size_t token;		/* its est_node: rows_est_token() */
	uint64_t id, readonly;	/* rows_set_subvol() */
	int deleting;
	int has_kernel;		/* rows_set_kernel() */
	uint64_t k_excl, k_data, k_meta, k_rfer;
	struct report_level *levels;	/* rows_set_levels() */
	size_t nlevels;
};

/*
 * Every row opened with estimates has one, by token (index + 1), for as
 * long as the rows last: a file's estimate comes back from the workers
 * when the walk may have closed its rows, and goes to its own row and
 * the rows that enclosed it then.  16 bytes a row.
 */
struct est_node {
	uint64_t *est;		/* the row's; NULL once --top has cut it */
	size_t parent;		/* the enclosing row's token, 0 for none */
};

struct rows {
	enum row_sort sort;
	size_t top;
	size_t nest, extra;
	struct open_row *open;
	size_t nopen, cap_open;
	struct report_row *done;
	size_t ndone, cap_done;
	uint64_t seq;		/* walk order, to keep sorts stable */
	struct est_node *nodes;
	size_t nnodes, cap_nodes;
	int defer_cut;		/* rows_defer_cut() */
	int (*keep)(void *arg, const struct report_row *row);	/* rows_filter() */
	void *keep_arg;
	rows_stream_fn stream;	/* rows_stream() */
	void *stream_arg;
	/* Without --top, every row closed is kept to the end: its path
	 * and types are here, not a malloc() each (NULL with --top, whose
	 * cut rows give theirs back). */
	struct arena *arena;
};

struct rows *rows_create(enum row_sort sort, size_t top, size_t nest,
			 size_t extra)
{
	struct rows *rows = calloc(1, sizeof(*rows));

	if (!rows)
		return NULL;
	rows->sort = sort;
	rows->top = top;
	rows->nest = nest;
	rows->extra = nest ? extra : 0;
	if (!top) {
		rows->arena = arena_create();
		if (!rows->arena) {
			free(rows);
			return NULL;
		}
	}
	return rows;
}

/* Free what a closed row holds of its own. */
static void rows_clear(struct rows *rows, struct report_row *row)
{
	if (!rows->arena) {
		report_row_clear(row);
		return;
	}
	free(row->est);
	free(row->levels);
	memset(row, 0, sizeof(*row));
}

void rows_free(struct rows *rows)
{
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < rows->nopen; i++) {
		free(rows->open[i].path);
		free(rows->open[i].est);
		free(rows->open[i].levels);
	}
	for (i = 0; i < rows->ndone; i++)
		rows_clear(rows, &rows->done[i]);
	arena_free(rows->arena);
	free(rows->open);
	free(rows->done);
	free(rows->nodes);
	free(rows);
}

int rows_open(struct rows *rows, struct usage_ctx *ctx, const char *path)
{
	struct open_row *o;
	struct est_node *e;

	o = array_grow(rows->open, &rows->cap_open, rows->nopen, sizeof(*o));
	if (!o)
		return -ENOMEM;
	rows->open = o;
	if (rows->nest) {
		e = array_grow(rows->nodes, &rows->cap_nodes, rows->nnodes,
			       sizeof(*e));
		if (!e)
			return -ENOMEM;
		rows->nodes = e;
	}
	o = &rows->open[rows->nopen];
	o->levels = NULL;
	o->nlevels = 0;
	o->path = strdup(path);
	o->est = rows->nest ? calloc(3 * rows->nest + rows->extra,
				     sizeof(*o->est)) : NULL;
	if (!o->path || (rows->nest && !o->est) || usage_sink_push(ctx)) {
		free(o->path);
		free(o->est);
		return -ENOMEM;
	}
	o->token = 0;
	o->id = 0;
	o->readonly = 0;
	o->deleting = 0;
	o->has_kernel = 0;
	if (rows->nest) {
		e = &rows->nodes[rows->nnodes++];
		e->est = o->est;
		e->parent = rows_est_token(rows);
		o->token = rows->nnodes;
	}
	rows->nopen++;
	return 0;
}

void rows_set_subvol(struct rows *rows, uint64_t id, int readonly)
{
	if (!rows->nopen)
		return;
	rows->open[rows->nopen - 1].id = id;
	rows->open[rows->nopen - 1].readonly = !!readonly;
}

void rows_set_levels(struct rows *rows, struct report_level *l, size_t n)
{
	struct open_row *o;

	if (!rows->nopen) {
		free(l);
		return;
	}
	o = &rows->open[rows->nopen - 1];
	free(o->levels);
	o->levels = l;
	o->nlevels = n;
}

void rows_set_deleting(struct rows *rows)
{
	if (rows->nopen)
		rows->open[rows->nopen - 1].deleting = 1;
}

void rows_set_kernel(struct rows *rows, const struct qgroup_root *qr)
{
	struct open_row *o;

	if (!rows->nopen || !qr)
		return;
	o = &rows->open[rows->nopen - 1];
	o->has_kernel = 1;
	o->k_excl = qr->excl;
	o->k_data = qr->excl_data;
	o->k_meta = qr->excl_meta;
	o->k_rfer = qr->rfer;
}

void rows_stream(struct rows *rows, rows_stream_fn fn, void *arg)
{
	rows->stream = fn;
	rows->stream_arg = arg;
}

size_t rows_streamed(const struct rows *rows)
{
	return rows->stream ? rows->seq : 0;
}

/* rows_close() streaming: the row to fn, then gone. */
static int rows_close_stream(struct rows *rows, struct open_row *o,
			     const struct cs_stats *st)
{
	struct report_row row = { 0 };
	int ret;

	ret = report_row_fill(&row, st);
	row.path = o->path;
	row.est = o->est;
	row.seq = rows->seq;
	if (!ret)
		ret = rows->stream(rows->stream_arg, &row, rows->seq++);
	report_row_clear(&row);
	return ret;
}

size_t rows_open_count(const struct rows *rows)
{
	return rows->nopen;
}

size_t rows_est_token(const struct rows *rows)
{
	return rows->nopen ? rows->open[rows->nopen - 1].token : 0;
}

/* Add v[0..n) at est[off] of token's row and of the rows around it
 * (modulo 2^64: signed values as well). */
static void rows_chain_add(struct rows *rows, size_t token, size_t off,
			   size_t n, const uint64_t *v)
{
	const struct est_node *e;
	size_t j;

	for (; token && token <= rows->nnodes; token = e->parent) {
		e = &rows->nodes[token - 1];
		if (e->est)
			for (j = 0; j < n; j++)
				e->est[off + j] += v[j];
	}
}

void rows_add_est(struct rows *rows, size_t token, const uint64_t *delta)
{
	rows_chain_add(rows, token, 0, 3 * rows->nest, delta);
}

void rows_add_est_each(struct rows *rows, size_t token,
		       const uint64_t *deltas, size_t n)
{
	const struct est_node *e;
	size_t j, k;

	for (k = 0; k < n && token && token <= rows->nnodes;
	     k++, token = e->parent) {
		e = &rows->nodes[token - 1];
		if (e->est)
			for (j = 0; j < 3 * rows->nest; j++)
				e->est[j] += deltas[k * 3 * rows->nest + j];
	}
}

void rows_add_extra(struct rows *rows, size_t token, const int64_t *v)
{
	rows_chain_add(rows, token, 3 * rows->nest, rows->extra,
		       (const uint64_t *)v);
}

void rows_each(struct rows *rows, void (*fn)(void *arg,
					     struct report_row *row),
	       void *arg)
{
	size_t i;

	for (i = 0; i < rows->ndone; i++)
		fn(arg, &rows->done[i]);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* Perc as a fraction, compared without rounding: a/b < c/d. */
static int cmp_ratio(const struct report_row *x, const struct report_row *y)
{
	unsigned __int128 l, r;

	/* Rows with nothing to compress sort last. */
	if (!x->size.uncomp || !y->size.uncomp)
		return !x->size.uncomp - !y->size.uncomp;
	l = (unsigned __int128)x->size.disk * y->size.uncomp;
	r = (unsigned __int128)y->size.disk * x->size.uncomp;
	return l < r ? -1 : l > r;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct report_row *x = a, *y = b;
	const enum row_sort *key = arg;
	int c = 0;

	switch (*key) {
	case ROW_SORT_WALK:
		break;
	case ROW_SORT_DISK:
		c = cmp_u64_desc(x->size.disk, y->size.disk);
		break;
	case ROW_SORT_SAVED:
		c = cmp_u64_desc(x->size.uncomp > x->size.disk ? x->size.uncomp - x->size.disk : 0,
				 y->size.uncomp > y->size.disk ? y->size.uncomp - y->size.disk : 0);
		break;
	case ROW_SORT_RATIO:
		c = cmp_ratio(x, y);
		break;
	case ROW_SORT_NAME:
		c = strcmp(x->path, y->path);
		break;
	case ROW_SORT_EXCLUSIVE:
		c = cmp_u64_desc(x->size.excl, y->size.excl);
		break;
	case ROW_SORT_WASTE:
		c = cmp_u64_desc(x->size.waste, y->size.waste);
		break;
	case ROW_SORT_DELTA:	/* compare.c sorts, after the run */
		break;
	}
	/* qsort is not stable: ties keep the walk's order. */
	if (!c)
		c = x->seq < y->seq ? -1 : x->seq > y->seq;
	return c;
}

/* Sort the closed rows and keep the first top of them. */
static void sort_and_cut(struct rows *rows)
{
	size_t i;

	if (rows->sort != ROW_SORT_WALK)
		qsort_r(rows->done, rows->ndone, sizeof(*rows->done), cmp_rows,
			&rows->sort);
	if (rows->top && rows->ndone > rows->top) {
		for (i = rows->top; i < rows->ndone; i++) {
			/* estimates still to come for it go nowhere */
			if (rows->done[i].est_token)
				rows->nodes[rows->done[i].est_token - 1].est =
					NULL;
			rows_clear(rows, &rows->done[i]);
		}
		rows->ndone = rows->top;
	}
}

/* A row kept to the end: its types and o's path moved to the arena. */
static int rows_to_arena(struct rows *rows, struct report_row *row,
			 struct open_row *o)
{
	size_t len = row->ntypes * sizeof(*row->types);
	struct row_type *t = len ? arena_alloc(rows->arena, len) : NULL;
	char *path = arena_strdup(rows->arena, o->path);

	if ((len && !t) || !path) {
		free(row->types);
		return -ENOMEM;
	}
	if (len)
		memcpy(t, row->types, len);
	free(row->types);
	row->types = t;
	free(o->path);
	o->path = path;
	return 0;
}

int rows_close(struct rows *rows, struct usage_ctx *ctx)
{
	struct open_row *o = &rows->open[--rows->nopen];
	struct report_row *row;
	struct cs_stats st;
	int ret;

	usage_sink_pop(ctx, &st);
	if (rows->stream)
		return rows_close_stream(rows, o, &st);
	/* With --top, keep at most twice that many between cuts; exclusive
	 * bytes are only known at the end. */
	if (rows->top && rows->ndone >= 2 * rows->top && !rows->defer_cut &&
	    rows->sort != ROW_SORT_EXCLUSIVE && rows->sort != ROW_SORT_WASTE)
		sort_and_cut(rows);
	row = array_grow(rows->done, &rows->cap_done, rows->ndone,
			 sizeof(*row));
	if (!row) {
		ret = -ENOMEM;
		goto fail;
	}
	rows->done = row;
	row = &rows->done[rows->ndone];
	memset(row, 0, sizeof(*row));
	ret = report_row_fill(row, &st);
	if (ret)
		goto fail;
	if (rows->arena) {
		ret = rows_to_arena(rows, row, o);
		if (ret)
			goto fail;
	}
	row->path = o->path;
	row->est = o->est;
	row->est_token = o->token;
	row->id = o->id;
	row->readonly = o->readonly;
	row->deleting = o->deleting;
	row->levels = o->levels;
	row->nlevels = o->nlevels;
	if (o->has_kernel) {
		row->size.excl = o->k_excl;
		row->size.excl_data = o->k_data;
		row->size.excl_meta = o->k_meta;
		row->size.qg_rfer = o->k_rfer;
	}
	row->seq = rows->seq++;
	if (rows->keep && !rows->keep(rows->keep_arg, row)) {
		if (row->est_token)
			rows->nodes[row->est_token - 1].est = NULL;
		rows_clear(rows, row);
		return 0;
	}
	rows->ndone++;
	return 0;
fail:
	if (o->token)
		rows->nodes[o->token - 1].est = NULL;
	free(o->path);
	free(o->est);
	free(o->levels);
	return ret;
}

void rows_set_exclusive(struct rows *rows, const struct sharing *sh)
{
	size_t i;

	for (i = 0; i < rows->ndone; i++) {
		struct report_sizes *s = &rows->done[i].size;
		uint32_t id = rows->done[i].share_row;

		s->excl = sharing_row_exclusive(sh, id);
		s->excl_meta = sharing_row_metadata(sh, id);
		s->excl_data = s->excl - s->excl_meta;
	}
}

void rows_set_waste(struct rows *rows, const struct waste *w)
{
	size_t i;

	for (i = 0; i < rows->ndone; i++)
		rows->done[i].size.waste =
			waste_row(w, rows->done[i].waste_row);
}

void rows_defer_cut(struct rows *rows)
{
	rows->defer_cut = 1;
}

void rows_filter(struct rows *rows,
		 int (*keep)(void *arg, const struct report_row *row),
		 void *arg)
{
	rows->keep = keep;
	rows->keep_arg = arg;
}

void rows_keep(struct rows *rows,
	       int (*keep)(void *arg, const struct report_row *row),
	       void *arg)
{
	size_t i, n = 0;

	for (i = 0; i < rows->ndone; i++) {
		if (keep(arg, &rows->done[i])) {
			rows->done[n++] = rows->done[i];
			continue;
		}
		if (rows->done[i].est_token)
			rows->nodes[rows->done[i].est_token - 1].est = NULL;
		rows_clear(rows, &rows->done[i]);
	}
	rows->ndone = n;
}

const struct report_row *rows_result(struct rows *rows, size_t *n)
{
	sort_and_cut(rows);
	*n = rows->ndone;
	return rows->done;
}
