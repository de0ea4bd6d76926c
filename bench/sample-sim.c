// SPDX-License-Identifier: GPL-2.0
/*
 * sample-sim: the sampling design of --sample (sample.c) on real data,
 * over many seeds, at the cost of one full estimate.
 *
 *   sample-sim units SETTINGS DIR > units    one full pass: every file's
 *       estimate (the truth) and every unit's (each 512 KiB part of a big
 *       file alone, the estimator's part(), and whether it sets NOCOMPRESS), where each
 *       big file really sets NOCOMPRESS (nocompress_at()), and each
 *       file's and each part's current ratio band (root on btrfs; 0
 *       elsewhere), and each file's sample_kind()
 *   sample-sim sim SEEDS PCT[,PCT...] [bands|nocur|filebands|sizeown|kind] < units
 *       (bands: as compsize as root on btrfs, each part by its own band
 *       and the files that hold an eighth of the parts in strata of their
 *       own, each unit's current disk bytes the estimator's second
 *       auxiliary; nocur: the same without it, as compsize before;
 *       filebands: a big file's band for all its parts; sizeown: no
 *       bands, own strata; kind: by the kind of each file's name and own
 *       strata, as compsize without root or off btrfs; none: by size)
 *       for each percentage and seed, the sample sample.c would draw, its
 *       estimate and 95% interval against the full estimate: one line per
 *       setting and percentage (coverage, mean |error|, mean half-width,
 *       mean data read, units read, samples with an empty stratum), and
 *       the relative standard error, from which docs/sampling.md scales
 *       the half-width to other tree sizes.  With SIM_STRATA=1 in the
 *       environment, the first seed's design on stderr; with SIM_BIAS=1,
 *       the mean signed error in the last column; with SIM_FLOOR=N, floors
 *       of N draws (as root) instead of SAMPLE_MIN_DRAWS; with SIM_RAW=1,
 *       the tree as a btrfs mounted without compress stores it (every
 *       unit raw now, its current bytes its data bytes, a small file's
 *       in whole sectors above 2 KiB); with
 *       SIM_NOKIND=1, the raw band never divided by the names' kinds
 *       (compsize divides it on every tree); SIM_KINDS=half divides it
 *       only where more than half of the data is in it (compsize before
 *       2026-11-29), and packed in two (formats compressed already, and
 *       the rest).
 *
 * The sample drawn is the one compsize would draw from these files (the
 * same hash of dev, inode, unit, with the file's index as inode), and
 * its parts are taken as compsize takes them (estrun_parts()): raw after
 * the part where NOCOMPRESS is set, found from the file's start up to the
 * first drawn part that sets it; in a file's own strata, the parts after
 * it are known, drawn or not (estrun_known_raw()).
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "estimate/plugin.h"
#include "sample/sample.h"
#include "scan/usage.h"
#include "seen.h"

#define MAXSET 32

static const struct est_ops *g_ops;
static struct est_ctx *g_ctx;
static struct usage_ctx *g_scan;
static struct seen_set *g_links;
static size_t g_n, g_nset;

/* The current disk and uncompressed bytes of the file, as compsize's
 * per-file rows count them; 0 when not known (not btrfs, not root). */
static int current_usage(int fd, const struct stat *st, uint64_t *disk,
			 uint64_t *uncomp)
{
	struct cs_stats cs;
	int ret, t;

	*disk = *uncomp = 0;
	if (!usage_fs_of(g_scan, st->st_dev) &&
	    usage_probe_fs(g_scan, fd, st) != 1)
		return 0;
	if (usage_sink_push(g_scan))
		return 0;
	usage_begin_file(g_scan);
	ret = usage_file(g_scan, fd, st);
	usage_sink_pop(g_scan, &cs);
	if (ret)
		return 0;
	for (t = 0; t < CS_NTYPES; t++) {
		*disk += cs.disk[t];
		*uncomp += cs.uncomp[t];
	}
	return 1;
}

