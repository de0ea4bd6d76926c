/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small, strict JSON reader (RFC 8259) for compsize's own reports
 * (--compare): the whole text parsed into a tree of values.  Strict: no
 * comments, no trailing commas, no leading zeros, no bare control
 * characters in strings, no lone surrogates, only white space after the
 * value; nesting at most JSON_MAX_DEPTH deep.  Integers are kept exactly
 * (64 bits, signed or not); other numbers as doubles.  The tree lives in
 * an arena of a few large blocks: about 40 bytes a value, no allocation
 * of its own.
 */
#ifndef COMPSIZE_JSON_H
#define COMPSIZE_JSON_H

#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64

enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value {
	enum json_type type;
	/* JSON_NUMBER: is_uint when it is an integer 0..UINT64_MAX (u),
	 * is_int when one INT64_MIN..INT64_MAX (i); d always */
	unsigned char is_uint, is_int;
	union {
		struct {
			uint64_t u;
			int64_t i;
			double d;
		};
		/* JSON_STRING: its bytes, NUL-terminated (a \u0000 in it
		 * ends it early for C; len counts every byte) */
		struct {
			char *str;
			size_t len;
		};
		/* JSON_ARRAY, JSON_OBJECT: n items (an object's keys in
		 * keys[], NULL for an array) */
		struct {
			struct json_value **items;
			char **keys;
			size_t n;
		};
	};
};

/*
 * Parse the JSON text buf[0..len) into *out.  Returns 0, -ENOMEM, or
 * -EINVAL with a one-line cause in err (errlen bytes), "byte 12: expected
 * ',' or '}'", with no control character in it.
 */
int json_parse(const char *buf, size_t len, struct json_value **out,
	       char *err, size_t errlen);

/* Free the tree json_parse() gave (its root, and only that: the tree is
 * allocated in one arena); NULL is fine. */
void json_free(struct json_value *v);

/* The member key of object v (the first of that name), or NULL when v is
 * not an object or has none. */
const struct json_value *json_get(const struct json_value *v,
				  const char *key);

#endif
