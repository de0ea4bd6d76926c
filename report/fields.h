/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's columns, each described once, with a type that says how
 * every format writes it: its JSON key (also its CSV column and the stem
 * of its Prometheus metric), its table header, where its value is, which
 * runs and places have one, and what it means.  The renderers (table.c,
 * json.c, csv.c, prom.c) loop over these tables and name no column, so a
 * new column is one line here (and its value in model.h's structures).
 * The idea is btrfs-progs' rowspec (common/format-output.h), whose fields
 * carry a format each.
 *
 * A new column: a size (shown with --exclusive, say) is its member in
 * struct report_sizes and, here, { "key", "Label", FT_BYTES, SIZE(member),
 * flags, REPORT_SHOW_EXCLUSIVE, .help = "..." }.  A setting's new figure is
 * its member in struct report_est and a line in fields_est: JSON has it
 * where the line is, CSV with .csv = the next free place (a column at the
 * end), Prometheus with .prom, the estimate table with a label (where the
 * line is), the decision table with FIELD_DECIDE too.
 */
#ifndef COMPSIZE_FIELDS_H
#define COMPSIZE_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "report/model.h"

/*
 * What a value is, and so how each format writes it.  JSON and CSV carry
 * values raw (bytes, not the table's units); the table as a person reads
 * it; Prometheus in base units (prom.c names the metric after them).
 */
enum field_type {
	FT_BYTES,	/* uint64_t bytes: the table in its units (-b...) */
	FT_COUNT,	/* uint64_t */
	FT_FLAG,	/* int, 0 or 1: JSON false or true, CSV and Prometheus
			 * 0 or 1, the table its key or "-" */
	FT_ENUM,	/* int, an index in the field's names: the name */
	FT_CHANGE,	/* int64_t bytes, signed: the table "+12M", "-1.5G" */
	FT_MBPS,	/* double, MB/s (10^6 bytes); 0: not measured.  "%.1f";
			 * the table "410MB/s" (two significant digits), "<1MB/s" or "-"; Prometheus
			 * bytes per second, no series when not measured */
	FT_CPU,		/* double, core-seconds per GB; 0: unknown.
			 * "%.4f"; the table "0.21s/GB", "15s/GB" or "-" */
	FT_HALF,	/* double, bytes: half-width of a 95% interval.  "%.0f";
			 * the table "±" and the size */
	FT_DCOUNT,	/* int64_t, a count's change: the table "+2", "-1", "0" */
};

/* struct field flags: where a field is (and is not) */
#define FIELD_NO_CSV	0x1	/* JSON only: each such field says why */
#define FIELD_TOTAL_TYPES 0x2	/* of the types, only the grand total's
				 * have it: left out of a row's types */
#define FIELD_ROW_ONLY	0x4	/* rows have it, the grand total not */
#define FIELD_ROW_EST	0x8	/* a row's estimate has it too, not only
				 * the setting's (struct est_view) */
#define FIELD_TABLE_ONLY 0x10	/* only the table shows it: a cell drawn
				 * from other fields' values */
#define FIELD_DECIDE	0x20	/* the decision table's, not the
				 * estimate table's */
#define FIELD_GROW	0x40	/* table: width is the least, the
				 * column is as wide as its widest cell */
#define FIELD_X_CPUS	0x80	/* table: the header goes on with the
				 * CPU count ("Compress x8") */
#define FIELD_IF_SAME	0x100	/* table: only beside a same-layout
				 * Disk Usage (a fresh-copy one is it) */
#define FIELD_PER_SETTING 0x200	/* the rows' table shows a row's value, a
				 * column per setting headed by its name */
#define FIELD_NO_TYPES	0x400	/* a total's or a row's, not a type's */

/* struct field need: what must hold for a value.  The REPORT_SHOW_* bits
 * of model.h (the run asked for the column) decide whether the column is
 * there at all; these, whether an estimate has a value: where one has
 * none, JSON leaves the key out, CSV the cell empty, the table the cell
 * (and the column, when no estimate has one). */
enum field_need {
	NEED_DEVICE = 0x100,	/* --device-speed given */
	NEED_REWRITE = 0x200,	/* --rewrite's figures (btrfs, root) */
	NEED_SAMPLED = 0x400,	/* extrapolated from a --sample */
	NEED_RANGED = 0x800,	/* same layout with a part extrapolated
				 * from overwritten writes' remains */
};

/* Room for any table cell. */
#define FIELD_CELL 64

struct field;
/* A table cell that is more than the type's text of one value, into buf
 * (FIELD_CELL bytes); returns it. */
typedef const char *field_cell_fn(const struct field *f,
				  const struct report *r, const void *base,
				  char *buf);

struct field {
	const char *key;	/* JSON key and CSV column */
	const char *label;	/* table header; NULL: not in tables */
	enum field_type type;
	size_t offset;		/* of its value in the structure read */
	unsigned flags;		/* FIELD_* */
	unsigned need;		/* REPORT_SHOW_* and NEED_* bits, all of
				 * which must hold; 0: always */
	/* fields_est: its place among CSV's estimate columns and among
	 * Prometheus' estimate families, 1 up (0: none; a CSV column of
	 * the same key as a size's is that size's); the other formats
	 * take fields_est's order */
	unsigned char csv, prom;
	unsigned char width;	/* table: its columns (0: a last column,
				 * not padded) */
	const char *const *names;	/* FT_ENUM: by value */
	field_cell_fn *cell;	/* table: the cell, where not the type's */
	const char *help;	/* one line: Prometheus' HELP */
};

/* Sizes: in struct report_sizes, for the total, rows and types.  The
 * table shows them in compsize 1.5's 12-character columns. */
extern const struct field fields_size[];
extern const size_t fields_nsize;
/* At least fields_nsize: room for a width per size column. */
#define FIELDS_MAX 8

/* Counts: in struct report_row, for the total and rows (JSON, CSV; the
 * ones with a label in the rows' table too, before Perc, with
 * --subvolumes only). */
extern const struct field fields_count[];
extern const size_t fields_ncount;

/* --histogram: in struct report_hist, a line per type and size class
 * (the table's "Extent sizes", JSON "histogram", CSV records of kind
 * histogram: a key of a size or count column goes in that column, the
 * others in columns of their own at the end). */
extern const struct field fields_hist[];
extern const size_t fields_nhist;

/* --compare: in struct report_change, for the total, rows and types,
 * after every other field (JSON: after the counts, and in each type after
 * its sizes; CSV: columns at the end; the table: "Change since"). */
extern const struct field fields_change[];
extern const size_t fields_nchange;

/* --levels: in struct report_level, for each algorithm and set of
 * levels (JSON "levels", the levels table). */
extern const struct field fields_level[];
extern const size_t fields_nlevel;

/* An estimate: in struct est_view, for each setting (JSON "estimates",
 * CSV records of kind estimate, the estimate and decision tables,
 * Prometheus), and the FIELD_ROW_EST ones for each row too. */
extern const struct field fields_est[];
extern const size_t fields_nest;
/* At least fields_nest. */
#define FIELDS_EST_MAX 48

/* Is f's column in the report r (the REPORT_SHOW_* bits it needs)? */
int field_shown(const struct field *f, const struct report *r);

/* Has the estimate v (NULL: a size or count) a value of f in r: the
 * column shown and every NEED_* bit holding? */
int field_has(const struct field *f, const struct report *r,
	      const struct est_view *v);

/* Has the row (NULL path: the grand total) a value of count field f? */
/* Whether a size field has a value in the grand total (grand) or a row,
 * in their totals or (is_type) a type, a row's type (row_type). */
int field_size_at(const struct field *f, const struct report *r, int grand,
		  int is_type, int row_type);

int field_in_row(const struct field *f, const struct report_row *row);

/* The value of an FT_BYTES or FT_COUNT field f in the structure at base. */
uint64_t field_value(const struct field *f, const void *base);

/* Is the value known (FT_MBPS, FT_CPU: measured, more than 0)? */
int field_known(const struct field *f, const void *base);

/* How a value is written raw. */
enum field_out {
	FIELD_JSON,
	FIELD_CSV,
	FIELD_PROM,	/* in base units: bytes per second for FT_MBPS */
};

/* Write f's value at base to out as how says (FT_ENUM: quoted in JSON). */
void field_print(FILE *out, const struct field *f, const void *base,
		 enum field_out how);

/* The table's cell of f's value at base, in r's units, into buf
 * (FIELD_CELL bytes, perhaps unused); returns it. */
const char *field_text(const struct field *f, const struct report *r,
		       const void *base, char *buf);

/* The size text of v in r's units without the padding of compsize 1.5's
 * columns ("1.0M", not " 1.0M"), into buf (FMT_BUF bytes). */
const char *field_size_trim(uint64_t v, const struct report *r, char *buf);

/* The fields of t with a csv place (or a prom place, with prom set) in
 * that order into out (room for n); returns how many. */
size_t fields_order(const struct field *t, size_t n, int prom,
		    const struct field **out);

/* The field of t with key, or NULL. */
const struct field *field_find(const struct field *t, size_t n,
			       const char *key);

#endif
