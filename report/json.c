// SPDX-License-Identifier: GPL-2.0
/* The report as JSON (json.h): the members are fields.h's, in its order. */
#include <inttypes.h>
#include <stdlib.h>
#include "report/compare.h"
#include "report/fields.h"
#include "report/format.h"
#include "report/json.h"
#include "report/spool.h"

/* Where a value is: which fields have one there (JSON leaves the others
 * out). */
enum place {
	AT_TOTAL,		/* the grand total or a row's */
	AT_TOTAL_TYPE,		/* a type of the grand total */
	AT_ROW_TYPE,		/* a type of a row */
	AT_GRAND,		/* the grand total's sizes */
};

static void member(FILE *out, const struct field *f, const void *base,
		   int first)
{
	fprintf(out, "%s\"%s\":", first ? "" : ",", f->key);
	field_print(out, f, base, FIELD_JSON);
}

/* The fields t[0..n) of base as JSON members, after others when !first. */
static void json_fields(FILE *out, const struct report *r,
			const struct field *t, size_t n, const void *base,
			enum place at, int first)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct field *f = &t[i];

		if (!field_shown(f, r))
			continue;
		if (t == fields_size &&
		    !field_size_at(f, r, at == AT_GRAND || at == AT_TOTAL_TYPE,
				   at != AT_TOTAL && at != AT_GRAND,
				   at == AT_ROW_TYPE))
			continue;
		if (t == fields_count && !field_in_row(f, base))
			continue;
		if ((f->flags & FIELD_NO_TYPES) &&
		    (at == AT_TOTAL_TYPE || at == AT_ROW_TYPE))
			continue;
		member(out, f, base, first);
		first = 0;
	}
}

/* type_at: AT_TOTAL_TYPE for the grand total, AT_ROW_TYPE for a row. */
static void json_row_body(FILE *out, const struct report *r,
			  const struct report_row *row, enum place type_at)
{
	char name[FMT_BUF];
	unsigned t;

	json_fields(out, r, fields_count, fields_ncount, row, AT_TOTAL, 1);
	json_fields(out, r, fields_change, fields_nchange, &row->change,
		    AT_TOTAL, 0);
	fputs(",\"total\":{", out);
	json_fields(out, r, fields_size, fields_nsize, &row->size,
		    type_at == AT_TOTAL_TYPE ? AT_GRAND : AT_TOTAL, 1);
	fputs("},\"types\":[", out);
	for (t = 0; t < row->ntypes; t++) {
		const struct row_type *rt = &row->types[t];

		fprintf(out, "%s{\"type\":\"%s\"", t ? "," : "",
			fmt_type_name(rt->type, name));
		json_fields(out, r, fields_size, fields_nsize, &rt->size,
			    type_at, 0);
		json_fields(out, r, fields_change, fields_nchange,
			    &rt->change, type_at, 0);
		fputc('}', out);
	}
	fputc(']', out);
}

/* The estimates of each setting: the run's, or with row that row's. */
static void json_est(FILE *out, const struct report *r,
		     const struct report_row *row)
{
	struct est_view v;
	size_t i, k;

	fputs(",\"estimates\":[", out);
	for (i = 0; i < r->nest; i++) {
		report_est_view(r, i, row, &v);
		fprintf(out, "%s{\"setting\":", i ? "," : "");
		fmt_json_string(out, v.e.setting);
		for (k = 0; k < fields_nest; k++) {
			const struct field *f = &fields_est[k];

			if ((f->flags & FIELD_TABLE_ONLY) ||
			    (row && !(f->flags & FIELD_ROW_EST)) ||
			    !field_has(f, r, &v))
				continue;
			member(out, f, &v, 0);
		}
		fputc('}', out);
	}
	fputc(']', out);
}

