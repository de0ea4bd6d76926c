// SPDX-License-Identifier: GPL-2.0
/* --find's predicates (find.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "report/find.h"

enum find_key {
	FK_TYPE, FK_RATIO, FK_SIZE, FK_DISK, FK_EXTENTS, FK_AVG_EXTENT,
	FK_SHARED, FK_EXCLUSIVE, FK_WASTE, FK_GAIN,
};

enum find_op { OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE };

/* type= inline: an inline extent, not a row of struct cs_stats */
#define TYPE_INLINE	(~0u)

struct pred {
	enum find_key key;
	enum find_op op;
	double ratio;		/* FK_RATIO */
	uint64_t v;		/* sizes and counts */
	unsigned type;		/* FK_TYPE: a row of struct cs_stats */
	char *text;		/* as given */
};

struct find {
	struct pred *p;
	size_t n;
};

static const char *const keys[] = {
	"type", "ratio", "size", "disk", "extents", "avg-extent", "shared",
	"exclusive", "waste", "gain",
};

/* Longest first: "<=" before "<". */
static const struct { const char *s; enum find_op op; } ops[] = {
	{ "<=", OP_LE }, { ">=", OP_GE }, { "!=", OP_NE },
	{ "=", OP_EQ }, { "<", OP_LT }, { ">", OP_GT },
};

/* A size: a decimal number, then K, M, G, T or P (binary; B or iB may
 * follow) or nothing (bytes).  0 or -EINVAL. */
static int parse_size(const char *s, uint64_t *v)
{
	static const char units[] = "KMGTP";
	const char *u;
	char *end;
	double d;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s)
		return -EINVAL;
	if (*end) {
		u = strchr(units, *end & ~0x20);
		if (!u || !*u || (end[1] && strcmp(end + 1, "iB") &&
				  strcmp(end + 1, "B")))
			return -EINVAL;
		shift = 10 * (int)(u - units + 1);
	}
	d = ldexp(d, shift);
	if (d > 1.8e19)
		return -EINVAL;
	*v = (uint64_t)d;
	return 0;
}

static int parse_count(const char *s, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_type(const char *s, unsigned *t)
{
	static const char *const names[] = { "none", "zlib", "lzo", "zstd" };
	unsigned i;

	for (i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*t = i;
			return 0;
		}
	if (!strcmp(s, "prealloc"))
		*t = CS_TYPE_PREALLOC;
	else if (!strcmp(s, "inline"))
		*t = TYPE_INLINE;
	else
		return -EINVAL;
	return 0;
}

/* One predicate of len bytes at s into *p; NULL or the cause. */
static const char *parse_pred(const char *s, size_t len, struct pred *p)
{
	char buf[256];
	const char *v;
	size_t k, i, n;

	if (len >= sizeof(buf))
		return "too long";
	memcpy(buf, s, len);
	buf[len] = 0;
	n = strspn(buf, "abcdefghijklmnopqrstuvwxyz-");
	if (!n)
		return "use KEY OP VALUE, such as ratio<0.5 or type=none";
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		if (strlen(keys[k]) == n && !strncmp(buf, keys[k], n))
			break;
	if (k == sizeof(keys) / sizeof(keys[0]))
		return "unknown key: use type, ratio, size, disk, extents, avg-extent, shared, exclusive, waste or gain";
	p->key = (enum find_key)k;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(buf + n, ops[i].s, strlen(ops[i].s)))
			break;
	if (i == sizeof(ops) / sizeof(ops[0]))
		return "no operator: use = != < > <= or >=";
	p->op = ops[i].op;
	v = buf + n + strlen(ops[i].s);
	if (!*v)
		return "no value";
	switch (p->key) {
	case FK_TYPE:
		if (p->op != OP_EQ && p->op != OP_NE)
			return "type takes = or !=";
		if (parse_type(v, &p->type))
			return "use none, zlib, lzo, zstd, prealloc or inline";
		break;
	case FK_RATIO: {
		char *end;

		if (*v < '0' || *v > '9')
			return "use a decimal such as 0.5";
		errno = 0;
		p->ratio = strtod(v, &end);
		if (errno || *end || !isfinite(p->ratio))
			return "use a decimal such as 0.5";
		break;
	}
	case FK_EXTENTS:
		if (parse_count(v, &p->v))
			return "use a whole number";
		break;
	default:
		if (parse_size(v, &p->v))
			return "use a size such as 4096, 128K, 1M or 2G";
		break;
	}
	return NULL;
}

