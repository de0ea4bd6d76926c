// SPDX-License-Identifier: GPL-2.0
/*
 * estrun: worker threads give the totals of one thread, per-file results
 * come back once each with the right token, sampling is reproducible and
 * reads nothing it leaves out, a sample of everything is the full
 * estimate, and a second link to a file is estimated once.  The design's
 * statistics are tested in test-sample.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "unit.h"
#include "estimate/estrun.h"

#define NFILES 48

static const char *const settings = "zstd:1,compress-force=lzo,zlib:1,"
				    "compress-force=zstd:3";

struct tfiles {
	char dir[64];
	char path[NFILES][96];
	int fd[NFILES];
	struct stat st[NFILES];
};

static uint64_t xs = 0x243f6a8885a308d3ull;

static uint8_t rnd(void)
{
	xs ^= xs << 13;
	xs ^= xs >> 7;
	xs ^= xs << 17;
	return xs >> 32;
}

/* Text, random, half and half, empty and tiny files of assorted sizes. */
static int tfiles_make(struct tfiles *t)
{
	static const size_t sizes[] = { 0, 1, 100, 3000, 4096, 5000, 70000,
					131072, 300000, 600000, 1100000 };
	uint8_t *buf = malloc(1100000);
	size_t i, j, sz;
	FILE *f;

	if (!buf)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/compsize-estrun.XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(buf);
		return -1;
	}
	for (i = 0; i < NFILES; i++) {
		sz = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];
		for (j = 0; j < sz; j++) {
			switch (i % 3) {
			case 0:
				buf[j] = "the quick brown fox jumps over "[j % 31];
				break;
			case 1:
				buf[j] = rnd();
				break;
			default:
				buf[j] = j < sz / 2 ? (uint8_t)(j / 64) : rnd();
			}
		}
		snprintf(t->path[i], sizeof(t->path[i]), "%s/f%zu", t->dir, i);
		f = fopen(t->path[i], "w");
		if (!f || fwrite(buf, 1, sz, f) != sz || fclose(f)) {
			free(buf);
			return -1;
		}
		t->fd[i] = open(t->path[i], O_RDONLY);
		if (t->fd[i] < 0 || fstat(t->fd[i], &t->st[i])) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

static void tfiles_free(struct tfiles *t)
{
	size_t i;

	for (i = 0; i < NFILES; i++) {
		close(t->fd[i]);
		unlink(t->path[i]);
	}
	rmdir(t->dir);
}

struct tcollect {
	size_t n;			/* settings */
	uint64_t sum[64];		/* 3 a setting */
	unsigned calls[NFILES];
	uint64_t disk0[NFILES];		/* setting 0's disk, by file */
	int token_ok;
	int errors;
};

/* With g_hooks, run_files() asks these: even tokens rewritten, and the
 * sums by band of every file added up. */
static int g_hooks;
static int64_t g_dx[(4 + 2 * 8) * SAMPLE_ROW_BANDS];
static size_t g_dxn;	/* the values given: (4 + 2n) * SAMPLE_ROW_BANDS */

static int rewritten_even(void *arg, size_t token)
{
	(void)arg;
	return token % 2 == 0;
}

static void add_dx(void *arg, size_t token, const int64_t *dx)
{
	size_t i;

	(void)arg;
	(void)token;
	for (i = 0; i < g_dxn; i++)
		g_dx[i] += dx[i];
}

static int collect(void *arg, const char *path, int err, size_t token,
		   const uint64_t *delta, const uint64_t *gdelta)
{
	struct tcollect *c = arg;
	const char *slash = strrchr(path, '/');
	size_t i = strtoul(slash + 2, NULL, 10);

	c->calls[i]++;
	if (token != i + 1000)
		c->token_ok = 0;
	/* submitted without writes: no groups come back */
	if (gdelta)
		c->errors++;
	if (err) {
		c->errors++;
		return 0;
	}
	for (i = 0; i < 3 * c->n; i++)
		c->sum[i] += delta[i];
	c->disk0[strtoul(slash + 2, NULL, 10)] = delta[0];
	return 0;
}

