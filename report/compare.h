/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --compare=OLD.json: a JSON report saved earlier (--format=json, this
 * schema), read strictly (lib/json.h), and the change of each row, type
 * and subvolume since then.  Rows are matched by path (path_bytes where
 * the name is not UTF-8), types by name; a row or type in one report only
 * is "added" or "removed".  What the comparison reads: schema,
 * filesystems, files, total and types, and the rows' (paths or
 * subvolumes) files, total and types; the rest (estimates, whose speeds
 * are measured anew on every run, errors, counts of extents) is not
 * compared.
 */
#ifndef COMPSIZE_COMPARE_H
#define COMPSIZE_COMPARE_H

#include <stddef.h>
#include "report/model.h"

/* The schema of --format=json this compsize writes and reads: its
 * "schema" member.  A change of a compared member's meaning or place
 * makes a new one. */
#define COMPARE_SCHEMA 1

/*
 * Read and check the report in the file path.  Returns 0 with *out (free
 * it with compare_free()), -ENOMEM, or -EINVAL with a one-line cause in
 * err (errlen bytes), such as "byte 812: truncated: a string not
 * closed", "not a compsize JSON report (no schema)" or "schema 2; this
 * compsize reads schema 1"; an unreadable file gives its -errno.
 */
int compare_load(const char *path, struct compare **out, char *err,
		 size_t errlen);

/* The same of the text buf[0..len), the file's contents. */
int compare_parse(const char *buf, size_t len, struct compare **out,
		  char *err, size_t errlen);

void compare_free(struct compare *c);

/*
 * Is the report compared of the same filesystems as r (r->uuids)?  0, or
 * -EINVAL with the cause in err: "a report of filesystem UUID-A; these
 * files are on UUID-B".
 */
int compare_check_fs(const struct compare *c, const struct report *r,
		     char *err, size_t errlen);

/*
 * The rows of r compared: each of r->rows with its change, then the rows
 * of the report compared that r has not (removed, in their order there),
 * sorted by the change of disk usage with delta, cut to top (0: all).
 * The array and its types belong to c, valid until compare_free(); r's
 * rows are only read.  Returns 0 or -ENOMEM.
 */
int compare_rows(struct compare *c, const struct report *r, int delta,
		 size_t top, const struct report_row **rows, size_t *nrows);

/* The grand total's change into *total (a row of report_total_row()):
 * its change, each type's, and the types it had then but not now (0,
 * removed).  Returns 0 or -ENOMEM. */
int compare_total(const struct compare *c, struct report_row *total);

#endif
