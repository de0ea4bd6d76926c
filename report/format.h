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
#include "scan/extent.h"

/* Room for any formatted size or type name. */
#define FMT_BUF 24

/*
 * Format x as compsize 1.5 does: with raw set, the plain number; otherwise
 * up to 10239 of a unit before moving to the next, "%4u" + unit below 1024
 * ("1023B", "  10K") and " N.N" + unit from 1024 on (" 1.0K", " 9.9K"),
 * truncating, never rounding.  Returns buf.
 */
char *fmt_size(uint64_t x, int raw, char buf[FMT_BUF]);

/* How the table shows sizes: compsize 1.5's way (the default, and -b), or
 * btrfs-progs' (--human-readable, --iec, --si, --kbytes ... --tbytes, as
 * in btrfs filesystem du). */
enum fmt_mode {
	FMT_MODE_15,		/* compsize 1.5's human sizes: "1.2G" */
	FMT_MODE_RAW,		/* bytes: -b, --raw */
	FMT_MODE_IEC,		/* btrfs-progs, base 1024: "1.23GiB" */
	FMT_MODE_SI,		/* btrfs-progs, base 1000: "1.23GB" */
};

struct fmt_units {
	enum fmt_mode mode;
	/* FMT_MODE_IEC/SI: 0 picks the unit (human); 1..4 fixes it to K, M,
	 * G or T (--kbytes ... --tbytes) */
	unsigned fixed;
};

/* The unit options, applied in command line order as btrfs-progs'
 * get_unit_mode_from_arg() does: --raw and --human-readable set both
 * the mode and the unit, --iec and --si the base only, --kbytes ...
 * --tbytes the unit only (base 1024 unless --si; after --raw, still raw). */
enum fmt_unit_opt {
	FMT_OPT_RAW,
	FMT_OPT_HUMAN,
	FMT_OPT_IEC,
	FMT_OPT_SI,
	FMT_OPT_KBYTES,
	FMT_OPT_MBYTES,
	FMT_OPT_GBYTES,
	FMT_OPT_TBYTES,
};
void fmt_units_apply(struct fmt_units *u, enum fmt_unit_opt opt);

/* Whether u is compsize 1.5's own: the table keeps 1.5's 12-character
 * columns byte for byte even where a number is wider (-b). */
int fmt_units_15(const struct fmt_units *u);

/*
 * Format x in the units u: fmt_size() for compsize 1.5's modes, else as
 * btrfs-progs' pretty_size_snprintf() does ("%.2f" and the unit, computed
 * in single precision like it; a human unit is the largest one x reaches,
 * so 1048575 is "1024.00KiB").  Returns buf.
 */
char *fmt_size_in(uint64_t x, const struct fmt_units *u, char buf[FMT_BUF]);

/* disk * 100 / uncomp, truncated, without overflow; 0 when uncomp is 0. */
unsigned fmt_percent(uint64_t disk, uint64_t uncomp);

/* "none", "zlib", "lzo", "zstd", "prealloc", or "?N" for unknown rows. */
const char *fmt_type_name(unsigned row, char buf[FMT_BUF]);

/* Room for any fmt_level_set() text. */
#define FMT_LEVELS 160

/* A set of levels (a struct report_level mask: bit l + 15 for level l),
 * runs of levels as "1-2", others joined by commas ("-5,1-2,9"), "?" for
 * none, into buf; returns it. */
const char *fmt_level_set(uint64_t mask, char buf[FMT_LEVELS]);

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