/* Run every file through a runner; fd -1 for files not sampled. */
static int run_files(struct tfiles *t, unsigned jobs, double sample,
		     uint64_t seed, struct tcollect *c,
		     struct estrun_result *res, size_t *n)
{
	struct est_setting *s = NULL;
	struct estrun_opts o = { .jobs = jobs, .progress_fd = -1 };
	struct sample_pop pop = { 0 };
	struct sample_design d;
	struct estrun *r;
	char err[128];
	size_t i;
	int ret, fd;

	if (est_parse_list(settings, &s, n, err, sizeof(err)))
		return -EINVAL;
	o.s = s;
	o.n = *n;
	if (sample > 0) {
		for (i = 0; i < NFILES; i++)
			sample_pop_add(&pop, t->st[i].st_size,
				       sample_data_bytes(&t->st[i]), 0);
		sample_plan(&d, &pop, (uint64_t)(sample *
						 sample_pop_bytes(&pop)), seed);
		o.design = &d;
	}
	if (g_hooks) {
		o.rewritten = rewritten_even;
		o.sample_dx = add_dx;
		memset(g_dx, 0, sizeof(g_dx));
		g_dxn = *n <= 8 ? (4 + 2 * *n) * SAMPLE_ROW_BANDS : 0;
	}
	memset(c, 0, sizeof(*c));
	c->n = *n;
	c->token_ok = 1;
	r = estrun_create(&o, collect, c);
	free(s);
	if (!r)
		return -errno;
	for (i = 0; i < NFILES; i++) {
		fd = estrun_sampled(r, &t->st[i]) ? dup(t->fd[i]) : -1;
		ret = estrun_submit(r, &fd, t->path[i], &t->st[i], 1000 + i);
		if (fd >= 0)
			close(fd);
		if (ret)
			goto out;
		if (i == NFILES / 2) {
			/* a drain in the middle, as when a row closes */
			ret = estrun_drain(r);
			if (ret)
				goto out;
		}
	}
	ret = estrun_finish(r);
	for (i = 0; i < *n; i++)
		estrun_get_result(r, i, &res[i]);
out:
	estrun_free(r);
	return ret;
}

static void test_threads_same_totals(void)
{
	struct estrun_result one[8], four[8];
	struct tcollect c1, c4;
	struct tfiles t;
	size_t n, i;

	CU_ASSERT_FATAL(tfiles_make(&t) == 0);
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 1, 0, 0, &c1, one, &n), 0);
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 4, 0, 0, &c4, four, &n), 0);
	CU_ASSERT_EQUAL(n, 4);
	for (i = 0; i < NFILES; i++) {
		CU_ASSERT_EQUAL(c1.calls[i], 1);
		CU_ASSERT_EQUAL(c4.calls[i], 1);
	}
	CU_ASSERT(c1.token_ok && c4.token_ok);
	CU_ASSERT_EQUAL(c1.errors + c4.errors, 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT_FALSE(one[i].sampled);
		CU_ASSERT_EQUAL(one[i].est.disk, four[i].est.disk);
		CU_ASSERT_EQUAL(one[i].est.uncompressed,
				four[i].est.uncompressed);
		CU_ASSERT_EQUAL(one[i].est.input, four[i].est.input);
		CU_ASSERT_EQUAL(one[i].est.files, NFILES);
		CU_ASSERT_EQUAL(four[i].est.files, NFILES);
		/* the per-file deltas add up to the totals */
		CU_ASSERT_EQUAL(c4.sum[3 * i], four[i].est.disk);
		CU_ASSERT_EQUAL(c4.sum[3 * i + 1], four[i].est.uncompressed);
		CU_ASSERT_EQUAL(c4.sum[3 * i + 2], four[i].est.input);
		CU_ASSERT(four[i].est.disk > 0);
		CU_ASSERT(four[i].est.disk < four[i].est.input);
	}
	tfiles_free(&t);
}

/* With few fds allowed the queue holds fewer files than are submitted:
 * the walk waits for slots, and the results are the same. */
