// SPDX-License-Identifier: GPL-2.0
/* The report as CSV (csv.h): the columns are fields.h's. */
#include <errno.h>
#include <stdlib.h>
#include "report/csv.h"
#include "report/fields.h"
#include "report/format.h"
#include "report/spool.h"

/* A column: the field of each table that fills it (a key is one column:
 * an estimate's disk goes in the size disk's), NULL where none. */
struct column {
	const struct field *size, *count, *est, *hist, *change;
};

/* A record: what it has values of, NULL where nothing. */
struct record {
	const char *kind, *path, *type, *setting;
	const struct report_sizes *size;
	int row_type;			/* size is a row's type's */
	int grand, is_type;		/* the grand total's, a type's */
	const struct report_row *count;
	const struct est_view *est;
	int row_est;			/* est is a row's */
	const struct report_hist *hist;	/* a --histogram class */
	const struct report_change *change;	/* --compare */
};

static int csv_field(const struct field *f)
{
	return !(f->flags & (FIELD_NO_CSV | FIELD_TABLE_ONLY));
}

/* The estimate field in the column of size or count field f, if any. */
static const struct field *est_of(const struct field *f)
{
	const struct field *e = field_find(fields_est, fields_nest, f->key);

	return e && csv_field(e) && !e->csv ? e : NULL;
}

/* The histogram field in the column of size or count field f, if any. */
static const struct field *hist_of(const struct field *f,
				   const struct report *r)
{
	const struct field *h = field_find(fields_hist, fields_nhist, f->key);

	return h && field_shown(h, r) ? h : NULL;
}

/* The size and count columns, the default ones or the optional ones
 * asked for, appended to c; returns the new count. */
static size_t add_columns(struct column *c, size_t n, const struct report *r,
			  int optional)
{
	size_t i;

	for (i = 0; i < fields_nsize; i++) {
		const struct field *f = &fields_size[i];

		if (csv_field(f) && field_shown(f, r) && !f->need == !optional)
			c[n++] = (struct column){ .size = f,
						  .est = est_of(f),
						  .hist = hist_of(f, r) };
	}
	for (i = 0; i < fields_ncount; i++) {
		const struct field *f = &fields_count[i];

		if (csv_field(f) && field_shown(f, r) && !f->need == !optional)
			c[n++] = (struct column){ .count = f,
						  .est = est_of(f),
						  .hist = hist_of(f, r) };
	}
	return n;
}

/* r's columns into c (room for every field); returns how many. */
static size_t columns(struct column *c, const struct report *r)
{
	const struct field *est[FIELDS_EST_MAX];
	size_t n = add_columns(c, 0, r, 0), i, k;

	k = fields_order(fields_est, fields_nest, 0, est);
	for (i = 0; i < k; i++)
		c[n++] = (struct column){ .est = est[i] };
	n = add_columns(c, n, r, 1);
	/* --histogram's own columns, at the end */
	for (i = 0; i < fields_nhist; i++) {
		const struct field *f = &fields_hist[i];

		if (field_shown(f, r) &&
		    !field_find(fields_size, fields_nsize, f->key) &&
		    !field_find(fields_count, fields_ncount, f->key))
			c[n++] = (struct column){ .hist = f };
	}
	/* --compare's, at the end */
	for (i = 0; i < fields_nchange; i++)
		if (field_shown(&fields_change[i], r))
			c[n++] = (struct column){ .change = &fields_change[i] };
	return n;
}

static const char *column_key(const struct column *c)
{
	return (c->size ? c->size : c->count ? c->count :
		c->est ? c->est : c->hist ? c->hist : c->change)->key;
}

/* The record's value of column c, if it has one. */
static void cell(FILE *out, const struct report *r, const struct column *c,
		 const struct record *rec)
{
	if (c->size && rec->size &&
	    field_size_at(c->size, r, rec->grand, rec->is_type,
			  rec->row_type))
		field_print(out, c->size, rec->size, FIELD_CSV);
	else if (c->count && rec->count && field_in_row(c->count, rec->count))
		field_print(out, c->count, rec->count, FIELD_CSV);
	else if (c->est && rec->est &&
		 (!rec->row_est || (c->est->flags & FIELD_ROW_EST)) &&
		 field_has(c->est, r, rec->est))
		field_print(out, c->est, rec->est, FIELD_CSV);
	else if (c->hist && rec->hist)
		field_print(out, c->hist, rec->hist, FIELD_CSV);
	else if (c->change && rec->change &&
		 !(rec->is_type && (c->change->flags & FIELD_NO_TYPES)))
		field_print(out, c->change, rec->change, FIELD_CSV);
}