/* Each part's current ratio band (sample_parts_bands()), into pb[0..nu):
 * all 0 when not known. */
static struct search_ctx *g_search;
static struct sample_parts g_parts;

static int part_item(const struct search_item *item, void *arg)
{
	struct extent_info ei;

	(void)arg;
	if (item->type != BTRFS_EXTENT_DATA_KEY ||
	    extent_parse(item->data, item->len, 0, &ei) ||
	    ei.type != BTRFS_FILE_EXTENT_REG || !ei.disk_bytenr)
		return 0;
	return sample_parts_extent(&g_parts, item->offset, ei.num_bytes,
				   ei.disk_num_bytes, ei.ram_bytes);
}

static void part_bands(int fd, const struct stat *st, uint64_t nu,
		       uint8_t *pb)
{
	const struct usage_fs *fs = usage_fs_of(g_scan, st->st_dev);

	sample_parts_reset(&g_parts);
	if (!fs || search_file_extents(g_search, fd, st->st_ino, fs->nodesize,
				       part_item, NULL))
		sample_parts_reset(&g_parts);
	sample_parts_bands(&g_parts, nu, -1, pb);
}

static uint64_t data_bytes(const struct stat *st)
{
	uint64_t alloc = (uint64_t)st->st_blocks * 512;

	return !alloc || alloc > (uint64_t)st->st_size ? (uint64_t)st->st_size
						       : alloc;
}

static int one_file(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	uint64_t full[6 * MAXSET], part[3 * MAXSET], at[MAXSET], lim[MAXSET],
		 off, len, x, xk, disk, uncomp, k, nu;
	uint64_t *fullp = full;
	uint8_t *pb;
	bool nocomp[MAXSET];
	unsigned band;
	struct stat st;
	size_t i;
	int fd, known, err1;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(sb->st_mode))
		return 0;
	if (sb->st_nlink > 1 &&
	    seen_insert(g_links, sb->st_ino ^ ((uint64_t)sb->st_dev << 40)) == 0)
		return 0;	/* a hard link counts once */
	fd = open(path, O_RDONLY | O_NOATIME | O_CLOEXEC);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "sample-sim: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 0;
	}
	x = data_bytes(&st);
	known = current_usage(fd, &st, &disk, &uncomp);
	band = sample_band(known, uncomp, disk);
	if (g_ops->files(g_ctx, 1, &fd, &st, NULL, NULL, NULL, &err1, &fullp) ||
	    err1) {
		fprintf(stderr, "sample-sim: %s: estimate failed\n", path);
		close(fd);
		return 0;
	}
	nu = sample_units(st.st_size, x);
	memset(at, 0xff, sizeof(at));
	for (i = 0; i < g_nset; i++)
		lim[i] = st.st_size;
	if (nu > 1 && g_ops->nocompress_at(g_ctx, fd, &st, lim, at))
		fprintf(stderr, "sample-sim: %s: NOCOMPRESS not followed\n",
			path);
	pb = calloc(nu ? nu : 1, 1);
	if (!pb) {
		close(fd);
		return -1;
	}
	if (known && nu > 1)
		part_bands(fd, &st, nu, pb);
	printf("F %zu %" PRIu64 " %" PRIu64 " %u %" PRIu64, g_n++,
	       (uint64_t)st.st_size, x, band, nu);
	for (i = 0; i < g_nset; i++)
		printf(" %" PRIu64 " %" PRIu64,
		       full[EST_WRITTEN(g_nset) + 3 * i],
		       at[i] == UINT64_MAX ? 0 : at[i] / SAMPLE_CHUNK + 1);
	printf(" %u\n", sample_kind(path));
	for (k = 0; k < nu; k++) {
		xk = sample_unit(st.st_size, x, k, &off, &len);
		memset(nocomp, 0, sizeof(nocomp));
		if (nu == 1) {
			memcpy(part, full, sizeof(part));
		} else if (g_ops->part(g_ctx, fd, &st, off, len, 1, part, nocomp)) {
			fprintf(stderr, "sample-sim: %s: part failed\n", path);
			memset(part, 0, sizeof(part));
		}
		printf("U %" PRIu64 " %" PRIu64, k, xk);
		for (i = 0; i < g_nset; i++)
			printf(" %" PRIu64 " %d", part[3 * i], nocomp[i]);
		/* its band, and its current disk bytes (its data bytes
		 * where not known) */
		printf(" %u %" PRIu64 "\n", nu > 1 ? pb[k] : band,
		       !known ? xk : nu == 1 ? disk :
		       k < g_parts.n ? (uint64_t)g_parts.v[2 * k + 1] : xk);
	}
	free(pb);
	close(fd);
	return 0;
}