static void test_full_queue(void)
{
	struct estrun_result ref[8], res[8];
	struct rlimit old, low;
	struct tcollect c;
	struct tfiles t;
	unsigned jobs;
	size_t n, i;

	CU_ASSERT_FATAL(tfiles_make(&t) == 0);
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 1, 0, 0, &c, ref, &n), 0);
	CU_ASSERT_EQUAL_FATAL(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	/* a quarter of it for the queue: 24 slots for NFILES files */
	low.rlim_cur = 96;
	if (old.rlim_cur != RLIM_INFINITY && old.rlim_cur < low.rlim_cur)
		low.rlim_cur = old.rlim_cur;
	CU_ASSERT_EQUAL_FATAL(setrlimit(RLIMIT_NOFILE, &low), 0);
	for (jobs = 1; jobs <= 3; jobs++) {
		CU_ASSERT_EQUAL(run_files(&t, jobs, 0, 0, &c, res, &n), 0);
		for (i = 0; i < NFILES; i++)
			CU_ASSERT_EQUAL(c.calls[i], 1);
		CU_ASSERT(c.token_ok);
		CU_ASSERT_EQUAL(c.errors, 0);
		for (i = 0; i < n; i++) {
			CU_ASSERT_EQUAL(res[i].est.disk, ref[i].est.disk);
			CU_ASSERT_EQUAL(res[i].est.files, NFILES);
			CU_ASSERT_EQUAL(c.sum[3 * i], ref[i].est.disk);
		}
	}
	setrlimit(RLIMIT_NOFILE, &old);
	tfiles_free(&t);
}

static void test_sample_reproducible(void)
{
	struct estrun_result a[8], b[8], full[8];
	struct tcollect ca, cb, cf;
	struct tfiles t;
	size_t n, i;

	CU_ASSERT_FATAL(tfiles_make(&t) == 0);
	/* fd -1 for the files left out: reading one would be an error */
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 2, 0.4, 7, &ca, a, &n), 0);
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 3, 0.4, 7, &cb, b, &n), 0);
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 2, 0, 0, &cf, full, &n), 0);
	CU_ASSERT_EQUAL(ca.errors + cb.errors, 0);
	CU_ASSERT(a[0].files_read > 0 && a[0].files_read < NFILES);
	CU_ASSERT_EQUAL(a[0].files_read, b[0].files_read);
	for (i = 0; i < n; i++) {
		CU_ASSERT(a[i].sampled);
		CU_ASSERT_EQUAL(a[i].est.disk, b[i].est.disk);
		CU_ASSERT_EQUAL(a[i].est.uncompressed, b[i].est.uncompressed);
		CU_ASSERT_DOUBLE_EQUAL(a[i].disk_ci95, b[i].disk_ci95, 1e-6);
		/* every file's input is known, sampled or not */
		CU_ASSERT_EQUAL(a[i].est.input, full[i].est.input);
		CU_ASSERT_EQUAL(ca.sum[3 * i + 2], full[i].est.input);
	}
	tfiles_free(&t);
}

/* Membership by seed: the same seed, the same files; another, others. */
static void test_sample_picks(void)
{
	struct est_setting s = { EST_ZSTD, 1, false };
	struct estrun_opts o = { .s = &s, .n = 1, .jobs = 1,
				 .progress_fd = -1 };
	struct sample_pop pop = { 0 };
	struct sample_design d1, d2;
	struct estrun *r1, *r2, *r3;
	struct tcollect c;
	struct stat st;
	unsigned same = 0, in1 = 0, k;

	/* 20000 files of 16 KiB, a quarter of their bytes */
	sample_pop_add(&pop, 16384, 16384, 0);
	pop.N[sample_stratum(16384, 16384, 0)] = 20000;
	pop.X[sample_stratum(16384, 16384, 0)] = 20000 * 16384ull;
	sample_plan(&d1, &pop, 5000 * 16384ull, 1);
	sample_plan(&d2, &pop, 5000 * 16384ull, 2);
	o.design = &d1;
	r1 = estrun_create(&o, collect, &c);
	r2 = estrun_create(&o, collect, &c);
	o.design = &d2;
	r3 = estrun_create(&o, collect, &c);
	CU_ASSERT_FATAL(r1 && r2 && r3);
	memset(&st, 0, sizeof(st));
	st.st_dev = 42;
	st.st_size = 16384;
	st.st_blocks = 32;
	st.st_mode = S_IFREG | 0644;
	for (k = 0; k < 20000; k++) {
		st.st_ino = k + 256;
		CU_ASSERT_EQUAL(estrun_sampled(r1, &st),
				estrun_sampled(r2, &st));
		in1 += estrun_sampled(r1, &st);
		same += estrun_sampled(r1, &st) == estrun_sampled(r3, &st);
	}
	/* 25% +- 5 sigma; another seed agrees only by chance (62.5%) */
	CU_ASSERT(in1 > 4700 && in1 < 5300);
	CU_ASSERT(same > 12000 && same < 13000);
	estrun_free(r1);
	estrun_free(r2);
	estrun_free(r3);
}