int find_parse(const char *s, struct find **out, char **bad,
	       const char **why)
{
	struct find *f = calloc(1, sizeof(*f));
	const char *c, *all = s;
	size_t n = 1, len;

	*bad = NULL;
	*why = NULL;
	if (!f)
		return -ENOMEM;
	for (c = s; *c; c++)
		n += *c == ',';
	f->p = calloc(n, sizeof(*f->p));
	if (!f->p) {
		free(f);
		return -ENOMEM;
	}
	for (;;) {
		len = strcspn(s, ",");
		*why = len ? parse_pred(s, len, &f->p[f->n])
			   : "an empty predicate: use KEY OP VALUE, comma-separated";
		if (*why) {
			/* an empty one: the whole list shows where */
			*bad = len ? strndup(s, len) : strdup(all);
			find_free(f);
			return *bad ? -EINVAL : -ENOMEM;
		}
		f->p[f->n].text = strndup(s, len);
		if (!f->p[f->n++].text) {
			find_free(f);
			return -ENOMEM;
		}
		if (!s[len])
			break;
		s += len + 1;
	}
	*out = f;
	return 0;
}

void find_free(struct find *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n; i++)
		free(f->p[i].text);
	free(f->p);
	free(f);
}

static unsigned pred_needs(const struct pred *p)
{
	if (p->key == FK_SHARED || p->key == FK_EXCLUSIVE)
		return FIND_NEED_EXCLUSIVE;
	if (p->key == FK_WASTE)
		return FIND_NEED_WASTE;
	if (p->key == FK_GAIN)
		return FIND_NEED_ESTIMATE;
	return 0;
}

const char *find_text(const struct find *f, unsigned need)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (pred_needs(&f->p[i]) & need)
			return f->p[i].text;
	return NULL;
}

unsigned find_needs(const struct find *f)
{
	unsigned need = 0;
	size_t i;

	for (i = 0; i < f->n; i++)
		need |= pred_needs(&f->p[i]);
	return need;
}

/* a OP b, of a signed difference's sign */
static int holds(enum find_op op, int cmp)
{
	switch (op) {
	case OP_EQ: return cmp == 0;
	case OP_NE: return cmp != 0;
	case OP_LT: return cmp < 0;
	case OP_GT: return cmp > 0;
	case OP_LE: return cmp <= 0;
	case OP_GE: return cmp >= 0;
	}
	return 0;
}

static int cmp_u128(unsigned __int128 a, unsigned __int128 b)
{
	return (a > b) - (a < b);
}

static int has_type(const struct report_row *row, unsigned type)
{
	unsigned t;

	if (type == TYPE_INLINE)
		return row->ninline > 0;
	for (t = 0; t < row->ntypes; t++)
		if (row->types[t].type == type)
			return 1;
	return 0;
}

static int pred_match(const struct pred *p, const struct report *r,
		      const struct report_row *row)
{
	const struct report_sizes *s = &row->size;
	int64_t gain;

	switch (p->key) {
	case FK_TYPE:
		return has_type(row, p->type) == (p->op == OP_EQ);
	case FK_RATIO:
		if (!s->uncomp)
			return 0;
		return holds(p->op, ((double)s->disk / (double)s->uncomp >
				     p->ratio) -
				    ((double)s->disk / (double)s->uncomp <
				     p->ratio));
	case FK_SIZE:
		return holds(p->op, cmp_u128(s->refd, p->v));
	case FK_DISK:
		return holds(p->op, cmp_u128(s->disk, p->v));
	case FK_EXTENTS:
		return holds(p->op, cmp_u128(row->extents, p->v));
	case FK_AVG_EXTENT:
		/* exact: refd / extents against v, as refd against v * n */
		if (!row->extents)
			return 0;
		return holds(p->op, cmp_u128(s->refd,
					     (unsigned __int128)p->v *
					     row->extents));
	case FK_SHARED:
		/* inline data in a leaf a snapshot shares is shared too */
		return holds(p->op, cmp_u128(s->disk > s->excl ?
					     s->disk - s->excl : 0, p->v));
	case FK_EXCLUSIVE:
		return holds(p->op, cmp_u128(s->excl, p->v));
	case FK_WASTE:
		return holds(p->op, cmp_u128(s->waste, p->v));
	case FK_GAIN:
		if (!r->nest || !row->est)
			return 0;
		gain = (int64_t)(s->disk - report_row_est(r, row, 0, 0)[0]);
		return holds(p->op, gain < 0 ? -1 :
				    cmp_u128((uint64_t)gain, p->v));
	}
	return 0;
}

int find_match(const struct find *f, const struct report *r,
	       const struct report_row *row)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!pred_match(&f->p[i], r, row))
			return 0;
	return 1;
}

void find_print(FILE *out, const struct report *r, int nul)
{
	size_t i;

	for (i = 0; i < r->nrows; i++) {
		fputs(r->rows[i].path, out);
		fputc(nul ? '\0' : '\n', out);
	}
}
