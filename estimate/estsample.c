// SPDX-License-Identifier: GPL-2.0
/*
 * The sampling half of estrun (estrun.h): with --sample, what the workers
 * read of a file (the units the design draws: a small file whole, a big
 * one's 512 KiB parts, NOCOMPRESS followed, its writes in steps by part)
 * and what the calling thread makes of each file delivered: its units
 * into the populations and the sums by stratum (sample.h), the same
 * layout's factors and shares, the sums by band for the report rows, and
 * at the end the estimates, their intervals and what a larger sample
 * would give.  The queue and the workers are estrun.c's; the state both
 * share is estrun_internal.h's.  See docs/sampling.md.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/plugin.h"
#include "estimate/estrun.h"
#include "estimate/estrun_internal.h"
#include "lib/array.h"

/* ---- the files' units ---- */

/* Room for one more unit in sl->su: its 3 + 2n values, or NULL. */
static uint64_t *estrun_unit(struct estrun_slot *sl, size_t n)
{
	uint64_t *p = array_grow(sl->su, &sl->cap_su,
				 (sl->nsu + 1) * (3 + 2 * n), sizeof(*p));

	if (!p)
		return NULL;
	sl->su = p;
	return p + sl->nsu++ * (3 + 2 * n);
}

/* The key of file st in r->bands. */
static uint64_t estrun_key(const struct estrun *r, const struct stat *st)
{
	return r->key ? r->key(r->arg, st) : sample_key(st->st_dev, st->st_ino);
}

void estrun_file_bands(const struct estrun *r, const struct stat *st,
		       struct sample_file_bands *fb)
{
	if (!r->bands) {
		memset(fb, 0, sizeof(*fb));
		return;
	}
	sample_bands_file(r->bands, estrun_key(r, st),
			  sample_units(st->st_size, sample_data_bytes(st)), fb);
}

/* The bytes of the units in the sample of file st, of current ratio band
 * band and its parts' pb (0: none). */
static uint64_t estrun_sample_bytes_of(const struct estrun *r,
				       const struct stat *st, unsigned band,
				       const uint8_t *pb)
{
	uint64_t x = sample_data_bytes(st), n = sample_units(st->st_size, x);
	uint64_t k, off, len, bytes = 0;

	if (n <= 1)
		pb = NULL;
	for (k = 0; k < n; k++)
		if (sample_in(&r->design,
			      sample_unit_stratum(st->st_size, x, band, pb, k),
			      st->st_dev, st->st_ino, k)) {
			sample_unit(st->st_size, x, k, &off, &len);
			bytes += len;
		}
	return bytes;
}

double estrun_weight(const struct estrun *r, unsigned h)
{
	return h < SAMPLE_STRATA && r->design.pi[h] > 0 ?
	       1 / r->design.pi[h] : 0;
}

uint64_t estrun_cost_of(const struct estrun *r, const struct stat *st,
			const struct sample_file_bands *fb)
{
	return r->sampling ? estrun_sample_bytes_of(r, st, fb->band, fb->pb)
			   : sample_data_bytes(st);
}

uint64_t estrun_cost(const struct estrun *r, const struct stat *st)
{
	struct sample_file_bands fb;

	if (!r->sampling)
		return sample_data_bytes(st);
	estrun_file_bands(r, st, &fb);
	return estrun_cost_of(r, st, &fb);
}

int estrun_sampled(const struct estrun *r, const struct stat *st)
{
	return !r->sampling || estrun_cost(r, st) > 0;
}

void estrun_dx(struct estrun *r, const struct stat *st, size_t token,
	       const struct estrun_slot *sl)
{
	const size_t per = 3 + 2 * r->n, B = SAMPLE_ROW_BANDS;
	const size_t nc = (2 + 2 * r->n) * B, m = (4 + 2 * r->n) * B;
	const uint64_t x = sample_data_bytes(st);
	struct sample_pop units;
	struct sample_file_bands fb;
	struct sample_cur cur;
	double *d = r->dxd;
	size_t j, i, c;
	unsigned h;

	/* first: a file's units by stratum are some KiB to zero (every file
	 * a sample does not read comes here) */
	if (!r->sample_dx)
		return;
	memset(&units, 0, sizeof(units));
	if (sl) {
		/* what estrun_submit_writes() looked up */
		fb.band = sl->band;
		fb.pb = sl->pb;
		cur = sl->cur;
	} else {
		estrun_file_bands(r, st, &fb);
		cur.q = fb.q;
		cur.pq = fb.pq;
	}
	for (j = 0; j < m; j++)
		d[j] = 0;
	/* its units by stratum, as submitted to the population */
	sample_pop_cur(&units, st->st_size, x, fb.band, fb.pb, 1, &cur, 1);
	for (h = 0; h < SAMPLE_STRATA; h++) {
		d[sample_row_band(h)] += (double)units.X[h];
		d[nc + sample_row_band(h)] += (double)units.C[h];
	}
	for (j = 0; sl && j < sl->nsu; j++) {
		const uint64_t *v = sl->su + j * per;
		double pi;

		h = (unsigned)v[0];
		if (h >= SAMPLE_STRATA || !(r->design.pi[h] > 0))
			continue;
		pi = r->design.pi[h];
		c = sample_row_band(h);
		d[B + c] += v[1] / pi;
		d[nc + B + c] += (double)sample_unit_cur(&cur, st->st_size, x,
							 v[2]) / pi;
		for (i = 0; i < 2 * r->n; i++)
			d[(2 + i) * B + c] += v[3 + i] / pi;
	}
	for (j = 0; j < m; j++)
		r->dx[j] = (int64_t)(d[j] + 0.5);
	r->sample_dx(r->arg, token, r->dx);
}

/* ---- on a worker: the units drawn read ---- */

/*
 * Of each entry of estrun_slot.pw, for a unit read of a big file written
 * in steps and one write bucket that reaches its part: the part, the
 * bucket, its bytes in the part of writes that reach beyond the part,
 * and of writes that lie whole in it, then for each setting what those
 * take as written (est_ops.writes()), disk and uncompressed, or -1 and
 * -1 where the part is raw after NOCOMPRESS.
 */
#define ESTRUN_PW(n)	(4 + 2 * (n))
/* A piece of a write is estimated as written (whole, where it reaches
 * beyond the part) up to this long: a small write, where a sector's
 * rounding and the one-sector rule weigh.  A longer one counts by the
 * part's ratio, as the part in one go, of which it is most: read again,
 * such pieces (an image's first write between blocks rewritten since)
 * would cost much CPU time for the same estimate. */
