// SPDX-License-Identifier: GPL-2.0
/*
 * The report as tables (table.h).  Which columns there are, their headers,
 * cells and widths come from fields.h; this file only lays them out: each
 * column after a space, padded to its width unless it is a last one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/fields.h"
#include "report/format.h"
#include "report/table.h"

/* Usage: compsize 1.5's columns, 12 characters and a space each. */

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
			int optional, int grand_type)
{
	size_t i, last = table_last(r);
	char buf[FIELD_CELL];
	const char *cell;

	for (i = 0; i < fields_nsize; i++) {
		const struct field *f = &fields_size[i];

		if (!f->label || !field_shown(f, r) || !f->need != !optional)
			continue;
		cell = !s ? f->label : field_text(f, r, s, buf);
		if (s && grand_type && !field_size_at(f, r, 1, 1, 0)) {
			/* no value: "-", aligned as a size would be */
			char dash[FIELD_CELL];
			int n = (int)strlen(cell);

			snprintf(dash, sizeof(dash), "%*s", n, "-");
			memcpy(buf, dash, sizeof(dash));
			cell = buf;
		}
		if (trim && i == last && f->need)
			fprintf(out, " %s", cell);
		else
			fprintf(out, " %-*s", w[i], cell);
	}
}

/* Every size column of the 1.5 table. */
static void table_all_sizes(FILE *out, const struct report *r,
			    const struct report_sizes *s, const int *w,
			    int grand_type)
{
	table_sizes(out, r, s, w, 1, 0, grand_type);
	table_sizes(out, r, s, w, 1, 1, grand_type);
}

/* Perc, in its 8 characters. */
static void table_perc(FILE *out, uint64_t disk, uint64_t uncomp)
{
	char p[8];

	snprintf(p, sizeof(p), "%3u%%", fmt_percent(disk, uncomp));
	fprintf(out, "%-8s", p);
}

/* compsize 1.5's table of the total, byte for byte. */
static int usage(FILE *out, FILE *err, const struct report *r,
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
	table_all_sizes(out, r, NULL, w, 0);
	fprintf(out, "\n%-10s ", "TOTAL");
	table_perc(out, total->size.disk, total->size.uncomp);
	table_all_sizes(out, r, &total->size, w, 0);
	fputc('\n', out);
	for (t = 0; t < total->ntypes; t++) {
		const struct row_type *rt = &total->types[t];

		/* --compare: a type gone since is in the change table only */
		if (rt->change.status == CHANGE_REMOVED)
			continue;
		fprintf(out, "%-10s ", fmt_type_name(rt->type, name));
		table_perc(out, rt->size.disk, rt->size.uncomp);
		table_all_sizes(out, r, &rt->size, w, 1);
		fputc('\n', out);
	}
	return 0;
}

int table_usage(FILE *out, FILE *err, const struct cs_stats *st, int raw)
{
	struct report r = { .format = REPORT_TABLE, .total = st,
			    .have_usage = 1 };
	struct report_row total = { 0 };
	int ret;

	r.units.mode = raw ? FMT_MODE_RAW : FMT_MODE_15;
	ret = report_row_fill(&total, st);
	if (!ret)
		ret = usage(out, err, &r, &total);
	report_row_clear(&total);
	return ret;
}

/* Rows */

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

/* With --subvolumes, the count fields that have a label, before Perc:
 * their labels when row is NULL, else row's values; each column as wide
 * as its widest cell. */
static void table_counts(FILE *out, const struct report *r,
			 const struct report_row *row)
{
	char buf[FIELD_CELL];
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
			if ((int)strlen(field_text(f, r, &r->rows[k], buf)) > w)
				w = (int)strlen(field_text(f, r, &r->rows[k],
							   buf));
		fprintf(out, "%-*s ", w, row ? field_text(f, r, row, buf)
					     : f->label);
	}
}

/* The estimate fields the rows' table shows, a column per setting. */
static int per_setting(const struct field *f)
{
	return !!(f->flags & FIELD_PER_SETTING);
}

int table_spool_row(FILE *out, const struct report_row *row)
{
	uint32_t len = (uint32_t)strlen(row->path);

	fwrite(&row->size, sizeof(row->size), 1, out);
	fwrite(&len, sizeof(len), 1, out);
	fwrite(row->path, 1, len, out);
	return 0;
}

