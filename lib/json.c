// SPDX-License-Identifier: GPL-2.0
/* A small, strict JSON reader (json.h): recursive descent, depth bounded. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/json.h"

/* A block of the arena; the tree's root is the first thing in the
 * first one (json_free() finds the blocks from it). */
struct block {
	struct block *next;
	size_t used, cap;
	/* then cap bytes */
};

#define BLOCK_HEAD ((sizeof(struct block) + 15) & ~(size_t)15)
#define BLOCK_MIN (64u << 10)
#define BLOCK_MAX (16u << 20)

struct parser {
	const char *p, *end, *start;
	int depth;
	int nomem;
	char *err;
	size_t errlen;
	struct block *first, *last;
	/* the items (and keys) of the open containers, innermost last */
	struct json_value **stack;
	char **kstack;
	size_t top, cap;
};

/* n bytes from the arena, 8-aligned, or NULL (ps->nomem set). */
static void *arena_alloc(struct parser *ps, size_t n)
{
	struct block *b = ps->last;
	size_t cap;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!b || b->cap - b->used < n) {
		cap = b ? b->cap * 2 : BLOCK_MIN;
		if (cap > BLOCK_MAX)
			cap = BLOCK_MAX;
		if (cap < n)
			cap = n;
		b = malloc(BLOCK_HEAD + cap);
		if (!b) {
			ps->nomem = 1;
			return NULL;
		}
		b->next = NULL;
		b->used = 0;
		b->cap = cap;
		if (ps->last)
			ps->last->next = b;
		else
			ps->first = b;
		ps->last = b;
	}
	p = (char *)b + BLOCK_HEAD + b->used;
	b->used += n;
	return p;
}

static void arena_free(struct block *b)
{
	while (b) {
		struct block *next = b->next;

		free(b);
		b = next;
	}
}

/* Record the first error at the current position; returns NULL. */
static struct json_value *fail(struct parser *ps, const char *what)
{
	if (ps->err && !ps->err[0] && !ps->nomem) {
		if (ps->p >= ps->end)
			snprintf(ps->err, ps->errlen,
				 "byte %zu: truncated: %s",
				 (size_t)(ps->p - ps->start), what);
		else
			snprintf(ps->err, ps->errlen, "byte %zu: %s",
				 (size_t)(ps->p - ps->start), what);
	}
	return NULL;
}

static struct json_value *oom(struct parser *ps)
{
	ps->nomem = 1;
	return NULL;
}

static void skip_ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct json_value *new_value(struct parser *ps, enum json_type t)
{
	struct json_value *v = arena_alloc(ps, sizeof(*v));

	if (!v)
		return NULL;
	memset(v, 0, sizeof(*v));
	v->type = t;
	return v;
}

static int literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return 0;
	ps->p += n;
	return 1;
}

