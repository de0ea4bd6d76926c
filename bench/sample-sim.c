// SPDX-License-Identifier: GPL-2.0
/*
 * sample-sim: --sample's sampler (sample/) on real data, over many seeds,
 * at the cost of one full estimate.
 *
 *   sample-sim units SETTINGS DIR > units    one full pass: every file's
 *       estimate (the truth) and every unit's (each 512 KiB part of a big
 *       file alone, the estimator's part(), and whether it sets
 *       NOCOMPRESS), and where each big file really sets NOCOMPRESS
 *       (nocompress_at()), each file named by its st_dev and st_ino
 *   sample-sim sim SEEDS PCT[,PCT...] bands|kind DIR < units
 *       for each percentage, compsize's own pre-pass over DIR
 *       (sampleplan_run(): bands as root on btrfs, each file's and each
 *       part's current ratio; kind as without root, the kinds of the
 *       names), its design; then for each seed, the units compsize would
 *       draw (sample_in(), seeded so, DIR's device named as compsize names
 *       it), their estimates from the units file, and the sampler's
 *       estimate and 95% interval (sample_estimate()) against the full
 *       estimate: one line per setting and percentage (coverage, mean
 *       |error|, mean half-width, relative standard error, mean data
 *       read, units read, samples with an empty stratum).  With
 *       SIM_STRATA=1 in the environment, the design on stderr; with
 *       SIM_BIAS=1, the mean signed error in the last column.
 *
 * Everything about the sample is the sampler's: the strata, the bands
 * table, the plan, the draws, the populations and sums as estrun adds them
 * (sample_pop_cur(), sample_acc_add_cur()).  What estimate/estsample.c
 * does with a big file's parts is applied to the units read from the
 * units file: raw after the part where NOCOMPRESS is set, found from the
 * file's start up to the first drawn part that sets it (estrun_parts());
 * in a file's own strata, the parts after it known, drawn or not
 * (estrun_known_raw()).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "estimate/plugin.h"
#include "sample/sample.h"
#include "sample/sampleplan.h"
#include "seen.h"
#include "walk/walk.h"

#define MAXSET 32

static const struct est_ops *g_ops;
static struct est_ctx *g_ctx;
static struct seen_set *g_links;
static size_t g_nset;

static int one_file(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	uint64_t full[6 * MAXSET], part[3 * MAXSET], at[MAXSET], lim[MAXSET],
		 off, len, x, xk, k, nu;
	uint64_t *fullp = full;
	bool nocomp[MAXSET];
	struct stat st;
	size_t i;
	int fd, err1;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(sb->st_mode))
		return 0;
	if (sb->st_nlink > 1 &&
	    seen_insert(g_links, sample_key(sb->st_dev, sb->st_ino)) == 0)
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
	x = sample_data_bytes(&st);
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
	printf("F %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
	       (uint64_t)st.st_dev, (uint64_t)st.st_ino,
	       (uint64_t)st.st_size, x, nu);
	for (i = 0; i < g_nset; i++)
		printf(" %" PRIu64 " %" PRIu64,
		       full[EST_WRITTEN(g_nset) + 3 * i],
		       at[i] == UINT64_MAX ? 0 : at[i] / SAMPLE_CHUNK + 1);
	putchar('\n');
	for (k = 0; k < nu; k++) {
		xk = sample_unit(st.st_size, x, k, &off, &len);
		memset(nocomp, 0, sizeof(nocomp));
		if (nu == 1) {
			memcpy(part, full, sizeof(part));
		} else if (g_ops->part(g_ctx, fd, &st, off, len, 1, part,
				       nocomp)) {
			fprintf(stderr, "sample-sim: %s: part failed\n", path);
			memset(part, 0, sizeof(part));
		}
		printf("U %" PRIu64 " %" PRIu64, k, xk);
		for (i = 0; i < g_nset; i++)
			printf(" %" PRIu64 " %d", part[3 * i], nocomp[i]);
		putchar('\n');
	}
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
	if (!g_ops) {
		fprintf(stderr, "sample-sim: no estimator (compsize-estimate.so)\n");
		return 3;
	}
	g_ctx = g_ops->create(s, g_nset, 4096);
	g_links = seen_create();
	if (!g_ctx || !g_links)
		return 3;
	printf("S");
	for (i = 0; i < g_nset; i++) {
		est_setting_name(&s[i], name, sizeof(name));
		printf(" %s", name);
	}
	putchar('\n');
	ret = nftw(dir, one_file, 64, FTW_PHYS | FTW_MOUNT);
	g_ops->free(g_ctx);
	seen_free(g_links);
	free(s);
	return ret ? 1 : 0;
}

struct sim_file {
	uint64_t dev, ino, size, x, nu, first;
	uint64_t full[MAXSET];
	uint64_t at[MAXSET];	/* 1 + the part where NOCOMPRESS is set, 0 */
	/* what the pre-pass knew of it (sample_bands_file()) */
	struct sample_file_bands fb;
};