#define ESTRUN_WRITE_ALONE	(64u * 1024)
/* ... and a piece that starts its write (not what is left of an older
 * one) up to this long: blocks and writes of some KiB side by side in
 * one transaction are one dirty range, one extent, whose compress=
 * decision is not the part's: so estimated, a disk image rewritten in
 * both, every part read, is the full estimate to the byte. */
#define ESTRUN_WRITE_FRESH	(256u * 1024)

/* A piece's bytes in a part read (estrun_unit_writes()). */
struct estrun_pitem {
	uint32_t j;		/* the unit */
	uint32_t p;		/* the piece */
	uint64_t bytes;
	/* estimated as written: its entry in sl->pw and its flags, as
	 * given to est_ops.writes(); e UINT32_MAX for a piece counted by
	 * the part's ratio */
	uint32_t e, flags;
};

/* A small write that reaches beyond a part read: estimated whole, its
 * share (the piece's bytes in the part over its own) to bucket a
 * (estrun_unit_writes()). */
struct estrun_cross {
	size_t a, loc;
	double share;
};

/* One bucket of a part's pieces (estrun_unit_writes()). */
struct estrun_bacc {
	uint32_t b;
	uint64_t out, in;	/* bytes of writes beyond the part, within */
	size_t loc;		/* its group in est_ops.writes(), or max */
};

/* Whether write x of a file of size bytes is small (estimated as
 * written, estrun_unit_writes(): ESTRUN_WRITE_ALONE, ESTRUN_WRITE_FRESH);
 * its first and last parts then in *k0 and *k1. */
static int estrun_write_small(const struct est_write *x, uint64_t size,
			      uint64_t *k0, uint64_t *k1)
{
	uint64_t e = x->end < size ? x->end : size;

	if ((x->flags & EST_WRITE_INDEP) || x->start >= e ||
	    (e - x->start > ESTRUN_WRITE_ALONE &&
	     (x->start != x->grid || e - x->start > ESTRUN_WRITE_FRESH)))
		return 0;
	*k0 = x->start / SAMPLE_CHUNK;
	*k1 = (e - 1) / SAMPLE_CHUNK;
	return 1;
}

/* The share of write x (of a file of size bytes) that its piece of bytes
 * in a part is. */
static double estrun_write_share(const struct est_write *x, uint64_t size,
				 uint64_t bytes)
{
	return (double)bytes / ((x->end < size ? x->end : size) - x->start);
}

/* Whether a big file's small writes are estimated part by part
 * (estrun_unit_writes()): with compress-force= settings alone.  With a
 * compress= setting estrun_follow_writes() estimates them, for every
 * setting: a compress-force= setting's values do not depend on the order
 * of the writes (it ignores NOCOMPRESS, and a write that fails does not
 * set it), so the same call gives them. */
static int estrun_by_part(const struct estrun *r)
{
	size_t t;

	for (t = 0; t < r->n && r->s[t].force; t++)
		;
	return t == r->n;
}

/* A small write of estrun_follow_writes(): its index, itself, the entry
 * of sl->pw and the share of its value it goes to (SIZE_MAX: none, a
 * write of parts not read). */
struct estrun_fitem {
	size_t p, e;
	double share;
	struct est_write w;
};

static int estrun_fitem_cmp(const void *a, const void *b)
{
	const struct estrun_fitem *x = a, *y = b;

	return (x->p > y->p) - (x->p < y->p);
}

/*
 * With a compress= setting: the small writes of big file sl's parts read
 * (by[0..ni), their entries in sl->pw) estimated with those of its parts
 * not read (unit[k] 0), all in the order written in one
 * est_ops.writes(), each once, so that one failing to compress sets
 * NOCOMPRESS for all the writes after it, in whichever part, as the
 * kernel carries the inode's flag: a few KiB of random data that the
 * heuristic lets through (too short for it to tell) or of packed data
 * that lzo cannot shrink, rewritten in a disk image, make every later
 * rewrite raw.  The entries' values are set, every setting's
 * (estrun_by_part()).  Returns 0 or -errno.
 */
static int estrun_follow_writes(struct estrun_worker *w,
				struct estrun_slot *sl,
				const struct estrun_pitem *by, size_t ni,
				const uint32_t *unit, uint64_t nu)
{
	const struct estrun *r = w->r;
	const size_t n = r->n, pe = ESTRUN_PW(n);
	const uint64_t size = sl->st.st_size;
	struct estrun_fitem *f = NULL;
	struct est_write *cw = NULL;
	uint64_t *gd = NULL, k0, k1, lastk = UINT64_MAX, lastg = UINT64_MAX;
	double *v, *val = NULL;
	size_t nf = 0, ncw = 0, i, t, c;
	int ret = -ENOMEM;

	if (!sl->npw)
		return 0;
	f = malloc((ni + sl->nw) * sizeof(*f));
	cw = malloc((ni + sl->nw) * sizeof(*cw));
	val = calloc(sl->npw * 2 * n, sizeof(*val));
	if (!f || !cw || !val)
		goto out;
	for (i = 0; i < ni; i++) {
		const struct est_write *x = &sl->wr[by[i].p];

		if (by[i].e == UINT32_MAX)
			continue;
		f[nf].p = by[i].p;
		f[nf].e = by[i].e;
		f[nf].share = estrun_write_share(x, size, by[i].bytes);
		f[nf].w = *x;
		f[nf++].w.flags = by[i].flags;
	}
	/* the parts not read: the first piece in a part of a write that
	 * started before takes the range's decision, as in a part read */
	for (i = 0; i < sl->nw; i++) {
		const struct est_write *x = &sl->wr[i];

		if (!estrun_write_small(x, size, &k0, &k1) || k1 >= nu ||
		    unit[k0] || unit[k1])
			continue;
		f[nf].p = i;
		f[nf].e = SIZE_MAX;
		f[nf].share = 0;
		f[nf].w = *x;
		if (x->start != x->grid && (k0 != lastk || x->grid != lastg))
			f[nf].w.flags |= EST_WRITE_BEGIN;
		f[nf++].w.group = 0;
		lastk = k0;
		lastg = x->grid;
	}
	ret = 0;
	if (!nf)
		goto out;
	qsort(f, nf, sizeof(*f), estrun_fitem_cmp);
	/* each write once, a group of its own */
	for (i = 0; i < nf; i++) {
		if (i && f[i].p == f[i - 1].p) {
			f[i].w.group = (uint32_t)(ncw - 1);
			continue;
		}
		cw[ncw] = f[i].w;
		f[i].w.group = cw[ncw].group = (uint32_t)ncw;
		ncw++;
	}
	ret = -ENOMEM;
	gd = malloc(ncw * 3 * n * sizeof(*gd));
	if (!gd)
		goto out;
	ret = r->ops->writes(w->ctx, sl->fd, &sl->st, cw, ncw, ncw, gd);
	for (i = 0; i < nf && !ret; i++) {
		if (f[i].e == SIZE_MAX)
			continue;
		for (t = 0; t < 2 * n; t++)
			val[2 * n * f[i].e + t] += f[i].share *
				(double)gd[3 * n * f[i].w.group + 3 * (t / 2) +
					   t % 2];
	}
	for (i = 0; i < sl->npw && !ret; i++) {
		v = sl->pw + i * pe;
		for (t = 0; t < n; t++) {
			/* raw by the part's, or nothing as written */
			if (v[4 + 2 * t] < 0 || !v[3])
				continue;
			c = 2 * n * i + 2 * t;
			v[4 + 2 * t] = val[c];
			v[5 + 2 * t] = val[c + 1];
		}
	}
out:
	free(f);
	free(cw);
	free(gd);
	free(val);
	return ret;
}

