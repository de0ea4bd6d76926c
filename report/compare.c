// SPDX-License-Identifier: GPL-2.0
/* --compare: a saved JSON report read and set against this run's
 * (compare.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/json.h"
#include "report/compare.h"
#include "report/format.h"

/* The largest report read: far above any real one (a million rows of
 * JSON is some hundreds of MB), far below what would exhaust memory. */
#define COMPARE_MAX_BYTES (4ull << 30)

struct old_type {
	unsigned type;		/* row index of struct cs_stats */
	struct report_sizes size;
};

/* A row of the report compared (path NULL: its grand total). */
struct old_row {
	char *path;
	uint64_t files;
	struct report_sizes size;
	struct old_type *types;
	size_t ntypes;
	int matched;
};

struct compare {
	struct old_row total;
	struct old_row *rows;
	size_t nrows;
	char (*uuids)[37];
	size_t nuuids;
	/* compare_rows()'s result */
	struct report_row *out;
	size_t nout;
	/* sorted by path: indices into rows */
	size_t *by_path;
};

static int say(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s", what);
	return -EINVAL;
}

/* An unsigned integer member key of v into *out. */
static int get_u64(const struct json_value *v, const char *key,
		   uint64_t *out, char *err, size_t errlen)
{
	const struct json_value *m = json_get(v, key);

	if (!m || m->type != JSON_NUMBER || !m->is_uint) {
		snprintf(err, errlen, "\"%s\": %s", key,
			 m ? "not a whole number of 0 or more" : "missing");
		return -EINVAL;
	}
	*out = m->u;
	return 0;
}

/* The array member key of v, or NULL with the cause in err. */
static const struct json_value *get_array(const struct json_value *v,
					  const char *key, char *err,
					  size_t errlen)
{
	const struct json_value *m = json_get(v, key);

	if (m && m->type == JSON_ARRAY)
		return m;
	snprintf(err, errlen, "\"%s\": missing or not an array", key);
	return NULL;
}

static int get_sizes(const struct json_value *v, struct report_sizes *s,
		     char *err, size_t errlen)
{
	if (!v || v->type != JSON_OBJECT)
		return say(err, errlen, "\"total\": missing or not an object");
	return get_u64(v, "disk", &s->disk, err, errlen) ?:
	       get_u64(v, "uncompressed", &s->uncomp, err, errlen) ?:
	       get_u64(v, "referenced", &s->refd, err, errlen);
}

/* A type's name as the report writes it back to its row index. */
static int type_index(const char *name, unsigned *out)
{
	char buf[FMT_BUF];
	unsigned t;

	for (t = 0; t < CS_NTYPES; t++)
		if (!strcmp(fmt_type_name(t, buf), name)) {
			*out = t;
			return 0;
		}
	return -1;
}

