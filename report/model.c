// SPDX-License-Identifier: GPL-2.0
/* What a report holds, and the views the formats read it through
 * (model.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/compare.h"
#include "report/model.h"

/* The sums over every type of st. */
static void sum_sizes(const struct cs_stats *st, struct report_sizes *sum)
{
	unsigned t;

	memset(sum, 0, sizeof(*sum));
	for (t = 0; t < CS_NTYPES; t++) {
		sum->disk += st->disk[t];
		sum->uncomp += st->uncomp[t];
		sum->refd += st->refd[t];
	}
}

static void type_sizes(const struct cs_stats *st, unsigned t,
		       struct report_sizes *s)
{
	s->disk = st->disk[t];
	s->uncomp = st->uncomp[t];
	s->refd = st->refd[t];
}

int report_row_fill(struct report_row *row, const struct cs_stats *st)
{
	unsigned t, n = 0;

	row->files = st->nfiles;
	row->extents = st->nextents;
	row->refs = st->nrefs;
	row->ninline = st->ninline;
	row->nfrag = st->nfrag;
	row->share_row = st->share_row;
	row->waste_row = st->waste_row;
	sum_sizes(st, &row->size);
	/* As in compsize 1.5's table: a type shows when it has data. */
	for (t = 0; t < CS_NTYPES; t++)
		if (st->uncomp[t])
			n++;
	row->types = n ? calloc(n, sizeof(*row->types)) : NULL;
	if (n && !row->types)
		return -ENOMEM;
	row->ntypes = 0;
	for (t = 0; t < CS_NTYPES; t++) {
		if (!st->uncomp[t])
			continue;
		row->types[row->ntypes].type = t;
		type_sizes(st, t, &row->types[row->ntypes].size);
		row->ntypes++;
	}
	return 0;
}

void report_row_clear(struct report_row *row)
{
	free(row->path);
	free(row->types);
	free(row->est);
	free(row->levels);
	memset(row, 0, sizeof(*row));
}

int report_hist_rows(const struct report *r, struct report_hist **out,
		     size_t *n)
{
	const struct cs_hist *h = r->total ? r->total->hist : NULL;
	unsigned t, k;
	size_t m = 0;

	*out = NULL;
	*n = 0;
	if (!h || !(r->show & REPORT_SHOW_HISTOGRAM))
		return 0;
	for (t = 0; t < CS_NTYPES; t++)
		for (k = 0; k < CS_HIST_CLASSES; k++)
			m += h->cell[t][k].extents || h->cell[t][k].ninline;
	if (!m)
		return 0;
	*out = calloc(m, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (t = 0; t < CS_NTYPES; t++)
		for (k = 0; k < CS_HIST_CLASSES; k++) {
			const struct cs_hist_cell *c = &h->cell[t][k];
			struct report_hist *o = &(*out)[*n];

			if (!c->extents && !c->ninline)
				continue;
			o->type = t;
			o->size_max = extent_hist_max(k);
			o->extents = c->extents;
			o->ninline = c->ninline;
			o->disk = c->disk;
			o->uncomp = c->uncomp;
			(*n)++;
		}
	return 0;
}

int report_nothing(const struct report *r)
{
	struct report_sizes sum;

	if (!r->have_usage)
		return !r->total->nfiles;
	sum_sizes(r->total, &sum);
	return !sum.uncomp;
}

uint64_t report_current_disk(const struct report *r)
{
	struct report_sizes sum;

	if (!r->have_usage)
		return r->alloc_bytes;
	sum_sizes(r->total, &sum);
	return sum.disk;
}

int report_total_row(const struct report *r, struct report_row *total)
{
	unsigned t;
	int ret;

	ret = report_row_fill(total, r->total);
	if (!ret && r->cmp)
		ret = compare_total(r->cmp, total);
	if (!ret && !r->have_usage) {
		/* Some usage unread (not root, a file off btrfs): no total
		 * by type, which a part would pass off as the whole; the
		 * files' allocation stands in for it. */
		memset(&total->size, 0, sizeof(total->size));
		total->ntypes = 0;
	}
	if (!ret && r->waste) {
		total->size.waste = *r->waste;
		for (t = 0; t < total->ntypes; t++)
			total->types[t].size.waste =
				r->waste_type[total->types[t].type];
	}
	if (ret || !r->excl)
		return ret;
	total->size.excl = r->excl->exclusive;
	total->size.excl_data = r->excl->exclusive_data;
	total->size.excl_meta = r->excl->exclusive_metadata;
	for (t = 0; t < total->ntypes && !r->excl_no_types; t++) {
		struct report_sizes *s = &total->types[t].size;
		unsigned ty = total->types[t].type;

		s->excl = r->excl->type[ty];
		s->excl_meta = r->excl->type_meta[ty];
		s->excl_data = s->excl - s->excl_meta;
	}
	return 0;
}

const uint64_t *report_row_est(const struct report *r,
			       const struct report_row *row, size_t i,
			       int fresh)
{
	int f = fresh || !r->nest || !r->est[0].same_layout;
	size_t stride = r->est_stride ? r->est_stride : r->nest;

	return &row->est[(f ? 3 * stride : 0) + 3 * i];
}

void report_est_view(const struct report *r, size_t i,
		     const struct report_row *row, struct est_view *v)
{
	const uint64_t *m;	/* in the report's model */

	v->cpus = r->cpus;
	if (!row) {
		v->e = r->est[i];
		v->change = (int64_t)(v->e.disk - report_current_disk(r));
		return;
	}
	memset(&v->e, 0, sizeof(v->e));
	memcpy(v->e.setting, r->est[i].setting, sizeof(v->e.setting));
	m = report_row_est(r, row, i, 0);
	v->e.disk = m[0];
	v->e.uncompressed = m[1];
	v->e.input = m[2];
	v->e.disk_fresh = report_row_est(r, row, i, 1)[0];
	v->change = 0;
}