/*
 * The m units read of big file sl (w->units, per values each, their
 * values final), by the write buckets that reach their parts, into
 * sl->pw (ESTRUN_PW(n) values an entry): the small writes that reach a
 * part (estrun_write_small()) estimated as they were written
 * (est_ops.writes(), in the order written; one that reaches beyond the
 * part whole, its share of bytes to the part), which the part in one go
 * does not tell (a 4 KiB write in a part of text is raw, not the part's
 * ratio of 4 KiB); with a compress= setting followed from write to write
 * instead, for every setting (estrun_follow_writes()).  Nothing for a file
 * not written in steps.
 * Returns 0 or -errno.
 */
static int estrun_unit_writes(struct estrun_worker *w, struct estrun_slot *sl,
			      size_t m, size_t per)
{
	const struct estrun *r = w->r;
	const size_t n = r->n, pe = ESTRUN_PW(n);
	const uint64_t size = sl->st.st_size;
	const uint64_t nu = sample_units(size, sample_data_bytes(&sl->st));
	struct estrun_pitem *by = NULL;
	struct estrun_bacc *acc = NULL;
	struct est_write *cw = NULL;
	struct estrun_cross *xs = NULL;
	uint64_t *gd = NULL, k, k0, k1, e, s, *u;
	uint32_t *unit = NULL;
	size_t *at = NULL, ni = 0, i, j, q, c, t, xi, na, ncw, nloc, nxs;
	const int by_part = estrun_by_part(r);
	double *pw;
	int ret = -ENOMEM;

	sl->npw = 0;
	if (!sl->nw || sl->nw > UINT32_MAX || !m || m >= UINT32_MAX ||
	    nu > SIZE_MAX / sizeof(*unit))
		return 0;
	unit = calloc((size_t)nu, sizeof(*unit));
	at = calloc(m + 1, sizeof(*at));
	if (!unit || !at)
		goto out;
	for (j = 0; j < m; j++)
		unit[w->units[j * per] / SAMPLE_CHUNK] = (uint32_t)j + 1;
	/* each piece's bytes in each part read, by unit, in the order
	 * written: counted, then placed */
	for (c = 0; c < 2; c++) {
		for (i = 0; i < sl->nw; i++) {
			const struct est_write *x = &sl->wr[i];

			e = x->end < size ? x->end : size;
			if ((x->flags & EST_WRITE_INDEP) || x->start >= e)
				continue;
			for (k = x->start / SAMPLE_CHUNK;
			     k < nu && k * SAMPLE_CHUNK < e; k++) {
				if (!unit[k])
					continue;
				if (!c) {
					at[unit[k]]++;
					ni++;
					continue;
				}
				s = x->start > k * SAMPLE_CHUNK ?
					    x->start : k * SAMPLE_CHUNK;
				by[at[unit[k] - 1]++] = (struct estrun_pitem){
					unit[k] - 1, (uint32_t)i,
					(e < (k + 1) * SAMPLE_CHUNK ?
						 e : (k + 1) * SAMPLE_CHUNK) - s,
					UINT32_MAX, 0
				};
			}
		}
		if (c)
			break;
		/* where each unit's pieces start (unit j's count was at
		 * at[j + 1]) */
		for (j = 1; j <= m; j++)
			at[j] += at[j - 1];
		by = malloc((ni ? ni : 1) * sizeof(*by));
		acc = malloc((ni ? ni : 1) * sizeof(*acc));
		cw = malloc((ni ? ni : 1) * sizeof(*cw));
		xs = malloc((ni ? ni : 1) * sizeof(*xs));
		/* the values part by part: with compress-force= settings
		 * alone (estrun_by_part()) */
		if (by_part)
			gd = malloc((ni ? ni : 1) * 2 * 3 * n * sizeof(*gd));
		if (!by || !acc || !cw || !xs || (by_part && !gd))
			goto out;
	}
	pw = array_grow(sl->pw, &sl->cap_pw, ni ? ni * pe : 1, sizeof(*pw));
	if (!pw)
		goto out;
	sl->pw = pw;
	ret = 0;
	/* at[j] is now where unit j's pieces end */
	for (j = 0, q = 0; j < m && !ret; q = at[j++]) {
		u = w->units + j * per;
		k = u[0] / SAMPLE_CHUNK;
		na = ncw = nloc = nxs = 0;
		for (i = q; i < at[j]; i++) {
			const struct est_write *x = &sl->wr[by[i].p];
			size_t a;

			for (a = 0; a < na && acc[a].b != x->group; a++)
				;
			if (a == na)
				acc[na++] = (struct estrun_bacc){ x->group, 0, 0,
								  SIZE_MAX };
			if (!estrun_write_small(x, size, &k0, &k1)) {
				/* large: by the part's ratio */
				acc[a].out += by[i].bytes;
				continue;
			}
			acc[a].in += by[i].bytes;
			if (acc[a].loc == SIZE_MAX)
				acc[a].loc = nloc++;
			/* the first piece here of a write that started
			 * before: the range's decision is taken on it */
			for (t = 0; t < ncw && cw[t].grid != x->grid; t++)
				;
			cw[ncw] = *x;
			if (t == ncw && x->start != x->grid)
				cw[ncw].flags |= EST_WRITE_BEGIN;
			cw[ncw].group = (uint32_t)acc[a].loc;
			if (k0 != k1) {
				/* reaches beyond the part: whole, in a group
				 * of its own, its share here to the bucket */
				xs[nxs++] = (struct estrun_cross){
					a, nloc,
					estrun_write_share(x, size, by[i].bytes)
				};
				cw[ncw].group = (uint32_t)nloc++;
			}
			by[i].e = (uint32_t)(sl->npw + a);
			by[i].flags = cw[ncw++].flags;
		}
		/* with a compress= setting, estrun_follow_writes()' alone */
		if (ncw && by_part)
			ret = r->ops->writes(w->ctx, sl->fd, &sl->st, cw, ncw,
					     nloc, gd);
		for (i = 0; i < na && !ret; i++) {
			double *v = sl->pw + sl->npw++ * pe;

			v[0] = (double)k;
			v[1] = acc[i].b;
			v[2] = (double)acc[i].out;
			v[3] = (double)acc[i].in;
			for (t = 0; t < n; t++) {
				/* raw after NOCOMPRESS: by the part's */
				if (u[0] > w->at[t]) {
					v[4 + 2 * t] = v[5 + 2 * t] = -1;
					continue;
				}
				if (acc[i].loc == SIZE_MAX || !by_part) {
					v[4 + 2 * t] = v[5 + 2 * t] = 0;
					continue;
				}
				c = 3 * n * acc[i].loc + 3 * t;
				v[4 + 2 * t] = (double)gd[c];
				v[5 + 2 * t] = (double)gd[c + 1];
				for (xi = 0; xi < nxs; xi++) {
					if (xs[xi].a != i)
						continue;
					c = 3 * n * xs[xi].loc + 3 * t;
					v[4 + 2 * t] += xs[xi].share *
							(double)gd[c];
					v[5 + 2 * t] += xs[xi].share *
							(double)gd[c + 1];
				}
			}
		}
	}
	if (!ret && !by_part)
		ret = estrun_follow_writes(w, sl, by, ni, unit, nu);
out:
	free(unit);
	free(at);
	free(by);
	free(xs);
	free(acc);
	free(cw);
	free(gd);
	return ret;
}

