// SPDX-License-Identifier: GPL-2.0
/*
 * sample: stratified Bernoulli sampling of files and 512 KiB chunks, ratio
 * estimator, honest interval.  See sample.h and docs/sampling.md.
 *
 * Why these choices:
 * - Whole files as units give one big file a weight that decides the
 *   total by being in or out.  A big file's 512 KiB chunks are where the
 *   kernel decides (compress_file_range() gives up per chunk), so each is
 *   a unit of its own and a big file is read a few chunks at a time.
 * - Strata by size class keep the tiny files (inline extents, a whole
 *   sector for a few bytes: the widest spread of ratios) from mixing with
 *   the rest; the current ratio band on btrfs puts incompressible data
 *   apart from text, and on a big file's parts each part's own current
 *   ratio puts its incompressible runs apart from its text.  A file that
 *   holds an eighth of the parts has strata of its own: NOCOMPRESS makes
 *   the rest of a file raw, a file's matter.  Each stratum gets at least
 *   SAMPLE_MIN_DRAWS expected draws, so none is empty but with a
 *   probability of e^-16.
 * - Bernoulli sampling (each unit independently, same pi_h in a stratum)
 *   needs no list of the units: the walk decides each file as it finds it,
 *   and a larger pi_h is a superset of a smaller one.  Given the number
 *   drawn it is a simple random sample, so the textbook variance of the
 *   ratio estimator applies with the realised n_h.
 * - Few draws make a variance estimate unreliable: the t quantile on
 *   Satterthwaite's degrees of freedom pays for that, and a floor from
 *   the other strata's spread keeps a stratum whose few draws happened
 *   to agree from claiming no error at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "sample/sample.h"

/* A stratum with few draws leans on the pooled spread as on this many
 * degrees of freedom of it (sample_estimate()). */
#define SAMPLE_PRIOR_DF		1.0
/* ... when it has fewer draws than this. */
#define SAMPLE_FEW		5
/* Where the current disk bytes are the auxiliary, the plain ratio
 * estimator's variance times this is added to each stratum's: the units
 * where the current bytes and the setting part ways (a piece stored raw
 * now that the setting compresses, the raw tail after NOCOMPRESS of a
 * file stored compressed now, a file written in steps) are few, a few
 * dozen draws a stratum see none of them or too few, and the residuals
 * alone would claim the estimate exact or near it (docs/sampling.md: a
 * smaller share held too rarely for compress= on a tree stored under
 * compress-force). */
#define SAMPLE_CUR_KAPPA	0.3
/* The normal distribution's 97.5% quantile. */
#define SAMPLE_Z975		1.959964
/* Class bounds of whole-file units (st_size), and of the file size
 * above which chunks form a class of their own. */
#define SAMPLE_INLINE		2048u
#define SAMPLE_TINY		4096u
#define SAMPLE_SMALL		(32u * 1024)
#define SAMPLE_MEDIUM		(128u * 1024)
#define SAMPLE_BIG_FILE		(16ull * 1024 * 1024)
/* Parts whose current ratio sample_parts_extent() follows, at most (8
 * bytes each). */
#define SAMPLE_PARTS_MAX	(1ull << 26)

