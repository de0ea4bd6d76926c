// SPDX-License-Identifier: GPL-2.0
/*
 * Rendering the report as a table, JSON or CSV (Prometheus text in prom.c,
 * the ncdu tree in ncdu.c).  Which columns there are, their names and
 * their order come from fields.h; this file only knows how each format
 * lays a column out.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/fields.h"
#include "report/format.h"
#include "report/ncdu.h"
#include "report/plot.h"
#include "report/prom.h"
#include "report/report.h"

/* The sums over every type of st. */
static void sum_sizes(const struct cs_stats *st, struct report_sizes *sum)
{
	unsigned t;

	memset(sum, 0, sizeof(*sum));
	for (t = 0; t < CS_NTYPES; t++) {
		sum->disk += st->disk[t];
		sum->uncomp += st->uncomp[t];
		sum->refd += st->refd[t];
	}
}

static void type_sizes(const struct cs_stats *st, unsigned t,
		       struct report_sizes *s)
{
	s->disk = st->disk[t];
	s->uncomp = st->uncomp[t];
	s->refd = st->refd[t];
}

int report_row_fill(struct report_row *row, const struct cs_stats *st)
{
	unsigned t, n = 0;

	row->files = st->nfiles;
	row->extents = st->nextents;
	row->refs = st->nrefs;
	row->ninline = st->ninline;
	row->nfrag = st->nfrag;
	row->share_row = st->share_row;
	sum_sizes(st, &row->size);
	/* As in compsize 1.5's table: a type shows when it has data. */
	for (t = 0; t < CS_NTYPES; t++)
		if (st->uncomp[t])
			n++;
	row->types = n ? calloc(n, sizeof(*row->types)) : NULL;
	if (n && !row->types)
		return -ENOMEM;
	row->ntypes = 0;
	for (t = 0; t < CS_NTYPES; t++) {
		if (!st->uncomp[t])
			continue;
		row->types[row->ntypes].type = t;
		type_sizes(st, t, &row->types[row->ntypes].size);
		row->ntypes++;
	}
	return 0;
}

void report_row_clear(struct report_row *row)
{
	free(row->path);
	free(row->types);
	free(row->est);
	memset(row, 0, sizeof(*row));
}

static int nothing(const struct report *r)
{
	struct report_sizes sum;

	if (!r->have_usage)
		return !r->total->nfiles;
	sum_sizes(r->total, &sum);
	return !sum.uncomp;
}

/* Today's disk usage of the files, to compare estimates with. */
static uint64_t current_disk(const struct report *r)
{
	struct report_sizes sum;

	if (!r->have_usage)
		return r->alloc_bytes;
	sum_sizes(r->total, &sum);
	return sum.disk;
}

/* The grand total as a row, with --exclusive's figures. */
static int total_row(const struct report *r, struct report_row *total)
{
	unsigned t;
	int ret;

	ret = report_row_fill(total, r->total);
	if (!ret && !r->have_usage) {
		/* Some usage unread (not root, a file off btrfs): no total
		 * by type, which a part would pass off as the whole; the
		 * files' allocation stands in for it. */
		memset(&total->size, 0, sizeof(total->size));
		total->ntypes = 0;
	}
	if (ret || !r->excl)
		return ret;
	total->size.excl = r->excl->exclusive;
	for (t = 0; t < total->ntypes; t++)
		total->types[t].size.excl = r->excl->type[total->types[t].type];
	return 0;
}

/* Table: compsize 1.5's columns, 12 characters and a space each. */

/* The index of the last size field the table shows. */
static size_t table_last(const struct report *r)
{
	size_t i, last = 0;

	for (i = 0; i < fields_nsize; i++)
		if (fields_size[i].label && field_shown(&fields_size[i], r))
			last = i;
	return last;
}

/* A size column is compsize 1.5's 12 characters wide, or as wide as its
 * widest cell where the table is ours (rows, estimates, and the usage
 * table in btrfs-progs' units); 1.5's own table keeps 12 even where a
 * number is wider (-b of 13 digits and more), byte for byte. */
#define TABLE_COL 12

/* w grown to hold size v in r's units. */
static void widen(int *w, const struct report *r, uint64_t v)
{
	char buf[FMT_BUF];
	int len = (int)strlen(fmt_size_in(v, &r->units, buf));

	if (len > *w)
		*w = len;
}

