// SPDX-License-Identifier: GPL-2.0
/* The report's columns (fields.h): one line each, and how each type of
 * value is written in each format. */
#include <inttypes.h>
#include <string.h>
#include "report/fields.h"
#include "report/format.h"

#define SIZE(m) offsetof(struct report_sizes, m)
#define COUNT(m) offsetof(struct report_row, m)
#define EST(m) offsetof(struct est_view, e.m)
#define DEC(m) offsetof(struct est_view, e.dec.m)
#define VIEW(m) offsetof(struct est_view, m)

const struct field fields_size[] = {
	{ "disk", "Disk Usage", FT_BYTES, SIZE(disk), 0, 0,
	  .help = "Bytes on disk after compression, each extent counted once" },
	{ "uncompressed", "Uncompressed", FT_BYTES, SIZE(uncomp), 0, 0,
	  .help = "The same extents' bytes before compression" },
	{ "referenced", "Referenced", FT_BYTES, SIZE(refd), 0, 0,
	  .help = "Bytes the files reference, each reference counted" },
	{ "exclusive", "Exclusive", FT_BYTES, SIZE(excl), FIELD_TOTAL_TYPES,
	  REPORT_SHOW_EXCLUSIVE,
	  .help = "Bytes on disk deleting the files would free: exclusive_data + exclusive_metadata; for a subvolume, the kernel's qgroup excl" },
	{ "exclusive_data", NULL, FT_BYTES, SIZE(excl_data), FIELD_TOTAL_TYPES,
	  REPORT_SHOW_EXCLUSIVE,
	  .help = "Of Exclusive, data extents no reference outside the files reaches (disk bytes)" },
	{ "exclusive_metadata", NULL, FT_BYTES, SIZE(excl_meta),
	  FIELD_TOTAL_TYPES, REPORT_SHOW_EXCLUSIVE,
	  .help = "Of Exclusive, metadata: the files' inline data in leaves no other subvolume shares; for a subvolume, its tree blocks no other one reaches" },
	{ "qgroup_referenced", NULL, FT_BYTES, SIZE(qg_rfer),
	  FIELD_TOTAL_TYPES | FIELD_ROW_ONLY,
	  REPORT_SHOW_EXCLUSIVE | REPORT_SHOW_SUBVOLUMES,
	  .help = "The kernel's qgroup rfer: data extents and tree blocks the subvolume reaches" },
	{ "waste", "Waste", FT_BYTES, SIZE(waste), FIELD_TOTAL_TYPES,
	  REPORT_SHOW_WASTE,
	  .help = "Disk bytes of the extents the files reference that no reference anywhere reaches (bookends); a row counts each of its extents' whole waste" },
};
const size_t fields_nsize = sizeof(fields_size) / sizeof(fields_size[0]);
_Static_assert(sizeof(fields_size) / sizeof(fields_size[0]) <= FIELDS_MAX,
	       "FIELDS_MAX must hold every size field");

const struct field fields_count[] = {
	{ "id", "ID", FT_COUNT, COUNT(id), FIELD_ROW_ONLY,
	  REPORT_SHOW_SUBVOLUMES, .help = "The subvolume's id" },
	{ "readonly", "Flags", FT_FLAG, COUNT(readonly), FIELD_ROW_ONLY,
	  REPORT_SHOW_SUBVOLUMES,
	  .help = "1 when the subvolume is read-only" },
	{ "being_deleted", NULL, FT_FLAG, COUNT(deleting), FIELD_ROW_ONLY,
	  REPORT_SHOW_SUBVOLUMES,
	  .help = "1 for a subvolume deleted but not yet cleaned: what it holds, the cleaner frees" },
	{ "files", "Files", FT_COUNT, COUNT(files), 0, 0,
	  .help = "Regular files counted, once per path" },
	{ "extents", NULL, FT_COUNT, COUNT(extents), 0, 0,
	  .help = "Distinct regular extents" },
	{ "refs", NULL, FT_COUNT, COUNT(refs), 0, 0,
	  .help = "References to regular extents" },
	{ "inline", NULL, FT_COUNT, COUNT(ninline), 0, 0,
	  .help = "Inline extents (data kept in metadata)" },
	/* JSON only: it came after CSV's columns, which scripts read by
	 * position and tests/cli/051-golden fixes; a column for it would
	 * go at the end */
	{ "fragments", NULL, FT_COUNT, COUNT(nfrag), FIELD_NO_CSV, 0,
	  .help = "Runs of physically contiguous data" },
};
const size_t fields_ncount = sizeof(fields_count) / sizeof(fields_count[0]);