static uint64_t sample_mix(uint64_t z)
{
	/* splitmix64's finalizer */
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

double sample_u(uint64_t seed, uint64_t dev, uint64_t ino, uint64_t k)
{
	uint64_t h = sample_mix(sample_mix(sample_mix(sample_mix(seed) ^ dev) ^
					   ino) ^ k);

	return (double)(h >> 11) * 0x1p-53;
}

unsigned sample_band(int known, uint64_t x, uint64_t disk)
{
	if (!known || !x)
		return 0;
	if (disk * 2 < x)
		return 1;
	if (disk * 10 < x * 9)
		return 2;
	return 3;
}

/*
 * Kinds of file by name: formats that are compressed already (the kernel's
 * heuristic or its first chunk gives up on them), formats of text, and
 * binary formats that compress in part.  Lower case, sorted within each.
 */
static const char *const sample_kind_packed[] = {
	"7z", "aac", "apk", "avi", "avif", "br", "bz2", "cab", "crx", "deb",
	"docx", "egg", "epub", "flac", "flv", "gif", "gz", "heic", "heif",
	"jar", "jpeg", "jpg", "jxl", "lz", "lz4", "lzma", "lzo", "m4a", "m4v",
	"mkv", "mov", "mp3", "mp4", "mpeg", "mpg", "odp", "ods", "odt", "oga",
	"ogg", "ogv", "opus", "pack", "png", "pptx", "rar", "rpm", "sfs",
	"squashfs", "svgz", "tbz2", "tgz", "txz", "tzst", "war", "webm",
	"webp", "whl", "wma", "wmv", "woff", "woff2", "xlsx", "xpi", "xz",
	"z", "zip", "zst",
};
static const char *const sample_kind_text[] = {
	"am", "bash", "bib", "c", "cc", "cfg", "cmake", "conf", "cpp", "css",
	"csv", "cxx", "desktop", "diff", "el", "go", "h", "hh", "hpp", "htm",
	"html", "in", "ini", "java", "js", "json", "kt", "log", "lua", "m4",
	"md", "mjs", "mk", "patch", "php", "pl", "pm", "po", "pot", "properties",
	"py", "rb", "rs", "rst", "scala", "service", "sh", "sql", "svg", "tcl",
	"tex", "toml", "ts", "tsv", "txt", "vim", "xhtml", "xml", "yaml", "yml",
};
static const char *const sample_kind_binary[] = {
	"a", "class", "db", "dll", "exe", "ko", "mo", "o", "otf", "pyc",
	"pyo", "so", "sqlite", "ttf", "wasm",
};

static int sample_kind_in(const char *const *list, size_t n, const char *ext)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(list[mid], ext);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

#define SAMPLE_KIND_IN(list, ext) \
	sample_kind_in(list, sizeof(list) / sizeof(list[0]), ext)

unsigned sample_kind(const char *name)
{
	const char *base = strrchr(name, '/'), *dot, *end;
	char ext[12];
	size_t i, len;

	base = base ? base + 1 : name;
	/* a shared library's version: libfoo.so.1.2 */
	dot = strstr(base, ".so.");
	if (dot && dot != base)
		return 2;
	dot = strrchr(base, '.');
	if (!dot || dot == base)
		return 0;
	end = dot + 1;
	len = strlen(end);
	if (!len || len >= sizeof(ext))
		return 0;
	for (i = 0; i < len; i++)
		ext[i] = (char)(end[i] >= 'A' && end[i] <= 'Z' ? end[i] + 32
							      : end[i]);
	ext[len] = 0;
	if (SAMPLE_KIND_IN(sample_kind_packed, ext))
		return 3;
	if (SAMPLE_KIND_IN(sample_kind_text, ext))
		return 1;
	if (SAMPLE_KIND_IN(sample_kind_binary, ext))
		return 2;
	return 0;
}

unsigned sample_band_kind(unsigned band, int kind)
{
	return band == SAMPLE_BAND_RAW && kind >= 0 ?
	       SAMPLE_BAND_KINDS + (unsigned)kind : band;
}

unsigned sample_band_fold(unsigned b)
{
	return (b & SAMPLE_PB_BAND) >= SAMPLE_BAND_KINDS ?
	       (b & ~SAMPLE_PB_BAND) | SAMPLE_BAND_RAW : b;
}

unsigned sample_row_band(unsigned h)
{
	return sample_band_fold(h % SAMPLE_BANDS);
}

uint64_t sample_units(uint64_t size, uint64_t x)
{
	if (!x)
		return 0;
	if (size <= SAMPLE_CHUNK)
		return 1;
	return (size + SAMPLE_CHUNK - 1) / SAMPLE_CHUNK;
}

unsigned sample_stratum(uint64_t size, uint64_t x, unsigned band)
{
	unsigned c;

	(void)x;
	if (size <= SAMPLE_INLINE)
		c = 0;
	else if (size <= SAMPLE_TINY)
		c = 1;
	else if (size <= SAMPLE_SMALL)
		c = 2;
	else if (size <= SAMPLE_MEDIUM)
		c = 3;
	else if (size <= SAMPLE_CHUNK)
		c = 4;
	else if (size <= SAMPLE_BIG_FILE)
		c = SAMPLE_PART_CLASS;
	else
		c = SAMPLE_PART_CLASS + 1;
	if (band & SAMPLE_AWAY)
		c += SAMPLE_CLASSES + SAMPLE_OWN_FILES +
		     (band & SAMPLE_AWAY_OWN ? SAMPLE_CLASSES : 0);
	band &= ~(SAMPLE_AWAY | SAMPLE_AWAY_OWN);
	return c * SAMPLE_BANDS + (band < SAMPLE_BANDS ? band : 0);
}

/* x * a / b without overflow (a <= b). */
static uint64_t sample_share(uint64_t x, uint64_t a, uint64_t b)
{
	return (uint64_t)((unsigned __int128)x * a / b);
}

uint64_t sample_unit(uint64_t size, uint64_t x, uint64_t k, uint64_t *off,
		     uint64_t *len)
{
	uint64_t start, end;

	if (size <= SAMPLE_CHUNK) {
		*off = 0;
		*len = size;
		return x;
	}
	start = k * SAMPLE_CHUNK;
	end = start + SAMPLE_CHUNK < size ? start + SAMPLE_CHUNK : size;
	if (start > size)
		start = end = size;
	*off = start;
	*len = end - start;
	if (x >= size)
		return end - start;
	return sample_share(x, end, size) - sample_share(x, start, size);
}

unsigned sample_unit_stratum(uint64_t size, uint64_t x, unsigned band,
			     const uint8_t *pb, uint64_t k)
{
	unsigned slot;

	if (!pb || size <= SAMPLE_CHUNK)
		return sample_stratum(size, x, band);
	if (pb[k] & SAMPLE_PB_EMPTY)
		return SAMPLE_NO_STRATUM;
	slot = (pb[k] >> SAMPLE_PB_SLOT) & SAMPLE_PB_SLOTS;
	if (slot && slot <= SAMPLE_OWN_FILES)
		return (SAMPLE_CLASSES + slot - 1) * SAMPLE_BANDS +
		       (pb[k] & SAMPLE_PB_BAND);
	if (slot == SAMPLE_PB_COUNTS)
		return sample_stratum(size, x, pb[k] & SAMPLE_PB_BAND);
	if (slot == SAMPLE_PB_COPY)
		return sample_stratum(size, x,
				      (pb[k] & SAMPLE_PB_BAND) | SAMPLE_AWAY);
	return sample_stratum(size, x, (pb[k] & SAMPLE_PB_BAND) |
				       (band & (SAMPLE_AWAY | SAMPLE_AWAY_OWN)));
}

/* Whether stratum h is an away stratum (SAMPLE_AWAY). */
static int sample_stratum_away(unsigned h)
{
	return h / SAMPLE_BANDS >= SAMPLE_CLASSES + SAMPLE_OWN_FILES;
}

/* Stratum h's class (sample_stratum()), or for a file's own strata
 * SAMPLE_CLASSES and more. */
static unsigned sample_stratum_class(unsigned h)
{
	unsigned c = h / SAMPLE_BANDS;

	if (c >= 2 * SAMPLE_CLASSES + SAMPLE_OWN_FILES)
		return c - (2 * SAMPLE_CLASSES + SAMPLE_OWN_FILES);
	if (c >= SAMPLE_CLASSES + SAMPLE_OWN_FILES)
		return c - (SAMPLE_CLASSES + SAMPLE_OWN_FILES);
	return c;
}

/* Whether stratum h holds files of 2-4 KiB met before, whose inline
 * items count with every file and whose extents once (SAMPLE_JUMP_DRAWS). */
static int sample_stratum_jump(unsigned h)
{
	return sample_stratum_away(h) && sample_stratum_class(h) == 1;
}

int sample_stratum_own(unsigned h)
{
	unsigned c = h / SAMPLE_BANDS;

	return c >= SAMPLE_CLASSES && c < SAMPLE_CLASSES + SAMPLE_OWN_FILES;
}

int sample_own_strata(uint64_t n, uint64_t all_parts)
{
	return n >= 64 && n >= all_parts / SAMPLE_OWN_FILES;
}

uint64_t sample_share_x(double a, uint64_t x)
{
	double v;

	if (a == 1)
		return x;
	v = a * (double)x + 0.5;
	return v <= 0 ? 0 : v >= 18446744073709549568.0 ? UINT64_MAX :
	       (uint64_t)v;
}

uint16_t sample_ratio_q(uint64_t ram, uint64_t disk)
{
	if (!ram)
		return 0;
	if (disk >= ram)
		return SAMPLE_Q_ONE;
	/* at least 1: a known ratio is never 0 */
	return (uint16_t)(1 + (unsigned __int128)disk * (SAMPLE_Q_ONE - 1) /
			  ram);
}

uint16_t sample_file_q(uint64_t size, uint64_t x, uint64_t ram,
		       uint64_t disk)
{
	unsigned __int128 q;

	if (sample_units(size, x) != 1 || !ram)
		return sample_ratio_q(ram, disk);
	q = ((unsigned __int128)disk * SAMPLE_Q_ONE + x / 2) / x;
	return q < 1 ? 1 : q > UINT16_MAX ? UINT16_MAX : (uint16_t)q;
}

uint64_t sample_cur_bytes(uint64_t x, uint16_t q)
{
	return (uint64_t)(((unsigned __int128)x * q + SAMPLE_Q_ONE / 2) /
			  SAMPLE_Q_ONE);
}

uint64_t sample_unit_cur(const struct sample_cur *c, uint64_t size,
			 uint64_t x, uint64_t k)
{
	uint64_t off, len, xk;

	if (!c || (!c->q && !c->pq))
		return 0;
	xk = sample_unit(size, x, k, &off, &len);
	return sample_cur_bytes(xk, c->pq && sample_units(size, x) > 1 ?
					    c->pq[k] : c->q);
}

/* A file's units into p (sign 1) or out of it (-1), each unit's bytes
 * scaled by a (sample_share_x()), or a big file's part k's by ak[k] when
 * ak and pb are given, with their current disk bytes (c NULL: none) in C;
 * sign 0: their bytes scaled so into W alone. */
static void sample_pop_file(struct sample_pop *p, uint64_t size, uint64_t x,
			    unsigned band, const uint8_t *pb, int sign,
			    double a, const double *ak,
			    const struct sample_cur *c)
{
	uint64_t k, n, off, len, xk;
	unsigned h;

	if (!x)
		return;
	n = sample_units(size, x);
	if (!pb || size <= SAMPLE_CHUNK) {
		h = sample_stratum(size, x, band);
		if (!sign) {
			p->W[h] += sample_share_x(a, x);
			return;
		}
		p->N[h] += sign * n;
		p->X[h] += sign * sample_share_x(a, x);
		for (k = 0; c && (c->q || c->pq) && k < n; k++)
			p->C[h] += sign * sample_share_x(a,
					sample_unit_cur(c, size, x, k));
		return;
	}
	for (k = 0; k < n; k++) {
		xk = sample_unit(size, x, k, &off, &len);
		h = sample_unit_stratum(size, x, band, pb, k);
		if (h >= SAMPLE_STRATA)
			continue;	/* no data: no unit */
		if (ak)
			a = ak[k];
		if (!sign) {
			p->W[h] += sample_share_x(a, xk);
			continue;
		}
		p->N[h] += sign;
		p->X[h] += sign * sample_share_x(a, xk);
		if (c)
			p->C[h] += sign * sample_share_x(a,
					sample_unit_cur(c, size, x, k));
	}
}

void sample_pop_add(struct sample_pop *p, uint64_t size, uint64_t x,
		    unsigned band)
{
	sample_pop_file(p, size, x, band, NULL, 1, 1, NULL, NULL);
}

void sample_pop_remove(struct sample_pop *p, uint64_t size, uint64_t x,
		       unsigned band)
{
	sample_pop_file(p, size, x, band, NULL, -1, 1, NULL, NULL);
}

void sample_pop_add_parts(struct sample_pop *p, uint64_t size, uint64_t x,
			  unsigned band, const uint8_t *pb)
{
	sample_pop_file(p, size, x, band, pb, 1, 1, NULL, NULL);
}

void sample_pop_remove_parts(struct sample_pop *p, uint64_t size, uint64_t x,
			     unsigned band, const uint8_t *pb)
{
	sample_pop_file(p, size, x, band, pb, -1, 1, NULL, NULL);
}

void sample_pop_add_share(struct sample_pop *p, uint64_t size, uint64_t x,
			  unsigned band, const uint8_t *pb, double a)
{
	sample_pop_file(p, size, x, band, pb, 1, a, NULL, NULL);
}

void sample_pop_remove_share(struct sample_pop *p, uint64_t size, uint64_t x,
			     unsigned band, const uint8_t *pb, double a)
{
	sample_pop_file(p, size, x, band, pb, -1, a, NULL, NULL);
}

void sample_pop_add_counted(struct sample_pop *p, uint64_t size, uint64_t x,
			    unsigned band, const uint8_t *pb, double a)
{
	sample_pop_file(p, size, x, band, pb, 0, a, NULL, NULL);
}

void sample_pop_cur(struct sample_pop *p, uint64_t size, uint64_t x,
		    unsigned band, const uint8_t *pb, double a,
		    const struct sample_cur *c, int sign)
{
	sample_pop_file(p, size, x, band, pb, sign < 0 ? -1 : 1, a, NULL, c);
}

void sample_pop_cur_parts(struct sample_pop *p, uint64_t size, uint64_t x,
			  unsigned band, const uint8_t *pb, const double *ak,
			  const struct sample_cur *c, int sign)
{
	sample_pop_file(p, size, x, band, pb, sign < 0 ? -1 : 1, 1, ak, c);
}

void sample_pop_add_counted_parts(struct sample_pop *p, uint64_t size,
				  uint64_t x, unsigned band,
				  const uint8_t *pb, const double *ak)
{
	sample_pop_file(p, size, x, band, pb, 0, 1, ak, NULL);
}

void sample_parts_reset(struct sample_parts *p)
{
	if (p->n)
		memset(p->v, 0, 2 * p->n * sizeof(*p->v));
	p->n = 0;
}

void sample_parts_free(struct sample_parts *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->cap = 0;
}

int sample_parts_extent(struct sample_parts *p, uint64_t pos, uint64_t len,
			uint64_t disk, uint64_t ram)
{
	uint64_t end = pos + len, k, a, b, need;

	if (!len || !ram || end < pos)
		return 0;
	need = (end - 1) / SAMPLE_CHUNK + 1;
	if (need > p->cap) {
		uint64_t cap = p->cap ? p->cap : 64;
		uint32_t *v;

		/* a corrupt item or a file of more than 32 TiB: its
		 * parts go by the file's band */
		if (need > SAMPLE_PARTS_MAX)
			return -ENOMEM;
		while (cap < need)
			cap *= 2;
		v = realloc(p->v, 2 * cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	if (need > p->n) {
		memset(p->v + 2 * p->n, 0, 2 * (need - p->n) * sizeof(*p->v));
		p->n = need;
	}
	for (k = pos / SAMPLE_CHUNK; k < need; k++) {
		a = k * SAMPLE_CHUNK > pos ? k * SAMPLE_CHUNK : pos;
		b = (k + 1) * SAMPLE_CHUNK < end ? (k + 1) * SAMPLE_CHUNK : end;
		/* at most 512 KiB each: a part's sums fit in 32 bits */
		p->v[2 * k] += (uint32_t)(b - a);
		p->v[2 * k + 1] += (uint32_t)((unsigned __int128)(b - a) *
					     (disk < ram ? disk : ram) / ram);
	}
	return 0;
}

void sample_parts_bands(const struct sample_parts *p, uint64_t n, int kind,
			uint8_t *pb)
{
	uint64_t k;

	for (k = 0; k < n; k++)
		pb[k] = k < p->n ?
			(uint8_t)sample_band_kind(sample_band(1, p->v[2 * k],
							      p->v[2 * k + 1]),
						  kind) : 0;
}

void sample_parts_ratios(const struct sample_parts *p, uint64_t n,
			 uint16_t *pq)
{
	uint64_t k;

	for (k = 0; k < n; k++)
		pq[k] = k < p->n ? sample_ratio_q(p->v[2 * k], p->v[2 * k + 1])
				 : 0;
}

uint64_t sample_pop_units(const struct sample_pop *p)
{
	uint64_t n = 0;
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++)
		n += p->N[h];
	return n;
}

uint64_t sample_pop_bytes(const struct sample_pop *p)
{
	uint64_t x = 0;
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++)
		x += p->X[h];
	return x;
}

/* The floors of expected draws: the classes' strata's, a file's own; in
 * the raw band's strata divided by kind, the classes' and a file's own. */
struct sample_floors {
	unsigned min, own, raw_min, raw_own;
};

static double sample_pi_of(const struct sample_pop *p, unsigned h, double c,
			   const struct sample_floors *fl, const double *w)
{
	const int raw = h % SAMPLE_BANDS >= SAMPLE_BAND_KINDS;
	double m, pi;

	if (!p->N[h])
		return 0;
	m = (double)(sample_stratum_own(h) ? (raw ? fl->raw_own : fl->own)
					   : (raw ? fl->raw_min : fl->min)) /
	    p->N[h];
	if (sample_stratum_jump(h))
		m *= SAMPLE_JUMP_DRAWS;
	pi = c * w[h] > m ? c * w[h] : m;
	return pi < 1 ? pi : 1;
}

static double sample_expected(const struct sample_pop *p, double c,
			      const struct sample_floors *fl, const double *w)
{
	double sum = 0;
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++)
		sum += sample_pi_of(p, h, c, fl, w) * p->X[h];
	return sum;
}