/* --histogram: a member per size class of each type. */
static void json_hist(FILE *out, const struct report *r,
		      const struct report_hist *h, size_t n)
{
	char name[FMT_BUF];
	size_t i, k;

	if (!(r->show & REPORT_SHOW_HISTOGRAM))
		return;
	fputs(",\"histogram\":[", out);
	for (i = 0; i < n; i++) {
		fprintf(out, "%s{\"type\":\"%s\"", i ? "," : "",
			fmt_type_name(h[i].type, name));
		for (k = 0; k < fields_nhist; k++)
			member(out, &fields_hist[k], &h[i], 0);
		fputc('}', out);
	}
	fputc(']', out);
}

/* --levels: each algorithm's sets of levels, fields_level's members. */
static void json_levels(FILE *out, const struct report_level *lv, size_t n)
{
	char name[FMT_BUF], set[FMT_LEVELS];
	size_t i, k;
	int l;

	fputs(",\"levels\":[", out);
	for (i = 0; i < n; i++, lv++) {
		fprintf(out, "%s{\"type\":\"%s\",\"levels\":\"%s\",\"set\":[",
			i ? "," : "", fmt_type_name(lv->type, name),
			fmt_level_set(lv->mask, set));
		for (l = 0, k = 0; l < 64; l++)
			if (lv->mask >> l & 1)
				fprintf(out, "%s%d", k++ ? "," : "", l - 15);
		fputc(']', out);
		for (k = 0; k < fields_nlevel; k++)
			member(out, &fields_level[k], lv, 0);
		fputc('}', out);
	}
	fputc(']', out);
}

int json_print_row(FILE *out, const struct report *r,
		   const struct report_row *row, size_t i)
{
	fputs(i ? ",{" : "{", out);
	fmt_json_path(out, "path", row->path);
	fputc(',', out);
	json_row_body(out, r, row, AT_ROW_TYPE);
	if (r->nest)
		json_est(out, r, row);
	if (r->show & REPORT_SHOW_LEVELS)
		json_levels(out, row->levels, row->nlevels);
	fputc('}', out);
	return 0;
}

int json_print(FILE *out, const struct report *r)
{
	struct report_row total = { 0 };
	struct report_hist *h;
	size_t i, nh;
	int ret;

	ret = report_hist_rows(r, &h, &nh);
	if (ret)
		return ret;
	ret = report_total_row(r, &total);
	if (ret) {
		free(h);
		return ret;
	}
	fprintf(out, "{\"schema\":%d,\"filesystems\":[", COMPARE_SCHEMA);
	for (i = 0; i < r->nuuids; i++)
		fprintf(out, "%s\"%s\"", i ? "," : "", r->uuids[i]);
	fputs("],", out);
	json_row_body(out, r, &total, AT_TOTAL_TYPE);
	if (r->have_usage)
		fprintf(out, ",\"method\":\"%s\"",
			r->fiemap ? "fiemap" : "search");
	json_hist(out, r, h, nh);
	free(h);
	if (!r->have_usage)
		fprintf(out, ",\"allocated\":%" PRIu64, r->alloc_bytes);
	if (r->nest)
		json_est(out, r, NULL);
	if (r->show & REPORT_SHOW_LEVELS)
		json_levels(out, r->levels, r->nlevels);
	/* a rows' array once a row was ever kept (--top may cut to 0) */
	if (r->rows || (r->spool && r->nrows)) {
		fprintf(out, ",\"%s\":[",
			r->show & REPORT_SHOW_SUBVOLUMES ? "subvolumes"
							 : "paths");
		if (r->spool)
			ret = spool_copy(r->spool, out);
		for (i = 0; !r->spool && i < r->nrows; i++)
			json_print_row(out, r, &r->rows[i], i);
		fputc(']', out);
	}
	fputs(",\"errors\":[", out);
	for (i = 0; i < r->nerrors; i++) {
		fputs(i ? ",{" : "{", out);
		fmt_json_path(out, "path", r->errors[i].path);
		fputs(",\"error\":", out);
		fmt_json_string(out, r->errors[i].error);
		fputc('}', out);
	}
	fputs("]}\n", out);
	report_row_clear(&total);
	return ret;
}