/* A sample of everything (every stratum certain) reads the big file in
 * parts and gives the full estimate: exactly under compress-force=, and
 * under compress= where no part sets NOCOMPRESS for the next. */
static void test_sample_all(void)
{
	struct estrun_result full[8], all[8];
	struct tcollect cf, ca;
	struct tfiles t;
	size_t n, i;

	CU_ASSERT_FATAL(tfiles_make(&t) == 0);
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 2, 0, 0, &cf, full, &n), 0);
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 2, 1.0, 3, &ca, all, &n), 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT(all[i].sampled);
		CU_ASSERT_EQUAL(all[i].disk_ci95, 0);
		CU_ASSERT_EQUAL(all[i].units_read, all[i].units);
		CU_ASSERT_EQUAL(all[i].data_read, all[i].data);
		CU_ASSERT_EQUAL(all[i].est.disk, full[i].est.disk);
		CU_ASSERT_EQUAL(all[i].est.uncompressed,
				full[i].est.uncompressed);
		CU_ASSERT_EQUAL(ca.sum[3 * i], full[i].est.disk);
	}
	tfiles_free(&t);
}

/*
 * A sample of everything with estrun_opts.rewritten and sample_dx: the
 * rewrite's total is exactly its files' estimates, with no interval, and
 * the sums by band add up to the data and to the estimates, each unit
 * drawn (pi 1) standing for itself.
 */
static void test_sample_rewrite_dx(void)
{
	struct estrun_result all[8];
	struct tcollect c;
	struct tfiles t;
	uint64_t want = 0, data = 0;
	int64_t x = 0, xd = 0, y = 0;
	size_t n, i, k;

	CU_ASSERT_FATAL(tfiles_make(&t) == 0);
	g_hooks = 1;
	CU_ASSERT_EQUAL_FATAL(run_files(&t, 2, 1.0, 5, &c, all, &n), 0);
	g_hooks = 0;
	CU_ASSERT_FATAL(n <= 8);
	for (i = 0; i < NFILES; i++) {
		if ((1000 + i) % 2 == 0)
			want += c.disk0[i];
		data += sample_data_bytes(&t.st[i]);
	}
	CU_ASSERT(all[0].have_rewrite);
	CU_ASSERT_EQUAL(all[0].rewrite_disk, want);
	CU_ASSERT_EQUAL(all[0].rewrite_ci95, 0);
	CU_ASSERT(want > 0 && want < all[0].est.disk);
	for (k = 0; k < SAMPLE_ROW_BANDS; k++) {
		x += g_dx[k];
		xd += g_dx[SAMPLE_ROW_BANDS + k];
		y += g_dx[2 * SAMPLE_ROW_BANDS + k];	/* setting 0, disk */
	}
	CU_ASSERT_EQUAL((uint64_t)x, data);
	/* each file's sums rounded alone */
	CU_ASSERT(llabs(xd - x) <= NFILES * SAMPLE_ROW_BANDS);
	CU_ASSERT(llabs(y - (int64_t)all[0].est.disk) <= NFILES * SAMPLE_ROW_BANDS);
	tfiles_free(&t);
}

