/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report as tables for a person: the rows (--depth, --per-file,
 * --subvolumes), compsize 1.5's table of the total byte for byte, and with
 * --estimate the estimate and decision tables.  The columns come from
 * fields.h; this only lays them out.
 */
#ifndef COMPSIZE_TABLE_H
#define COMPSIZE_TABLE_H

#include <stdio.h>
#include "report/model.h"

/*
 * Print r's tables to out.  With nothing to report, compsize 1.5's "No
 * files." or "All empty or still-delalloced files." goes to err and 1 is
 * returned; else 0, or -ENOMEM.
 */
int table_print(FILE *out, FILE *err, const struct report *r);

/* A row streamed (report_stream_row()) as table_print() reads it back
 * from r->spool: its sizes and path, binary.  Returns 0. */
int table_spool_row(FILE *out, const struct report_row *row);

/*
 * compsize 1.5's table of st alone ("Processed ...", then a line for the
 * total and each type with data); raw selects bytes.  When there is
 * nothing to report, prints "No files." or "All empty or still-delalloced
 * files." to err and returns 1; otherwise 0, or -ENOMEM.
 */
int table_usage(FILE *out, FILE *err, const struct cs_stats *st, int raw);

#endif