/* w[i] grown to hold field i of s, for every size field. */
static void widen_sizes(int *w, const struct report *r,
			const struct report_sizes *s)
{
	size_t i;

	for (i = 0; i < fields_nsize; i++)
		widen(&w[i], r, field_value(&fields_size[i], s));
}

static void widths_init(int *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = TABLE_COL;
}

/*
 * The size columns, the default ones or the optional ones asked for
 * (after 1.5's, and after the rows' estimate columns): their labels when
 * s is NULL, else the sizes of s, in columns of w[i] characters.  With
 * trim, a last column that is not compsize 1.5's is not padded (1.5 pads
 * its own last column, Referenced).
 */
static void table_sizes(FILE *out, const struct report *r,
			const struct report_sizes *s, const int *w, int trim,
			int optional)
{
	size_t i, last = table_last(r);
	char buf[FMT_BUF];
	const char *cell;

	for (i = 0; i < fields_nsize; i++) {
		const struct field *f = &fields_size[i];

		if (!f->label || !field_shown(f, r) || !f->need != !optional)
			continue;
		cell = s ? fmt_size_in(field_value(f, s), &r->units, buf)
			 : f->label;
		if (trim && i == last && f->need)
			fprintf(out, " %s", cell);
		else
			fprintf(out, " %-*s", w[i], cell);
	}
}

/* Every size column of the 1.5 table. */
static void table_all_sizes(FILE *out, const struct report *r,
			    const struct report_sizes *s, const int *w)
{
	table_sizes(out, r, s, w, 1, 0);
	table_sizes(out, r, s, w, 1, 1);
}

/* Perc, in its 8 characters. */
static void table_perc(FILE *out, const struct report_sizes *s)
{
	char p[8];

	snprintf(p, sizeof(p), "%3u%%", fmt_percent(s->disk, s->uncomp));
	fprintf(out, "%-8s", p);
}

/* compsize 1.5's table of the total, byte for byte. */
static int table_usage(FILE *out, FILE *err, const struct report *r,
		       const struct report_row *total)
{
	char name[FMT_BUF];
	int w[FIELDS_MAX];
	unsigned t;

	widths_init(w, fields_nsize);
	if (!fmt_units_15(&r->units)) {
		widen_sizes(w, r, &total->size);
		for (t = 0; t < total->ntypes; t++)
			widen_sizes(w, r, &total->types[t].size);
	}
	if (!total->size.uncomp) {
		fputs(total->files ? "All empty or still-delalloced files.\n"
				   : "No files.\n", err);
		return 1;
	}
	fprintf(out, "Processed %" PRIu64 " file%s, %" PRIu64
		" regular extents (%" PRIu64 " refs), %" PRIu64 " inline.\n",
		total->files, total->files > 1 ? "s" : "", total->extents,
		total->refs, total->ninline);
	fprintf(out, "%-10s %-8s", "Type", "Perc");
	table_all_sizes(out, r, NULL, w);
	fprintf(out, "\n%-10s ", "TOTAL");
	table_perc(out, &total->size);
	table_all_sizes(out, r, &total->size, w);
	fputc('\n', out);
	for (t = 0; t < total->ntypes; t++) {
		const struct row_type *rt = &total->types[t];

		fprintf(out, "%-10s ", fmt_type_name(rt->type, name));
		table_perc(out, &rt->size);
		table_all_sizes(out, r, &rt->size, w);
		fputc('\n', out);
	}
	return 0;
}