static int cmd_units(const char *list, const char *dir)
{
	struct est_setting *s;
	char err[256], name[64];
	size_t i;
	int ret;

	if (est_parse_list(list, &s, &g_nset, err, sizeof(err))) {
		fprintf(stderr, "sample-sim: %s\n", err);
		return 2;
	}
	if (g_nset > MAXSET) {
		fprintf(stderr, "sample-sim: at most %d settings\n", MAXSET);
		return 2;
	}
	g_ops = est_plugin_ops();
	g_ctx = g_ops->create(s, g_nset, 4096);
	g_scan = usage_create();
	g_links = seen_create();
	g_search = search_create(64 << 10);
	if (!g_ctx || !g_scan || !g_links || !g_search)
		return 3;
	printf("S");
	for (i = 0; i < g_nset; i++) {
		est_setting_name(&s[i], name, sizeof(name));
		printf(" %s", name);
	}
	putchar('\n');
	ret = nftw(dir, one_file, 64, FTW_PHYS | FTW_MOUNT);
	g_ops->free(g_ctx);
	usage_free(g_scan);
	seen_free(g_links);
	search_free(g_search);
	sample_parts_free(&g_parts);
	free(s);
	return ret ? 1 : 0;
}

struct sim_file {
	uint64_t size, x, nu, first;
	unsigned band;
	unsigned kind;		/* sample_kind() of its name */
	uint64_t full[MAXSET];
	uint64_t at[MAXSET];	/* 1 + the part where NOCOMPRESS is set, 0 */
};

struct sim_unit {
	uint64_t k, x;
	unsigned band;		/* its part's current ratio band */
	uint64_t cur;		/* its current disk bytes */
	uint64_t y[MAXSET];
	int nocomp[MAXSET];	/* the part alone sets NOCOMPRESS */
};

static struct sim_file *files;
static struct sim_unit *units;
static size_t nfiles, nunits;
static char names[MAXSET][64];
static struct est_setting sets[MAXSET];

static int read_units(void)
{
	size_t capf = 0, capu = 0, i;
	char line[4096], *p, *e;

	while (fgets(line, sizeof(line), stdin)) {
		if (line[0] == 'S') {
			p = line + 1;
			for (g_nset = 0; g_nset < MAXSET; g_nset++) {
				while (*p == ' ')
					p++;
				if (!*p || *p == '\n')
					break;
				e = p;
				while (*e && *e != ' ' && *e != '\n')
					e++;
				snprintf(names[g_nset], sizeof(names[0]), "%.*s",
					 (int)(e - p), p);
				p = e;
			}
		} else if (line[0] == 'F') {
			struct sim_file *f;

			if (nfiles == capf) {
				capf = capf ? 2 * capf : 1024;
				files = realloc(files, capf * sizeof(*files));
				if (!files)
					return -ENOMEM;
			}
			f = &files[nfiles++];
			p = line + 2;
			strtoull(p, &p, 10);	/* id: its index */
			f->size = strtoull(p, &p, 10);
			f->x = strtoull(p, &p, 10);
			f->band = (unsigned)strtoul(p, &p, 10);
			f->nu = strtoull(p, &p, 10);
			f->first = nunits;
			for (i = 0; i < g_nset; i++) {
				f->full[i] = strtoull(p, &p, 10);
				f->at[i] = strtoull(p, &p, 10);
			}
			f->kind = (unsigned)strtoul(p, &p, 10);
		} else if (line[0] == 'U') {
			struct sim_unit *u;

			if (nunits == capu) {
				capu = capu ? 2 * capu : 4096;
				units = realloc(units, capu * sizeof(*units));
				if (!units)
					return -ENOMEM;
			}
			u = &units[nunits++];
			p = line + 2;
			u->k = strtoull(p, &p, 10);
			u->x = strtoull(p, &p, 10);
			for (i = 0; i < g_nset; i++) {
				u->y[i] = strtoull(p, &p, 10);
				u->nocomp[i] = (int)strtol(p, &p, 10);
			}
			u->band = (unsigned)strtoul(p, &p, 10);
			u->cur = strtoull(p, &p, 10);
		}
	}
	return 0;
}