/* d's weights (sample_design.w): w's, or p's when w is NULL. */
static void sample_weights(struct sample_design *d,
			   const struct sample_pop *p, const double *w)
{
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++) {
		if (w)
			d->w[h] = w[h];
		else if (!sample_stratum_away(h) || p->W[h] >= p->X[h])
			d->w[h] = 1;
		else
			d->w[h] = (double)p->W[h] / p->X[h];
	}
}

static double sample_plan_fl(struct sample_design *d,
			     const struct sample_pop *p, uint64_t budget,
			     uint64_t seed, const struct sample_floors *fl,
			     const double *w)
{
	double lo = 0, hi = 1, c;
	unsigned h;
	int k;

	d->seed = seed;
	d->devs = NULL;
	d->min = fl->min;
	d->min_own = fl->own;
	d->raw_min = fl->raw_min;
	d->raw_own = fl->raw_own;
	sample_weights(d, p, w);
	if (sample_expected(p, 0, fl, d->w) < budget) {
		for (k = 0; k < 100; k++) {
			c = (lo + hi) / 2;
			if (sample_expected(p, c, fl, d->w) < budget)
				lo = c;
			else
				hi = c;
		}
	} else {
		hi = 0;
	}
	for (h = 0; h < SAMPLE_STRATA; h++)
		d->pi[h] = sample_pi_of(p, h, hi, fl, d->w);
	return sample_expected(p, hi, fl, d->w);
}