struct sim_unit {
	uint64_t k, x;
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
			f->dev = strtoull(p, &p, 10);
			f->ino = strtoull(p, &p, 10);
			f->size = strtoull(p, &p, 10);
			f->x = strtoull(p, &p, 10);
			f->nu = strtoull(p, &p, 10);
			f->first = nunits;
			for (i = 0; i < g_nset; i++) {
				f->full[i] = strtoull(p, &p, 10);
				f->at[i] = strtoull(p, &p, 10);
			}
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
		}
	}
	return 0;
}

/* SIM_STRATA=1: the design, a stratum a line, on stderr (what the floors
 * cost: bench/RESULTS.md). */
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

/*
 * compsize's pre-pass over dir for a sample of pct% (seed 0: the plan does
 * not depend on it), as run_sample() asks it (the walk's: the fast scan's
 * draws the same sample, tests/cli/077): the design into *d, dir's device
 * named in it by devs as run.c names it, and the files' bands into each
 * sim_file.  Returns 1 when it samples, 0 when the budget covers all the
 * data, or a negative errno.
 */
static int plan(const char *dir, double pct, int bands,
		struct sample_devs *devs, struct sample_design *d,
		struct sample_bands **b)
{
	char *paths[1] = { (char *)dir };
	const struct walk_opts wo = { .one_fs = 0 };
	const struct sampleplan_opts so = {
		.frac = pct / 100,
		.bands = bands,
		.sharers = 1,
		.weigh_away = 1,
	};
	struct sampleplan_kept *kept = NULL;
	struct seen_set *sharers = NULL;
	struct statfs sf;
	struct stat st;
	int sampling = 0, ret;
	size_t f;

	ret = sampleplan_run(paths, 1, &wo, &so, d, &sampling, b, &sharers,
			     &kept);
	seen_free(sharers);
	sampleplan_kept_free(kept);
	if (ret || !sampling)
		return ret;
	if (!stat(dir, &st) && !statfs(dir, &sf))
		sample_devs_add(devs, st.st_dev,
				(uint64_t)(uint32_t)sf.f_fsid.__val[0] << 32 |
				(uint32_t)sf.f_fsid.__val[1]);
	d->devs = devs;
	for (f = 0; f < nfiles; f++)
		sample_bands_file(*b, sample_key(files[f].dev, files[f].ino),
				  files[f].nu, &files[f].fb);
	return 1;
}

/* Unit k's stratum (sample_unit_stratum(), as estrun takes it). */
static unsigned unit_stratum(const struct sim_file *sf, uint64_t k)
{
	return sample_unit_stratum(sf->size, sf->x, sf->fb.band, sf->fb.pb, k);
}

static uint64_t raw_bytes(uint64_t len)
{
	return (len + 4095) / 4096 * 4096;
}