/* SIM_KINDS=packed: the raw band in two, the names of formats compressed
 * already and the rest (text, binary and other as one). */
static void raw_in_two(void)
{
	const unsigned packed = SAMPLE_BAND_KINDS + 3, rest = SAMPLE_BAND_KINDS;
	size_t f;
	uint64_t k;

	for (f = 0; f < nfiles; f++) {
		struct sim_file *sf = &files[f];

		if (sf->band >= SAMPLE_BAND_KINDS && sf->band != packed)
			sf->band = rest;
		for (k = 0; k < sf->nu; k++) {
			struct sim_unit *u = &units[sf->first + k];

			if (u->band >= SAMPLE_BAND_KINDS && u->band != packed)
				u->band = rest;
		}
	}
}

/* Whether more than half of the data of known current ratio is stored
 * raw (SIM_KINDS=half: the rule of compsize before 2026-11-29, which
 * divided the raw band by kind only there). */
static int raw_most(void)
{
	double raw = 0, known = 0;
	size_t f;
	uint64_t k;

	for (f = 0; f < nfiles; f++)
		for (k = 0; k < files[f].nu; k++) {
			const struct sim_unit *u = &units[files[f].first + k];

			if (!u->band)
				continue;
			known += (double)u->x;
			if (u->band >= SAMPLE_BAND_RAW)
				raw += (double)u->x;
		}
	return raw > known / 2;
}

/*
 * SIM_RAW=1: the tree as a btrfs mounted without compress shows it, every
 * unit with data stored raw, its current bytes its data bytes (a small
 * file's in whole sectors above 2 KiB).  Then, as compsize does, the raw
 * band divided by the kind of the file's name (sample_band_kind()), but
 * with SIM_NOKIND=1 (never) or SIM_KINDS=half (where more than half of
 * the data is stored raw) or packed (in two, raw_in_two()).
 */
static void raw_bands(void)
{
	const char *kinds = getenv("SIM_KINDS");
	size_t f;
	uint64_t k;
	int fold;

	for (f = 0; f < nfiles && getenv("SIM_RAW"); f++) {
		struct sim_file *sf = &files[f];

		sf->band = sf->x ? SAMPLE_BAND_RAW : 0;
		for (k = 0; k < sf->nu; k++) {
			struct sim_unit *u = &units[sf->first + k];

			u->band = u->x ? SAMPLE_BAND_RAW : 0;
			/* a small file inline up to max_inline's default,
			 * else in whole sectors (sample_file_q()) */
			u->cur = sf->nu > 1 || u->x <= 2048 ? u->x :
				 (u->x + 4095) / 4096 * 4096;
		}
	}
	if (getenv("SIM_NOKIND"))
		return;
	fold = kinds && !strcmp(kinds, "half") && !raw_most();
	for (f = 0; f < nfiles && !fold; f++) {
		struct sim_file *sf = &files[f];

		sf->band = sample_band_kind(sf->band, (int)sf->kind);
		for (k = 0; k < sf->nu; k++) {
			struct sim_unit *u = &units[sf->first + k];

			u->band = sample_band_kind(u->band, (int)sf->kind);
		}
	}
	if (kinds && !strcmp(kinds, "packed"))
		raw_in_two();
}