double sample_plan_floors(struct sample_design *d, const struct sample_pop *p,
			  uint64_t budget, uint64_t seed, unsigned min,
			  unsigned min_own)
{
	const struct sample_floors fl = { min, min_own, min, min_own };

	return sample_plan_fl(d, p, budget, seed, &fl, NULL);
}

double sample_plan(struct sample_design *d, const struct sample_pop *p,
		   uint64_t budget, uint64_t seed)
{
	const struct sample_floors fl = {
		SAMPLE_MIN_DRAWS, SAMPLE_MIN_DRAWS,
		SAMPLE_MIN_DRAWS_KIND, SAMPLE_MIN_DRAWS_KIND_OWN
	};

	return sample_plan_fl(d, p, budget, seed, &fl, NULL);
}

double sample_replan(struct sample_design *at, const struct sample_pop *p,
		     uint64_t budget, const struct sample_design *d)
{
	const struct sample_floors fl = { d->min, d->min_own, d->raw_min,
					  d->raw_own };
	/* not planned: sample_plan()'s */
	double bytes = d->min ? sample_plan_fl(at, p, budget, d->seed, &fl,
					       d->w)
			      : sample_plan(at, p, budget, d->seed);

	at->devs = d->devs;
	return bytes;
}

/* Where dev's probe starts. */
static size_t sample_devs_home(uint64_t dev)
{
	return sample_mix(dev) & (SAMPLE_DEVS - 1);
}

void sample_devs_add(struct sample_devs *t, uint64_t dev, uint64_t id)
{
	struct sample_dev *d;
	size_t i, j;

	if (!t || dev + 1 == 0 || t->n >= SAMPLE_DEVS / 4 * 3)
		return;
	d = t->d;
	if (!d) {
		d = calloc(SAMPLE_DEVS, sizeof(*d));
		if (!d) {
			t->n = SAMPLE_DEVS;	/* none named: all alike */
			return;
		}
		__atomic_store_n(&t->d, d, __ATOMIC_RELEASE);
	}
	for (i = sample_devs_home(dev); d[i].key;
	     i = (i + 1) & (SAMPLE_DEVS - 1))
		if (d[i].key == dev + 1)
			return;
	for (j = 0; j < SAMPLE_DEVS && id; j++)
		if (d[j].key && d[j].id == id)
			id = 0;
	d[i].id = id ? id : dev;
	__atomic_store_n(&d[i].key, dev + 1, __ATOMIC_RELEASE);
	t->n++;
}