#define HIST(m) offsetof(struct report_hist, m)

const struct field fields_hist[] = {
	{ "size_max", "Up to", FT_BYTES, HIST(size_max), 0,
	  REPORT_SHOW_HISTOGRAM,
	  .help = "--histogram: the longest extent of the class (uncompressed length, 4K << k)" },
	{ "extents", "Extents", FT_COUNT, HIST(extents), 0,
	  REPORT_SHOW_HISTOGRAM,
	  .help = "--histogram: regular and prealloc extents of the class, each once" },
	{ "inline", "Inline", FT_COUNT, HIST(ninline), 0,
	  REPORT_SHOW_HISTOGRAM,
	  .help = "--histogram: inline extents of the class" },
	{ "disk", "Disk Usage", FT_BYTES, HIST(disk), 0, REPORT_SHOW_HISTOGRAM,
	  .help = "--histogram: the class's bytes on disk" },
	{ "uncompressed", "Uncompressed", FT_BYTES, HIST(uncomp), 0,
	  REPORT_SHOW_HISTOGRAM,
	  .help = "--histogram: the class's bytes before compression" },
};
const size_t fields_nhist = sizeof(fields_hist) / sizeof(fields_hist[0]);

#define CHANGE(m) offsetof(struct report_change, m)

static const char *const status_names[] = { "kept", "added", "removed" };

const struct field fields_change[] = {
	{ "status", "Status", FT_ENUM, CHANGE(status), 0, REPORT_SHOW_COMPARE,
	  .names = status_names,
	  .help = "--compare: kept (in both reports), added (in this one only) or removed (in the one compared only: 0 now)" },
	{ "disk_change", "Disk Usage", FT_CHANGE, CHANGE(disk), 0,
	  REPORT_SHOW_COMPARE, .help = "--compare: disk less then" },
	{ "uncompressed_change", "Uncompressed", FT_CHANGE, CHANGE(uncomp), 0,
	  REPORT_SHOW_COMPARE, .help = "--compare: uncompressed less then" },
	{ "referenced_change", "Referenced", FT_CHANGE, CHANGE(refd), 0,
	  REPORT_SHOW_COMPARE, .help = "--compare: referenced less then" },
	{ "files_change", "Files", FT_DCOUNT, CHANGE(files), FIELD_NO_TYPES,
	  REPORT_SHOW_COMPARE, .help = "--compare: files less then" },
};
const size_t fields_nchange = sizeof(fields_change) /
			      sizeof(fields_change[0]);

#define LEVEL(m) offsetof(struct report_level, m)

/* JSON and the table only: a row of levels is neither a path's nor a
 * setting's, and CSV's records have no kind for it yet */
const struct field fields_level[] = {
	{ "extents", "Extents", FT_COUNT, LEVEL(extents), FIELD_NO_CSV,
	  REPORT_SHOW_LEVELS, .width = 10,
	  .help = "Compressed extents whose bytes these levels reproduce" },
	{ "disk", "Disk Usage", FT_BYTES, LEVEL(disk), FIELD_NO_CSV,
	  REPORT_SHOW_LEVELS,
	  .help = "Their bytes on disk, each extent counted once" },
};
const size_t fields_nlevel = sizeof(fields_level) / sizeof(fields_level[0]);

/* The value of f at base, of n bytes, into v. */
static void field_get(const struct field *f, const void *base, void *v,
		      size_t n)
{
	memcpy(v, (const char *)base + f->offset, n);
}

uint64_t field_value(const struct field *f, const void *base)
{
	uint64_t v;

	field_get(f, base, &v, sizeof(v));
	return v;
}