int report_table(FILE *out, FILE *err, const struct cs_stats *st, int raw)
{
	struct report r = { .format = REPORT_TABLE, .total = st,
			    .have_usage = 1 };
	struct report_row total = { 0 };
	int ret;

	r.units.mode = raw ? FMT_MODE_RAW : FMT_MODE_15;
	ret = report_row_fill(&total, st);
	if (!ret)
		ret = table_usage(out, err, &r, &total);
	report_row_clear(&total);
	return ret;
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

const uint64_t *report_row_est(const struct report *r,
			       const struct report_row *row, size_t i,
			       int fresh)
{
	int f = fresh || !r->nest || !r->est[0].same_layout;
	size_t stride = r->est_stride ? r->est_stride : r->nest;

	return &row->est[(f ? 3 * stride : 0) + 3 * i];
}

/* A count field's cell in the rows' table. */
static const char *count_cell(const struct field *f,
			      const struct report_row *row, char *buf)
{
	uint64_t v = field_value(f, row);

	if (f->flags & FIELD_BOOL)
		return v ? f->key : "-";
	snprintf(buf, FMT_BUF, "%" PRIu64, v);
	return buf;
}

/* With --subvolumes, the count fields that have a label, before Perc:
 * their labels when row is NULL, else row's values; each column as wide
 * as its widest cell. */
static void table_counts(FILE *out, const struct report *r,
			 const struct report_row *row)
{
	char buf[FMT_BUF];
	size_t i, k;
	int w;

	if (!(r->show & REPORT_SHOW_SUBVOLUMES))
		return;
	for (i = 0; i < fields_ncount; i++) {
		const struct field *f = &fields_count[i];

		if (!f->label || !field_shown(f, r))
			continue;
		w = (int)strlen(f->label);
		for (k = 0; k < r->nrows; k++)
			if ((int)strlen(count_cell(f, &r->rows[k], buf)) > w)
				w = (int)strlen(count_cell(f, &r->rows[k],
							   buf));
		fprintf(out, "%-*s ", w, row ? count_cell(f, row, buf)
					     : f->label);
	}
}

/* The rows' table: Perc, the default sizes, each setting's predicted Disk
 * Usage of the row (the estimate table's model: which directories gain),
 * the optional sizes, Path; each column as wide as its widest cell. */
static int table_rows(FILE *out, const struct report *r)
{
	int w[FIELDS_MAX], *we = calloc(r->nest ? r->nest : 1, sizeof(*we));
	char d[FMT_BUF];
	size_t i, j;

	if (!we)
		return -ENOMEM;
	widths_init(w, fields_nsize);
	for (j = 0; j < r->nest; j++)
		we[j] = setting_width(r->est[j].setting);
	for (i = 0; i < r->nrows; i++) {
		widen_sizes(w, r, &r->rows[i].size);
		for (j = 0; j < r->nest; j++)
			widen(&we[j], r, report_row_est(r, &r->rows[i], j, 0)[0]);
	}
	table_counts(out, r, NULL);
	fprintf(out, "%-8s", "Perc");
	table_sizes(out, r, NULL, w, 0, 0);
	for (j = 0; j < r->nest; j++)
		fprintf(out, " %-*s", we[j], short_setting(r->est[j].setting));
	table_sizes(out, r, NULL, w, 0, 1);
	fprintf(out, " %s\n", "Path");
	for (i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];

		table_counts(out, r, row);
		table_perc(out, &row->size);
		table_sizes(out, r, &row->size, w, 0, 0);
		for (j = 0; j < r->nest; j++)
			fprintf(out, " %-*s", we[j],
				fmt_size_in(report_row_est(r, row, j, 0)[0],
					    &r->units, d));
		table_sizes(out, r, &row->size, w, 0, 1);
		fputc(' ', out);
		fmt_table_path(out, row->path);
		fputc('\n', out);
	}
	free(we);
	return 0;
}

/* "+12M", "-1.5G", "0B"; raw: "+12345". */
static void signed_size(int64_t delta, const struct fmt_units *u,
			char buf[FMT_BUF + 1])
{
	char tmp[FMT_BUF];
	uint64_t mag = delta < 0 ? -(uint64_t)delta : (uint64_t)delta;
	const char *p = fmt_size_in(mag, u, tmp);

	while (*p == ' ')
		p++;
	snprintf(buf, FMT_BUF + 1, "%s%s",
		 delta > 0 ? "+" : delta < 0 ? "-" : "", p);
}

/* MB/s as the table prints it; "-" when unknown (not measured), "<1"
 * when measured but too slow to show in whole MB/s. */
static void mbps(char *buf, size_t len, double v, const char *mark)
{
	if (v >= 0.5)
		snprintf(buf, len, "%.0fMB/s%s", v, mark);
	else if (v > 0)
		snprintf(buf, len, "<1MB/s%s", mark);
	else
		snprintf(buf, len, "-");
}

/* The estimate table's cells of e: Perc, Disk Usage, Change, Fresh copy
 * and Rewrite. */
struct est_cells {
	char perc[8];
	char disk[FMT_BUF], change[FMT_BUF + 1], fresh[FMT_BUF];
	char rewrite[2 * FMT_BUF + 4];	/* with its 95% half-width */
};