uint64_t sample_devs_id(const struct sample_devs *t, uint64_t dev)
{
	const struct sample_dev *d;
	uint64_t key;
	size_t i;

	if (!t || !(d = __atomic_load_n(&t->d, __ATOMIC_ACQUIRE)))
		return dev;
	for (i = sample_devs_home(dev);; i = (i + 1) & (SAMPLE_DEVS - 1)) {
		key = __atomic_load_n(&d[i].key, __ATOMIC_ACQUIRE);
		if (!key)
			return dev;
		if (key == dev + 1)
			return d[i].id;
	}
}

void sample_devs_free(struct sample_devs *t)
{
	free(t->d);
	t->d = NULL;
	t->n = 0;
}

int sample_in(const struct sample_design *d, unsigned h, uint64_t dev,
	      uint64_t ino, uint64_t k)
{
	if (h >= SAMPLE_STRATA)
		return 0;
	if (d->pi[h] >= 1)
		return 1;
	return sample_u(d->seed, sample_devs_id(d->devs, dev), ino, k) <
	       d->pi[h];
}

int sample_file_in(const struct sample_design *d, uint64_t dev, uint64_t ino,
		   uint64_t size, uint64_t x, unsigned band)
{
	return sample_file_in_parts(d, dev, ino, size, x, band, NULL);
}

int sample_file_in_parts(const struct sample_design *d, uint64_t dev,
			 uint64_t ino, uint64_t size, uint64_t x, unsigned band,
			 const uint8_t *pb)
{
	uint64_t k, n = sample_units(size, x);

	for (k = 0; k < n; k++)
		if (sample_in(d, sample_unit_stratum(size, x, band, pb, k), dev,
			      ino, k))
			return 1;
	return 0;
}

void sample_acc_add(struct sample_acc *a, unsigned h, uint64_t x,
		    uint64_t y)
{
	if (h >= SAMPLE_STRATA)
		return;
	a->n[h]++;
	a->sx[h] += x;
	a->sy[h] += y;
	a->sxx[h] += (unsigned __int128)x * x;
	a->syy[h] += (unsigned __int128)y * y;
	a->sxy[h] += (unsigned __int128)x * y;
}

void sample_acc_add_cur(struct sample_acc *a, unsigned h, uint64_t x,
			uint64_t c, uint64_t y)
{
	if (h >= SAMPLE_STRATA)
		return;
	sample_acc_add(a, h, x, y);
	a->sc[h] += c;
	a->scc[h] += (unsigned __int128)c * c;
	a->sxc[h] += (unsigned __int128)x * c;
	a->scy[h] += (unsigned __int128)c * y;
}

void sample_acc_add_share_cur(struct sample_acc *a, unsigned h, uint64_t x0,
			      uint64_t x, uint64_t c, uint64_t y)
{
	if (h >= SAMPLE_STRATA)
		return;
	sample_acc_add_cur(a, h, x, c, y);
	a->sx0[h] += x0;
	a->sxx0[h] += (unsigned __int128)x0 * x0;
}

void sample_acc_add_share(struct sample_acc *a, unsigned h, uint64_t x0,
			  uint64_t x, uint64_t y)
{
	sample_acc_add_share_cur(a, h, x0, x, 0, y);
}

void sample_acc_merge(struct sample_acc *dst, const struct sample_acc *src)
{
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++) {
		dst->n[h] += src->n[h];
		dst->sx[h] += src->sx[h];
		dst->sy[h] += src->sy[h];
		dst->sxx[h] += src->sxx[h];
		dst->syy[h] += src->syy[h];
		dst->sxy[h] += src->sxy[h];
		dst->sx0[h] += src->sx0[h];
		dst->sxx0[h] += src->sxx0[h];
		dst->sc[h] += src->sc[h];
		dst->scc[h] += src->scc[h];
		dst->sxc[h] += src->sxc[h];
		dst->scy[h] += src->scy[h];
	}
}

uint64_t sample_key(uint64_t dev, uint64_t ino)
{
	return sample_mix(dev) ^ ino;
}

uint64_t sample_subvol_dev(uint64_t dev, uint64_t tree_id)
{
	return ~sample_mix(dev ^ sample_mix(tree_id));
}

/* A file's slot: 32 bytes, its band, ratio and facts in one cache line
 * with its key (a sample's pre-pass and walk ask for them together). */
struct sample_band_slot {
	uint64_t key;		/* 0: free (a key of 0 is stored as 1) */
	uint64_t size, nbytes;	/* its sample_facts, when band has */
	uint32_t nlink;		/* SAMPLE_FACTS */
	uint16_t q;		/* its current ratio (sample_ratio_q()) */
	uint8_t band;
};

struct sample_bands {
	struct sample_band_slot *s;
	size_t cap, n;		/* cap a power of two, at most 3/4 full */
	/* the big files' parts' bands and current ratios, the same way */
	struct sample_part_slot {
		uint64_t key;		/* 0: free */
		uint8_t *pb;
		uint16_t *pq;
		uint64_t nb, nq;	/* how many parts each holds */
	} *ps;
	size_t pcap, pn;
};

#define SAMPLE_FACTS	0x80

struct sample_bands *sample_bands_create(void)
{
	return calloc(1, sizeof(struct sample_bands));
}

void sample_bands_free(struct sample_bands *b)
{
	if (!b)
		return;
	size_t i;

	free(b->s);
	for (i = 0; i < b->pcap; i++) {
		free(b->ps[i].pb);
		free(b->ps[i].pq);
	}
	free(b->ps);
	free(b);
}

/* Where key's probe starts in a table of cap slots. */
static size_t sample_bands_home(uint64_t key, size_t cap)
{
	return sample_mix(key) & (cap - 1);
}

