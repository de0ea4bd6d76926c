// SPDX-License-Identifier: GPL-2.0
/* Rendering the report as a table, JSON or CSV. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "output.h"
#include "plot.h"
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

/* A setting's name in a row column: "zstd:3", "force=lzo". */
static const char *short_setting(const char *name)
{
	if (!strncmp(name, "compress=", 9))
		return name + 9;
	if (!strncmp(name, "compress-", 9))
		return name + 9;
	return name;
}

static int setting_width(const char *name)
{
	int w = (int)strlen(short_setting(name));

	return w < 12 ? 12 : w;
}

/* A row's estimate of setting i: the report's model (same layout on
 * btrfs, else fresh copy), or the fresh copy's. */
static const uint64_t *row_est(const struct report *r,
			       const struct report_row *row, size_t i,
			       int fresh)
{
	int f = fresh || !r->nest || !r->est[0].same_layout;

	return &row->est[(f ? 3 * r->nest : 0) + 3 * i];
}

static void table_rows(FILE *out, const struct report *r)
{
	char p[8], d[OUT_BUF], u[OUT_BUF], f[OUT_BUF];
	size_t i, j;

	fprintf(out, "%-8s %-12s %-12s %-12s ", "Perc", "Disk Usage",
		"Uncompressed", "Referenced");
	/* each setting's predicted Disk Usage of the row (the estimate
	 * table's model): which directories gain */
	for (j = 0; j < r->nest; j++)
		fprintf(out, "%-*s ", setting_width(r->est[j].setting),
			short_setting(r->est[j].setting));
	fprintf(out, "%sPath\n", r->excl ? "Exclusive    " : "");
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		snprintf(p, sizeof(p), "%3u%%", out_percent(row->disk,
							      row->uncomp));
		fprintf(out, "%-8s %-12s %-12s %-12s ", p,
			out_size(row->disk, r->bytes, d),
			out_size(row->uncomp, r->bytes, u),
			out_size(row->refd, r->bytes, f));
		for (j = 0; j < r->nest; j++)
			fprintf(out, "%-*s ", setting_width(r->est[j].setting),
				out_size(row_est(r, row, j, 0)[0], r->bytes,
					 d));
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
	char fr[OUT_BUF];
	uint64_t now = current_disk(r);
	int same = r->est[0].same_layout;
	size_t i;

	fprintf(out, "%-24s %-8s %-12s %-12s ", "Setting", "Perc",
		"Disk Usage", "Change");
	if (same)
		fprintf(out, "%-12s ", "Fresh copy");
	fprintf(out, "%-10s %-10s%s\n", "Compress", "Decompress",
		r->est[0].sampled ? " 95% CI" : "");
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		snprintf(p, sizeof(p), "%3u%%", out_percent(e->disk,
							      e->uncompressed));
		signed_size((int64_t)(e->disk - now), r->bytes, c);
		snprintf(cs, sizeof(cs), "%.0fMB/s", e->compress_mbps);
		snprintf(ds, sizeof(ds), "%.0fMB/s", e->decompress_mbps);
		fprintf(out, "%s%-*s %-8s %-12s %-12s ", e->setting,
			24 - (int)strlen(e->setting), e->current ? "*" : "",
			p, out_size(e->disk, r->bytes, d), c);
		if (same)
			fprintf(out, "%-12s ", out_size(e->disk_fresh, r->bytes,
							fr));
		fprintf(out, "%-10s %-10s", cs, ds);
		if (e->sampled)
			fprintf(out, " \xc2\xb1%s",
				out_size((uint64_t)(e->disk_ci95 + 0.5),
					 r->bytes, ci));
		fputc('\n', out);
	}
	for (i = 0; i < r->nest; i++)
		if (r->est[i].current) {
			fputs("* the setting the filesystem is mounted with now\n",
			      out);
			break;
		}
}