/* The rows of a report, kept (r->rows) or streamed (r->spool: what
 * table_spool_row() wrote, read back into row). */
struct row_iter {
	const struct report *r;
	size_t i;
	struct report_row row;
	size_t cap;		/* row.path's bytes */
	int err;		/* reading the spool failed: -errno */
};

/* From the first row.  Returns 0 or -errno. */
static int iter_start(struct row_iter *it)
{
	it->i = 0;
	errno = 0;
	if (it->r->spool && (fflush(it->r->spool) ||
			     fseeko(it->r->spool, 0, SEEK_SET)))
		return errno ? -errno : -EIO;
	return 0;
}

/* The next row, or NULL at the end or on an error (it->err). */
static const struct report_row *iter_next(struct row_iter *it)
{
	FILE *f = it->r->spool;
	uint32_t len;
	char *p;

	if (it->i >= it->r->nrows)
		return NULL;
	if (!f)
		return &it->r->rows[it->i++];
	if (fread(&it->row.size, sizeof(it->row.size), 1, f) != 1 ||
	    fread(&len, sizeof(len), 1, f) != 1)
		goto fail;
	if (len >= it->cap) {
		p = realloc(it->row.path, (size_t)len + 1);
		if (!p) {
			it->err = -ENOMEM;
			return NULL;
		}
		it->row.path = p;
		it->cap = (size_t)len + 1;
	}
	if (fread(it->row.path, 1, len, f) != len)
		goto fail;
	it->row.path[len] = 0;
	it->i++;
	return &it->row;
fail:
	it->err = ferror(f) && errno ? -errno : -EIO;
	return NULL;
}

/* The rows' table: Perc, the default sizes, each setting's predicted Disk
 * Usage of the row (the estimate table's model: which directories gain),
 * the optional sizes, Path; each column as wide as its widest cell. */
static int table_rows(FILE *out, const struct report *r)
{
	size_t nw = r->nest * fields_nest;
	int w[FIELDS_MAX], *we = calloc(nw ? nw : 1, sizeof(*we));
	struct row_iter it = { .r = r };
	const struct report_row *row;
	char d[FIELD_CELL];
	struct est_view v;
	size_t j, k;
	int ret;

	if (!we)
		return -ENOMEM;
	ret = iter_start(&it);
	if (ret)
		goto out;
	widths_init(w, fields_nsize);
	for (k = 0; k < fields_nest; k++)
		for (j = 0; per_setting(&fields_est[k]) && j < r->nest; j++)
			we[k * r->nest + j] = setting_width(r->est[j].setting);
	while ((row = iter_next(&it))) {
		widen_sizes(w, r, &row->size);
		for (j = 0; j < r->nest; j++) {
			report_est_view(r, j, row, &v);
			for (k = 0; k < fields_nest; k++) {
				int *wk = &we[k * r->nest + j];
				int len;

				if (!per_setting(&fields_est[k]))
					continue;
				len = (int)strlen(field_text(&fields_est[k], r,
							     &v, d));
				if (len > *wk)
					*wk = len;
			}
		}
	}
	table_counts(out, r, NULL);
	fprintf(out, "%-8s", "Perc");
	table_sizes(out, r, NULL, w, 0, 0, 0);
	for (k = 0; k < fields_nest; k++)
		for (j = 0; per_setting(&fields_est[k]) && j < r->nest; j++)
			fprintf(out, " %-*s", we[k * r->nest + j],
				short_setting(r->est[j].setting));
	ret = it.err ? it.err : iter_start(&it);
	if (ret)
		goto out;
	table_sizes(out, r, NULL, w, 0, 1, 0);
	fprintf(out, " %s\n", "Path");
	while ((row = iter_next(&it))) {
		table_counts(out, r, row);
		table_perc(out, row->size.disk, row->size.uncomp);
		table_sizes(out, r, &row->size, w, 0, 0, 0);
		for (k = 0; k < fields_nest; k++)
			for (j = 0; per_setting(&fields_est[k]) &&
				    j < r->nest; j++) {
				report_est_view(r, j, row, &v);
				fprintf(out, " %-*s", we[k * r->nest + j],
					field_text(&fields_est[k], r, &v, d));
			}
		table_sizes(out, r, &row->size, w, 0, 1, 0);
		fputc(' ', out);
		if (row->deleting)	/* unlinked: no path */
			fputs("<being deleted>", out);
		else
			fmt_table_path(out, row->path);
		fputc('\n', out);
	}
	ret = it.err;
out:
	free(it.row.path);
	free(we);
	return ret;
}