static size_t sample_bands_slot(const struct sample_band_slot *s, size_t cap,
				uint64_t key)
{
	size_t i = sample_bands_home(key, cap);

	while (s[i].key && s[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

static int sample_bands_grow(struct sample_bands *b)
{
	size_t cap = b->cap ? 2 * b->cap : 1024, i;
	struct sample_band_slot *ns = array_zalloc(cap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (i = 0; i < b->cap; i++)
		if (b->s[i].key)
			ns[sample_bands_slot(ns, cap, b->s[i].key)] = b->s[i];
	free(b->s);
	b->s = ns;
	b->cap = cap;
	return 0;
}

/* The slot of key, made when missing; NULL when out of memory. */
static struct sample_band_slot *sample_bands_at(struct sample_bands *b,
						uint64_t key)
{
	struct sample_band_slot *sl;

	key += !key;
	if (4 * (b->n + 1) > 3 * b->cap && sample_bands_grow(b))
		return NULL;
	sl = &b->s[sample_bands_slot(b->s, b->cap, key)];
	if (!sl->key) {
		sl->key = key;
		b->n++;
	}
	return sl;
}

/* Key's slot, or NULL. */
static const struct sample_band_slot *
sample_bands_find(const struct sample_bands *b, uint64_t key)
{
	const struct sample_band_slot *sl;

	if (!b || !b->cap)
		return NULL;
	key += !key;
	sl = &b->s[sample_bands_slot(b->s, b->cap, key)];
	return sl->key ? sl : NULL;
}

int sample_bands_put_file(struct sample_bands *b, uint64_t key,
			  unsigned band, uint16_t q,
			  const struct sample_facts *f)
{
	struct sample_band_slot *sl;

	if (!band && !q && !f)
		return 0;
	sl = sample_bands_at(b, key);
	if (!sl)
		return -ENOMEM;
	if (band)
		sl->band = (uint8_t)((sl->band & SAMPLE_FACTS) | band);
	if (q)
		sl->q = q;
	if (f) {
		sl->band |= SAMPLE_FACTS;
		sl->size = f->size;
		sl->nbytes = f->nbytes;
		sl->nlink = f->nlink;
	}
	return 0;
}

int sample_bands_put(struct sample_bands *b, uint64_t key, unsigned band)
{
	return sample_bands_put_file(b, key, band, 0, NULL);
}

uint16_t sample_bands_q(const struct sample_bands *b, uint64_t key)
{
	const struct sample_band_slot *sl = sample_bands_find(b, key);

	return sl ? sl->q : 0;
}

int sample_bands_facts(const struct sample_bands *b, uint64_t key,
		       struct sample_facts *f)
{
	const struct sample_band_slot *sl = sample_bands_find(b, key);

	if (!sl || !(sl->band & SAMPLE_FACTS))
		return 0;
	f->size = sl->size;
	f->nbytes = sl->nbytes;
	f->nlink = sl->nlink;
	return 1;
}

static size_t sample_parts_slot(const struct sample_part_slot *ps,
				size_t cap, uint64_t key)
{
	size_t i = sample_mix(key) & (cap - 1);

	while (ps[i].key && ps[i].key != key)
		i = (i + 1) & (cap - 1);
	return i;
}

/* The parts table's slot of key, made when missing: NULL when out of
 * memory. */
static struct sample_part_slot *sample_bands_part_at(struct sample_bands *b,
						     uint64_t key)
{
	size_t i;

	key += !key;
	if (4 * (b->pn + 1) > 3 * b->pcap) {
		size_t cap = b->pcap ? 2 * b->pcap : 64;
		struct sample_part_slot *ns = array_zalloc(cap, sizeof(*ns));

		if (!ns)
			return NULL;
		for (i = 0; i < b->pcap; i++)
			if (b->ps[i].key)
				ns[sample_parts_slot(ns, cap, b->ps[i].key)] =
					b->ps[i];
		free(b->ps);
		b->ps = ns;
		b->pcap = cap;
	}
	i = sample_parts_slot(b->ps, b->pcap, key);
	if (!b->ps[i].key) {
		b->ps[i].key = key;
		b->pn++;
	}
	return &b->ps[i];
}

/* Key's slot in the parts table, or NULL. */
static const struct sample_part_slot *
sample_bands_part_find(const struct sample_bands *b, uint64_t key)
{
	size_t i;

	if (!b || !b->pcap)
		return NULL;
	key += !key;
	i = sample_parts_slot(b->ps, b->pcap, key);
	return b->ps[i].key ? &b->ps[i] : NULL;
}

/* A copy of n values of size bytes, or NULL when out of memory. */
static void *sample_copy(const void *src, uint64_t n, size_t size)
{
	void *copy;

	if (n > SIZE_MAX / size)
		return NULL;
	copy = malloc(n ? n * size : 1);
	if (copy)
		memcpy(copy, src, n * size);
	return copy;
}

int sample_bands_put_parts(struct sample_bands *b, uint64_t key,
			   const uint8_t *pb, uint64_t n)
{
	uint8_t *copy = sample_copy(pb, n, sizeof(*pb));
	struct sample_part_slot *s = copy ? sample_bands_part_at(b, key) : NULL;

	if (!s) {
		free(copy);
		return -ENOMEM;
	}
	free(s->pb);
	s->pb = copy;
	s->nb = n;
	return 0;
}

int sample_bands_put_parts_q(struct sample_bands *b, uint64_t key,
			     const uint16_t *pq, uint64_t n)
{
	uint16_t *copy = sample_copy(pq, n, sizeof(*pq));
	struct sample_part_slot *s = copy ? sample_bands_part_at(b, key) : NULL;

	if (!s) {
		free(copy);
		return -ENOMEM;
	}
	free(s->pq);
	s->pq = copy;
	s->nq = n;
	return 0;
}

const uint16_t *sample_bands_parts_q(const struct sample_bands *b,
				     uint64_t key, uint64_t n)
{
	const struct sample_part_slot *s = sample_bands_part_find(b, key);

	return s && s->nq == n ? s->pq : NULL;
}

const uint8_t *sample_bands_parts(const struct sample_bands *b, uint64_t key,
				  uint64_t n)
{
	const struct sample_part_slot *s = sample_bands_part_find(b, key);

	return s && s->nb == n ? s->pb : NULL;
}

void sample_bands_file(const struct sample_bands *b, uint64_t key,
		       uint64_t n, struct sample_file_bands *out)
{
	const struct sample_band_slot *sl = sample_bands_find(b, key);
	const struct sample_part_slot *s = sample_bands_part_find(b, key);

	out->band = sl ? sl->band & ~SAMPLE_FACTS : 0;
	out->q = sl ? sl->q : 0;
	out->pb = s && s->nb == n ? s->pb : NULL;
	out->pq = s && s->nq == n ? s->pq : NULL;
}

unsigned sample_bands_get(const struct sample_bands *b, uint64_t key)
{
	const struct sample_band_slot *sl = sample_bands_find(b, key);

	return sl ? sl->band & ~SAMPLE_FACTS : 0;
}

/* Square root by Newton's method from above: no libm (the fuzzing build
 * does not inline sqrt()). */
static double sample_sqrt(double v)
{
	double x, nx;
	int k;

	if (!(v > 0))
		return 0;
	x = v > 1 ? v : 1;
	for (k = 0; k < 2000; k++) {
		nx = (x + v / x) / 2;
		if (nx >= x)
			break;
		x = nx;
	}
	return x;
}

double sample_t975(double df)
{
	/* t(0.975, df) for df = 1..30 */
	static const double t[] = {
		12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
		2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
		2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
	};
	const double z = SAMPLE_Z975;
	double z2 = z * z, v, a;
	int i;

	if (!(df >= 1))
		df = 1;
	if (df < 30) {
		i = (int)df;
		a = df - i;
		return t[i - 1] * (1 - a) + t[i] * a;
	}
	/* Cornish-Fisher expansion in 1/df: within 1e-4 from 30 on */
	v = df;
	return z + z * (z2 + 1) / (4 * v) +
	       z * (5 * z2 * z2 + 16 * z2 + 3) / (96 * v * v) +
	       z * (3 * z2 * z2 * z2 + 19 * z2 * z2 + 17 * z2 - 15) /
		       (384 * v * v * v);
}

/* Whole files (0) or chunks (1): the strata whose spread is pooled. */
static unsigned sample_group(unsigned h)
{
	return sample_stratum_class(h) >= SAMPLE_PART_CLASS;
}

/* Stratum h's sums of d = y - b c (b 0: of y). */
struct sample_dsums {
	double sy, syy, sxy;
};

static void sample_dsums(const struct sample_acc *a, unsigned h, double b,
			 struct sample_dsums *ds)
{
	ds->sy = (double)a->sy[h];
	ds->syy = (double)a->syy[h];
	ds->sxy = (double)a->sxy[h];
	if (!b)
		return;
	ds->sy -= b * (double)a->sc[h];
	ds->syy += b * b * (double)a->scc[h] - 2 * b * (double)a->scy[h];
	ds->sxy -= b * (double)a->sxc[h];
}

/* Residual sum of squares of stratum h's d around ratio R, from exact
 * sums; cancellation may leave a tiny negative. */
static double sample_see(const struct sample_acc *a, unsigned h,
			 const struct sample_dsums *ds, double R)
{
	double see = ds->syy - 2 * R * ds->sxy + R * R * (double)a->sxx[h];

	return see > 0 ? see : 0;
}

/* Units the draws of stratum h are worth: n, or with eff (a same
 * layout's: the units of a file shared in part count for that part) n
 * times the ratio of the effective sizes of their scaled and own bytes,
 * at most n. */
static double sample_n(const struct sample_acc *a, unsigned h, int eff)
{
	double sx = (double)a->sx[h], sxx = (double)a->sxx[h];
	double sx0 = (double)a->sx0[h], sxx0 = (double)a->sxx0[h], ne;

	if (!eff || !sxx || !sx0)
		return (double)a->n[h];
	ne = (double)a->n[h] * (sx * sx / sxx) / (sx0 * sx0 / sxx0);
	return ne < (double)a->n[h] ? ne : (double)a->n[h];
}

/* Stratum h's residual variance s_e^2 of d around its ratio R, with
 * eff ne for n (sample_n()). */
static double sample_s2(const struct sample_acc *a, unsigned h,
			const struct sample_dsums *ds, double R, int eff,
			double ne)
{
	double n = (double)a->n[h];

	if (n < 2)
		return 0;
	if (!eff)
		return sample_see(a, h, ds, R) / (n - 1);
	return ne > 1 ? sample_see(a, h, ds, R) / n * ne / (ne - 1) : 0;
}

/*
 * The estimate with the current disk bytes' slope b (0: the ratio
 * estimator on the data bytes alone): each stratum's total
 * b C_h + X_h * sum(d) / sum(x) with d = y - b c, its variance the ratio
 * estimator's of d, plus SAMPLE_CUR_KAPPA times the plain ratio
 * estimator's where b is used.  With at, *var_at is the variance under
 * design at (sample_predict_se()).
 */
static void estimate(const struct sample_pop *p, const struct sample_design *d,
		     const struct sample_acc *a, struct sample_result *r,
		     int eff, double b, const struct sample_design *at,
		     double *var_at)
{
	double total = 0, var = 0, vdf = 0, pool_v[2] = { 0 }, pool_df[2] = { 0 };
	double va = 0;
	double sx = 0, sy = 0, sd = 0, Rpool, Rdpool;
	struct sample_dsums ds, dy;
	unsigned h;

	memset(r, 0, sizeof(*r));
	r->b = b;
	/* the pooled relative spread of the residuals, per unit */
	for (h = 0; h < SAMPLE_STRATA; h++) {
		double n = a->n[h], xbar, R;

		r->units += a->n[h];
		sample_dsums(a, h, b, &ds);
		sx += (double)a->sx[h];
		sy += (double)a->sy[h];
		sd += ds.sy;
		if (a->n[h] < 2 || !a->sx[h] || d->pi[h] >= 1)
			continue;
		xbar = (double)a->sx[h] / n;
		R = ds.sy / (double)a->sx[h];
		pool_v[sample_group(h)] += sample_see(a, h, &ds, R) /
					   (xbar * xbar);
		pool_df[sample_group(h)] += n - 1;
	}
	for (h = 0; h < 2; h++)
		pool_v[h] = pool_df[h] > 0 ? pool_v[h] / pool_df[h] : 0;
	Rpool = sx > 0 ? sy / sx : 0;
	Rdpool = sx > 0 ? sd / sx : 0;
	for (h = 0; h < SAMPLE_STRATA; h++) {
		double n = a->n[h], N = p->N[h], X = p->X[h];
		double xbar, R, s2, s2r, floor_s2, vh, dfh, f, ne, bh;

		if (!p->N[h])
			continue;
		if (!a->n[h] || !a->sx[h]) {
			/* no draw: the pooled ratio, known to 100% at best */
			if (d->pi[h] >= 1 && !a->n[h])
				continue;	/* certain and empty: no data */
			r->empty++;
			total += X * Rdpool + b * (double)p->C[h];
			vh = X * Rpool * X * Rpool;
			var += vh;
			vdf += vh * vh / 30;
			if (at && at->pi[h] < 1)
				va += vh;
			continue;
		}
		sample_dsums(a, h, b, &ds);
		xbar = (double)a->sx[h] / n;
		R = ds.sy / (double)a->sx[h];
		f = n < N ? n / N : 1;
		ne = sample_n(a, h, eff);
		s2 = sample_s2(a, h, &ds, R, eff, ne);
		bh = b && a->sc[h] ? b : 0;
		if (bh && d->pi[h] < 1) {
			/* the plain ratio estimator's spread: a share of it
			 * is added, and where what is left does not gain,
			 * the stratum keeps the plain ratio estimator */
			sample_dsums(a, h, 0, &dy);
			s2r = sample_s2(a, h, &dy, dy.sy / (double)a->sx[h],
					eff, ne);
			s2 += SAMPLE_CUR_KAPPA * s2r;
			if (s2 >= s2r) {
				bh = 0;
				ds = dy;
				R = ds.sy / (double)a->sx[h];
				s2 = s2r;
			}
		}
		total += X * R + bh * (double)p->C[h];
		if (d->pi[h] >= 1)
			continue;	/* every unit read: exact */
		if (ne < SAMPLE_FEW) {
			floor_s2 = pool_v[sample_group(h)] * xbar * xbar *
				   SAMPLE_PRIOR_DF /
				   ((ne > 1 ? ne - 1 : 0) + SAMPLE_PRIOR_DF);
			if (s2 < floor_s2)
				s2 = floor_s2;
		}
		vh = (X / xbar) * (X / xbar) * (1 - f) * s2 / n;
		if (eff && sample_stratum_jump(h)) {
			/* the units that jump may be too few for n draws to
			 * see: up to 3 / n of them unseen at 95% (the rule
			 * of three), each the stratum's mean away, or the
			 * whole sample's where that is more (the stratum's
			 * units counting nothing, bar those that jump) */
			double t = X * R + bh * (double)p->C[h], j;

			if (t < X * Rpool)
				t = X * Rpool;
			j = t * 3 / n / SAMPLE_Z975;
			vh += j * j * (1 - f);
		}
		dfh = ne >= 2 ? ne - 1 : 1;
		var += vh;
		vdf += vh * vh / dfh;
		if (at && at->pi[h] < 1 && d->pi[h] > 0) {
			double na = n * at->pi[h] / d->pi[h];
			double fa = f * at->pi[h] / d->pi[h];

			va += (X / xbar) * (X / xbar) *
			      (1 - (fa < 1 ? fa : 1)) * s2 / na;
		}
	}
	if (var_at)
		*var_at = va;
	r->total = total;
	r->se = sample_sqrt(var);
	r->df = vdf > 0 ? var * var / vdf : 0;
	r->half = var > 0 ? sample_t975(r->df) * r->se : 0;
}

/*
 * The slope of y on the current disk bytes c common to the strata (of
 * row band band only, all where band is SAMPLE_ROW_BANDS), after each
 * stratum's ratio to the data bytes: the b that makes the sum of the
 * strata's variances least (0 where no stratum knows c).
 */
static double sample_slope(const struct sample_pop *p,
			   const struct sample_design *d,
			   const struct sample_acc *a, unsigned band)
{
	double num = 0, den = 0;
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++) {
		double n = a->n[h], Sx = (double)a->sx[h], Ry, Rc, w, eyc, ecc;

		if (a->n[h] < 2 || !a->sx[h] || !a->sc[h] || d->pi[h] >= 1 ||
		    !p->C[h] ||
		    (band < SAMPLE_ROW_BANDS && sample_row_band(h) != band))
			continue;
		Ry = (double)a->sy[h] / Sx;
		Rc = (double)a->sc[h] / Sx;
		w = ((double)p->X[h] / (Sx / n)) * ((double)p->X[h] / (Sx / n)) *
		    (1 - (n < p->N[h] ? n / p->N[h] : 1)) / (n * (n - 1));
		eyc = (double)a->scy[h] - Rc * (double)a->sxy[h] -
		      Ry * (double)a->sxc[h] + Ry * Rc * (double)a->sxx[h];
		ecc = (double)a->scc[h] - 2 * Rc * (double)a->sxc[h] +
		      Rc * Rc * (double)a->sxx[h];
		if (ecc <= 0)
			continue;
		num += w * eyc;
		den += w * ecc;
	}
	return den > 0 ? num / den : 0;
}

/* The ratio estimator, or with the current disk bytes where they make
 * the variance smaller, the SAMPLE_CUR_KAPPA share included. */
static void estimate_cur(const struct sample_pop *p,
			 const struct sample_design *d,
			 const struct sample_acc *a, struct sample_result *r,
			 int eff, const struct sample_design *at,
			 double *var_at)
{
	struct sample_result rc;
	double b, vc;

	estimate(p, d, a, r, eff, 0, at, var_at);
	b = sample_slope(p, d, a, SAMPLE_ROW_BANDS);
	if (!b)
		return;
	estimate(p, d, a, &rc, eff, b, at, &vc);
	if (rc.se < r->se) {
		*r = rc;
		if (var_at)
			*var_at = vc;
	}
}

double sample_band_slope(const struct sample_pop *p,
			 const struct sample_design *d,
			 const struct sample_acc *a, unsigned band)
{
	return sample_slope(p, d, a, band);
}

void sample_estimate(const struct sample_pop *p, const struct sample_design *d,
		     const struct sample_acc *a, struct sample_result *r)
{
	estimate_cur(p, d, a, r, 0, NULL, NULL);
}

void sample_estimate_share(const struct sample_pop *p,
			   const struct sample_design *d,
			   const struct sample_acc *a, struct sample_result *r)
{
	estimate_cur(p, d, a, r, 1, NULL, NULL);
}

double sample_predict_se(const struct sample_pop *p,
			 const struct sample_design *d,
			 const struct sample_acc *a,
			 const struct sample_design *at, int share,
			 struct sample_result *now)
{
	double va = 0;

	estimate_cur(p, d, a, now, share, at, &va);
	return sample_sqrt(va);
}

/*
 * What the ratio estimator scales by: the bytes of data in the file.  Not
 * st_size: a sparse file's holes cost nothing, and one 40 MB sparse file
 * in the sample would drag the ratio of every other file down.  The
 * allocation (st_blocks; uncompressed bytes on btrfs) stands for it;
 * a filesystem that reports none gets st_size.
 */
uint64_t sample_data_bytes(const struct stat *st)
{
	uint64_t alloc = (uint64_t)st->st_blocks * 512;

	if (!alloc || alloc > (uint64_t)st->st_size)
		return st->st_size;
	return alloc;
}
