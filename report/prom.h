/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --format=prometheus: the report as Prometheus' text exposition format
 * (version 0.0.4, what node_exporter's textfile collector reads), one
 * series per report row: compsize_disk_bytes{path="/x",type="zstd"} and
 * the other size fields of fields.h by compression type, the counts, and
 * with --estimate each setting's prediction.  Names and meanings are in
 * man/compsize.8 (PROMETHEUS).
 */
#ifndef COMPSIZE_PROM_H
#define COMPSIZE_PROM_H

#include <stdio.h>
#include "report/model.h"

/*
 * Print r's rows to out (a row whose path label equals an earlier row's
 * is left out: the format allows one series per name and labels).
 * Returns 0 or -ENOMEM (nothing printed).
 */
int prom_print(FILE *out, const struct report *r);

/*
 * Write s as a label value, quotes included: as the table prints a path
 * (fmt_table_path(): control characters and bytes that are not UTF-8 as
 * C escapes, so the value is UTF-8, one line, and two paths never share
 * one), then backslash and double quote escaped as the format wants.
 * Returns 0 or -ENOMEM.
 */
int prom_label_value(FILE *f, const char *s);

#endif