/* Estimates and decisions: a line per setting, the fields_est columns. */

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

/* Has v a cell in f's column? */
static int est_cell(const struct field *f, const struct report *r,
		    const struct est_view *v)
{
	return field_has(f, r, v) &&
	       (!(f->flags & FIELD_IF_SAME) || v->e.same_layout);
}

/* The columns of the estimate table (or with decide, the decision
 * table): the fields with a label of which some setting has a value,
 * into cols, with their widths in w; returns how many. */
static size_t est_columns(const struct report *r, int decide,
			  const struct field **cols, int *w)
{
	char buf[FIELD_CELL];
	struct est_view v;
	size_t i, k, n = 0;

	for (k = 0; k < fields_nest; k++) {
		const struct field *f = &fields_est[k];
		int shown = 0;

		if (!f->label || !(f->flags & FIELD_DECIDE) != !decide)
			continue;
		w[n] = f->width;
		for (i = 0; i < r->nest; i++) {
			report_est_view(r, i, NULL, &v);
			if (!est_cell(f, r, &v))
				continue;
			shown = 1;
			if (f->flags & FIELD_GROW) {
				const char *cell = field_text(f, r, &v, buf);
				int width = (int)strlen(cell) -
					    extra_bytes(cell);

				if (width > w[n])
					w[n] = width;
			}
		}
		if (shown)
			cols[n++] = f;
	}
	return n;
}

/* The headers of cols, or with v the cells of that setting. */
static void est_line(FILE *out, const struct report *r,
		     const struct field **cols, const int *w, size_t n,
		     const struct est_view *v)
{
	char buf[FIELD_CELL];
	const char *cell;
	size_t k;

	for (k = 0; k < n; k++) {
		const struct field *f = cols[k];

		if (!v && (f->flags & FIELD_X_CPUS)) {
			snprintf(buf, sizeof(buf), "%s%u", f->label, r->cpus);
			cell = buf;
		} else if (!v) {
			cell = f->label;
		} else if (est_cell(f, r, v)) {
			cell = field_text(f, r, v, buf);
		} else {
			if (!w[k])
				continue;
			cell = "";
		}
		if (w[k])
			fprintf(out, " %-*s", w[k] + extra_bytes(cell), cell);
		else
			fprintf(out, " %s", cell);
	}
	fputc('\n', out);
}