static int hex4(struct parser *ps, unsigned *out)
{
	unsigned v = 0;
	int i;

	if (ps->end - ps->p < 4)
		return 0;
	for (i = 0; i < 4; i++) {
		char c = ps->p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	ps->p += 4;
	*out = v;
	return 1;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlongs,
 * no surrogates, at most U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned c = p[0], cp;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A string at ps->p (its opening quote): its bytes, decoded, into a new
 * buffer *out of *outlen bytes.  Returns 0 or -1 (error recorded). */
static int string_body(struct parser *ps, char **out, size_t *outlen)
{
	const char *q;
	char *buf, *o;
	unsigned cp, lo;
	size_t n;

	ps->p++;	/* the quote */
	/* the decoded text is never longer than the escaped one */
	for (q = ps->p; q < ps->end && *q != '"'; q++)
		if (*q == '\\' && q + 1 < ps->end)
			q++;
	buf = arena_alloc(ps, (size_t)(q - ps->p) + 1);
	if (!buf)
		return -1;
	o = buf;
	for (;;) {
		unsigned char c;

		if (ps->p >= ps->end) {
			fail(ps, "a string not closed");
			goto bad;
		}
		c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			break;
		}
		if (c < 0x20) {
			fail(ps, "a control character in a string");
			goto bad;
		}
		if (c != '\\') {
			n = utf8_len((const unsigned char *)ps->p,
				     (const unsigned char *)ps->end);
			if (!n) {
				fail(ps, "invalid UTF-8 in a string");
				goto bad;
			}
			memcpy(o, ps->p, n);
			o += n;
			ps->p += n;
			continue;
		}
		ps->p++;
		if (ps->p >= ps->end) {
			fail(ps, "a string not closed");
			goto bad;
		}
		c = (unsigned char)*ps->p++;
		switch (c) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (!hex4(ps, &cp)) {
				fail(ps, "\\u without 4 hex digits");
				goto bad;
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				fail(ps, "a lone low surrogate");
				goto bad;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (!literal(ps, "\\u") || !hex4(ps, &lo) ||
				    lo < 0xdc00 || lo > 0xdfff) {
					fail(ps, "a lone high surrogate");
					goto bad;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) +
				     (lo - 0xdc00);
			}
			/* at most 4 bytes from the 6 or 12 of the escape */
			o += put_utf8(o, cp);
			break;
		default:
			ps->p--;
			fail(ps, "an unknown escape in a string");
			goto bad;
		}
	}
	*o = '\0';
	*out = buf;
	*outlen = (size_t)(o - buf);
	return 0;
bad:
	return -1;	/* the arena goes whole */
}

static struct json_value *number(struct parser *ps)
{
	const char *s = ps->p;
	struct json_value *v;
	int neg = 0, frac = 0;
	uint64_t u = 0;
	int over = 0;

	if (ps->p < ps->end && *ps->p == '-') {
		neg = 1;
		ps->p++;
	}
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
		return fail(ps, "expected a value");
	if (*ps->p == '0' && ps->p + 1 < ps->end && ps->p[1] >= '0' &&
	    ps->p[1] <= '9')
		return fail(ps, "a number with a leading zero");
	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
		unsigned dgt = (unsigned)(*ps->p - '0');

		if (u > (UINT64_MAX - dgt) / 10)
			over = 1;
		else
			u = u * 10 + dgt;
		ps->p++;
	}
	if (ps->p < ps->end && *ps->p == '.') {
		frac = 1;
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return fail(ps, "a digit expected after '.'");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		frac = 1;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			return fail(ps, "a digit expected in an exponent");
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	v = new_value(ps, JSON_NUMBER);
	if (!v)
		return NULL;
	if (frac || over) {
		/* strtod() needs a terminated copy: the text goes on */
		size_t n = (size_t)(ps->p - s);
		char small[64], *tmp = n < sizeof(small) ? small : malloc(n + 1);

		if (!tmp)
			return oom(ps);
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		v->d = strtod(tmp, NULL);
		if (tmp != small)
			free(tmp);
		if (!isfinite(v->d))
			return fail(ps, "a number out of range");
	} else {
		v->d = neg ? -(double)u : (double)u;
	}
	if (!frac && !over) {
		if (!neg) {
			v->is_uint = 1;
			v->u = u;
			if (u <= INT64_MAX) {
				v->is_int = 1;
				v->i = (int64_t)u;
			}
		} else if (u <= (uint64_t)INT64_MAX + 1) {
			v->is_int = 1;
			v->i = u == (uint64_t)INT64_MAX + 1 ? INT64_MIN
							   : -(int64_t)u;
			if (!u) {
				v->is_uint = 1;
				v->u = 0;
			}
		}
	}
	return v;
}

static struct json_value *value(struct parser *ps);

/* Push item (and key) of the innermost open container. */
static int push(struct parser *ps, struct json_value *item, char *key)
{
	if (ps->top == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 64;
		struct json_value **st = realloc(ps->stack, cap * sizeof(*st));
		char **ks;

		if (!st) {
			oom(ps);
			return -1;
		}
		ps->stack = st;
		ks = realloc(ps->kstack, cap * sizeof(*ks));
		if (!ks) {
			oom(ps);
			return -1;
		}
		ps->kstack = ks;
		ps->cap = cap;
	}
	ps->stack[ps->top] = item;
	ps->kstack[ps->top] = key;
	ps->top++;
	return 0;
}