/* MB/s as the table prints it; "-" when unknown. */
static void mbps(char *buf, size_t len, double v, const char *mark)
{
	if (v > 0)
		snprintf(buf, len, "%.0fMB/s%s", v, mark);
	else
		snprintf(buf, len, "-");
}

/* The decision table: what each setting costs and gives on all cores,
 * and on the device of --device-speed. */
static void table_decide(FILE *out, const struct report *r)
{
	char h1[32], h2[32], a[32], b[32], c[32], d[32], w[32], rd[32];
	int dev = r->dev_write_mbps > 0;
	size_t i;

	snprintf(h1, sizeof(h1), "Compress x%u", r->cpus);
	snprintf(h2, sizeof(h2), "Decompress x%u", r->cpus);
	fprintf(out, "%-24s %-14s %-16s %-11s %-11s", "Setting", h1, h2,
		"CPU write", "CPU read");
	if (dev)
		fprintf(out, " %-12s %-12s", "Write", "Read");
	fputc('\n', out);
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		mbps(a, sizeof(a), e->dec.compress_all_mbps, "");
		mbps(b, sizeof(b), e->dec.decompress_all_mbps, "");
		snprintf(c, sizeof(c), "%.2fs/GB", e->dec.cpu_s_per_gb_write);
		snprintf(d, sizeof(d), "%.2fs/GB", e->dec.cpu_s_per_gb_read);
		fprintf(out, "%-24s %-14s %-16s %-11s %-11s", e->setting, a, b,
			e->dec.cpu_s_per_gb_write > 0 ? c : "-",
			e->dec.cpu_s_per_gb_read > 0 ? d : "-");
		if (dev) {
			mbps(w, sizeof(w), e->dec.write_mbps,
			     e->dec.write_device_bound ? " dev" : " cpu");
			mbps(rd, sizeof(rd), e->dec.read_mbps,
			     e->dec.read_device_bound ? " dev" : " cpu");
			fprintf(out, " %-12s %-12s", w, rd);
		}
		fputc('\n', out);
	}
	if (dev)
		fprintf(out, "Write, Read: file data through a device of %.0f "
			"MB/s write, %.0f MB/s read (dev: the device limits it, "
			"cpu: the %u CPUs)\n", r->dev_write_mbps,
			r->dev_read_mbps, r->cpus);
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
		fputc('\n', out);
		table_decide(out, r);
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
			const uint64_t *v = row_est(r, row, i, 0);

			fprintf(out, ",\"input\":%" PRIu64 ",\"disk\":%" PRIu64
				",\"uncompressed\":%" PRIu64
				",\"disk_fresh\":%" PRIu64 "}",
				v[2], v[0], v[1], row_est(r, row, i, 1)[0]);
			continue;
		}
		fprintf(out, ",\"input\":%" PRIu64 ",\"disk\":%" PRIu64
			",\"uncompressed\":%" PRIu64 ",\"disk_fresh\":%" PRIu64
			",\"uncompressed_fresh\":%" PRIu64
			",\"model\":\"%s\""
			",\"compress_mbps\":%.1f,\"decompress_mbps\":%.1f",
			e->input, e->disk, e->uncompressed, e->disk_fresh,
			e->uncompressed_fresh,
			e->same_layout ? "same-layout" : "fresh-copy",
			e->compress_mbps, e->decompress_mbps);
		fprintf(out, ",\"current\":%s,\"cpus\":%u"
			",\"compress_mbps_all\":%.1f"
			",\"decompress_mbps_all\":%.1f"
			",\"cpu_s_per_gb_write\":%.4f"
			",\"cpu_s_per_gb_read\":%.4f",
			e->current ? "true" : "false", r->cpus,
			e->dec.compress_all_mbps, e->dec.decompress_all_mbps,
			e->dec.cpu_s_per_gb_write, e->dec.cpu_s_per_gb_read);
		if (r->dev_write_mbps > 0)
			fprintf(out, ",\"write_mbps\":%.1f,\"read_mbps\":%.1f",
				e->dec.write_mbps, e->dec.read_mbps);
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