/* With bands 2: each unit's entry of its file's bands (sample.h), its
 * file's own slot included, as sampleplan.c makes them. */
static uint8_t *pbs;
static int g_bands;

static int make_pbs(void)
{
	uint64_t all = 0, k;
	unsigned slot = 0;
	size_t f;

	pbs = calloc(nunits ? nunits : 1, 1);
	if (!pbs)
		return -ENOMEM;
	for (f = 0; f < nfiles; f++)
		if (files[f].nu > 1)
			all += files[f].nu;
	for (f = 0; f < nfiles; f++) {
		const struct sim_file *sf = &files[f];
		unsigned own = 0;

		if (sf->nu < 2)
			continue;
		if (slot < SAMPLE_OWN_FILES && sample_own_strata(sf->nu, all))
			own = ++slot;
		for (k = 0; k < sf->nu; k++)
			pbs[sf->first + k] = (uint8_t)((g_bands == 2 ||
							g_bands == 5 ?
							units[sf->first + k].band :
							g_bands == 4 ? sf->kind :
							0) |
						       own << SAMPLE_PB_SLOT);
	}
	return 0;
}

/* Unit k's stratum: bands 0 by size, 1 and the file's band, 2 and each
 * part's own band and the file's own strata (what compsize does as root
 * on btrfs), 3 by size and own strata, 4 by the kind of its name and own
 * strata (what compsize does without root or off btrfs). */
static unsigned unit_stratum(const struct sim_file *sf, uint64_t k, int bands)
{
	if (bands == 4)
		return sample_unit_stratum(sf->size, sf->x, sf->kind,
					   &pbs[sf->first], k);
	if (bands == 3)
		return sample_unit_stratum(sf->size, sf->x, 0, &pbs[sf->first],
					   k);
	if (bands == 2 || bands == 5)
		return sample_unit_stratum(sf->size, sf->x, sf->band,
					   &pbs[sf->first], k);
	return sample_stratum(sf->size, sf->x, bands ? sf->band : 0);
}

/* SIM_STRATA=1: the first seed's design, a stratum a line, on stderr
 * (what the floors cost: bench/RESULTS.md). */
static void print_design(const struct sample_design *d,
			 const struct sample_pop *pop)
{
	unsigned h;

	for (h = 0; h < SAMPLE_STRATA; h++)
		if (pop->N[h])
			fprintf(stderr, "stratum %u: %llu units, %.1f MB, "
				"pi %.4f, %.1f draws, %.2f MB read\n", h,
				(unsigned long long)pop->N[h],
				pop->X[h] / 1e6, d->pi[h],
				d->pi[h] * pop->N[h],
				d->pi[h] * pop->X[h] / 1e6);
}