static int field_int(const struct field *f, const void *base)
{
	int v;

	field_get(f, base, &v, sizeof(v));
	return v;
}

static int64_t field_signed(const struct field *f, const void *base)
{
	return (int64_t)field_value(f, base);
}

static double field_double(const struct field *f, const void *base)
{
	double v;

	field_get(f, base, &v, sizeof(v));
	return v;
}

/* "+12M", "-1.5G", "0B"; raw: "+12345". */
static const char *signed_size(int64_t delta, const struct report *r,
			       char *buf)
{
	char tmp[FMT_BUF];
	uint64_t mag = delta < 0 ? -(uint64_t)delta : (uint64_t)delta;

	snprintf(buf, FIELD_CELL, "%s%s",
		 delta > 0 ? "+" : delta < 0 ? "-" : "",
		 field_size_trim(mag, r, tmp));
	return buf;
}

/* MB/s as the table prints it; "-" when unknown (not measured), "<1"
 * when measured but too slow to show in whole MB/s. */
/*
 * A speed in the table, to two significant digits (1400MB/s, 72MB/s): a
 * figure measured on a machine shared with other work moves by a tenth
 * or more from run to run (bench/RESULTS.md), and a third or fourth digit
 * would claim what was not measured.  JSON, CSV and Prometheus carry the
 * figure as measured.
 */
static const char *mbps(double v, const char *mark, char *buf)
{
	double unit = 1;

	while (v >= 99.5 * unit)
		unit *= 10;
	v = v >= 0.5 ? (double)(uint64_t)(v / unit + 0.5) * unit : v;
	if (v >= 0.5)
		snprintf(buf, FIELD_CELL, "%.0fMB/s%s", v, mark);
	else if (v > 0)
		snprintf(buf, FIELD_CELL, "<1MB/s%s", mark);
	else
		snprintf(buf, FIELD_CELL, "-");
	return buf;
}

/* Rewrite: the change, and sampled its 95% interval's half-width. */
static const char *cell_rewrite(const struct field *f, const struct report *r,
				const void *base, char *buf)
{
	const struct est_view *v = base;
	char ci[FMT_BUF];
	size_t n;

	(void)f;
	signed_size(v->e.rewrite_change, r, buf);
	if (v->e.sampled && v->e.have_rewrite) {
		n = strlen(buf);
		snprintf(buf + n, FIELD_CELL - n, "\xc2\xb1%s",
			 field_size_trim((uint64_t)(v->e.rewrite_ci95 + 0.5),
					 r, ci));
	}
	return buf;
}

/* Disk Usage range: the least and the most, "1.0M..1.5M". */
static const char *cell_range(const struct field *f, const struct report *r,
			      const void *base, char *buf)
{
	const struct est_view *v = base;
	char a[FMT_BUF], b[FMT_BUF];

	(void)f;
	snprintf(buf, FIELD_CELL, "%s..%s",
		 field_size_trim(v->e.disk_min, r, a),
		 field_size_trim(v->e.disk_max, r, b));
	return buf;
}

/* Write, Read: through the device, and whether the device or the CPUs
 * limit it. */
static const char *cell_through(const struct field *f,
				const struct report *r, const void *base,
				char *buf)
{
	const struct decide_out *d = &((const struct est_view *)base)->e.dec;
	int bound = f->offset == DEC(read_mbps) ? d->read_device_bound
						: d->write_device_bound;

	(void)r;
	return mbps(field_double(f, base), bound ? " dev" : " cpu", buf);
}

static const char *const model_names[] = { "fresh-copy", "same-layout" };

/*
 * In JSON's order; the table's columns in the same order, where the
 * estimate table (and, FIELD_DECIDE, the decision table) shows them
 * after the setting (a "*" for current) and Perc.  CSV's estimate
 * columns (csv) and Prometheus' families (prom) came in an order of
 * their own, kept.  JSON only (FIELD_NO_CSV): what came to JSON after
 * CSV's columns, which scripts read by position and tests/cli/051-golden
 * fixes; a column for one would go at the end.
 */