static int b64_value(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* Base64 (RFC 4648, padded) of len bytes to a new string of the bytes, or
 * NULL (*bad set when the text is not base64 of a name). */
static char *b64_decode(const char *s, size_t len, int *bad)
{
	char *out = malloc(len / 4 * 3 + 1), *o = out;
	size_t i;

	*bad = 0;
	if (!out)
		return NULL;
	if (len % 4)
		goto bad;
	for (i = 0; i < len; i += 4) {
		int a = b64_value(s[i]), b = b64_value(s[i + 1]);
		int c = s[i + 2] == '=' && i + 4 == len ? 0 : b64_value(s[i + 2]);
		int d = s[i + 3] == '=' && i + 4 == len ? 0 : b64_value(s[i + 3]);

		if (a < 0 || b < 0 || c < 0 || d < 0 ||
		    (s[i + 2] == '=' && s[i + 3] != '='))
			goto bad;
		*o++ = (char)(a << 2 | b >> 4);
		if (s[i + 2] != '=')
			*o++ = (char)((b & 15) << 4 | c >> 2);
		if (s[i + 3] != '=')
			*o++ = (char)((c & 3) << 6 | d);
	}
	*o = '\0';
	if (strlen(out) != (size_t)(o - out))
		goto bad;	/* a NUL: no file name has one */
	return out;
bad:
	free(out);
	*bad = 1;
	return NULL;
}

/* A row (or with grand the grand total) of the report into *row. */
static int load_row(const struct json_value *v, struct old_row *row,
		    int grand, char *err, size_t errlen)
{
	const struct json_value *types, *p;
	size_t i;
	int ret, bad;

	if (v->type != JSON_OBJECT)
		return say(err, errlen, "a row not an object");
	if (!grand) {
		p = json_get(v, "path_bytes");
		if (p && p->type == JSON_STRING) {
			row->path = b64_decode(p->str, p->len, &bad);
			if (!row->path)
				return bad ? say(err, errlen,
						 "\"path_bytes\": not base64 of a name")
					   : -ENOMEM;
		} else {
			p = json_get(v, "path");
			if (!p || p->type != JSON_STRING ||
			    strlen(p->str) != p->len || !p->len)
				return say(err, errlen,
					   "a row's \"path\": missing or not a name");
			row->path = strdup(p->str);
			if (!row->path)
				return -ENOMEM;
		}
	}
	ret = get_u64(v, "files", &row->files, err, errlen);
	if (!ret)
		ret = get_sizes(json_get(v, "total"), &row->size, err, errlen);
	if (ret)
		return ret;
	types = get_array(v, "types", err, errlen);
	if (!types)
		return -EINVAL;
	row->types = calloc(types->n ? types->n : 1, sizeof(*row->types));
	if (!row->types)
		return -ENOMEM;
	for (i = 0; i < types->n; i++) {
		const struct json_value *t = types->items[i];
		const struct json_value *name = json_get(t, "type");
		struct old_type *ot = &row->types[i];
		size_t k;

		if (!name || name->type != JSON_STRING ||
		    type_index(name->str, &ot->type))
			return say(err, errlen, "\"type\": missing or unknown");
		for (k = 0; k < i; k++)
			if (row->types[k].type == ot->type)
				return say(err, errlen,
					   "\"type\": the same type twice");
		ret = get_u64(t, "disk", &ot->size.disk, err, errlen) ?:
		      get_u64(t, "uncompressed", &ot->size.uncomp, err,
			      errlen) ?:
		      get_u64(t, "referenced", &ot->size.refd, err, errlen);
		if (ret)
			return ret;
		row->ntypes++;
	}
	return 0;
}

static int cmp_path_idx(const void *a, const void *b, void *arg)
{
	const struct old_row *rows = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return strcmp(rows[x].path, rows[y].path);
}

/* Where the old row of path is, or NULL. */
static struct old_row *find_row(struct compare *c, const char *path)
{
	size_t lo = 0, hi = c->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c->rows[c->by_path[mid]].path, path);

		if (!d)
			return &c->rows[c->by_path[mid]];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The report v, checked, into c. */
static int load(struct compare *c, const struct json_value *v, char *err,
		size_t errlen)
{
	const struct json_value *schema, *fs, *rows;
	size_t i;
	int ret;

	if (v->type != JSON_OBJECT)
		return say(err, errlen, "not a compsize JSON report (not an object)");
	schema = json_get(v, "schema");
	if (!schema)
		return say(err, errlen, "not a compsize JSON report (no schema)");
	if (schema->type != JSON_NUMBER || !schema->is_uint ||
	    schema->u != COMPARE_SCHEMA) {
		if (schema->type == JSON_NUMBER && schema->is_uint)
			snprintf(err, errlen,
				 "schema %llu; this compsize reads schema %d",
				 (unsigned long long)schema->u,
				 COMPARE_SCHEMA);
		else
			snprintf(err, errlen,
				 "\"schema\": not a schema number");
		return -EINVAL;
	}
	fs = get_array(v, "filesystems", err, errlen);
	if (!fs)
		return -EINVAL;
	c->uuids = calloc(fs->n ? fs->n : 1, sizeof(*c->uuids));
	if (!c->uuids)
		return -ENOMEM;
	for (i = 0; i < fs->n; i++) {
		const struct json_value *u = fs->items[i];

		if (u->type != JSON_STRING || u->len != 36)
			return say(err, errlen, "\"filesystems\": not a list of UUIDs");
		memcpy(c->uuids[i], u->str, 37);
		c->nuuids++;
	}
	ret = load_row(v, &c->total, 1, err, errlen);
	if (ret)
		return ret;
	rows = json_get(v, "paths");
	if (!rows)
		rows = json_get(v, "subvolumes");
	if (!rows)
		return 0;
	if (rows->type != JSON_ARRAY)
		return say(err, errlen, "rows: not an array");
	c->rows = calloc(rows->n ? rows->n : 1, sizeof(*c->rows));
	c->by_path = calloc(rows->n ? rows->n : 1, sizeof(*c->by_path));
	if (!c->rows || !c->by_path)
		return -ENOMEM;
	for (i = 0; i < rows->n; i++) {
		ret = load_row(rows->items[i], &c->rows[i], 0, err, errlen);
		c->nrows += c->rows[i].path != NULL;
		if (ret)
			return ret;
		c->by_path[i] = i;
	}
	qsort_r(c->by_path, c->nrows, sizeof(*c->by_path), cmp_path_idx,
		c->rows);
	for (i = 1; i < c->nrows; i++)
		if (!strcmp(c->rows[c->by_path[i - 1]].path,
			    c->rows[c->by_path[i]].path))
			return say(err, errlen, "two rows of the same path");
	return 0;
}

/* The whole file at path into a new buffer *buf of *len bytes. */
static int read_all(const char *path, char **buf, size_t *len)
{
	struct stat st;
	size_t cap = 1 << 16, n = 0;
	char *b = NULL, *nb;
	ssize_t got;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		goto out;
	}
	for (;;) {
		if (!b || n == cap) {
			if (b)
				cap *= 2;
			if (cap > COMPARE_MAX_BYTES) {
				ret = -EFBIG;
				goto out;
			}
			nb = realloc(b, cap);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
out:
	close(fd);
	if (ret) {
		free(b);
		return ret;
	}
	*buf = b;
	*len = n;
	return 0;
}

int compare_parse(const char *buf, size_t len, struct compare **out,
		  char *err, size_t errlen)
{
	struct json_value *v = NULL;
	struct compare *c;
	int ret;

	*out = NULL;
	err[0] = '\0';
	if (!len)
		return say(err, errlen, "empty, not a JSON report");
	ret = json_parse(buf, len, &v, err, errlen);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c) {
		json_free(v);
		return -ENOMEM;
	}
	ret = load(c, v, err, errlen);
	json_free(v);
	if (ret) {
		compare_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

int compare_load(const char *path, struct compare **out, char *err,
		 size_t errlen)
{
	size_t len = 0;
	char *buf = NULL;
	int ret;

	*out = NULL;
	err[0] = '\0';
	ret = read_all(path, &buf, &len);
	if (ret) {
		if (ret != -ENOMEM)
			snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	ret = compare_parse(buf, len, out, err, errlen);
	free(buf);
	return ret;
}

static void old_row_free(struct old_row *row)
{
	free(row->path);
	free(row->types);
}

void compare_free(struct compare *c)
{
	size_t i;

	if (!c)
		return;
	old_row_free(&c->total);
	for (i = 0; i < c->nrows; i++)
		old_row_free(&c->rows[i]);
	free(c->rows);
	free(c->by_path);
	free(c->uuids);
	for (i = 0; i < c->nout; i++)
		free(c->out[i].types);
	free(c->out);
	free(c);
}

int compare_check_fs(const struct compare *c, const struct report *r,
		     char *err, size_t errlen)
{
	size_t i;

	if (c->nuuids == r->nuuids) {
		for (i = 0; i < c->nuuids; i++)
			if (strcmp(c->uuids[i], r->uuids[i]))
				break;
		if (i == c->nuuids)
			return 0;
	}
	snprintf(err, errlen, "a report of filesystem%s %s%s; these files are on %s%s",
		 c->nuuids > 1 ? "s" : "",
		 c->nuuids ? c->uuids[0] : "(none)",
		 c->nuuids > 1 ? ",..." : "",
		 r->nuuids ? r->uuids[0] : "(none)",
		 r->nuuids > 1 ? ",..." : "");
	return -EINVAL;
}

static void sizes_change(struct report_change *ch,
			 const struct report_sizes *now,
			 const struct report_sizes *then)
{
	ch->disk = (int64_t)(now->disk - then->disk);
	ch->uncomp = (int64_t)(now->uncomp - then->uncomp);
	ch->refd = (int64_t)(now->refd - then->refd);
}

/* row (whose types it may replace with a new array of n + old's) set
 * against old (NULL: added). */
static int row_change(struct report_row *row, const struct old_row *old)
{
	static const struct report_sizes zero;
	struct row_type *types;
	size_t i, k, n = row->ntypes;

	types = calloc(n + (old ? old->ntypes : 0) + 1, sizeof(*types));
	if (!types)
		return -ENOMEM;
	if (n)
		memcpy(types, row->types, n * sizeof(*types));
	row->change.status = old ? CHANGE_KEPT : CHANGE_ADDED;
	sizes_change(&row->change, &row->size, old ? &old->size : &zero);
	row->change.files = (int64_t)(row->files - (old ? old->files : 0));
	for (i = 0; i < n; i++) {
		const struct old_type *ot = NULL;

		for (k = 0; old && k < old->ntypes; k++)
			if (old->types[k].type == types[i].type)
				ot = &old->types[k];
		types[i].change.status = ot ? CHANGE_KEPT : CHANGE_ADDED;
		sizes_change(&types[i].change, &types[i].size,
			     ot ? &ot->size : &zero);
	}
	for (k = 0; old && k < old->ntypes; k++) {
		for (i = 0; i < row->ntypes; i++)
			if (types[i].type == old->types[k].type)
				break;
		if (i < row->ntypes)
			continue;
		/* gone since: in the row order of types */
		for (i = row->ntypes; i > 0 && types[i - 1].type >
					       old->types[k].type; i--)
			types[i] = types[i - 1];
		memset(&types[i], 0, sizeof(types[i]));
		types[i].type = old->types[k].type;
		types[i].change.status = CHANGE_REMOVED;
		sizes_change(&types[i].change, &zero, &old->types[k].size);
		row->ntypes++;
	}
	row->types = types;
	return 0;
}

int compare_total(const struct compare *c, struct report_row *total)
{
	struct row_type *mine = total->types;
	int ret = row_change(total, &c->total);

	if (!ret)
		free(mine);
	return ret;
}

static uint64_t abs64(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

static int cmp_delta(const void *a, const void *b)
{
	const struct report_row *x = a, *y = b;
	uint64_t dx = abs64(x->change.disk), dy = abs64(y->change.disk);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

int compare_rows(struct compare *c, const struct report *r, int delta,
		 size_t top, const struct report_row **rows, size_t *nrows)
{
	size_t i, n;
	struct old_row *old;
	int ret;

	for (i = 0; i < c->nrows; i++)
		c->rows[i].matched = 0;
	c->out = calloc(r->nrows + c->nrows + 1, sizeof(*c->out));
	if (!c->out)
		return -ENOMEM;
	for (i = 0; i < r->nrows; i++) {
		struct report_row *row = &c->out[c->nout];

		*row = r->rows[i];
		row->types = NULL;
		row->ntypes = 0;
		old = row->path ? find_row(c, row->path) : NULL;
		if (old && old->matched)
			old = NULL;	/* a path given twice: once */
		if (old)
			old->matched = 1;
		/* row_change() copies the types it is given */
		row->types = r->rows[i].types;
		row->ntypes = r->rows[i].ntypes;
		ret = row_change(row, old);
		if (ret) {
			row->types = NULL;
			return ret;
		}
		c->nout++;
	}
	for (i = 0; i < c->nrows; i++) {
		struct report_row *row;

		old = &c->rows[i];
		if (old->matched)
			continue;
		row = &c->out[c->nout];
		memset(row, 0, sizeof(*row));
		row->path = old->path;
		row->seq = UINT64_MAX;
		/* removed: nothing now, all of it then */
		row->change.status = CHANGE_REMOVED;
		row->types = calloc(old->ntypes + 1, sizeof(*row->types));
		if (!row->types)
			return -ENOMEM;
		for (n = 0; n < old->ntypes; n++) {
			row->types[n].type = old->types[n].type;
			row->types[n].change.status = CHANGE_REMOVED;
			row->types[n].change.disk = -(int64_t)old->types[n].size.disk;
			row->types[n].change.uncomp = -(int64_t)old->types[n].size.uncomp;
			row->types[n].change.refd = -(int64_t)old->types[n].size.refd;
		}
		row->ntypes = (unsigned)old->ntypes;
		row->change.disk = -(int64_t)old->size.disk;
		row->change.uncomp = -(int64_t)old->size.uncomp;
		row->change.refd = -(int64_t)old->size.refd;
		row->change.files = -(int64_t)old->files;
		c->nout++;
	}
	if (delta)
		qsort(c->out, c->nout, sizeof(*c->out), cmp_delta);
	*rows = c->out;
	*nrows = top && c->nout > top ? top : c->nout;
	return 0;
}
