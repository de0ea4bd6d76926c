// SPDX-License-Identifier: GPL-2.0
/* Rendering the report as a table, JSON or CSV. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "report.h"

static int nothing(const struct report *r)
{
	uint64_t disk, uncomp, refd;

	if (!r->have_usage)
		return !r->total->nfiles;
	out_totals(r->total, &disk, &uncomp, &refd);
	return !uncomp;
}

/* Today's disk usage of the files, to compare estimates with. */
static uint64_t current_disk(const struct report *r)
{
	uint64_t disk, uncomp, refd;

	if (!r->have_usage)
		return r->alloc_bytes;
	out_totals(r->total, &disk, &uncomp, &refd);
	return disk;
}

/* "+12M", "-1.5G", "0B"; raw: "+12345". */
static void signed_size(int64_t delta, int raw, char buf[OUT_BUF])
{
	char tmp[OUT_BUF];
	uint64_t mag = delta < 0 ? -(uint64_t)delta : (uint64_t)delta;
	const char *p = out_size(mag, raw, tmp);

	while (*p == ' ')
		p++;
	snprintf(buf, OUT_BUF, "%s%s", delta > 0 ? "+" : delta < 0 ? "-" : "",
		 p);
}

static void table_rows(FILE *out, const struct report *r)
{
	char p[8], d[OUT_BUF], u[OUT_BUF], f[OUT_BUF];
	size_t i;

	fprintf(out, "%-8s %-12s %-12s %-12s %s%s\n", "Perc", "Disk Usage",
		"Uncompressed", "Referenced", r->excl ? "Exclusive    " : "",
		"Path");
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		snprintf(p, sizeof(p), "%3u%%", out_percent(row->disk,
							      row->uncomp));
		fprintf(out, "%-8s %-12s %-12s %-12s ", p,
			out_size(row->disk, r->bytes, d),
			out_size(row->uncomp, r->bytes, u),
			out_size(row->refd, r->bytes, f));
		if (r->excl)
			fprintf(out, "%-12s ",
				out_size(row->exclusive, r->bytes, d));
		out_table_path(out, row->path);
		fputc('\n', out);
	}
}

static void table_estimates(FILE *out, const struct report *r)
{
	char p[8], d[OUT_BUF], c[OUT_BUF], ci[OUT_BUF], cs[16], ds[16];
	uint64_t now = current_disk(r);
	size_t i;

	fprintf(out, "%-24s %-8s %-12s %-12s %-10s %-10s%s\n", "Setting", "Perc",
		"Disk Usage", "Change", "Compress", "Decompress",
		r->est[0].sampled ? " 95% CI" : "");
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		snprintf(p, sizeof(p), "%3u%%", out_percent(e->disk,
							      e->uncompressed));
		signed_size((int64_t)(e->disk - now), r->bytes, c);
		snprintf(cs, sizeof(cs), "%.0fMB/s", e->compress_mbps);
		snprintf(ds, sizeof(ds), "%.0fMB/s", e->decompress_mbps);
		fprintf(out, "%-24s %-8s %-12s %-12s %-10s %-10s", e->setting, p,
			out_size(e->disk, r->bytes, d), c, cs, ds);
		if (e->sampled)
			fprintf(out, " \xc2\xb1%s",
				out_size((uint64_t)(e->disk_ci95 + 0.5),
					 r->bytes, ci));
		fputc('\n', out);
	}
}

static int print_table(FILE *out, FILE *err, const struct report *r)
{
	int ret = 0;

	if (r->nrows) {
		table_rows(out, r);
		fputc('\n', out);
	}
	if (r->have_usage) {
		ret = out_table_excl(out, err, r->total, r->bytes,
				     r->excl ? r->excl->type : NULL);
	} else if (!r->total->nfiles) {
		fputs("No files.\n", err);
		ret = 1;
	} else {
		char a[OUT_BUF];

		fprintf(out, "Processed %" PRIu64 " file%s, %s allocated "
			"(current usage by compression type needs btrfs and root).\n",
			r->total->nfiles, r->total->nfiles > 1 ? "s" : "",
			out_size(r->alloc_bytes, r->bytes, a));
	}
	if (r->nest && r->total->nfiles) {
		fputc('\n', out);
		table_estimates(out, r);
	}
	return ret;
}