const struct field fields_est[] = {
	{ "input", NULL, FT_BYTES, EST(input), FIELD_ROW_EST | FIELD_NO_CSV, 0,
	  .prom = 3, .help = "--estimate: bytes of file data read to predict" },
	/* CSV: the column disk */
	{ "disk", "Disk Usage", FT_BYTES, EST(disk),
	  FIELD_ROW_EST | FIELD_GROW | FIELD_PER_SETTING, 0, .width = 12,
	  .prom = 1,
	  .help = "--estimate: predicted bytes on disk under the setting" },
	{ "change", "Change", FT_CHANGE, VIEW(change),
	  FIELD_TABLE_ONLY | FIELD_GROW, 0, .width = 12,
	  .help = "Disk Usage less today's" },
	/* CSV: the column uncompressed */
	{ "uncompressed", NULL, FT_BYTES, EST(uncompressed), FIELD_ROW_EST, 0,
	  .prom = 2, .help = "--estimate: predicted bytes before compression under the setting" },
	{ "disk_fresh", "Fresh copy", FT_BYTES, EST(disk_fresh),
	  FIELD_ROW_EST | FIELD_GROW | FIELD_IF_SAME, 0, .width = 12, .csv = 4,
	  .help = "Predicted bytes on disk of a fresh copy of the files" },
	{ "rewrite", "Rewrite", FT_CHANGE, EST(rewrite_change),
	  FIELD_TABLE_ONLY | FIELD_GROW, NEED_REWRITE, .width = 12,
	  .cell = cell_rewrite,
	  .help = "rewrite_change, sampled with its interval" },
	{ "uncompressed_fresh", NULL, FT_BYTES, EST(uncompressed_fresh),
	  FIELD_NO_CSV, 0,
	  .help = "Predicted bytes before compression of a fresh copy" },
	/* the same for every setting of a run */
	{ "model", NULL, FT_ENUM, EST(same_layout), FIELD_NO_CSV, 0,
	  .names = model_names,
	  .help = "What disk predicts: same-layout or fresh-copy" },
	{ "compress_mbps", "Compress", FT_MBPS, EST(compress_mbps), 0, 0,
	  .width = 10, .csv = 1, .prom = 4,
	  .help = "--estimate: single-thread compression speed on this data" },
	{ "decompress_mbps", "Decompress", FT_MBPS, EST(decompress_mbps), 0, 0,
	  .width = 10, .csv = 2, .prom = 5,
	  .help = "--estimate: single-thread decompression speed on this data" },
	/* the table: a "*" after the setting */
	{ "current", NULL, FT_FLAG, EST(current), 0, 0, .csv = 5,
	  .help = "1 for the setting the filesystem is mounted with now" },
	/* the same for every setting of a run */
	{ "cpus", NULL, FT_COUNT, VIEW(cpus), FIELD_NO_CSV, 0,
	  .help = "CPUs the all-core figures count" },
	{ "compress_mbps_all", "Compress x", FT_MBPS, DEC(compress_all_mbps),
	  FIELD_DECIDE | FIELD_X_CPUS, 0, .width = 14, .csv = 6,
	  .help = "Compression speed on every CPU" },
	{ "decompress_mbps_all", "Decompress x", FT_MBPS,
	  DEC(decompress_all_mbps), FIELD_DECIDE | FIELD_X_CPUS, 0,
	  .width = 16, .csv = 7, .help = "Decompression speed on every CPU" },
	{ "cpu_s_per_gb_write", "CPU write", FT_CPU, DEC(cpu_s_per_gb_write),
	  FIELD_DECIDE, 0, .width = 11, .csv = 8,
	  .help = "CPU seconds to compress a GB of file data" },
	{ "cpu_s_per_gb_read", "CPU read", FT_CPU, DEC(cpu_s_per_gb_read),
	  FIELD_DECIDE, 0, .width = 11, .csv = 9,
	  .help = "CPU seconds to decompress a GB of file data" },
	{ "write_mbps", "Write", FT_MBPS, DEC(write_mbps), FIELD_DECIDE,
	  NEED_DEVICE, .width = 12, .csv = 10, .cell = cell_through,
	  .help = "File data written per second through --device-speed" },
	{ "read_mbps", "Read", FT_MBPS, DEC(read_mbps), FIELD_DECIDE,
	  NEED_DEVICE, .width = 12, .csv = 11, .cell = cell_through,
	  .help = "File data read per second through --device-speed" },
	{ "rewrite_change", NULL, FT_CHANGE, EST(rewrite_change), 0,
	  NEED_REWRITE, .csv = 12,
	  .help = "The filesystem's change if --rewrite rewrote the files" },
	{ "rewrite_change_ci95", NULL, FT_HALF, EST(rewrite_ci95), 0,
	  NEED_REWRITE | NEED_SAMPLED, .csv = 16,
	  .help = "Half-width of rewrite_change's 95% interval" },
	{ "disk_extrapolated", NULL, FT_BYTES, EST(disk_extrapolated), 0,
	  NEED_RANGED, .csv = 13,
	  .help = "The part of disk extrapolated from overwritten writes" },
	{ "disk_min", NULL, FT_BYTES, EST(disk_min), 0, NEED_RANGED,
	  .csv = 14, .help = "The least disk whatever the data gone was" },
	{ "disk_max", NULL, FT_BYTES, EST(disk_max), 0, NEED_RANGED,
	  .csv = 15, .help = "The most disk whatever the data gone was" },
	{ "disk_ci95", "95% CI", FT_HALF, EST(disk_ci95), 0, NEED_SAMPLED,
	  .csv = 3, .help = "Half-width of disk's 95% interval" },
	{ "disk_range", "Disk Usage range", FT_BYTES, EST(disk_min),
	  FIELD_TABLE_ONLY, NEED_RANGED, .cell = cell_range,
	  .help = "disk_min..disk_max" },
	{ "disk_fresh_ci95", NULL, FT_HALF, EST(fresh_ci95), FIELD_NO_CSV,
	  NEED_SAMPLED, .help = "Half-width of disk_fresh's 95% interval" },
	/* the same for every setting of a run */
	{ "sample_units_read", NULL, FT_COUNT, EST(units_read), FIELD_NO_CSV,
	  NEED_SAMPLED, .help = "Sample units read" },
	{ "sample_units", NULL, FT_COUNT, EST(units), FIELD_NO_CSV,
	  NEED_SAMPLED, .help = "Sample units in all" },
	{ "sample_data_read", NULL, FT_BYTES, EST(data_read), FIELD_NO_CSV,
	  NEED_SAMPLED, .help = "Bytes of file data of the units read" },
	{ "sample_data", NULL, FT_BYTES, EST(data), FIELD_NO_CSV,
	  NEED_SAMPLED, .help = "Bytes of file data in all" },
};
const size_t fields_nest = sizeof(fields_est) / sizeof(fields_est[0]);
_Static_assert(sizeof(fields_est) / sizeof(fields_est[0]) <= FIELDS_EST_MAX,
	       "FIELDS_EST_MAX must hold every estimate field");