/*
 * Read the units of big file sl drawn by the sample, each 512 KiB part
 * alone (the table's part()): their sum into sl->delta, each unit into the
 * worker's sums once all of them are read.
 *
 * Under compress= a part that fails to compress sets the inode's
 * NOCOMPRESS flag and every later part of the file is raw, whatever it
 * holds.  So where a drawn part sets it, the file is followed from its
 * start up to that part (nocompress_at(): it stops at the first part
 * that sets it), and the drawn parts after the one that set it are raw.
 * Under lzo (est_follow_nocompress()) every file is followed up to its
 * last drawn part: the parts that set the flag are few there, and one
 * makes the rest raw.  Otherwise a file none of whose drawn parts sets
 * it is taken as never setting it (docs/sampling.md).  Returns 0 or
 * -errno.
 */
int estrun_parts(struct estrun_worker *w, struct estrun_slot *sl)
{
	const struct estrun *r = w->r;
	const size_t n = r->n, per = 3 + 3 * n;
	const uint32_t ss = r->sectorsize ? r->sectorsize : 4096;
	uint64_t x = sample_data_bytes(&sl->st);
	uint64_t nu = sample_units(sl->st.st_size, x), k, off, len, *u, *v;
	size_t m = 0, i, j;
	unsigned h;
	int ret, follow = 0;

	for (i = 0; i < n; i++)
		w->at[i] = UINT64_MAX;
	for (k = 0; k < nu; k++) {
		h = sample_unit_stratum(sl->st.st_size, x, sl->band, sl->pb, k);
		if (!sample_in(&r->design, h, sl->st.st_dev, sl->st.st_ino, k))
			continue;
		u = array_grow(w->units, &w->cap_units, (m + 1) * per,
			       sizeof(*u));
		if (!u)
			return -ENOMEM;
		w->units = u;
		u += m * per;
		u[1] = sample_unit(sl->st.st_size, x, k, &off, &len);
		u[0] = off;
		u[2] = len;
		ret = w->r->ops->part(w->ctx, sl->fd, &sl->st, off, len,
				      estrun_weight(r, h), w->part, w->nocomp);
		if (ret)
			return ret;
		for (i = 0; i < n; i++) {
			u[3 + 3 * i] = w->part[3 * i];
			u[4 + 3 * i] = w->part[3 * i + 1];
			u[5 + 3 * i] = w->nocomp[i];
			/* the first drawn part that sets the flag */
			if (w->nocomp[i] && w->at[i] > off)
				w->at[i] = off;
		}
		m++;
	}
	/* follow the file from its start: up to the first drawn part that
	 * sets the flag, or under est_follow_nocompress() settings up to
	 * the last drawn part */
	for (i = 0; i < n; i++) {
		w->limit[i] = w->at[i] != UINT64_MAX ? w->at[i] : 0;
		if (!w->limit[i] && m &&
		    est_follow_nocompress(&r->s[i]))
			w->limit[i] = w->units[(m - 1) * per];
		follow |= w->limit[i] > 0;
	}
	if (follow) {
		uint64_t *seen = w->part;

		ret = w->r->ops->nocompress_at(w->ctx, sl->fd, &sl->st,
					       w->limit, seen);
		if (ret)
			return ret;
		for (i = 0; i < n; i++)
			if (seen[i] < w->at[i])
				w->at[i] = seen[i];
	}
	/* the file's share of the estimate: each unit over its stratum's
	 * probability */
	for (i = 0; i < 2 * n; i++)
		w->scaled[i] = 0;
	for (j = 0; j < m; j++) {
		u = w->units + j * per;
		h = sample_unit_stratum(sl->st.st_size, x, sl->band, sl->pb,
					u[0] / SAMPLE_CHUNK);
		v = estrun_unit(sl, n);
		if (!v)
			return -ENOMEM;
		v[0] = h;
		v[1] = u[1];
		v[2] = u[0] / SAMPLE_CHUNK;
		for (i = 0; i < n; i++) {
			if (u[0] > w->at[i]) {
				/* after NOCOMPRESS: raw (cow_file_range()) */
				u[3 + 3 * i] = (u[2] + ss - 1) / ss * ss;
				u[4 + 3 * i] = u[3 + 3 * i];
			}
			w->scaled[2 * i] += u[3 + 3 * i] / r->design.pi[h];
			w->scaled[2 * i + 1] += u[4 + 3 * i] /
						r->design.pi[h];
			v[3 + 2 * i] = u[3 + 3 * i];
			v[4 + 2 * i] = u[4 + 3 * i];
		}
	}
	/* where NOCOMPRESS is known to be set: the part that set it, or
	 * the first one found following the file (estrun_add_units());
	 * not in a file with holes, where it is not followed */
	for (i = 0; i < n; i++)
		sl->nc[i] = w->at[i];
	sl->has_nc = x >= (uint64_t)sl->st.st_size;
	/* the same layout's: by the writes each part holds */
	ret = estrun_unit_writes(w, sl, m, per);
	if (ret)
		return ret;
	/* parts are estimated as the file is written: every model's */
	for (i = 0; i < n; i++) {
		uint64_t *d = sl->delta + EST_WRITTEN(n) + 3 * i;

		d[0] = sl->delta[3 * i] = estrun_round(w->scaled[2 * i]);
		d[1] = sl->delta[3 * i + 1] =
			estrun_round(w->scaled[2 * i + 1]);
		d[2] = d[0];		/* in one go */
		sl->delta[3 * i + 2] = sl->st.st_size;
	}
	sl->scaled = 1;
	return 0;
}