static void est_cells(const struct report *r, const struct report_est *e,
		      uint64_t now, struct est_cells *c)
{
	snprintf(c->perc, sizeof(c->perc), "%3u%%",
		 fmt_percent(e->disk, e->uncompressed));
	fmt_size_in(e->disk, &r->units, c->disk);
	signed_size((int64_t)(e->disk - now), &r->units, c->change);
	fmt_size_in(e->disk_fresh, &r->units, c->fresh);
	signed_size(e->rewrite_change, &r->units, c->rewrite);
	if (e->sampled && e->have_rewrite) {
		char ci[FMT_BUF];
		const char *p = fmt_size_in((uint64_t)(e->rewrite_ci95 + 0.5),
					    &r->units, ci);
		size_t n = strlen(c->rewrite);

		while (*p == ' ')
			p++;
		snprintf(c->rewrite + n, sizeof(c->rewrite) - n,
			 "\xc2\xb1%s", p);
	}
}

/* The bytes of cell beyond its columns: one for each \u00b1 (two bytes,
 * one column), the only character of more than one byte in cells. */
static int extra_bytes(const char *cell)
{
	int n = 0;

	for (; *cell; cell++)
		n += (unsigned char)cell[0] == 0xc2 &&
		     (unsigned char)cell[1] == 0xb1;
	return n;
}

static void grow(int *w, const char *cell)
{
	int cols = (int)strlen(cell) - extra_bytes(cell);

	if (cols > *w)
		*w = cols;
}

/* v in the table's units, without the padding. */
static const char *size_trim(uint64_t v, const struct report *r,
			     char buf[FMT_BUF])
{
	const char *p = fmt_size_in(v, &r->units, buf);

	while (*p == ' ')
		p++;
	return p;
}