/* JSON */

static void json_totals(FILE *out, uint64_t disk, uint64_t uncomp,
			uint64_t refd, const uint64_t *excl)
{
	fprintf(out, "{\"disk\":%" PRIu64 ",\"uncompressed\":%" PRIu64
		",\"referenced\":%" PRIu64, disk, uncomp, refd);
	if (excl)
		fprintf(out, ",\"exclusive\":%" PRIu64, *excl);
	fputc('}', out);
}

/* excl: the row's exclusive bytes, or NULL; type_excl: per type, or NULL
 * (rows have none). */
static void json_row_body(FILE *out, const struct report_row *row,
			  const uint64_t *excl, const uint64_t *type_excl)
{
	char name[OUT_BUF];
	unsigned t;

	fprintf(out, "\"files\":%" PRIu64 ",\"extents\":%" PRIu64
		",\"refs\":%" PRIu64 ",\"inline\":%" PRIu64
		",\"fragments\":%" PRIu64 ",\"total\":",
		row->files, row->extents, row->refs, row->ninline, row->nfrag);
	json_totals(out, row->disk, row->uncomp, row->refd, excl);
	fputs(",\"types\":[", out);
	for (t = 0; t < row->ntypes; t++) {
		const struct row_type *rt = &row->types[t];

		fprintf(out, "%s{\"type\":\"%s\",\"disk\":%" PRIu64
			",\"uncompressed\":%" PRIu64 ",\"referenced\":%" PRIu64,
			t ? "," : "", out_type_name(rt->type, name),
			rt->disk, rt->uncomp, rt->refd);
		if (type_excl)
			fprintf(out, ",\"exclusive\":%" PRIu64,
				type_excl[rt->type]);
		fputc('}', out);
	}
	fputc(']', out);
}

static void json_est(FILE *out, const struct report *r,
		     const struct report_row *row)
{
	size_t i;

	fputs(",\"estimates\":[", out);
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		fprintf(out, "%s{\"setting\":", i ? "," : "");
		out_json_string(out, e->setting);
		if (row) {
			fprintf(out, ",\"input\":%" PRIu64 ",\"disk\":%" PRIu64
				",\"uncompressed\":%" PRIu64 "}",
				row->est[3 * i + 2], row->est[3 * i],
				row->est[3 * i + 1]);
			continue;
		}
		fprintf(out, ",\"input\":%" PRIu64 ",\"disk\":%" PRIu64
			",\"uncompressed\":%" PRIu64
			",\"compress_mbps\":%.1f,\"decompress_mbps\":%.1f",
			e->input, e->disk, e->uncompressed, e->compress_mbps,
			e->decompress_mbps);
		if (e->sampled)
			fprintf(out, ",\"disk_ci95\":%.0f", e->disk_ci95);
		fputc('}', out);
	}
	fputc(']', out);
}

static int print_json(FILE *out, const struct report *r)
{
	struct report_row total = { 0 };
	size_t i;
	int ret;

	ret = row_from_stats(&total, r->total);
	if (ret)
		return ret;
	fputc('{', out);
	json_row_body(out, &total, r->excl ? &r->excl->exclusive : NULL,
		      r->excl ? r->excl->type : NULL);
	if (!r->have_usage)
		fprintf(out, ",\"allocated\":%" PRIu64, r->alloc_bytes);
	if (r->nest)
		json_est(out, r, NULL);
	if (r->rows) {
		fputs(",\"paths\":[", out);
		for (i = 0; i < r->nrows; i++) {
			fprintf(out, "%s{\"path\":", i ? "," : "");
			out_json_string(out, r->rows[i].path);
			fputc(',', out);
			json_row_body(out, &r->rows[i],
				      r->excl ? &r->rows[i].exclusive : NULL,
				      NULL);
			if (r->nest)
				json_est(out, r, &r->rows[i]);
			fputc('}', out);
		}
		fputc(']', out);
	}
	fputs(",\"errors\":[", out);
	for (i = 0; i < r->nerrors; i++) {
		fprintf(out, "%s{\"path\":", i ? "," : "");
		out_json_string(out, r->errors[i].path);
		fputs(",\"error\":", out);
		out_json_string(out, r->errors[i].error);
		fputc('}', out);
	}
	fputs("]}\n", out);
	row_clear(&total);
	return 0;
}

