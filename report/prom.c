// SPDX-License-Identifier: GPL-2.0
/* The report as Prometheus text (prom.h): the families are fields.h's. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/fields.h"
#include "report/format.h"
#include "report/prom.h"

/* s as a quoted label value (prom_label_value()), malloc'd; NULL when out
 * of memory. */
static char *label(const char *s)
{
	char *tab = NULL, *out = NULL, *p, *q;
	size_t len = 0;
	FILE *m = open_memstream(&tab, &len);

	if (!m)
		return NULL;
	fmt_table_path(m, s);
	if (fclose(m) || !tab)
		goto out;
	/* the exposition format escapes backslash, quote and newline (no
	 * newline is left) */
	out = malloc(2 * len + 3);
	if (!out)
		goto out;
	q = out;
	*q++ = '"';
	for (p = tab; *p; p++) {
		if (*p == '\\' || *p == '"')
			*q++ = '\\';
		*q++ = *p;
	}
	*q++ = '"';
	*q = '\0';
out:
	free(tab);
	return out;
}

int prom_label_value(FILE *f, const char *s)
{
	char *l = label(s);

	if (!l)
		return -ENOMEM;
	fputs(l, f);
	free(l);
	return 0;
}

struct row_label {
	const char *label;
	size_t idx;
};

static int by_label(const void *a, const void *b)
{
	const struct row_label *x = a, *y = b;
	int c = strcmp(x->label, y->label);

	if (c)
		return c;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* labels[i]: row i's path label, or NULL when an earlier row has the same
 * one.  Returns 0 or -ENOMEM. */
static int row_labels(const struct report *r, char **labels)
{
	struct row_label *s = calloc(r->nrows ? r->nrows : 1, sizeof(*s));
	size_t i;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < r->nrows; i++) {
		labels[i] = label(r->rows[i].path);
		if (!labels[i]) {
			free(s);
			return -ENOMEM;
		}
		s[i].label = labels[i];
		s[i].idx = i;
	}
	qsort(s, r->nrows, sizeof(*s), by_label);
	for (i = 1; i < r->nrows; i++) {
		if (strcmp(s[i].label, s[i - 1].label))
			continue;
		free(labels[s[i].idx]);
		labels[s[i].idx] = NULL;
		s[i].label = s[i - 1].label;
	}
	free(s);
	return 0;
}

static void family(FILE *out, const char *name, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

/* prefix, f's key and its base unit: bytes "_bytes"; MB/s, the key's
 * "_mbps" dropped, "_bytes_per_second". */
static void metric(char *name, size_t len, const char *prefix,
		   const struct field *f)
{
	size_t klen = strlen(f->key);
	const char *unit = "";

	if (f->type == FT_BYTES) {
		unit = "_bytes";
	} else if (f->type == FT_MBPS) {
		unit = "_bytes_per_second";
		if (klen > 5 && !strcmp(f->key + klen - 5, "_mbps"))
			klen -= 5;
	}
	snprintf(name, len, "%s%.*s%s", prefix, (int)klen, f->key, unit);
}

static void value(FILE *out, const struct field *f, const void *base)
{
	fputc(' ', out);
	field_print(out, f, base, FIELD_PROM);
	fputc('\n', out);
}

/* The size fields: by type where rows have them by type. */
static void sizes(FILE *out, const struct report *r, char **labels)
{
	char name[64], tname[FMT_BUF];
	size_t k, i;
	unsigned t;

	for (k = 0; k < fields_nsize; k++) {
		const struct field *f = &fields_size[k];
		int by_type = !(f->flags & FIELD_TOTAL_TYPES);

		if (!field_shown(f, r))
			continue;
		metric(name, sizeof(name), "compsize_", f);
		family(out, name, f->help);
		for (i = 0; i < r->nrows; i++) {
			const struct report_row *row = &r->rows[i];

			if (!labels[i])
				continue;
			if (!by_type) {
				fprintf(out, "%s{path=%s}", name, labels[i]);
				value(out, f, &row->size);
				continue;
			}
			for (t = 0; t < row->ntypes; t++) {
				fprintf(out, "%s{path=%s,type=\"%s\"}", name,
					labels[i],
					fmt_type_name(row->types[t].type, tname));
				value(out, f, &row->types[t].size);
			}
		}
	}
}

static void counts(FILE *out, const struct report *r, char **labels)
{
	char name[64];
	size_t k, i;

	for (k = 0; k < fields_ncount; k++) {
		const struct field *f = &fields_count[k];

		if (!field_shown(f, r))
			continue;
		metric(name, sizeof(name), "compsize_", f);
		family(out, name, f->help);
		for (i = 0; i < r->nrows; i++) {
			if (!labels[i])
				continue;
			fprintf(out, "%s{path=%s}", name, labels[i]);
			value(out, f, &r->rows[i]);
		}
	}
}

/* --estimate: the fields_est with a prom place, in its order: a row's
 * (FIELD_ROW_EST) for each row and setting, the others for each setting;
 * a value not known (a speed not measured) has no series. */
static int estimates(FILE *out, const struct report *r, char **labels)
{
	const struct field *est[FIELDS_EST_MAX];
	char **set = calloc(r->nest, sizeof(*set));
	size_t n = fields_order(fields_est, fields_nest, 1, est);
	struct est_view v;
	char name[64];
	size_t k, i, j;
	int ret = -ENOMEM;

	if (!set)
		return ret;
	for (j = 0; j < r->nest; j++) {
		set[j] = label(r->est[j].setting);
		if (!set[j])
			goto out;
	}
	for (k = 0; k < n; k++) {
		const struct field *f = est[k];

		metric(name, sizeof(name), "compsize_estimate_", f);
		family(out, name, f->help);
		for (i = 0; (f->flags & FIELD_ROW_EST) && i < r->nrows; i++) {
			if (!labels[i])
				continue;
			for (j = 0; j < r->nest; j++) {
				report_est_view(r, j, &r->rows[i], &v);
				fprintf(out, "%s{path=%s,setting=%s}", name,
					labels[i], set[j]);
				value(out, f, &v);
			}
		}
		for (j = 0; !(f->flags & FIELD_ROW_EST) && j < r->nest; j++) {
			report_est_view(r, j, NULL, &v);
			if (!field_known(f, &v) || !field_has(f, r, &v))
				continue;
			fprintf(out, "%s{setting=%s}", name, set[j]);
			value(out, f, &v);
		}
	}
	ret = 0;
out:
	for (j = 0; j < r->nest; j++)
		free(set[j]);
	free(set);
	return ret;
}

int prom_print(FILE *out, const struct report *r)
{
	char **labels = calloc(r->nrows ? r->nrows : 1, sizeof(*labels));
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m = NULL;
	int ret = -ENOMEM;

	if (!labels)
		return ret;
	ret = row_labels(r, labels);
	if (ret)
		goto out;
	/* into memory first: out of memory prints nothing */
	ret = -ENOMEM;
	m = open_memstream(&buf, &len);
	if (!m)
		goto out;
	sizes(m, r, labels);
	counts(m, r, labels);
	ret = r->nest ? estimates(m, r, labels) : 0;
	family(m, "compsize_read_errors",
	       "Paths that could not be read (compsize: PATH: cause)");
	fprintf(m, "compsize_read_errors %zu\n", r->nerrors);
	/* a memory stream fails only for want of memory */
	if (fclose(m))
		ret = -ENOMEM;
	if (!ret)
		fwrite(buf, 1, len, out);
out:
	free(buf);
	for (i = 0; i < r->nrows; i++)
		free(labels[i]);
	free(labels);
	return ret;
}