int field_shown(const struct field *f, const struct report *r)
{
	unsigned show = f->need & (REPORT_SHOW_EXCLUSIVE |
				   REPORT_SHOW_SUBVOLUMES |
				   REPORT_SHOW_WASTE |
				   REPORT_SHOW_HISTOGRAM |
				   REPORT_SHOW_COMPARE);

	return (r->show & show) == show;
}

int field_has(const struct field *f, const struct report *r,
	      const struct est_view *v)
{
	if (!field_shown(f, r))
		return 0;
	if ((f->need & NEED_DEVICE) && !(r->dev_write_mbps > 0))
		return 0;
	if (!v)
		return 1;
	if ((f->need & NEED_REWRITE) && !v->e.have_rewrite)
		return 0;
	if ((f->need & NEED_SAMPLED) && !v->e.sampled)
		return 0;
	if ((f->need & NEED_RANGED) &&
	    !(v->e.same_layout && v->e.disk_extrapolated))
		return 0;
	return 1;
}

int field_size_at(const struct field *f, const struct report *r, int grand,
		  int is_type, int row_type)
{
	if (row_type && (f->flags & FIELD_TOTAL_TYPES))
		return 0;
	if (grand && (f->flags & FIELD_ROW_ONLY))
		return 0;
	if (grand && is_type && (f->flags & FIELD_TOTAL_TYPES) &&
	    r->excl_no_types)
		return 0;
	return 1;
}

