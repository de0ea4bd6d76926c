/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report in the format asked: a run fills a struct report (model.h)
 * and report_print() hands it to the renderer of its format (table.h,
 * json.h, csv.h, prom.h, ncdu.h), which take their columns from fields.h.
 */
#ifndef COMPSIZE_REPORT_H
#define COMPSIZE_REPORT_H

#include <stdio.h>
#include "report/model.h"

/*
 * Print r to out.  In table form with nothing to report, compsize 1.5's
 * "No files." or "All empty or still-delalloced files." goes to err and 1
 * is returned; JSON and CSV are always printed whole, and return 1 in the
 * same case.  Returns 0 otherwise, or -ENOMEM (nothing printed).
 */
int report_print(FILE *out, FILE *err, const struct report *r);

/* Whether rows of format f can be streamed as they close
 * (report_stream_row()), before the report's totals are known: JSON and
 * CSV as text, the table's rows in binary (their columns' widths are
 * known at the end). */
static inline int report_can_stream(enum report_format f)
{
	return f == REPORT_JSON || f == REPORT_CSV || f == REPORT_TABLE;
}

/*
 * Row i of the walk's order (i > 0: after others) as r's format prints it
 * among the rows (the table: what it prints of it), to out (a spool,
 * spool.h; the report then prints it from there: r->spool).  r needs only its format and show bits set.
 * Returns 0, -ENOMEM, or -EINVAL if the format can't stream.
 */
int report_stream_row(FILE *out, const struct report *r,
		      const struct report_row *row, size_t i);

/*
 * compsize 1.5's table of st alone ("Processed ...", then a line for the
 * total and each type with data); raw selects bytes.  When there is
 * nothing to report, prints "No files." or "All empty or still-delalloced
 * files." to err and returns 1; otherwise 0, or -ENOMEM.
 */
int report_table(FILE *out, FILE *err, const struct cs_stats *st, int raw);

/*
 * The --plot SVG of r's estimates (plot.h) to out, with title: the total
 * and each row as a series.  Returns 0, -EINVAL with nothing to plot, or
 * -ENOMEM.
 */
int report_plot(FILE *out, const struct report *r, const char *title);

#endif