static int cmd_sim(unsigned seeds, const char *pcts, int bands)
{
	static struct sample_acc acc[MAXSET];
	static struct sample_pop popi[MAXSET];
	/* mode 2 (bands): the units' current disk bytes as the estimator's
	 * second auxiliary, as compsize as root on btrfs; mode 5 (nocur):
	 * bands without it */
	const int cur = bands == 2;
	double truth[MAXSET] = { 0 }, parts[MAXSET] = { 0 };
	struct sample_pop pop = { 0 };
	struct sample_design d;
	struct sample_result r;
	uint64_t X = 0, k;
	size_t f, i;
	const char *p = pcts;

	g_bands = bands;
	if (read_units())
		return 3;
	raw_bands();
	if (bands >= 2 && make_pbs())
		return 3;
	for (i = 0; i < g_nset; i++) {
		struct est_setting *one;
		size_t n1;
		char err[256];

		if (est_parse_list(names[i], &one, &n1, err, sizeof(err)))
			return 2;
		sets[i] = one[0];
		free(one);
	}
	for (f = 0; f < nfiles; f++) {
		for (k = 0; k < files[f].nu; k++) {
			unsigned h = unit_stratum(&files[f], k, bands);

			pop.N[h]++;
			pop.X[h] += units[files[f].first + k].x;
			if (cur && h < SAMPLE_STRATA)
				pop.C[h] += units[files[f].first + k].cur;
		}
		X += files[f].x;
		for (i = 0; i < g_nset; i++) {
			truth[i] += files[f].full[i];
			/* every part, raw after the one setting NOCOMPRESS:
			 * what a sample of everything gives */
			for (k = 0; k < files[f].nu; k++) {
				uint64_t off, len;

				sample_unit(files[f].size, files[f].x, k, &off,
					    &len);
				parts[i] += files[f].at[i] &&
					    k > files[f].at[i] - 1 ?
					    (len + 4095) / 4096 * 4096 :
					    units[files[f].first + k].y[i];
			}
		}
	}
	printf("# %zu files, %zu units, %.1f MB of data, strata by size%s\n",
	       nfiles, nunits, X / 1e6,
	       bands == 2 ? " and current ratio (each part's own; files that hold an eighth of the parts on their own), the current disk bytes an auxiliary" :
	       bands == 3 ? " (files that hold an eighth of the parts on their own)" :
	       bands == 4 ? " and the kind of each file's name (files that hold an eighth of the parts on their own)" :
	       bands == 5 ? " and current ratio (each part's own; files that hold an eighth of the parts on their own), without the current disk bytes as an auxiliary" :
	       bands ? " and current ratio (the file's)" : "");
	printf("| setting | sample | seeds | coverage | mean error | mean half-width | rel. s.e. | data read | units read | empty strata | parts vs whole |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	while (*p) {
		double pct = strtod(p, (char **)&p), read = 0, nread = 0;
		double hit[MAXSET] = { 0 }, aerr[MAXSET] = { 0 }, serr[MAXSET] = { 0 };
		double hw[MAXSET] = { 0 }, rse[MAXSET] = { 0 };
		uint64_t empty = 0;
		unsigned seed;

		if (*p == ',')
			p++;
		for (seed = 0; seed < seeds; seed++) {
			double known[MAXSET] = { 0 };

			for (i = 0; i < g_nset; i++)
				popi[i] = pop;
			memset(acc, 0, sizeof(acc));
			if (bands == 4)	/* as sampleplan.c: no ratio known */
				sample_plan_floors(&d, &pop,
						   (uint64_t)(pct / 100 * X), seed,
						   SAMPLE_MIN_DRAWS_KIND,
						   SAMPLE_MIN_DRAWS_KIND_OWN);
			else if (getenv("SIM_FLOOR"))
				sample_plan_floors(&d, &pop,
						   (uint64_t)(pct / 100 * X), seed,
						   (unsigned)atoi(getenv("SIM_FLOOR")),
						   (unsigned)atoi(getenv("SIM_FLOOR")));
			else
				sample_plan(&d, &pop, (uint64_t)(pct / 100 * X),
					    seed);
			if (getenv("SIM_STRATA") && !seed)
				print_design(&d, &pop);
			for (f = 0; f < nfiles; f++) {
				const struct sim_file *sf = &files[f];
				uint64_t J[MAXSET], lim, off, len, last = 0;
				int any = 0;

				/* where compsize finds NOCOMPRESS set
				 * (estrun_parts()) */
				for (i = 0; i < g_nset; i++)
					J[i] = UINT64_MAX;
				for (k = 0; k < sf->nu && sf->nu > 1; k++) {
					const struct sim_unit *u =
						&units[sf->first + k];

					if (!sample_in(&d, unit_stratum(sf, k, bands),
						       1, f, u->k))
						continue;
					any = 1;
					last = k;
					for (i = 0; i < g_nset; i++)
						if (u->nocomp[i] && J[i] > k)
							J[i] = k;
				}
				for (i = 0; i < g_nset && any; i++) {
					lim = J[i] != UINT64_MAX ? J[i] :
					      est_follow_nocompress(&sets[i]) ?
					      last : 0;
					if (sf->at[i] && sf->at[i] - 1 < lim)
						J[i] = sf->at[i] - 1;
				}
				/* the parts after the one that sets NOCOMPRESS,
				 * where it was found, in the file's own strata:
				 * known raw (estrun_known_raw()) */
				for (i = 0; i < g_nset && any; i++) {
					for (k = J[i] == UINT64_MAX ? sf->nu :
					     J[i] + 1; k < sf->nu; k++) {
						unsigned h = unit_stratum(sf, k,
									  bands);

						if (!sample_stratum_own(h) ||
						    sf->x < sf->size)
							continue;
						sample_unit(sf->size, sf->x, k,
							    &off, &len);
						popi[i].N[h]--;
						popi[i].X[h] -= units[sf->first + k].x;
						if (cur)
							popi[i].C[h] -= units[sf->first + k].cur;
						known[i] += (len + 4095) /
							    4096 * 4096;
					}
				}
				for (k = 0; k < sf->nu; k++) {
					const struct sim_unit *u =
						&units[sf->first + k];

					unsigned h = unit_stratum(sf, k, bands);

					if (!sample_in(&d, h, 1, f, u->k))
						continue;
					read += u->x;
					nread++;
					sample_unit(sf->size, sf->x, u->k, &off,
						    &len);
					for (i = 0; i < g_nset; i++) {
						if (J[i] != UINT64_MAX &&
						    u->k > J[i] &&
						    sample_stratum_own(h) &&
						    sf->x >= sf->size)
							continue;	/* known */
						sample_acc_add_cur(&acc[i], h, u->x,
							       cur ? u->cur : 0,
							       u->k > J[i] ?
							       (len + 4095) / 4096 * 4096 :
							       u->y[i]);
					}
				}
			}
			for (i = 0; i < g_nset; i++) {
				sample_estimate(&popi[i], &d, &acc[i], &r);
				r.total += known[i];
				if (r.total - r.half <= truth[i] &&
				    truth[i] <= r.total + r.half)
					hit[i]++;
				aerr[i] += (r.total > truth[i] ?
					    r.total - truth[i] :
					    truth[i] - r.total) / truth[i];
				hw[i] += r.half / truth[i];
				serr[i] += (r.total - truth[i]) / truth[i];
				rse[i] += r.se / truth[i];
				if (!i)
					empty += r.empty;
			}
		}
		for (i = 0; i < g_nset; i++)
			printf("| %s | %g%% | %u | %.1f%% | %.2f%% | %.2f%% | %.3f%% | %.2f%% | %.0f | %" PRIu64 " | %+.2f%% |\n",
			       names[i], pct, seeds, 100 * hit[i] / seeds,
			       100 * aerr[i] / seeds, 100 * hw[i] / seeds,
			       100 * rse[i] / seeds, 100 * read / seeds / X,
			       nread / seeds, empty,
			       getenv("SIM_BIAS") ? 100 * serr[i] / seeds :
			       100 * (parts[i] - truth[i]) / truth[i]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "units"))
		return cmd_units(argv[2], argv[3]);
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "sim"))
		return cmd_sim((unsigned)strtoul(argv[2], NULL, 10), argv[3],
			       argc == 5 && !strcmp(argv[4], "bands") ? 2 :
			       argc == 5 && !strcmp(argv[4], "filebands") ? 1 :
			       argc == 5 && !strcmp(argv[4], "sizeown") ? 3 :
			       argc == 5 && !strcmp(argv[4], "kind") ? 4 :
			       argc == 5 && !strcmp(argv[4], "nocur") ? 5 :
			       0);
	fputs("usage: sample-sim units SETTINGS DIR > units\n"
	      "       sample-sim sim SEEDS PCT[,PCT...] [bands|nocur|filebands|sizeown|kind] < units\n",
	      stderr);
	return 2;
}