/* A whole file sampled, estimated with sl->err 0: one unit, as the
 * file is written, as a big file's parts are (the fresh copy is that
 * scaled by the sampled files' ratio of the two, est_models()).
 * Returns 0 or -ENOMEM. */
int estrun_whole(struct estrun_slot *sl, size_t n)
{
	const uint64_t *d = sl->delta + EST_WRITTEN(n);
	uint64_t *v = estrun_unit(sl, n);
	size_t i;

	if (!v)
		return -ENOMEM;
	v[0] = sl->h;
	v[1] = sample_data_bytes(&sl->st);
	v[2] = 0;
	for (i = 0; i < n; i++) {
		v[3 + 2 * i] = d[3 * i];
		v[4 + 2 * i] = d[3 * i + 1];
	}
	return 0;
}

/* ---- the calling thread's side: the sums ---- */

/*
 * Whether unit k of a sampled big file is raw for setting i for sure:
 * after the part where NOCOMPRESS is set (found from the file's start, so
 * exact: sl->has_nc), in strata of the file's own (sample_own_strata()).
 * Such units are
 * known without a draw: they leave their strata for a known total.  Only
 * in strata of one file's own: in strata shared with other files the
 * parts taken out would depend on which of them were drawn.
 */
static int estrun_known_raw(const struct estrun_slot *sl, size_t i,
			    unsigned h, uint64_t k)
{
	return sl->has_nc && sl->nc[i] != UINT64_MAX &&
	       k > sl->nc[i] / SAMPLE_CHUNK && sample_stratum_own(h);
}

/*
 * A big file's parts' own factors for the same layout
 * (estrun_opts.part_factors: -1 for a part whose file's factors stand),
 * in r->pf: NULL where the file's stand for every part, or memory is
 * short.
 */
static const double *estrun_part_factors(struct estrun *r, size_t token,
					 const struct stat *st)
{
	uint64_t n = sample_units(st->st_size, sample_data_bytes(st));
	double *f, *t;

	if (!r->part_factors || (uint64_t)st->st_size <= SAMPLE_CHUNK ||
	    n > SIZE_MAX)
		return NULL;
	f = array_grow(r->pf, &r->cap_pf, (size_t)n, sizeof(*f));
	if (f)
		r->pf = f;
	t = array_grow(r->pt, &r->cap_pt, (size_t)n, sizeof(*t));
	if (t)
		r->pt = t;
	if (!f || !t ||
	    !r->part_factors(r->arg, token, st->st_size, n, r->pf, r->pt))
		return NULL;
	return r->pf;
}

/* Part k's factor i (of r->f's 2n) for the same layout: its own (pf,
 * the same for every setting) where it has one, else its file's. */
static double estrun_unit_f(const struct estrun *r, const double *pf,
			    uint64_t k, size_t i)
{
	return pf && pf[k] >= 0 ? pf[k] : r->f[i];
}

/* Part k's share of the same layout's auxiliary (its bytes times it) of
 * a file with bands for its parts (pb): its own factor where it has one
 * (pf), else its file's share (aux).  A part's place in pop_same and its
 * units drawn take the same. */
static double estrun_part_aux(const double *pf, const uint8_t *pb,
			      uint64_t k, double aux)
{
	return pb && pf && pf[k] >= 0 ? pf[k] : aux;
}

/* Add (sign 1) or take back (-1) a file's units in the same layout's
 * population, each part's bytes times estrun_part_aux().  Returns 0 or
 * -ENOMEM. */
static int estrun_pop_same(struct estrun *r, size_t token,
			   const struct stat *st, unsigned band,
			   const uint8_t *pb, double aux,
			   const struct sample_cur *cur, int sign)
{
	uint64_t x = sample_data_bytes(st), n = sample_units(st->st_size, x);
	const double *pf = pb ? estrun_part_factors(r, token, st) : NULL;
	uint64_t k;
	double *ak;

	if (!pf) {
		sample_pop_cur(&r->pop_same, st->st_size, x, band, pb, aux,
			       cur, sign);
		return 0;
	}
	ak = array_grow(r->ak, &r->cap_ak, (size_t)n, sizeof(*ak));
	if (!ak)
		return -ENOMEM;
	r->ak = ak;
	for (k = 0; k < n; k++)
		ak[k] = estrun_part_aux(pf, pb, k, aux);
	sample_pop_cur_parts(&r->pop_same, st->st_size, x, band, pb, ak, cur,
			     sign);
	return 0;
}

/* The share of unit k of sl's file that defragment rewrites: all of it
 * but past where it stops (estrun_slot.stop). */