/* The items pushed since base into v, exactly, from the arena. */
static int pop_items(struct parser *ps, struct json_value *v, size_t base)
{
	size_t n = ps->top - base;

	v->n = n;
	if (n) {
		v->items = arena_alloc(ps, n * sizeof(*v->items));
		if (!v->items)
			return -1;
		memcpy(v->items, ps->stack + base, n * sizeof(*v->items));
		if (v->type == JSON_OBJECT) {
			v->keys = arena_alloc(ps, n * sizeof(*v->keys));
			if (!v->keys)
				return -1;
			memcpy(v->keys, ps->kstack + base,
			       n * sizeof(*v->keys));
		}
	}
	ps->top = base;
	return 0;
}

static struct json_value *container(struct parser *ps, enum json_type t)
{
	char close = t == JSON_ARRAY ? ']' : '}';
	struct json_value *v, *item;
	size_t base = ps->top, klen;
	char *key = NULL;

	if (++ps->depth > JSON_MAX_DEPTH)
		return fail(ps, "nested too deep");
	ps->p++;
	v = new_value(ps, t);
	if (!v)
		return NULL;
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		ps->depth--;
		return v;
	}
	for (;;) {
		skip_ws(ps);
		if (t == JSON_OBJECT) {
			if (ps->p >= ps->end || *ps->p != '"')
				return fail(ps, "expected a member name");
			if (string_body(ps, &key, &klen))
				return NULL;
			skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail(ps, "expected ':'");
			ps->p++;
		}
		item = value(ps);
		if (!item || push(ps, item, key))
			return NULL;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			break;
		}
		return fail(ps, t == JSON_ARRAY ? "expected ',' or ']'"
						: "expected ',' or '}'");
	}
	if (pop_items(ps, v, base))
		return NULL;
	ps->depth--;
	return v;
}

static struct json_value *value(struct parser *ps)
{
	struct json_value *v;

	skip_ws(ps);
	if (ps->p >= ps->end)
		return fail(ps, "expected a value");
	switch (*ps->p) {
	case '{':
		return container(ps, JSON_OBJECT);
	case '[':
		return container(ps, JSON_ARRAY);
	case '"':
		v = new_value(ps, JSON_STRING);
		if (v && string_body(ps, &v->str, &v->len))
			return NULL;
		return v;
	case 't':
		return literal(ps, "true") ? new_value(ps, JSON_TRUE)
					   : fail(ps, "expected a value");
	case 'f':
		return literal(ps, "false") ? new_value(ps, JSON_FALSE)
					    : fail(ps, "expected a value");
	case 'n':
		return literal(ps, "null") ? new_value(ps, JSON_NULL)
					   : fail(ps, "expected a value");
	default:
		return number(ps);
	}
}

int json_parse(const char *buf, size_t len, struct json_value **out,
	       char *err, size_t errlen)
{
	struct parser ps = { .p = buf, .end = buf + len, .start = buf,
			     .err = err, .errlen = errlen };
	struct json_value *root, *v;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	else
		ps.err = NULL;
	/* the root first in the first block: json_free() starts there */
	root = new_value(&ps, JSON_NULL);
	v = root ? value(&ps) : NULL;
	if (v) {
		skip_ws(&ps);
		if (ps.p < ps.end)
			v = fail(&ps, "text after the value");
	}
	free(ps.stack);
	free(ps.kstack);
	if (!v) {
		arena_free(ps.first);
		return ps.nomem ? -ENOMEM : -EINVAL;
	}
	*root = *v;
	*out = root;
	return 0;
}

void json_free(struct json_value *v)
{
	if (v)
		arena_free((struct block *)(void *)((char *)v - BLOCK_HEAD));
}

const struct json_value *json_get(const struct json_value *v,
				  const char *key)
{
	size_t i;

	if (!v || v->type != JSON_OBJECT)
		return NULL;
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->keys[i], key))
			return v->items[i];
	return NULL;
}
