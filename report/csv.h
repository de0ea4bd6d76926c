/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --format=csv: the report as RFC 4180 CSV (schema in man/compsize.8): a
 * header, then a record for the total, each of its types, each row and
 * its types, and each setting's estimate of the total and of each row.
 * The columns are fields.h's: kind, path, type, setting, the default size
 * and count fields, the estimates' own columns, then the optional fields
 * asked for, so that no column ever moves.
 */
#ifndef COMPSIZE_CSV_H
#define COMPSIZE_CSV_H

#include <stdio.h>
#include "report/model.h"

/* Print r to out.  Returns 0 or -ENOMEM (nothing printed). */
int csv_print(FILE *out, const struct report *r);

/* One row's records (the row's and its types'), as csv_print() prints
 * them; for a row streamed (report_stream_row()).  Returns 0 or -ENOMEM
 * (nothing printed). */
int csv_print_row(FILE *out, const struct report *r,
		  const struct report_row *row);

#endif
