/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reports: compsize 1.5's table, byte for byte, and the sizes in it.
 */
#ifndef COMPSIZE_OUTPUT_H
#define COMPSIZE_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include "extent.h"

/* Room for any formatted size or type name. */
#define OUT_BUF 24

/*
 * Format x as compsize 1.5 does: with raw set, the plain number; otherwise
 * up to 10239 of a unit before moving to the next, "%4u" + unit below 1024
 * ("1023B", "  10K") and " N.N" + unit from 1024 on (" 1.0K", " 9.9K"),
 * truncating, never rounding.  Returns buf.
 */
char *out_size(uint64_t x, int raw, char buf[OUT_BUF]);

/* disk * 100 / uncomp, truncated, without overflow; 0 when uncomp is 0. */
unsigned out_percent(uint64_t disk, uint64_t uncomp);

/* "none", "zlib", "lzo", "zstd", "prealloc", or "?N" for unknown rows. */
const char *out_type_name(unsigned row, char buf[OUT_BUF]);

/* Sum every row of st into *disk, *uncomp, *refd. */
void out_totals(const struct cs_stats *st, uint64_t *disk, uint64_t *uncomp,
		uint64_t *refd);

/*
 * Print the table of st to out as compsize 1.5 does; raw selects bytes.
 * When there is nothing to report, print compsize 1.5's "No files." or
 * "All empty or still-delalloced files." to err instead and return 1;
 * otherwise return 0.
 */
int out_table(FILE *out, FILE *err, const struct cs_stats *st, int raw);

#endif