static int cmd_sim(unsigned seeds, const char *pcts, int bands,
		   const char *dir)
{
	static struct sample_acc acc[MAXSET];
	static struct sample_pop popi[MAXSET];
	double truth[MAXSET] = { 0 }, parts[MAXSET] = { 0 };
	struct sample_devs devs = { 0 };
	struct sample_bands *b = NULL;
	struct sample_design d;
	struct sample_result r;
	uint64_t X = 0, k, off, len;
	const char *p = pcts;
	size_t f, i;
	int ret;

	if (read_units())
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
		X += files[f].x;
		for (i = 0; i < g_nset; i++) {
			truth[i] += files[f].full[i];
			/* every part, raw after the one setting NOCOMPRESS:
			 * what a sample of everything gives */
			for (k = 0; k < files[f].nu; k++) {
				sample_unit(files[f].size, files[f].x, k, &off,
					    &len);
				parts[i] += files[f].at[i] &&
					    k > files[f].at[i] - 1 ?
					    raw_bytes(len) :
					    units[files[f].first + k].y[i];
			}
		}
	}
	printf("# %zu files, %zu units, %.1f MB of data, strata as compsize's %s\n",
	       nfiles, nunits, X / 1e6,
	       bands ? "as root on btrfs (current ratios; the current disk bytes an auxiliary)"
		     : "without root (the kinds of the names)");
	printf("| setting | sample | seeds | coverage | mean error | mean half-width | rel. s.e. | data read | units read | empty strata | parts vs whole |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	while (*p) {
		double pct = strtod(p, (char **)&p), read = 0, nread = 0;
		double hit[MAXSET] = { 0 }, aerr[MAXSET] = { 0 };
		double serr[MAXSET] = { 0 }, hw[MAXSET] = { 0 };
		double rse[MAXSET] = { 0 };
		struct sample_pop pop = { 0 };
		uint64_t empty = 0;
		unsigned seed;

		if (*p == ',')
			p++;
		sample_bands_free(b);
		b = NULL;
		ret = plan(dir, pct, bands, &devs, &d, &b);
		if (ret < 0) {
			fprintf(stderr, "sample-sim: %s: %s\n", dir,
				strerror(-ret));
			return 1;
		}
		if (!ret) {
			printf("| (all) | %g%% | - | the budget covers all the data |||||||\n",
			       pct);
			continue;
		}
		/* every file's units, as estrun_sample_submit() adds them */
		for (f = 0; f < nfiles; f++) {
			const struct sim_file *sf = &files[f];
			const struct sample_cur cur = { sf->fb.q, sf->fb.pq };

			sample_pop_cur(&pop, sf->size, sf->x, sf->fb.band,
				       sf->fb.pb, 1, &cur, 1);
		}
		if (getenv("SIM_STRATA"))
			print_design(&d, &pop);
		for (seed = 0; seed < seeds; seed++) {
			double known[MAXSET] = { 0 };

			d.seed = seed;
			for (i = 0; i < g_nset; i++)
				popi[i] = pop;
			memset(acc, 0, sizeof(acc));
			for (f = 0; f < nfiles; f++) {
				const struct sim_file *sf = &files[f];
				const struct sample_cur cur = { sf->fb.q,
								sf->fb.pq };
				uint64_t J[MAXSET], lim, last = 0;
				int any = 0;

				/* where compsize finds NOCOMPRESS set
				 * (estrun_parts()) */
				for (i = 0; i < g_nset; i++)
					J[i] = UINT64_MAX;
				for (k = 0; k < sf->nu && sf->nu > 1; k++) {
					const struct sim_unit *u =
						&units[sf->first + k];

					if (!sample_in(&d, unit_stratum(sf, k),
						       sf->dev, sf->ino, u->k))
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
						unsigned h = unit_stratum(sf, k);

						if (!sample_stratum_own(h) ||
						    sf->x < sf->size)
							continue;
						popi[i].N[h]--;
						popi[i].X[h] -= sample_unit(
							sf->size, sf->x, k,
							&off, &len);
						popi[i].C[h] -= sample_unit_cur(
							&cur, sf->size, sf->x,
							k);
						known[i] += raw_bytes(len);
					}
				}
				for (k = 0; k < sf->nu; k++) {
					const struct sim_unit *u =
						&units[sf->first + k];
					unsigned h = unit_stratum(sf, k);
					uint64_t c;

					if (!sample_in(&d, h, sf->dev, sf->ino,
						       u->k))
						continue;
					read += u->x;
					nread++;
					sample_unit(sf->size, sf->x, u->k, &off,
						    &len);
					c = sample_unit_cur(&cur, sf->size,
							    sf->x, u->k);
					for (i = 0; i < g_nset; i++) {
						if (J[i] != UINT64_MAX &&
						    u->k > J[i] &&
						    sample_stratum_own(h) &&
						    sf->x >= sf->size)
							continue;	/* known */
						sample_acc_add_cur(&acc[i], h,
							u->x, c,
							u->k > J[i] ?
							raw_bytes(len) :
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
	sample_bands_free(b);
	sample_devs_free(&devs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "units"))
		return cmd_units(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "sim") &&
	    (!strcmp(argv[4], "bands") || !strcmp(argv[4], "kind")))
		return cmd_sim((unsigned)strtoul(argv[2], NULL, 10), argv[3],
			       !strcmp(argv[4], "bands"), argv[5]);
	fputs("usage: sample-sim units SETTINGS DIR > units\n"
	      "       sample-sim sim SEEDS PCT[,PCT...] bands|kind DIR < units\n",
	      stderr);
	return 2;
}
