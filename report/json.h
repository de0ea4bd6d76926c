/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --format=json: the report as one JSON object (schema in man/compsize.8):
 * the total's counts, sizes and types, the estimates, the rows and the
 * errors.  The members come from fields.h, in its order.
 */
#ifndef COMPSIZE_JSON_H
#define COMPSIZE_JSON_H

#include <stdio.h>
#include "report/model.h"

/* Print r to out as one line.  Returns 0 or -ENOMEM (nothing printed). */
int json_print(FILE *out, const struct report *r);

/* Row i of r's rows (i > 0: after others), as json_print() prints it
 * inside the rows' array; for a row streamed (report_stream_row()).
 * Returns 0. */
int json_print_row(FILE *out, const struct report *r,
		   const struct report_row *row, size_t i);

#endif
