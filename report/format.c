// SPDX-License-Identifier: GPL-2.0
/* Format helpers (format.h). */
#include <inttypes.h>
#include <string.h>
#include "report/format.h"

char *fmt_size(uint64_t x, int raw, char buf[FMT_BUF])
{
	static const char units[] = "BKMGTPE";
	int u = 0;

	if (raw) {
		snprintf(buf, FMT_BUF, "%" PRIu64, x);
		return buf;
	}
	while (x >= 10240) {
		u++;
		x >>= 10;
	}
	if (x >= 1024)
		snprintf(buf, FMT_BUF, " %" PRIu64 ".%" PRIu64 "%c", x >> 10,
			 x * 10 / 1024 % 10, units[u + 1]);
	else
		snprintf(buf, FMT_BUF, "%4" PRIu64 "%c", x, units[u]);
	return buf;
}

void fmt_units_apply(struct fmt_units *u, enum fmt_unit_opt opt)
{
	switch (opt) {
	case FMT_OPT_RAW:
		u->mode = FMT_MODE_RAW;
		u->fixed = 0;
		break;
	case FMT_OPT_HUMAN:
		u->mode = FMT_MODE_IEC;
		u->fixed = 0;
		break;
	case FMT_OPT_IEC:
	case FMT_OPT_SI:
		/* btrfs-progs' units_set_mode(): the unit stays */
		u->mode = opt == FMT_OPT_SI ? FMT_MODE_SI : FMT_MODE_IEC;
		break;
	default:
		/* units_set_base(): the base stays; compsize 1.5's human
		 * sizes have none, btrfs-progs' default is 1024 */
		if (u->mode == FMT_MODE_15)
			u->mode = FMT_MODE_IEC;
		u->fixed = 1 + (unsigned)(opt - FMT_OPT_KBYTES);
		break;
	}
}

int fmt_units_15(const struct fmt_units *u)
{
	return u->mode == FMT_MODE_15 || u->mode == FMT_MODE_RAW;
}

char *fmt_size_in(uint64_t x, const struct fmt_units *u, char buf[FMT_BUF])
{
	static const char *const iec[] = { "B", "KiB", "MiB", "GiB", "TiB",
					   "PiB", "EiB" };
	static const char *const si[] = { "B", "kB", "MB", "GB", "TB", "PB",
					  "EB" };
	uint64_t mult, base, last = x;
	unsigned divs = 0, i;
	float frac;

	if (fmt_units_15(u))
		return fmt_size(x, u->mode == FMT_MODE_RAW, buf);
	mult = u->mode == FMT_MODE_SI ? 1000 : 1024;
	base = mult;
	if (u->fixed) {
		divs = u->fixed;
		for (i = 1; i < divs; i++)
			base *= mult;
	} else {
		while (x >= mult) {
			last = x;
			x /= mult;
			divs++;
		}
		if (!divs)
			base = 1;
	}
	/* Single precision, as pretty_size_snprintf(): the same digits. */
	frac = (float)last / (float)base;
	snprintf(buf, FMT_BUF, "%.2f%s", (double)frac,
		 (u->mode == FMT_MODE_SI ? si : iec)[divs]);
	return buf;
}

unsigned fmt_percent(uint64_t disk, uint64_t uncomp)
{
	if (!uncomp)
		return 0;
	return (unsigned)((unsigned __int128)disk * 100 / uncomp);
}

const char *fmt_type_name(unsigned row, char buf[FMT_BUF])
{
	static const char *const names[] = { "none", "zlib", "lzo", "zstd" };

	if (row == CS_TYPE_PREALLOC)
		return "prealloc";
	if (row < sizeof(names) / sizeof(names[0]))
		return names[row];
	snprintf(buf, FMT_BUF, "?%u", row);
	return buf;
}

const char *fmt_level_set(uint64_t mask, char buf[FMT_LEVELS])
{
	size_t len = 0;
	int l, e;

	buf[0] = 0;
	if (!mask)
		return strcpy(buf, "?");
	for (l = 0; l < 64; l++) {
		if (!(mask >> l & 1))
			continue;
		for (e = l; e < 63 && mask >> (e + 1) & 1; e++)
			;
		if (e > l)
			len += (size_t)snprintf(buf + len, FMT_LEVELS - len,
						"%s%d-%d", len ? "," : "",
						l - 15, e - 15);
		else
			len += (size_t)snprintf(buf + len, FMT_LEVELS - len,
						"%s%d", len ? "," : "", l - 15);
		l = e;
	}
	return buf;
}