static double estrun_rw_share(const struct estrun_slot *sl, uint64_t k)
{
	uint64_t off, len;

	if (!sl->stop)
		return 1;
	sample_unit(sl->st.st_size, sample_data_bytes(&sl->st), k, &off,
		    &len);
	if (sl->stop >= off + len)
		return 1;
	return sl->stop > off ? (double)(sl->stop - off) / len : 0;
}

/* The units of a sampled big file that estrun_known_raw() knows: out of
 * the populations of each setting, their raw size into its totals (times
 * the file's factors for the same layout). */
static void estrun_add_known(struct estrun *r, const struct estrun_slot *sl,
			     int rw, const double *pf)
{
	const uint32_t ss = r->sectorsize ? r->sectorsize : 4096;
	uint64_t x = sample_data_bytes(&sl->st), size = sl->st.st_size;
	uint64_t nu = sample_units(size, x), k, off, len, xk, ck, raw;
	double a;
	size_t i;
	unsigned h;

	if (!sl->has_nc)
		return;
	for (i = 0; i < r->n; i++) {
		if (sl->nc[i] == UINT64_MAX)
			continue;
		for (k = sl->nc[i] / SAMPLE_CHUNK + 1; k < nu; k++) {
			h = sample_unit_stratum(size, x, sl->band, sl->pb, k);
			if (!estrun_known_raw(sl, i, h, k))
				continue;
			xk = sample_unit(size, x, k, &off, &len);
			ck = sample_unit_cur(&sl->cur, size, x, k);
			raw = (len + ss - 1) / ss * ss;
			r->pop_known[2 * i].N[h]++;
			r->pop_known[2 * i].X[h] += xk;
			r->pop_known[2 * i].C[h] += ck;
			r->known[4 * i] += (double)raw;
			r->known[4 * i + 1] += (double)raw;
			if (rw)
				r->known_rw[i] += (double)raw *
						  estrun_rw_share(sl, k);
			if (sl->aux < 0)
				continue;	/* outside the same layout */
			a = estrun_part_aux(pf, sl->pb, k, sl->aux);
			r->pop_known[2 * i + 1].N[h]++;
			r->pop_known[2 * i + 1].X[h] += sample_share_x(a, xk);
			r->pop_known[2 * i + 1].C[h] += sample_share_x(a, ck);
			r->known[4 * i + 2] += (double)raw *
					       estrun_unit_f(r, pf, k, 2 * i);
			r->known[4 * i + 3] += (double)raw *
					       estrun_unit_f(r, pf, k,
							     2 * i + 1);
		}
	}
}

/* The scales of big file sl's write buckets (estrun_opts.bucket_scales),
 * in r->bs: NULL where its parts' factors stand, or memory is short. */
static const double *estrun_bucket_scales(struct estrun *r,
					  const struct estrun_slot *sl)
{
	double *s;

	if (!r->bucket_scales || !sl->ng)
		return NULL;
	s = array_grow(r->bs, &r->cap_bs, sl->ng - 1, sizeof(*s));
	if (!s)
		return NULL;
	r->bs = s;
	return r->bucket_scales(r->arg, sl->token, sl->ng, s) ? s : NULL;
}

/*
 * Value i (of 2n: each setting's disk and uncompressed) in the same
 * layout of unit v, whose part's ne entries are e (estrun_unit_writes()),
 * the nb buckets scaled by bs: the bytes of writes that reach beyond the
 * part by the part's prediction, the writes within as they were written,
 * each bucket scaled as layout_part_factors() scales it.  -1 where no
 * bucket there counts (the part's factor then, -1 too).
 */
static double estrun_unit_same(const uint64_t *v, const double *e, size_t ne,
			       size_t pe, const double *bs, size_t nb,
			       size_t i)
{
	double tot = 0, y = 0, sc;
	const double *x;
	size_t q;

	for (q = 0, x = e; q < ne; q++, x += pe)
		if (x[1] < nb && bs[(size_t)x[1]] >= 0)
			tot += x[2] + x[3];
	if (!(tot > 0))
		return -1;
	for (q = 0, x = e; q < ne; q++, x += pe) {
		if (!(x[1] < nb) || (sc = bs[(size_t)x[1]]) < 0)
			continue;
		/* raw after NOCOMPRESS: all of it by the part's */
		y += sc * (x[4 + i] < 0 ? (x[2] + x[3]) / tot * v[3 + i] :
					  x[2] / tot * v[3 + i] + x[4 + i]);
	}
	return y;
}

/* A sampled file's units into the sums, its factors asked first. */
static void estrun_add_units(struct estrun *r, const struct estrun_slot *sl)
{
	const size_t n = r->n, per = 3 + 2 * n, pe = ESTRUN_PW(n);
	const uint64_t *v;
	const double *pf, *bs, *e = sl->pw;
	double a, y;
	uint64_t c;
	size_t i, j, ne, left = sl->npw;
	int rw;

	for (i = 0; i < 2 * n; i++) {
		r->raw[i] = 0;
		r->f[i] = 1;
	}
	for (j = 0; j < sl->nsu; j++)
		for (i = 0; i < 2 * n; i++)
			r->raw[i] += sl->su[j * per + 3 + i];
	if (r->factors)
		r->factors(r->arg, sl->token, r->raw,
			   sl->gdone ? sl->gdelta : NULL, r->f);
	rw = r->rewritten && r->rewritten(r->arg, sl->token);
	/* a big file read in parts: each part by the writes it holds */
	pf = sl->scaled && sl->aux >= 0 ?
		     estrun_part_factors(r, sl->token, &sl->st) : NULL;
	/* ... and the writes that lie whole in it as written */
	bs = pf && sl->npw ? estrun_bucket_scales(r, sl) : NULL;
	for (j = 0; j < sl->nsu; j++, left -= ne, e = ne ? e + ne * pe : e) {
		v = sl->su + j * per;
		for (ne = 0; ne < left && e[ne * pe] == (double)v[2]; ne++)
			;
		a = estrun_part_aux(pf, sl->pb, v[2], sl->aux);
		r->units_read++;
		r->data_read += v[1];
		c = sample_unit_cur(&sl->cur, sl->st.st_size,
				    sample_data_bytes(&sl->st), v[2]);
		for (i = 0; i < 2 * n; i++) {
			if (estrun_known_raw(sl, i / 2, (unsigned)v[0], v[2]))
				continue;	/* estrun_add_known()'s */
			sample_acc_add_cur(&r->acc[4 * (i / 2) + i % 2],
					   (unsigned)v[0], v[1], c, v[3 + i]);
			/* the rewrite's: every unit drawn, 0 for a file
			 * not rewritten */
			if (r->rewritten && i % 2 == 0)
				sample_acc_add_cur(&r->acc_rw[i / 2],
						   (unsigned)v[0], v[1], c,
						   rw ? estrun_round(
							   v[3 + i] *
							   estrun_rw_share(
								   sl, v[2]))
						      : 0);
			if (sl->aux < 0)
				continue;	/* outside: 0 for sure */
			y = bs && ne && pf[v[2]] >= 0 ?
				    estrun_unit_same(v, e, ne, pe, bs, sl->ng,
						     i) :
				    -1;
			if (y < 0)
				y = v[3 + i] * estrun_unit_f(r, pf, v[2], i);
			sample_acc_add_share_cur(
				&r->acc[4 * (i / 2) + 2 + i % 2],
				(unsigned)v[0], v[1], sample_share_x(a, v[1]),
				sample_share_x(a, c), estrun_round(y));
		}
	}
	estrun_add_known(r, sl, rw, pf);
}