static void table_estimates(FILE *out, const struct report *r)
{
	const struct field *cols[FIELDS_EST_MAX];
	int w[FIELDS_EST_MAX];
	size_t n = est_columns(r, 0, cols, w), i;
	struct est_view v;
	int ranged = 0;

	fprintf(out, "%-24s %-8s", "Setting", "Perc");
	est_line(out, r, cols, w, n, NULL);
	for (i = 0; i < r->nest; i++) {
		const struct report_est *e = &r->est[i];

		report_est_view(r, i, NULL, &v);
		fprintf(out, "%s%-*s ", e->setting,
			24 - (int)strlen(e->setting), e->current ? "*" : "");
		table_perc(out, e->disk, e->uncompressed);
		est_line(out, r, cols, w, n, &v);
		ranged |= e->same_layout && e->disk_extrapolated;
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
	/* layout_set_anchor(): without it, what remains of overwritten
	 * extents is scaled by its part of them, which can be far off */
	if (ranged && i == r->nest)
		fputs("None of these is the setting the filesystem is mounted "
		      "with: overwritten files\nare scaled from what remains "
		      "of their extents, which may be far off; list the\n"
		      "mounted setting too to have them predicted against "
		      "it.\n", out);
	if (r->est[0].sampled) {
		const struct report_est *e = &r->est[0];
		char a[FMT_BUF], b[FMT_BUF];

		fprintf(out, "Sample: %" PRIu64 " of %" PRIu64
			" units read, %s of %s of data.\n", e->units_read,
			e->units, field_size_trim(e->data_read, r, a),
			field_size_trim(e->data, r, b));
	}
}

/* The decision table: what each setting costs and gives on all cores,
 * and on the device of --device-speed. */
static void table_decide(FILE *out, const struct report *r)
{
	const struct field *cols[FIELDS_EST_MAX];
	int w[FIELDS_EST_MAX];
	size_t n = est_columns(r, 1, cols, w), i;
	struct est_view v;

	fprintf(out, "%-24s", "Setting");
	est_line(out, r, cols, w, n, NULL);
	for (i = 0; i < r->nest; i++) {
		report_est_view(r, i, NULL, &v);
		fprintf(out, "%-24s", v.e.setting);
		est_line(out, r, cols, w, n, &v);
	}
	if (r->dev_write_mbps > 0)
		fprintf(out, "Write, Read: file data through a device of %.0f "
			"MB/s write, %.0f MB/s read (dev: the device limits it, "
			"cpu: the %u CPUs)\n", r->dev_write_mbps,
			r->dev_read_mbps, r->cpus);
}

/* --histogram: a line per type and size class, each column as wide as
 * its widest cell; a size class is named by its longest extent. */
static int table_hist(FILE *out, const struct report *r)
{
	int w[16] = { 0 }, compressed = 0;
	char buf[FIELD_CELL], name[FMT_BUF];
	struct report_hist *h;
	size_t n, i, k;
	int ret = report_hist_rows(r, &h, &n);

	_Static_assert(sizeof(w) / sizeof(w[0]) >= 5, "a width per field");
	if (ret || !n)
		return ret;
	for (k = 0; k < fields_nhist; k++) {
		w[k] = (int)strlen(fields_hist[k].label);
		for (i = 0; i < n; i++) {
			int len = (int)strlen(fields_hist[k].type == FT_BYTES ?
				field_size_trim(field_value(&fields_hist[k],
							    &h[i]), r, buf) :
				field_text(&fields_hist[k], r, &h[i], buf));
			if (len > w[k])
				w[k] = len;
		}
	}
	fputs("\nExtent sizes (each extent once, by its uncompressed length):\n",
	      out);
	fprintf(out, "%-10s", "Type");
	for (k = 0; k < fields_nhist; k++)
		fprintf(out, " %*s", w[k], fields_hist[k].label);
	fputc('\n', out);
	for (i = 0; i < n; i++) {
		fprintf(out, "%-10s", fmt_type_name(h[i].type, name));
		for (k = 0; k < fields_nhist; k++) {
			const struct field *f = &fields_hist[k];

			fprintf(out, " %*s", w[k], f->type == FT_BYTES ?
				field_size_trim(field_value(f, &h[i]), r, buf) :
				field_text(f, r, &h[i], buf));
		}
		fputc('\n', out);
		compressed |= h[i].type > 0 && h[i].type < CS_TYPE_PREALLOC;
	}
	if (compressed)
		fputs("A compressed extent holds at most 128K of data by design: many of them is\n"
		      "not fragmentation.\n", out);
	free(h);
	return 0;
}

/* --compare: one line of the change table; with row NULL, its header.
 * name is the first column (a type's, or TOTAL), path the last. */
static void change_line(FILE *out, const struct report *r, const int *w,
			const char *name, const struct report_change *ch,
			int is_type, const char *path)
{
	char buf[FIELD_CELL];
	size_t k;

	fprintf(out, "%-10s", name);
	for (k = 0; k < fields_nchange; k++) {
		const struct field *f = &fields_change[k];
		const char *cell = !ch ? f->label :
				   is_type && (f->flags & FIELD_NO_TYPES) ?
				   "" : field_text(f, r, ch, buf);

		if (k + 1 == fields_nchange && !path)
			fprintf(out, " %s", cell);	/* last: no padding */
		else
			fprintf(out, " %-*s", w[k], cell);
	}
	if (path) {
		fputc(' ', out);
		fmt_table_path(out, path);
	}
	fputc('\n', out);
}

static void change_widen(int *w, const struct report *r,
			 const struct report_change *ch)
{
	char buf[FIELD_CELL];
	size_t k;

	for (k = 0; k < fields_nchange; k++) {
		int len = (int)strlen(field_text(&fields_change[k], r, ch, buf));

		if (len > w[k])
			w[k] = len;
	}
}

/* --compare: the grand total's change and its types', then each row's
 * (the rows' types are in JSON and CSV). */
static int table_compare(FILE *out, const struct report *r, int first)
{
	struct report_row total = { 0 };
	char name[FMT_BUF];
	int w[8];
	size_t k, i;
	unsigned t;
	int ret;

	_Static_assert(sizeof(w) / sizeof(w[0]) >= 5, "a width per field");
	ret = report_total_row(r, &total);
	if (ret)
		return ret;
	for (k = 0; k < fields_nchange; k++)
		w[k] = (int)strlen(fields_change[k].label);
	change_widen(w, r, &total.change);
	for (t = 0; t < total.ntypes; t++)
		change_widen(w, r, &total.types[t].change);
	for (i = 0; i < r->nrows; i++)
		change_widen(w, r, &r->rows[i].change);
	fputs(first ? "Change since " : "\nChange since ", out);
	fmt_table_path(out, r->cmp_path ? r->cmp_path : "");
	fputs(":\n", out);
	change_line(out, r, w, "Type", NULL, 0, NULL);
	change_line(out, r, w, "TOTAL", &total.change, 0, NULL);
	for (t = 0; t < total.ntypes; t++)
		change_line(out, r, w, fmt_type_name(total.types[t].type, name),
			    &total.types[t].change, 1, NULL);
	if (r->nrows) {
		fputc('\n', out);
		change_line(out, r, w, "", NULL, 0, "Path");
		for (i = 0; i < r->nrows; i++)
			change_line(out, r, w, "", &r->rows[i].change, 0,
				    r->rows[i].path ? r->rows[i].path : "");
	}
	report_row_clear(&total);
	return 0;
}

/* --levels: a row per algorithm and set of levels ("zstd:1-2", "zlib:?"),
 * fields_level's columns after it. */
static void table_levels(FILE *out, const struct report *r)
{
	char name[FMT_BUF], set[FMT_LEVELS], label[FMT_BUF + FMT_LEVELS],
		cell[FIELD_CELL];
	size_t i, k;

	fprintf(out, "%-12s", "Levels");
	for (k = 0; k < fields_nlevel; k++)
		fprintf(out, " %*s", fields_level[k].width ?
			fields_level[k].width : 12, fields_level[k].label);
	fputc('\n', out);
	if (!r->nlevels)
		fputs("(no zlib or zstd extents)\n", out);
	for (i = 0; i < r->nlevels; i++) {
		const struct report_level *l = &r->levels[i];

		snprintf(label, sizeof(label), "%s:%s",
			 fmt_type_name(l->type, name),
			 fmt_level_set(l->mask, set));
		fprintf(out, "%-12s", label);
		for (k = 0; k < fields_nlevel; k++)
			fprintf(out, " %*s", fields_level[k].width ?
				fields_level[k].width : 12,
				field_text(&fields_level[k], r, l, cell));
		fputc('\n', out);
	}
}

int table_print(FILE *out, FILE *err, const struct report *r)
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
		ret = report_total_row(r, &total);
		if (ret)
			return ret;
		ret = usage(out, err, r, &total);
		report_row_clear(&total);
		if (!ret && table_hist(out, r))
			return -ENOMEM;
		/* even with nothing left to report: what went */
		if (r->cmp && table_compare(out, r, ret == 1))
			return -ENOMEM;
	} else if (!r->total->nfiles) {
		fputs("No files.\n", err);
		ret = 1;
	} else {
		char a[FMT_BUF];

		fprintf(out, "Processed %" PRIu64 " file%s, %s allocated "
			"(current usage by compression type needs btrfs and root).\n",
			r->total->nfiles, r->total->nfiles > 1 ? "s" : "",
			field_size_trim(r->alloc_bytes, r, a));
	}
	if (r->nest && r->total->nfiles) {
		fputc('\n', out);
		table_estimates(out, r);
		fputc('\n', out);
		table_decide(out, r);
	}
	if (r->show & REPORT_SHOW_LEVELS) {
		fputc('\n', out);
		table_levels(out, r);
	}
	return ret;
}