static void table_estimates(FILE *out, const struct report *r)
{
	char ci[FMT_BUF], cs[32], ds[32];
	struct est_cells c;
	uint64_t now = current_disk(r);
	int same = r->est[0].same_layout;
	int wd = TABLE_COL, wc = TABLE_COL, wf = TABLE_COL, wr = TABLE_COL;
	int ranged = 0;
	size_t i;

	/* Columns as wide as their widest cell (-b of 13 digits or more,
	 * --kbytes). */
	for (i = 0; i < r->nest; i++) {
		est_cells(r, &r->est[i], now, &c);
		grow(&wd, c.disk);
		grow(&wc, c.change);
		grow(&wf, c.fresh);
		grow(&wr, c.rewrite);
	}
	fprintf(out, "%-24s %-8s %-*s %-*s ", "Setting", "Perc", wd,
		"Disk Usage", wc, "Change");
	if (same)
		fprintf(out, "%-*s ", wf, "Fresh copy");
	if (r->est[0].have_rewrite)
		fprintf(out, "%-*s ", wr, "Rewrite");
	for (i = 0; i < r->nest; i++)
		ranged |= r->est[i].same_layout && r->est[i].disk_extrapolated;
	fprintf(out, "%-10s %-10s%s%s\n", "Compress", "Decompress",
		r->est[0].sampled ? " 95% CI" : "",
		ranged ? " Disk Usage range" : "");
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		est_cells(r, e, now, &c);
		/* a speed not measured (nothing read) is no speed */
		mbps(cs, sizeof(cs), e->compress_mbps, "");
		mbps(ds, sizeof(ds), e->decompress_mbps, "");
		fprintf(out, "%s%-*s %-8s %-*s %-*s ", e->setting,
			24 - (int)strlen(e->setting), e->current ? "*" : "",
			c.perc, wd, c.disk, wc, c.change);
		if (same)
			fprintf(out, "%-*s ", wf, c.fresh);
		if (e->have_rewrite)
			fprintf(out, "%-*s ", wr + extra_bytes(c.rewrite),
				c.rewrite);
		fprintf(out, "%-10s %-10s", cs, ds);
		if (e->sampled)
			fprintf(out, " \xc2\xb1%s",
				fmt_size_in((uint64_t)(e->disk_ci95 + 0.5),
					    &r->units, ci));
		if (e->same_layout && e->disk_extrapolated) {
			char a[FMT_BUF], b[FMT_BUF];

			fprintf(out, " %s..%s", size_trim(e->disk_min, r, a),
				size_trim(e->disk_max, r, b));
		}
		fputc('\n', out);
	}
	if (ranged)
		fputs("Disk Usage range: where overwritten data that no file "
		      "references any more\nwas estimated from what remains, "
		      "the usage whatever that data was.\n", out);
	for (i = 0; i < r->nest; i++)
		if (r->est[i].current) {
			fputs("* the setting the filesystem is mounted with now\n",
			      out);
			break;
		}
	if (r->est[0].sampled) {
		const struct report_est *e = &r->est[0];
		char a[FMT_BUF], b[FMT_BUF];

		fprintf(out, "Sample: %" PRIu64 " of %" PRIu64
			" units read, %s of %s of data.\n", e->units_read,
			e->units, size_trim(e->data_read, r, a),
			size_trim(e->data, r, b));
	}
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
	struct report_row total = { 0 };
	int ret = 0;

	if (r->nrows) {
		ret = table_rows(out, r);
		if (ret)
			return ret;
		fputc('\n', out);
	}
	if (r->have_usage) {
		ret = total_row(r, &total);
		if (ret)
			return ret;
		ret = table_usage(out, err, r, &total);
		report_row_clear(&total);
	} else if (!r->total->nfiles) {
		fputs("No files.\n", err);
		ret = 1;
	} else {
		char a[FMT_BUF];
		const char *s = fmt_size_in(r->alloc_bytes, &r->units, a);

		while (*s == ' ')
			s++;
		fprintf(out, "Processed %" PRIu64 " file%s, %s allocated "
			"(current usage by compression type needs btrfs and root).\n",
			r->total->nfiles, r->total->nfiles > 1 ? "s" : "", s);
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

static void json_u64(FILE *out, const char *key, uint64_t v, int first)
{
	fprintf(out, "%s\"%s\":%" PRIu64, first ? "" : ",", key, v);
}

/* Where a value is: which fields have one there (JSON leaves the others
 * out, CSV leaves their cells empty). */
enum place {
	AT_TOTAL,		/* the grand total or a row's */
	AT_TOTAL_TYPE,		/* a type of the grand total */
	AT_ROW_TYPE,		/* a type of a row */
	AT_EST,			/* an estimate */
};

static int has_value(const struct field *f, enum place at)
{
	switch (at) {
	case AT_EST:
		return !!(f->flags & FIELD_EST);
	case AT_ROW_TYPE:
		return !(f->flags & FIELD_TOTAL_TYPES);
	default:
		return 1;
	}
}

/* The fields f[0..n) of base as JSON members, after others when !first. */
static void json_fields(FILE *out, const struct report *r,
			const struct field *f, size_t n, const void *base,
			enum place at, int first)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!field_shown(&f[i], r) || !has_value(&f[i], at))
			continue;
		if (f == fields_count && !field_in_row(&f[i], base))
			continue;
		if (f[i].flags & FIELD_BOOL)
			fprintf(out, "%s\"%s\":%s", first ? "" : ",", f[i].key,
				field_value(&f[i], base) ? "true" : "false");
		else
			json_u64(out, f[i].key, field_value(&f[i], base),
				 first);
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
	fputs(",\"total\":{", out);
	json_fields(out, r, fields_size, fields_nsize, &row->size, AT_TOTAL,
		    1);
	fputs("},\"types\":[", out);
	for (t = 0; t < row->ntypes; t++) {
		const struct row_type *rt = &row->types[t];

		fprintf(out, "%s{\"type\":\"%s\"", t ? "," : "",
			fmt_type_name(rt->type, name));
		json_fields(out, r, fields_size, fields_nsize, &rt->size,
			    type_at, 0);
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
		fmt_json_string(out, e->setting);
		if (row) {
			const uint64_t *v = report_row_est(r, row, i, 0);

			fprintf(out, ",\"input\":%" PRIu64 ",\"disk\":%" PRIu64
				",\"uncompressed\":%" PRIu64
				",\"disk_fresh\":%" PRIu64 "}",
				v[2], v[0], v[1], report_row_est(r, row, i, 1)[0]);
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
		if (e->have_rewrite)
			fprintf(out, ",\"rewrite_change\":%" PRId64,
				e->rewrite_change);
		if (e->have_rewrite && e->sampled)
			fprintf(out, ",\"rewrite_change_ci95\":%.0f",
				e->rewrite_ci95);
		if (e->same_layout && e->disk_extrapolated)
			fprintf(out, ",\"disk_extrapolated\":%" PRIu64
				",\"disk_min\":%" PRIu64 ",\"disk_max\":%"
				PRIu64, e->disk_extrapolated, e->disk_min,
				e->disk_max);
		if (e->sampled)
			fprintf(out, ",\"disk_ci95\":%.0f"
				",\"disk_fresh_ci95\":%.0f"
				",\"sample_units_read\":%" PRIu64
				",\"sample_units\":%" PRIu64
				",\"sample_data_read\":%" PRIu64
				",\"sample_data\":%" PRIu64, e->disk_ci95,
				e->fresh_ci95, e->units_read, e->units,
				e->data_read, e->data);
		fputc('}', out);
	}
	fputc(']', out);
}

