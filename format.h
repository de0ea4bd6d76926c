/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Format helpers for every report: sizes and percentages as compsize 1.5
 * prints them, type names, and the escaping of names for the table, JSON
 * and CSV.
 */
#ifndef COMPSIZE_FORMAT_H
#define COMPSIZE_FORMAT_H

#include <stdint.h>
#include <stdio.h>
#include "extent.h"

/* Room for any formatted size or type name. */
#define FMT_BUF 24

/*
 * Format x as compsize 1.5 does: with raw set, the plain number; otherwise
 * up to 10239 of a unit before moving to the next, "%4u" + unit below 1024
 * ("1023B", "  10K") and " N.N" + unit from 1024 on (" 1.0K", " 9.9K"),
 * truncating, never rounding.  Returns buf.
 */
char *fmt_size(uint64_t x, int raw, char buf[FMT_BUF]);

/* disk * 100 / uncomp, truncated, without overflow; 0 when uncomp is 0. */
unsigned fmt_percent(uint64_t disk, uint64_t uncomp);

/* "none", "zlib", "lzo", "zstd", "prealloc", or "?N" for unknown rows. */
const char *fmt_type_name(unsigned row, char buf[FMT_BUF]);

/*
 * Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if the
 * bytes there are not one: overlong forms, surrogates and code points past
 * U+10FFFF are invalid.
 */
size_t fmt_utf8_len(const unsigned char *s, size_t n);

/* Whether the whole of s is valid UTF-8 (fmt_utf8_len()). */
int fmt_utf8_valid(const char *s);

/*
 * Write s as a JSON string, quotes included, that strict parsers accept:
 * control characters (C0, DEL, C1) are escaped, and each byte that is not
 * part of valid UTF-8 becomes U+FFFD (fmt_json_path() keeps the bytes).
 */
void fmt_json_string(FILE *f, const char *s);

/* Write s in standard base64 (RFC 4648, padded). */
void fmt_base64(FILE *f, const char *s);

/*
 * Write the member "key":"path" (fmt_json_string()), and when path is not
 * valid UTF-8 also "key_bytes":"BASE64" with its exact bytes.
 */
void fmt_json_path(FILE *f, const char *key, const char *path);

/* Write s as one RFC 4180 CSV field, escaped as fmt_table_path() does (so
 * no control character is written raw), then quoted (quotes doubled) when
 * it holds a comma, a quote or leading/trailing space. */
void fmt_csv_field(FILE *f, const char *s);

/* Write a path for the table or a message: backslash, control characters
 * (C0, DEL, C1) and bytes that are not valid UTF-8 as C escapes (\\, \n,
 * \t, \xHH), so one row stays one line and no name reaches a terminal as
 * a control sequence. */
void fmt_table_path(FILE *f, const char *s);

#endif