/* Keep a copy of sl, whose factors wait (estrun_opts.deferred), for
 * estrun_settle(): its units, nc and writes' values its own.  Returns 0
 * or -ENOMEM. */
static int estrun_defer(struct estrun *r, const struct estrun_slot *sl)
{
	const size_t per = 3 + 2 * r->n, npe = ESTRUN_PW(r->n),
		     ngd = sl->gdone ? 3 * r->n * sl->ng : 0;
	struct estrun_slot *c = array_grow(r->later, &r->cap_later, r->nlater,
					   sizeof(*c));

	if (!c)
		return -ENOMEM;
	r->later = c;
	c += r->nlater;
	*c = *sl;
	c->path = NULL;
	c->wr = NULL;
	c->delta = NULL;
	c->fd = -1;
	c->su = malloc(sl->nsu * per * sizeof(*c->su));
	c->nc = malloc(r->n * sizeof(*c->nc));
	c->gdelta = ngd ? malloc(ngd * sizeof(*c->gdelta)) : NULL;
	c->pw = sl->npw ? malloc(sl->npw * npe * sizeof(*c->pw)) : NULL;
	c->cap_pw = sl->npw;
	if (!c->su || !c->nc || (ngd && !c->gdelta) || (sl->npw && !c->pw)) {
		free(c->su);
		free(c->nc);
		free(c->gdelta);
		free(c->pw);
		return -ENOMEM;
	}
	memcpy(c->su, sl->su, sl->nsu * per * sizeof(*c->su));
	if (sl->npw)
		memcpy(c->pw, sl->pw, sl->npw * npe * sizeof(*c->pw));
	memcpy(c->nc, sl->nc, r->n * sizeof(*c->nc));
	if (ngd)
		memcpy(c->gdelta, sl->gdelta, ngd * sizeof(*c->gdelta));
	r->nlater++;
	return 0;
}

int estrun_settle(struct estrun *r)
{
	struct estrun_popl *q;
	size_t k;
	int ret = 0;

	/* their shares known now: into the same layout's population */
	for (k = 0; k < r->npopl; k++) {
		q = &r->popl[k];
		q->aux = r->known_share ? r->known_share(r->arg, q->token,
							 &q->st) : 1;
		if (!q->dead && q->aux >= 0 &&
		    estrun_pop_same(r, q->token, &q->st, q->band, q->pb,
				    q->aux, &q->cur, 1))
			ret = -ENOMEM;
	}
	for (k = 0; k < r->nlater; k++) {
		if (r->later[k].popl)
			r->later[k].aux = r->popl[r->later[k].popl - 1].aux;
		estrun_add_units(r, &r->later[k]);
	}
	estrun_later_free(r);
	return ret;
}

/* The copies estrun_defer() made, freed. */
void estrun_later_free(struct estrun *r)
{
	size_t k;

	for (k = 0; k < r->nlater; k++) {
		free(r->later[k].su);
		free(r->later[k].nc);
		free(r->later[k].gdelta);
		free(r->later[k].pw);
	}
	free(r->later);
	r->later = NULL;
	r->nlater = r->cap_later = 0;
	free(r->popl);
	r->popl = NULL;
	r->npopl = r->cap_popl = 0;
}

int estrun_sample_submit(struct estrun *r, const struct stat *st,
			 size_t token, unsigned band, const uint8_t *pb,
			 const struct sample_cur *cur, double *aux,
			 size_t *popl)
{
	sample_pop_cur(&r->pop, st->st_size, sample_data_bytes(st), band, pb,
		       1, cur, 1);
	if (r->deferred && r->deferred(r->arg, token)) {
		/* its share is known at estrun_settle() */
		struct estrun_popl *q = array_grow(r->popl, &r->cap_popl,
						   r->npopl, sizeof(*q));

		if (!q)
			return -ENOMEM;
		r->popl = q;
		r->popl[r->npopl++] = (struct estrun_popl){
			.st = *st, .token = token, .band = band,
			.pb = pb, .cur = *cur,
		};
		*popl = r->npopl;
		return 0;
	}
	*aux = r->known_share ? r->known_share(r->arg, token, st) : 1;
	if (*aux >= 0 &&
	    estrun_pop_same(r, token, st, band, pb, *aux, cur, 1))
		return -ENOMEM;
	return 0;
}

int estrun_sample_failed(struct estrun *r, const struct estrun_slot *sl)
{
	sample_pop_cur(&r->pop, sl->st.st_size, sample_data_bytes(&sl->st),
		       sl->band, sl->pb, 1, &sl->cur, -1);
	if (sl->popl)
		r->popl[sl->popl - 1].dead = 1;
	else if (sl->aux >= 0 &&
		 estrun_pop_same(r, sl->token, &sl->st, sl->band, sl->pb,
				 sl->aux, &sl->cur, -1))
		return -ENOMEM;
	return 0;
}