static int print_json(FILE *out, const struct report *r)
{
	struct report_row total = { 0 };
	size_t i;
	int ret;

	ret = total_row(r, &total);
	if (ret)
		return ret;
	fputc('{', out);
	json_row_body(out, r, &total, AT_TOTAL_TYPE);
	if (!r->have_usage)
		fprintf(out, ",\"allocated\":%" PRIu64, r->alloc_bytes);
	if (r->nest)
		json_est(out, r, NULL);
	if (r->rows) {
		fprintf(out, ",\"%s\":[",
			r->show & REPORT_SHOW_SUBVOLUMES ? "subvolumes"
							 : "paths");
		for (i = 0; i < r->nrows; i++) {
			fputs(i ? ",{" : "{", out);
			fmt_json_path(out, "path", r->rows[i].path);
			fputc(',', out);
			json_row_body(out, r, &r->rows[i], AT_ROW_TYPE);
			if (r->nest)
				json_est(out, r, &r->rows[i]);
			fputc('}', out);
		}
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
	return 0;
}

/*
 * CSV: one header, one record per total, type, row and estimate; see
 * man/compsize.8.  The columns: kind, path, type, setting, the default
 * size and count fields, the estimates' columns (speeds, interval, fresh
 * copy, decision), then the optional fields asked for, so that the
 * default columns never move.
 */

static int csv_shown(const struct field *f, const struct report *r,
		     int optional)
{
	return field_shown(f, r) && !(f->flags & FIELD_NO_CSV) &&
	       !f->need == !optional;
}

static void csv_names(FILE *out, const struct report *r, int optional)
{
	size_t i;

	for (i = 0; i < fields_nsize; i++)
		if (csv_shown(&fields_size[i], r, optional))
			fprintf(out, ",%s", fields_size[i].key);
	for (i = 0; i < fields_ncount; i++)
		if (csv_shown(&fields_count[i], r, optional))
			fprintf(out, ",%s", fields_count[i].key);
}

/*
 * The cells of the default (or optional) size fields of s, then of the
 * count fields of counts (empty when NULL), each after a comma; empty
 * where the field has no value at that place.
 */
static void csv_cells(FILE *out, const struct report *r,
		      const struct report_sizes *s,
		      const struct report_row *counts, enum place at,
		      int optional)
{
	size_t i;

	for (i = 0; i < fields_nsize; i++) {
		const struct field *f = &fields_size[i];

		if (!csv_shown(f, r, optional))
			continue;
		fputc(',', out);
		if (has_value(f, at))
			fprintf(out, "%" PRIu64, field_value(f, s));
	}
	for (i = 0; i < fields_ncount; i++) {
		const struct field *f = &fields_count[i];

		if (!csv_shown(f, r, optional))
			continue;
		fputc(',', out);
		if (counts && field_in_row(f, counts))
			fprintf(out, "%" PRIu64, field_value(f, counts));
	}
}

/* The estimates' columns (decide.h) of records that have none. */
#define CSV_EST_COLUMNS "compress_mbps,decompress_mbps,disk_ci95," \
	"disk_fresh,current,compress_mbps_all,decompress_mbps_all," \
	"cpu_s_per_gb_write,cpu_s_per_gb_read,write_mbps,read_mbps," \
	"rewrite_change,disk_extrapolated,disk_min,disk_max," \
	"rewrite_change_ci95"
#define CSV_DECIDE_EMPTY ",,,,,,,,,,,,"

/* The estimates' cells: est's (a setting's total), else only disk_fresh
 * when fresh is not NULL (a row's estimate). */
static void csv_est_cells(FILE *out, const struct report *r,
			  const struct report_est *est, const uint64_t *fresh)
{
	if (!est) {
		fputs(",,,,", out);
		if (fresh)
			fprintf(out, "%" PRIu64, *fresh);
		fputs(CSV_DECIDE_EMPTY, out);
		return;
	}
	fprintf(out, ",%.1f,%.1f,", est->compress_mbps, est->decompress_mbps);
	if (est->sampled)
		fprintf(out, "%.0f", est->disk_ci95);
	fprintf(out, ",%" PRIu64 ",%d,%.1f,%.1f,%.4f,%.4f,", est->disk_fresh,
		est->current, est->dec.compress_all_mbps,
		est->dec.decompress_all_mbps, est->dec.cpu_s_per_gb_write,
		est->dec.cpu_s_per_gb_read);
	if (r->dev_write_mbps > 0)
		fprintf(out, "%.1f,%.1f", est->dec.write_mbps,
			est->dec.read_mbps);
	else
		fputc(',', out);
	fputc(',', out);
	if (est->have_rewrite)
		fprintf(out, "%" PRId64, est->rewrite_change);
	if (est->same_layout && est->disk_extrapolated)
		fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			est->disk_extrapolated, est->disk_min, est->disk_max);
	else
		fputs(",,,", out);
	fputc(',', out);
	if (est->have_rewrite && est->sampled)
		fprintf(out, "%.0f", est->rewrite_ci95);
}