size_t fmt_utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* A C1 control character, U+0080 to U+009F (UTF-8 0xc2 0x80..0x9f): a
 * terminal may take 0x9b as CSI, as it takes ESC [. */
static int is_c1(const unsigned char *s, size_t len)
{
	return len == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

int fmt_utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), len;

	while (n) {
		len = fmt_utf8_len(s, n);
		if (!len)
			return 0;
		s += len;
		n -= len;
	}
	return 1;
}

void fmt_json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), len;

	fputc('"', f);
	while (n) {
		len = fmt_utf8_len(s, n);
		if (!len) {
			/* U+FFFD, as strict parsers accept no lone
			 * surrogate: the bytes go to a _bytes field. */
			fputs("\\ufffd", f);
			len = 1;
		} else if (*s == '"' || *s == '\\') {
			fprintf(f, "\\%c", *s);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '\t') {
			fputs("\\t", f);
		} else if (*s == '\r') {
			fputs("\\r", f);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\u%04x", *s);
		} else if (is_c1(s, len)) {
			fprintf(f, "\\u%04x", s[1]);
		} else {
			fwrite(s, 1, len, f);
		}
		s += len;
		n -= len;
	}
	fputc('"', f);
}

void fmt_base64(FILE *f, const char *str)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i;
	uint32_t v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
		fputc(digits[v >> 18], f);
		fputc(digits[(v >> 12) & 63], f);
		fputc(digits[(v >> 6) & 63], f);
		fputc(digits[v & 63], f);
	}
	if (i < n) {
		v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
		fputc(digits[v >> 18], f);
		fputc(digits[(v >> 12) & 63], f);
		fputc(i + 1 < n ? digits[(v >> 6) & 63] : '=', f);
		fputc('=', f);
	}
}

void fmt_json_path(FILE *f, const char *key, const char *path)
{
	fprintf(f, "\"%s\":", key);
	fmt_json_string(f, path);
	if (fmt_utf8_valid(path))
		return;
	fprintf(f, ",\"%s_bytes\":\"", key);
	fmt_base64(f, path);
	fputc('"', f);
}

/*
 * Write s escaped as in the table: backslash, C0 and C1 control characters,
 * DEL and bytes that are not valid UTF-8 become C escapes, so that nothing
 * in a name reaches a terminal as a control sequence and one row stays one
 * line.  csv: double quotes are doubled (the field is being quoted).
 */
static void put_escaped(FILE *f, const char *str, int csv)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), len;

	while (n) {
		len = fmt_utf8_len(s, n);
		if (!len) {
			fprintf(f, "\\x%02x", *s);
			len = 1;
		} else if (*s == '\\') {
			fputs("\\\\", f);
		} else if (*s == '\n') {
			fputs("\\n", f);
		} else if (*s == '\t') {
			fputs("\\t", f);
		} else if (*s < 0x20 || *s == 0x7f) {
			fprintf(f, "\\x%02x", *s);
		} else if (is_c1(s, len)) {
			fprintf(f, "\\x%02x\\x%02x", s[0], s[1]);
		} else if (csv && *s == '"') {
			fputs("\"\"", f);
		} else {
			fwrite(s, 1, len, f);
		}
		s += len;
		n -= len;
	}
}

void fmt_table_path(FILE *f, const char *s)
{
	put_escaped(f, s, 0);
}

void fmt_csv_field(FILE *f, const char *s)
{
	size_t n = strlen(s);
	int quote = n && (s[0] == ' ' || s[n - 1] == ' ');

	/* Escaped, no control character is left: only a comma, a quote or
	 * edge spaces call for RFC 4180 quotes. */
	quote = quote || strpbrk(s, ",\"") != NULL;
	if (quote)
		fputc('"', f);
	put_escaped(f, s, quote);
	if (quote)
		fputc('"', f);
}
