/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's columns, each described once: its JSON key (also its CSV
 * column and, as compsize_KEY[_bytes], its Prometheus metric), its table
 * header, where its value is and what it means.  report.c renders the
 * table, JSON and CSV, prom.c Prometheus, from these tables alone, in
 * their order, so a
 * new column is one line here (and its value in report.h's structures).
 * The idea is btrfs-progs' rowspec (common/format-output.h).
 */
#ifndef COMPSIZE_FIELDS_H
#define COMPSIZE_FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include "report/report.h"

/* Bits of struct report's show: optional fields a run asked for.  An
 * optional column comes after compsize 1.5's in the table, and after every
 * default column in CSV, so that those keep their positions. */
enum report_show {
	REPORT_SHOW_EXCLUSIVE = 0x1,	/* --exclusive */
	REPORT_SHOW_SUBVOLUMES = 0x2,	/* --subvolumes */
};

/* struct field flags */
#define FIELD_NO_CSV	0x1	/* JSON only */
#define FIELD_EST	0x2	/* estimates predict it too (CSV estimate
				 * records fill its column) */
#define FIELD_TOTAL_TYPES 0x4	/* of the types, only the grand total's
				 * have it: left out of a row's types */
#define FIELD_ROW_ONLY	0x8	/* rows have it, the grand total not */
#define FIELD_BOOL	0x10	/* 0 or 1: JSON false or true, the table
				 * "-" or its key */

struct field {
	const char *key;	/* JSON key and CSV column */
	const char *label;	/* table header; NULL: not in tables */
	size_t offset;		/* of its uint64_t value */
	unsigned flags;		/* FIELD_* */
	unsigned need;		/* REPORT_SHOW_* bit it needs; 0: always */
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

/* Is f shown in the report r? */
int field_shown(const struct field *f, const struct report *r);

/* Has the row (NULL path: the grand total) a value of count field f? */
int field_in_row(const struct field *f, const struct report_row *row);

/* The value of f in the structure at base. */
uint64_t field_value(const struct field *f, const void *base);

#endif