int field_in_row(const struct field *f, const struct report_row *row)
{
	return row->path || !(f->flags & FIELD_ROW_ONLY);
}

int field_known(const struct field *f, const void *base)
{
	if (f->type == FT_MBPS || f->type == FT_CPU)
		return field_double(f, base) > 0;
	return 1;
}

void field_print(FILE *out, const struct field *f, const void *base,
		 enum field_out how)
{
	switch (f->type) {
	case FT_BYTES:
	case FT_COUNT:
		fprintf(out, "%" PRIu64, field_value(f, base));
		break;
	case FT_FLAG:
		if (how == FIELD_JSON)
			fputs(field_int(f, base) ? "true" : "false", out);
		else
			fprintf(out, "%d", field_int(f, base));
		break;
	case FT_ENUM:
		fprintf(out, how == FIELD_JSON ? "\"%s\"" : "%s",
			f->names[field_int(f, base)]);
		break;
	case FT_CHANGE:
	case FT_DCOUNT:
		fprintf(out, "%" PRId64, field_signed(f, base));
		break;
	case FT_MBPS:
		if (how == FIELD_PROM)
			fprintf(out, "%.0f", field_double(f, base) * 1e6);
		else
			fprintf(out, "%.1f", field_double(f, base));
		break;
	case FT_CPU:
		fprintf(out, "%.4f", field_double(f, base));
		break;
	case FT_HALF:
		fprintf(out, "%.0f", field_double(f, base));
		break;
	}
}

const char *field_size_trim(uint64_t v, const struct report *r, char *buf)
{
	const char *p = fmt_size_in(v, &r->units, buf);

	while (*p == ' ')
		p++;
	return p;
}

const char *field_text(const struct field *f, const struct report *r,
		       const void *base, char *buf)
{
	double d;

	if (f->cell)
		return f->cell(f, r, base, buf);
	switch (f->type) {
	case FT_BYTES:
		return fmt_size_in(field_value(f, base), &r->units, buf);
	case FT_COUNT:
		snprintf(buf, FIELD_CELL, "%" PRIu64, field_value(f, base));
		return buf;
	case FT_FLAG:
		return field_int(f, base) ? f->key : "-";
	case FT_ENUM:
		return f->names[field_int(f, base)];
	case FT_CHANGE:
		return signed_size(field_signed(f, base), r, buf);
	case FT_DCOUNT:
		snprintf(buf, FIELD_CELL, "%+" PRId64, field_signed(f, base));
		return field_signed(f, base) ? buf : "0";
	case FT_MBPS:
		return mbps(field_double(f, base), "", buf);
	case FT_CPU:
		d = field_double(f, base);
		if (!(d > 0))
			return "-";
		/* two significant digits, as a speed (mbps()) */
		snprintf(buf, FIELD_CELL, d >= 9.95 ? "%.0fs/GB" :
			 d >= 0.995 ? "%.1fs/GB" : "%.2fs/GB", d);
		return buf;
	case FT_HALF: {
		char tmp[FMT_BUF];

		snprintf(buf, FIELD_CELL, "\xc2\xb1%s",
			 fmt_size_in((uint64_t)(field_double(f, base) + 0.5),
				     &r->units, tmp));
		return buf;
	}
	}
	return "";
}

size_t fields_order(const struct field *t, size_t n, int prom,
		    const struct field **out)
{
	size_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		unsigned pos = prom ? t[i].prom : t[i].csv;

		if (!pos)
			continue;
		/* insertion: a handful of fields */
		for (j = k; j > 0 && (prom ? out[j - 1]->prom
					   : out[j - 1]->csv) > pos; j--)
			out[j] = out[j - 1];
		out[j] = &t[i];
		k++;
	}
	return k;
}

const struct field *field_find(const struct field *t, size_t n,
			       const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].key, key))
			return &t[i];
	return NULL;
}