/* CSV: one header, one record per row; see man/compsize.8. */

static void csv_record(FILE *out, const char *kind, const char *path,
		       const char *type, const char *setting, uint64_t disk,
		       uint64_t uncomp, const uint64_t *refd,
		       const struct report_row *counts)
{
	fprintf(out, "%s,", kind);
	out_csv_field(out, path ? path : "");
	fprintf(out, ",%s,", type ? type : "");
	out_csv_field(out, setting ? setting : "");
	fprintf(out, ",%" PRIu64 ",%" PRIu64 ",", disk, uncomp);
	if (refd)
		fprintf(out, "%" PRIu64, *refd);
	if (counts)
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			counts->files, counts->extents, counts->refs,
			counts->ninline);
	else
		fputs(",,,,", out);
}

/* The record's end: the speed columns empty, then with --exclusive the
 * exclusive column (x NULL: empty). */
static void csv_end(FILE *out, const struct report *r, const uint64_t *x)
{
	fputs(",,,", out);
	if (r->excl) {
		fputc(',', out);
		if (x)
			fprintf(out, "%" PRIu64, *x);
	}
	fputc('\n', out);
}

/* excl, type_excl: as json_row_body(). */
static void csv_row(FILE *out, const struct report *r, const char *kind,
		    const struct report_row *row, const uint64_t *excl,
		    const uint64_t *type_excl)
{
	char name[OUT_BUF];
	unsigned t;

	csv_record(out, kind, row->path, "TOTAL", NULL, row->disk, row->uncomp,
		   &row->refd, row);
	csv_end(out, r, excl);
	for (t = 0; t < row->ntypes; t++) {
		const struct row_type *rt = &row->types[t];

		csv_record(out, kind, row->path,
			   out_type_name(rt->type, name), NULL, rt->disk,
			   rt->uncomp, &rt->refd, NULL);
		csv_end(out, r, type_excl ? &type_excl[rt->type] : NULL);
	}
}

static int print_csv(FILE *out, const struct report *r)
{
	struct report_row total = { 0 };
	size_t i, j;
	int ret;

	ret = row_from_stats(&total, r->total);
	if (ret)
		return ret;
	fputs("kind,path,type,setting,disk,uncompressed,referenced,files,"
	      "extents,refs,inline,compress_mbps,decompress_mbps,disk_ci95",
	      out);
	fputs(r->excl ? ",exclusive\n" : "\n", out);
	csv_row(out, r, "total", &total, r->excl ? &r->excl->exclusive : NULL,
		r->excl ? r->excl->type : NULL);
	for (i = 0; i < r->nrows; i++)
		csv_row(out, r, "path", &r->rows[i], &r->rows[i].exclusive,
			NULL);
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		csv_record(out, "estimate", NULL, NULL, e->setting, e->disk,
			   e->uncompressed, NULL, NULL);
		fprintf(out, ",%.1f,%.1f,", e->compress_mbps,
			e->decompress_mbps);
		if (e->sampled)
			fprintf(out, "%.0f", e->disk_ci95);
		fputs(r->excl ? ",\n" : "\n", out);
		for (j = 0; j < r->nrows; j++) {
			const struct report_row *row = &r->rows[j];

			csv_record(out, "estimate", row->path, NULL,
				   e->setting, row->est[3 * i],
				   row->est[3 * i + 1], NULL, NULL);
			csv_end(out, r, NULL);
		}
	}
	row_clear(&total);
	return 0;
}

int report_print(FILE *out, FILE *err, const struct report *r)
{
	int ret;

	switch (r->format) {
	case REPORT_JSON:
		ret = print_json(out, r);
		break;
	case REPORT_CSV:
		ret = print_csv(out, r);
		break;
	default:
		return print_table(out, err, r);
	}
	if (ret)
		return ret;
	return nothing(r);
}
