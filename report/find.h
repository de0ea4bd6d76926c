/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --find=PREDICATES: which files' rows (--per-file) a report keeps, and
 * their paths printed as find(1) prints them.  Predicates are
 * comma-separated, all must hold; each is KEY OP VALUE, OP one of
 * = != < > <= >=:
 *
 *   type        none, zlib, lzo, zstd, prealloc (the file has bytes of
 *               that type), inline (an inline extent); = and != only
 *   ratio       Disk Usage / Uncompressed, a decimal (no file without
 *               data matches)
 *   size        Referenced, a size (1M, 2G: binary units)
 *   disk        Disk Usage
 *   extents     distinct regular extents, a count
 *   avg-extent  Referenced / extents (no file without extents matches)
 *   shared      Disk Usage less Exclusive: bytes of its extents (and
 *               inline data) also referenced elsewhere (sharing.h)
 *   exclusive   Exclusive (sharing.h)
 *   waste       Waste (waste.h)
 *   gain        with --estimate: Disk Usage less the first setting's
 *               estimate of the file
 */
#ifndef COMPSIZE_FIND_H
#define COMPSIZE_FIND_H

#include <stddef.h>
#include <stdio.h>
#include "report/model.h"

struct find;

/* What the predicates need computed besides the usage. */
#define FIND_NEED_EXCLUSIVE	0x1
#define FIND_NEED_WASTE		0x2
#define FIND_NEED_ESTIMATE	0x4

/*
 * Parse s into *out.  On a bad predicate returns -EINVAL with *bad a
 * copy of it (free() it) and *why the cause; -ENOMEM.  0 with *out set
 * (find_free() it).
 */
int find_parse(const char *s, struct find **out, char **bad,
	       const char **why);
void find_free(struct find *f);

/* FIND_NEED_* bits. */
unsigned find_needs(const struct find *f);

/* The text of the first predicate that needs one of the need bits, or
 * NULL. */
const char *find_text(const struct find *f, unsigned need);

/* Does row (a file's, of report r) satisfy every predicate?  r may be
 * NULL when no predicate needs FIND_NEED_ESTIMATE. */
int find_match(const struct find *f, const struct report *r,
	       const struct report_row *row);

/* Each row's path of r, followed by '\n', or '\0' with nul: raw bytes,
 * as find(1) prints them. */
void find_print(FILE *out, const struct report *r, int nul);

#endif