/* A record; est and fresh as csv_est_cells(). */
static void csv_record(FILE *out, const struct report *r, const char *kind,
		       const char *path, const char *type,
		       const char *setting, const struct report_sizes *s,
		       const struct report_row *counts, enum place at,
		       const struct report_est *est, const uint64_t *fresh)
{
	fprintf(out, "%s,", kind);
	fmt_csv_field(out, path ? path : "");
	fprintf(out, ",%s,", type ? type : "");
	fmt_csv_field(out, setting ? setting : "");
	csv_cells(out, r, s, counts, at, 0);
	csv_est_cells(out, r, est, fresh);
	csv_cells(out, r, s, counts, at, 1);
	fputc('\n', out);
}

/* type_at: as json_row_body(). */
static void csv_row(FILE *out, const struct report *r, const char *kind,
		    const struct report_row *row, enum place type_at)
{
	char name[FMT_BUF];
	unsigned t;

	csv_record(out, r, kind, row->path, "TOTAL", NULL, &row->size, row,
		   AT_TOTAL, NULL, NULL);
	for (t = 0; t < row->ntypes; t++) {
		const struct row_type *rt = &row->types[t];

		csv_record(out, r, kind, row->path,
			   fmt_type_name(rt->type, name), NULL, &rt->size,
			   NULL, type_at, NULL, NULL);
	}
}

static int print_csv(FILE *out, const struct report *r)
{
	struct report_row total = { 0 };
	struct report_sizes s;
	size_t i, j;
	int ret;

	ret = total_row(r, &total);
	if (ret)
		return ret;
	fputs("kind,path,type,setting", out);
	csv_names(out, r, 0);
	fputs("," CSV_EST_COLUMNS, out);
	csv_names(out, r, 1);
	fputc('\n', out);
	csv_row(out, r, "total", &total, AT_TOTAL_TYPE);
	for (i = 0; i < r->nrows; i++)
		csv_row(out, r,
			r->show & REPORT_SHOW_SUBVOLUMES ? "subvolume" : "path",
			&r->rows[i], AT_ROW_TYPE);
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		memset(&s, 0, sizeof(s));
		s.disk = e->disk;
		s.uncomp = e->uncompressed;
		csv_record(out, r, "estimate", NULL, NULL, e->setting, &s,
			   NULL, AT_EST, e, NULL);
		for (j = 0; j < r->nrows; j++) {
			const struct report_row *row = &r->rows[j];
			const uint64_t *v = report_row_est(r, row, i, 0);

			s.disk = v[0];
			s.uncomp = v[1];
			csv_record(out, r, "estimate", row->path, NULL,
				   e->setting, &s, NULL, AT_EST, NULL,
				   &report_row_est(r, row, i, 1)[0]);
		}
	}
	report_row_clear(&total);
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
			const uint64_t *v = report_row_est(r, row, i, 0);

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
	case REPORT_PROMETHEUS:
		ret = prom_print(out, r);
		break;
	case REPORT_NCDU:
		ret = ncdu_print(r->tree, out, COMPSIZE_VERSION, r->timestamp);
		break;
	default:
		return print_table(out, err, r);
	}
	if (ret)
		return ret;
	return nothing(r);
}