/* The decision columns (decide.h) of records that have none. */
#define CSV_DECIDE_EMPTY ",,,,,,,"

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

/* The record's end: the speed columns empty, disk_fresh (NULL: empty),
 * the decision columns empty, then with --exclusive the exclusive column
 * (x NULL: empty). */
static void csv_end(FILE *out, const struct report *r, const uint64_t *fresh,
		    const uint64_t *x)
{
	fputs(",,,,", out);
	if (fresh)
		fprintf(out, "%" PRIu64, *fresh);
	fputs(CSV_DECIDE_EMPTY, out);
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
	csv_end(out, r, NULL, excl);
	for (t = 0; t < row->ntypes; t++) {
		const struct row_type *rt = &row->types[t];

		csv_record(out, kind, row->path,
			   out_type_name(rt->type, name), NULL, rt->disk,
			   rt->uncomp, &rt->refd, NULL);
		csv_end(out, r, NULL, type_excl ? &type_excl[rt->type] : NULL);
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
	      "extents,refs,inline,compress_mbps,decompress_mbps,disk_ci95,"
	      "disk_fresh,current,compress_mbps_all,decompress_mbps_all,"
	      "cpu_s_per_gb_write,cpu_s_per_gb_read,write_mbps,read_mbps",
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
		fprintf(out, ",%" PRIu64 ",%d,%.1f,%.1f,%.4f,%.4f,",
			e->disk_fresh, e->current, e->dec.compress_all_mbps,
			e->dec.decompress_all_mbps, e->dec.cpu_s_per_gb_write,
			e->dec.cpu_s_per_gb_read);
		if (r->dev_write_mbps > 0)
			fprintf(out, "%.1f,%.1f", e->dec.write_mbps,
				e->dec.read_mbps);
		else
			fputc(',', out);
		fputs(r->excl ? ",\n" : "\n", out);
		for (j = 0; j < r->nrows; j++) {
			const struct report_row *row = &r->rows[j];

			const uint64_t *v = row_est(r, row, i, 0);

			csv_record(out, "estimate", row->path, NULL,
				   e->setting, v[0], v[1], NULL, NULL);
			csv_end(out, r, &row_est(r, row, i, 1)[0], NULL);
		}
	}
	row_clear(&total);
	return 0;
}

int report_plot(FILE *out, const struct report *r, const char *title)
{
	size_t n = r->nest, ns = 1 + r->nrows, i, k;
	const char **names = calloc(n ? n : 1, sizeof(*names));
	double *c = calloc(n ? n : 1, sizeof(*c));
	double *d = calloc(n ? n : 1, sizeof(*d));
	double *ratio = calloc(ns * (n ? n : 1), sizeof(*ratio));
	struct plot_series *series = calloc(ns, sizeof(*series));
	struct plot_in in = {
		.nset = n, .setting = names, .compress_mbps = c,
		.decompress_mbps = d, .series = series, .nseries = ns,
		.title = title,
	};
	int ret = -ENOMEM;

	if (!names || !c || !d || !ratio || !series)
		goto out;
	for (i = 0; i < n; i++) {
		const struct report_est *e = &r->est[i];

		names[i] = e->setting;
		c[i] = e->compress_mbps;
		d[i] = e->decompress_mbps;
		ratio[i] = e->disk ? (double)e->uncompressed / e->disk : 0;
	}
	series[0].name = "TOTAL";
	series[0].ratio = ratio;
	for (k = 0; k < r->nrows; k++) {
		const struct report_row *row = &r->rows[k];

		series[k + 1].name = row->path;
		series[k + 1].ratio = &ratio[(k + 1) * n];
		for (i = 0; i < n; i++) {
			const uint64_t *v = row_est(r, row, i, 0);

			ratio[(k + 1) * n + i] = v[0] ? (double)v[1] / v[0]
						      : 0;
		}
	}
	ret = plot_svg(out, &in);
out:
	free(names);
	free(c);
	free(d);
	free(ratio);
	free(series);
	return ret;
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