static void record(FILE *out, const struct report *r, const struct column *c,
		   size_t n, const struct record *rec)
{
	size_t i;

	fprintf(out, "%s,", rec->kind);
	fmt_csv_field(out, rec->path ? rec->path : "");
	fprintf(out, ",%s,", rec->type ? rec->type : "");
	fmt_csv_field(out, rec->setting ? rec->setting : "");
	for (i = 0; i < n; i++) {
		fputc(',', out);
		cell(out, r, &c[i], rec);
	}
	fputc('\n', out);
}

/* The total (or a row) and its types; row_type: they are a row's. */
static void row_records(FILE *out, const struct report *r,
			const struct column *c, size_t n, const char *kind,
			const struct report_row *row, int row_type)
{
	struct record rec = { .kind = kind, .path = row->path, .type = "TOTAL",
			      .size = &row->size, .count = row,
			      .grand = !row->path, .change = &row->change };
	char name[FMT_BUF];
	unsigned t;

	record(out, r, c, n, &rec);
	rec.count = NULL;
	rec.row_type = row_type;
	rec.is_type = 1;
	for (t = 0; t < row->ntypes; t++) {
		rec.type = fmt_type_name(row->types[t].type, name);
		rec.size = &row->types[t].size;
		rec.change = &row->types[t].change;
		record(out, r, c, n, &rec);
	}
}

static const char *row_kind(const struct report *r)
{
	return r->show & REPORT_SHOW_SUBVOLUMES ? "subvolume" : "path";
}

int csv_print_row(FILE *out, const struct report *r,
		  const struct report_row *row)
{
	struct column *c = calloc(fields_nsize + fields_ncount + fields_nest,
				  sizeof(*c));

	if (!c)
		return -ENOMEM;
	row_records(out, r, c, columns(c, r), row_kind(r), row, 1);
	free(c);
	return 0;
}

int csv_print(FILE *out, const struct report *r)
{
	struct report_row total = { 0 };
	struct report_hist *h = NULL;
	struct est_view v;
	struct column *c = calloc(fields_nsize + fields_ncount + fields_nest +
				  fields_nhist + fields_nchange, sizeof(*c));
	char name[FMT_BUF];
	size_t n, i, j, nh = 0;
	int ret = -ENOMEM;

	if (!c)
		return ret;
	ret = report_hist_rows(r, &h, &nh);
	if (!ret)
		ret = report_total_row(r, &total);
	if (ret)
		goto out;
	n = columns(c, r);
	fputs("kind,path,type,setting", out);
	for (i = 0; i < n; i++)
		fprintf(out, ",%s", column_key(&c[i]));
	fputc('\n', out);
	row_records(out, r, c, n, "total", &total, 0);
	for (i = 0; i < nh; i++) {
		struct record rec = { .kind = "histogram", .hist = &h[i],
				      .type = fmt_type_name(h[i].type, name) };

		record(out, r, c, n, &rec);
	}
	if (r->spool)
		ret = spool_copy(r->spool, out);
	for (i = 0; !r->spool && i < r->nrows; i++)
		row_records(out, r, c, n, row_kind(r), &r->rows[i], 1);
	for (i = 0; i < r->nest; i++) {
		struct record rec = { .kind = "estimate", .est = &v };

		report_est_view(r, i, NULL, &v);
		rec.setting = v.e.setting;
		record(out, r, c, n, &rec);
		rec.row_est = 1;
		for (j = 0; j < r->nrows; j++) {
			report_est_view(r, i, &r->rows[j], &v);
			rec.path = r->rows[j].path;
			record(out, r, c, n, &rec);
		}
	}
	report_row_clear(&total);
out:
	free(h);
	free(c);
	return ret;
}