int estrun_sample_read(struct estrun *r, struct estrun_slot *sl)
{
	uint64_t *d = sl->delta;
	double pi;
	size_t i;

	if (sl->nsu) {
		if (sl->popl) {
			/* deferred when submitted (estrun_sample_submit()) */
			if (estrun_defer(r, sl))
				return -ENOMEM;
		} else {
			estrun_add_units(r, sl);
		}
	}
	estrun_dx(r, &sl->st, sl->token, sl);
	if (sl->scaled)
		return 0;
	pi = r->design.pi[sl->h];
	for (i = 0; i < 2 * r->n; i++) {
		d[3 * i] = estrun_round(d[3 * i] / pi);
		d[3 * i + 1] = estrun_round(d[3 * i + 1] / pi);
	}
	/* its writes' disk and uncompressed too (a file read whole: over
	 * its one unit's probability) */
	for (i = 0; sl->gdone && i < sl->ng * r->n; i++) {
		sl->gdelta[3 * i] = estrun_round(sl->gdelta[3 * i] / pi);
		sl->gdelta[3 * i + 1] = estrun_round(sl->gdelta[3 * i + 1] /
						     pi);
	}
	/* the written half's third: a disk value too */
	for (i = 0; i < r->n; i++)
		d[EST_WRITTEN(r->n) + 3 * i + 2] = estrun_round(
			d[EST_WRITTEN(r->n) + 3 * i + 2] / pi);
	return 0;
}

/* ---- the estimates ---- */

/* *out = *p less the units of *known. */
static void estrun_pop_less(struct sample_pop *out, const struct sample_pop *p,
			    const struct sample_pop *known)
{
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++) {
		out->N[h] = p->N[h] - known->N[h];
		out->X[h] = p->X[h] - known->X[h];
		out->C[h] = p->C[h] - known->C[h];
		out->W[h] = p->W[h];	/* the plan's alone (sample_plan()) */
	}
}

void estrun_band_ratios(const struct estrun *r, size_t i,
			struct estrun_bands *out)
{
	const struct sample_pop *kp;
	const struct sample_acc *a;
	struct sample_pop fresh;
	double num[SAMPLE_ROW_BANDS], den[SAMPLE_ROW_BANDS];
	double cn[SAMPLE_ROW_BANDS];
	double an, ad, acn, kx, ky, x;
	unsigned h, c, q;

	memset(out, 0, sizeof(*out));
	if (!r->sampling || i >= r->n)
		return;
	kp = &r->pop_known[2 * i];
	estrun_pop_less(&fresh, &r->pop, kp);
	for (q = 0; q < 2; q++) {
		for (c = 0; c < SAMPLE_ROW_BANDS; c++)
			num[c] = den[c] = cn[c] = 0;
		/* the raw parts known (estrun_add_known()) at their share
		 * of the known total */
		for (h = 0, kx = 0; h < SAMPLE_STRATA; h++)
			kx += (double)kp->X[h];
		ky = r->known[4 * i + q];
		a = &r->acc[4 * i + q];
		for (h = 0; h < SAMPLE_STRATA; h++) {
			c = sample_row_band(h);
			if (kx > 0 && kp->X[h]) {
				num[c] += ky * (double)kp->X[h] / kx;
				den[c] += (double)kp->X[h];
				cn[c] += (double)kp->C[h];
			}
			if (!a->n[h] || !a->sx[h])
				continue;
			x = (double)fresh.X[h];
			num[c] += x * (double)a->sy[h] / (double)a->sx[h];
			cn[c] += x * (double)a->sc[h] / (double)a->sx[h];
			den[c] += x;
		}
		for (c = 0, an = ad = acn = 0; c < SAMPLE_ROW_BANDS; c++) {
			an += num[c];
			ad += den[c];
			acn += cn[c];
		}
		for (c = 0; c < SAMPLE_ROW_BANDS; c++) {
			out->r[q][c] = den[c] > 0 ? num[c] / den[c] :
				       ad > 0 ? an / ad : 0;
			out->rc[c] = den[c] > 0 ? cn[c] / den[c] :
				     ad > 0 ? acn / ad : 0;
			out->b[q][c] = sample_band_slope(&fresh, &r->design, a,
							 c);
		}
	}
}

double estrun_predict(const struct estrun *r, size_t i, int same,
		      double frac)
{
	struct sample_design at;
	struct sample_result now;
	struct sample_pop pop;
	double se;

	if (i >= r->n || !r->sampling)
		return 1;
	if (same)
		estrun_pop_less(&pop, &r->pop_same, &r->pop_known[2 * i + 1]);
	else
		estrun_pop_less(&pop, &r->pop, &r->pop_known[2 * i]);
	/* the plan's population: every unit (sampleplan_run()) */
	sample_replan(&at, &r->pop,
		      (uint64_t)(frac * (double)sample_pop_bytes(&r->pop)),
		      &r->design);
	se = sample_predict_se(&pop, &r->design,
			       &r->acc[4 * i + (same ? 2 : 0)], &at, same,
			       &now);
	return now.se > 0 ? se / now.se : 1;
}

void estrun_sample_result(const struct estrun *r, size_t i,
			  struct estrun_result *out)
{
	struct sample_pop fresh, same;
	struct sample_result res;

	out->sampled = 1;
	out->est.input = r->input_all;
	estrun_pop_less(&fresh, &r->pop, &r->pop_known[2 * i]);
	estrun_pop_less(&same, &r->pop_same, &r->pop_known[2 * i + 1]);
	sample_estimate(&fresh, &r->design, &r->acc[4 * i], &res);
	out->est.disk = estrun_round(res.total + r->known[4 * i]);
	out->disk_ci95 = res.half;
	out->units_read = r->units_read;
	out->units = sample_pop_units(&r->pop);
	out->data = sample_pop_bytes(&r->pop);
	out->data_read = r->data_read;
	sample_estimate(&fresh, &r->design, &r->acc[4 * i + 1], &res);
	out->est.uncompressed = estrun_round(res.total + r->known[4 * i + 1]);
	sample_estimate_share(&same, &r->design, &r->acc[4 * i + 2], &res);
	out->disk_same = estrun_round(res.total + r->known[4 * i + 2]);
	out->same_ci95 = res.half;
	sample_estimate_share(&same, &r->design, &r->acc[4 * i + 3], &res);
	out->uncompressed_same = estrun_round(res.total +
					      r->known[4 * i + 3]);
	if (r->rewritten) {
		sample_estimate(&fresh, &r->design, &r->acc_rw[i], &res);
		out->have_rewrite = 1;
		out->rewrite_disk = estrun_round(res.total + r->known_rw[i]);
		out->rewrite_ci95 = res.half;
	}
}