/* A second path to a file is answered with zeros and not read again. */
static void test_hard_links(void)
{
	struct est_setting s = { EST_ZSTD, 3, true };
	struct estrun_opts o = { .s = &s, .n = 1, .jobs = 1,
				 .progress_fd = -1 };
	struct tcollect c = { .n = 1, .token_ok = 1 };
	struct estrun_result res;
	struct tfiles t;
	struct stat st;
	struct estrun *r;
	int fd, k;

	CU_ASSERT_FATAL(tfiles_make(&t) == 0);
	r = estrun_create(&o, collect, &c);
	CU_ASSERT_FATAL(r != NULL);
	st = t.st[3];
	st.st_nlink = 3;
	for (k = 0; k < 3; k++) {
		fd = dup(t.fd[3]);
		CU_ASSERT_EQUAL(estrun_submit(r, &fd, t.path[3], &st, 1003), 0);
		if (fd >= 0)
			close(fd);
	}
	CU_ASSERT_EQUAL(estrun_finish(r), 0);
	estrun_get_result(r, 0, &res);
	CU_ASSERT_EQUAL(c.calls[3], 3);
	CU_ASSERT_EQUAL(res.est.files, 1);
	CU_ASSERT_EQUAL(res.est.input, (uint64_t)st.st_size);
	CU_ASSERT_EQUAL(c.sum[2], (uint64_t)st.st_size);
	estrun_free(r);
	tfiles_free(&t);
}

/* The estimator's errors come back through the callback, once, with the
 * token, and are left out of the totals. */
static void test_errors(void)
{
	struct est_setting s = { EST_LZO, 0, true };
	struct estrun_opts o = { .s = &s, .n = 1, .jobs = 2,
				 .progress_fd = -1 };
	struct estrun_result res;
	struct tcollect c = { .n = 1, .token_ok = 1 };
	struct tfiles t;
	struct stat dir;
	struct estrun *r;
	size_t i;
	int fd;

	CU_ASSERT_FATAL(tfiles_make(&t) == 0);
	r = estrun_create(&o, collect, &c);
	CU_ASSERT_FATAL(r != NULL);
	for (i = 0; i < NFILES; i++) {
		if (i % 5 == 2) {
			/* not a regular file: -EINVAL from the estimator */
			dir = t.st[i];
			dir.st_mode = S_IFDIR | 0755;
			fd = dup(t.fd[i]);
			CU_ASSERT_EQUAL(estrun_submit(r, &fd, t.path[i],
						      &dir, 1000 + i), 0);
		} else {
			fd = dup(t.fd[i]);
			CU_ASSERT_EQUAL(estrun_submit(r, &fd, t.path[i],
						      &t.st[i], 1000 + i), 0);
		}
		/* queued: estrun has the descriptor */
		CU_ASSERT_EQUAL(fd, -1);
	}
	CU_ASSERT_EQUAL(estrun_finish(r), 0);
	estrun_get_result(r, 0, &res);
	for (i = 0; i < NFILES; i++)
		CU_ASSERT_EQUAL(c.calls[i], 1);
	CU_ASSERT(c.token_ok);
	CU_ASSERT_EQUAL(c.errors, (NFILES + 2) / 5);
	CU_ASSERT_EQUAL(res.est.files, NFILES - (NFILES + 2) / 5);
	CU_ASSERT_EQUAL(c.sum[0], res.est.disk);
	estrun_free(r);
	tfiles_free(&t);
}

static void test_bad_opts(void)
{
	struct est_setting s = { EST_ZSTD, 1, false };
	struct estrun_opts o = { .s = &s, .n = 1, .jobs = 0,
				 .progress_fd = -1 };
	struct tcollect c;

	CU_ASSERT_PTR_NULL(estrun_create(&o, collect, &c));
	CU_ASSERT_EQUAL(errno, EINVAL);
	o.jobs = 1;
	o.sectorsize = 1000;
	CU_ASSERT_PTR_NULL(estrun_create(&o, collect, &c));
	CU_ASSERT_EQUAL(errno, EINVAL);
}

static CU_TestInfo estrun_tests[] = {
	{ "threads give one thread's totals", test_threads_same_totals },
	{ "more files than queue slots", test_full_queue },
	{ "same seed, same sample; nothing else read", test_sample_reproducible },
	{ "sample membership by seed", test_sample_picks },
	{ "a sample of everything is the full estimate", test_sample_all },
	{ "a sample's rewrite total and sums by band",
	  test_sample_rewrite_dx },
	{ "a file with several links is estimated once", test_hard_links },
	{ "errors through the callback", test_errors },
	{ "bad options", test_bad_opts },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(estrun, estrun_tests)
