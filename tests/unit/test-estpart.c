// SPDX-License-Identifier: GPL-2.0
/*
 * The estimator's part(): the 512 KiB parts of a large file, each estimated alone,
 * add up to the whole file's estimate wherever the kernel decides chunk by
 * chunk (compress-force=, and compress= while no NOCOMPRESS flag is set),
 * and a sparse file's parts add up to its data.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "estops.h"
#include "unit.h"

#define PK 1024u

static uint64_t part_rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Blocks of 384 KiB, alternately words (compressible) and random bytes,
 * so that chunk boundaries fall inside both kinds. */
static void part_fill(uint8_t *p, size_t n)
{
	static const char *const words[] = { "btrfs ", "extent ", "chunk ",
					     "inode ", "piece ", "range\n" };
	uint64_t s = 99;
	size_t i = 0;

	while (i < n) {
		size_t end = i + 384 * PK < n ? i + 384 * PK : n;
		int random = (i / (384 * PK)) % 3 == 1;

		while (i < end) {
			if (random) {
				p[i++] = (uint8_t)part_rng(&s);
				continue;
			}
			const char *c = words[part_rng(&s) % 6];

			while (*c && i < end)
				p[i++] = (uint8_t)*c++;
		}
	}
}

static int part_file(const uint8_t *data, size_t n, int sparse_at)
{
	char path[] = "/tmp/test-estpart.XXXXXX";
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	if (sparse_at >= 0) {
		/* a hole of 1 MiB at sparse_at MiB */
		CU_ASSERT_EQUAL(pwrite(fd, data, sparse_at * 1024 * PK, 0),
				(ssize_t)(sparse_at * 1024 * PK));
		CU_ASSERT_EQUAL(pwrite(fd, data + (sparse_at + 1) * 1024 * PK,
				       n - (sparse_at + 1) * 1024 * PK,
				       (sparse_at + 1) * 1024 * PK),
				(ssize_t)(n - (sparse_at + 1) * 1024 * PK));
	} else {
		CU_ASSERT_EQUAL(pwrite(fd, data, n, 0), (ssize_t)n);
	}
	return fd;
}

/* The sum of the 3 ns values of every 512 KiB part of the file. */
static void part_sum(struct est_ctx *ctx, int fd, const struct stat *st,
		     size_t ns, uint64_t *sum)
{
	uint64_t part[3 * 8], off;
	size_t i;

	memset(sum, 0, 3 * ns * sizeof(*sum));
	for (off = 0; off < (uint64_t)st->st_size; off += 512 * PK) {
		CU_ASSERT_EQUAL(est()->part(ctx, fd, st, off, 512 * PK, 1, part, NULL), 0);
		for (i = 0; i < 3 * ns; i++)
			sum[i] += part[i];
	}
}

static void test_parts_add_up(void)
{
	static const struct est_setting s[] = {
		{ EST_ZSTD, 3, true }, { EST_LZO, 0, true },
		{ EST_ZLIB, 3, true }, { EST_ZSTD, 1, false },
		{ EST_LZO, 0, false },
	};
	const size_t ns = sizeof(s) / sizeof(s[0]), n = 5 * 1024 * PK + 777;
	uint8_t *data = malloc(n);
	uint64_t whole[6 * 5], part[3 * 5], sum[3 * 5];
	struct est_ctx *ctx;
	struct stat st;
	size_t i;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	part_fill(data, n);
	fd = part_file(data, n, -1);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	ctx = est()->create(s, ns, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(one_file(ctx, fd, &st, whole), 0);
	part_sum(ctx, fd, &st, ns, sum);
	for (i = 0; i < ns; i++) {
		CU_ASSERT_EQUAL(sum[3 * i], whole[3 * i]);
		CU_ASSERT_EQUAL(sum[3 * i + 1], whole[3 * i + 1]);
		CU_ASSERT_EQUAL(sum[3 * i + 2], (uint64_t)st.st_size);
	}
	/* bad parts */
	CU_ASSERT_EQUAL(est()->part(ctx, fd, &st, 4096, 512 * PK, 1, part, NULL), -EINVAL);
	CU_ASSERT_EQUAL(est()->part(ctx, fd, &st, 0, 0, 1, part, NULL), -EINVAL);
	CU_ASSERT_EQUAL(est()->part(ctx, fd, &st, 6 * 1024 * PK, 512 * PK, 1, part, NULL),
			-EINVAL);
	close(fd);

	/* sparse: the parts' uncompressed bytes are the data's, and the
	 * parts of compress-force= add up to the whole */
	fd = part_file(data, n, 2);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	CU_ASSERT_EQUAL(one_file(ctx, fd, &st, whole), 0);
	part_sum(ctx, fd, &st, ns, sum);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(sum[3 * i], whole[3 * i]);
		CU_ASSERT_EQUAL(sum[3 * i + 1], whole[3 * i + 1]);
	}
	/* the data, the tail rounded up to a sector */
	CU_ASSERT_EQUAL(sum[1], n - 1024 * PK - 777 + 4096);
	close(fd);
	est()->free(ctx);
	free(data);
}

/*
 * compress=: a piece that passes the heuristic (random bytes with zeros
 * where it samples) but does not compress, in the 6th chunk, sets
 * NOCOMPRESS there and the rest of the file is raw.  part() tells
 * which part sets it, nocompress_at() finds it from the start, and
 * the parts up to it plus the rest raw give the whole file's estimate.
 */
static void test_nocompress_at(void)
{
	static const struct est_setting s[] = {
		{ EST_LZO, 0, false }, { EST_ZSTD, 1, false },
		{ EST_LZO, 0, true },
	};
	const size_t n = 4 * 1024 * PK, trap = 5 * 512 * PK + 128 * PK;
	uint8_t *data = malloc(n);
	uint64_t whole[18], part[9], at[3], sum[3] = { 0 }, off, i, s0 = 5;
	uint64_t lim[3] = { n, n, n };
	bool nocomp[3];
	struct est_ctx *ctx;
	struct stat st;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	for (i = trap; i < trap + 128 * PK; i++)
		data[i] = (uint8_t)part_rng(&s0);
	for (i = trap; i < trap + 128 * PK; i += 256)
		memset(data + i, 0, 16);
	/* text all around it */
	for (i = 0; i < n; i++)
		if (i < trap || i >= trap + 128 * PK)
			data[i] = "the quick brown fox jumps\n"[i % 26];
	fd = part_file(data, n, -1);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	ctx = est()->create(s, 3, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(one_file(ctx, fd, &st, whole), 0);
	CU_ASSERT_EQUAL(est()->nocompress_at(ctx, fd, &st, lim, at), 0);
	CU_ASSERT_EQUAL(at[0], 5 * 512 * PK);
	CU_ASSERT_EQUAL(at[2], UINT64_MAX);
	/* a limit before it, or no limit: not found */
	lim[0] = 5 * 512 * PK;
	CU_ASSERT_EQUAL(est()->nocompress_at(ctx, fd, &st, lim, at), 0);
	CU_ASSERT_EQUAL(at[0], UINT64_MAX);
	lim[0] = 0;
	CU_ASSERT_EQUAL(est()->nocompress_at(ctx, fd, &st, lim, at), 0);
	CU_ASSERT_EQUAL(at[0], UINT64_MAX);
	for (off = 0; off < n; off += 512 * PK) {
		CU_ASSERT_EQUAL(est()->part(ctx, fd, &st, off, 512 * PK, 1, part,
					 nocomp), 0);
		CU_ASSERT_EQUAL(nocomp[0], off == 5 * 512 * PK);
		CU_ASSERT_FALSE(nocomp[2]);
		/* lzo: raw after the part that set it; forced: as read */
		sum[0] += off > 5 * 512 * PK ? 512 * PK : part[0];
		sum[2] += part[6];
	}
	CU_ASSERT_EQUAL(sum[0], whole[0]);
	CU_ASSERT_EQUAL(sum[2], whole[6]);
	est()->free(ctx);
	/* following the file compresses it: its chunks are no unit, and
	 * count toward no estimate, the speed figures included (neither
	 * their bytes nor their time: counting the time alone would make
	 * lzo look several times slower under a sample) */
	ctx = est()->create(s, 3, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	lim[0] = n;
	CU_ASSERT_EQUAL(est()->nocompress_at(ctx, fd, &st, lim, at), 0);
	{
		struct est_result r;

		est()->get_result(ctx, 0, &r);
		CU_ASSERT_EQUAL(r.compress_mbps, 0);
		CU_ASSERT_EQUAL(r.decompress_mbps, 0);
		CU_ASSERT_EQUAL(r.disk, 0);
		CU_ASSERT_EQUAL(r.uncompressed, 0);
	}
	close(fd);
	est()->free(ctx);
	free(data);
}

/* Setting 0's speed figures of ctx. */
static void part_speeds(struct est_ctx *ctx, double *c, double *d)
{
	struct est_result r;

	est()->get_result(ctx, 0, &r);
	*c = r.compress_mbps;
	*d = r.decompress_mbps;
}

/*
 * The weights (a sampled unit's 1 / its probability) reach the speed
 * figures only: a file and a part of weight 0 give the sizes of weight 1
 * and no speed; in a batch of small files, each file's own weight counts;
 * part() and files() refuse a negative weight or NaN.
 */
static void test_weights(void)
{
	static const struct est_setting s[] = {
		{ EST_ZSTD, 3, false }, { EST_LZO, 0, true },
	};
	const size_t n = 5 * 1024 * PK + 777;
	uint8_t *data = malloc(n);
	uint64_t a[12], b[12], pa[6], pb[6], *dp[2];
	const double w0 = 0, wneg = -1, w02[2] = { 0, 2 }, w00[2] = { 0, 0 };
	struct est_ctx *c1, *c0, *cs;
	double c, d;
	struct stat st, sst[2];
	int fd, sfd[2], err[2];
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	part_fill(data, n);
	fd = part_file(data, n, -1);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	c1 = est()->create(s, 2, 4096);
	c0 = est()->create(s, 2, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c0);
	dp[0] = a;
	CU_ASSERT_EQUAL(est()->files(c1, 1, &fd, &st, NULL, NULL, NULL, err,
				     dp), 0);
	CU_ASSERT_EQUAL(err[0], 0);
	dp[0] = b;
	CU_ASSERT_EQUAL(est()->files(c0, 1, &fd, &st, NULL, NULL, &w0, err,
				     dp), 0);
	CU_ASSERT_EQUAL(err[0], 0);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	part_speeds(c1, &c, &d);
	CU_ASSERT(c > 0 && d > 0);
	part_speeds(c0, &c, &d);
	CU_ASSERT(c == 0 && d == 0);
	CU_ASSERT_EQUAL(est()->part(c1, fd, &st, 512 * PK, 512 * PK, 1, pa,
				    NULL), 0);
	CU_ASSERT_EQUAL(est()->part(c0, fd, &st, 512 * PK, 512 * PK, 0, pb,
				    NULL), 0);
	CU_ASSERT_EQUAL(memcmp(pa, pb, sizeof(pa)), 0);
	part_speeds(c0, &c, &d);
	CU_ASSERT(c == 0 && d == 0);
	CU_ASSERT_EQUAL(est()->part(c0, fd, &st, 0, 512 * PK, -1, pb, NULL),
			-EINVAL);
	CU_ASSERT_EQUAL(est()->part(c0, fd, &st, 0, 512 * PK, NAN, pb,
				    NULL), -EINVAL);
	CU_ASSERT_EQUAL(est()->files(c0, 1, &fd, &st, NULL, NULL, &wneg, err,
				     NULL), 0);
	CU_ASSERT_EQUAL(err[0], -EINVAL);
	close(fd);
	est()->free(c0);
	est()->free(c1);

	/* two small files read into one batch: 0 and 2, then 0 and 0 */
	for (i = 0; i < 2; i++) {
		sfd[i] = part_file(data, 8 * PK, -1);
		CU_ASSERT_EQUAL(fstat(sfd[i], &sst[i]), 0);
	}
	cs = est()->create(s, 2, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cs);
	CU_ASSERT_EQUAL(est()->files(cs, 2, sfd, sst, NULL, NULL, w00, err,
				     NULL), 0);
	part_speeds(cs, &c, &d);
	CU_ASSERT(c == 0 && d == 0);
	CU_ASSERT_EQUAL(est()->files(cs, 2, sfd, sst, NULL, NULL, w02, err,
				     NULL), 0);
	part_speeds(cs, &c, &d);
	CU_ASSERT(c > 0 && d > 0);
	for (i = 0; i < 2; i++)
		close(sfd[i]);
	est()->free(cs);
	free(data);
}

/*
 * writes(): one write of the whole file is the file's estimate; a later
 * write after the one that set NOCOMPRESS is raw under compress= only; a
 * write flagged raw is raw under compress= and estimated under force.
 */
static void test_writes(void)
{
	static const struct est_setting s[] = {
		{ EST_LZO, 0, false }, { EST_ZSTD, 1, false },
		{ EST_LZO, 0, true },
	};
	const size_t n = 4 * 1024 * PK, trap = 5 * 512 * PK + 128 * PK;
	const uint64_t cut = 3 * 1024 * PK;
	uint8_t *data = malloc(n);
	uint64_t whole[18], g[18], i, s0 = 5;
	struct est_write w[2] = {
		{ .start = 0, .end = n, .grid = 0, .group = 0 },
	};
	struct est_ctx *ctx;
	struct stat st;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	for (i = 0; i < n; i++)
		data[i] = "the quick brown fox jumps\n"[i % 26];
	for (i = trap; i < trap + 128 * PK; i++)
		data[i] = (uint8_t)part_rng(&s0);
	for (i = trap; i < trap + 128 * PK; i += 256)
		memset(data + i, 0, 16);
	fd = part_file(data, n, -1);
	CU_ASSERT_EQUAL(fstat(fd, &st), 0);
	ctx = est()->create(s, 3, 4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(one_file(ctx, fd, &st, whole), 0);
	CU_ASSERT_EQUAL(est()->writes(ctx, fd, &st, w, 1, 1, g), 0);
	for (i = 0; i < 9; i++)
		CU_ASSERT_EQUAL(g[i], whole[i]);
	/* the first 3 MiB, then the rest written later */
	w[0].end = cut;
	w[1] = (struct est_write){ .start = cut, .end = n, .grid = cut,
				   .group = 1 };
	CU_ASSERT_EQUAL(est()->writes(ctx, fd, &st, w, 2, 2, g), 0);
	CU_ASSERT_EQUAL(g[9], n - cut);		/* lzo: NOCOMPRESS */
	CU_ASSERT(g[12] < (n - cut) / 4);	/* zstd:1: never set */
	CU_ASSERT(g[15] < (n - cut) / 4);	/* forced */
	CU_ASSERT_EQUAL(g[11], n - cut);
	/* raw under compress= */
	w[0] = (struct est_write){ .start = 0, .end = 1024 * PK,
				   .flags = EST_WRITE_RAW_UNFORCED };
	CU_ASSERT_EQUAL(est()->writes(ctx, fd, &st, w, 1, 1, g), 0);
	CU_ASSERT_EQUAL(g[0], 1024 * PK);
	CU_ASSERT_EQUAL(g[3], 1024 * PK);
	CU_ASSERT(g[6] < 1024 * PK / 4);
	/* a group out of range, a grid after the start */
	CU_ASSERT_EQUAL(est()->writes(ctx, fd, &st, w, 1, 0, g), -EINVAL);
	w[0].grid = 4096;
	CU_ASSERT_EQUAL(est()->writes(ctx, fd, &st, w, 1, 1, g), -EINVAL);
	close(fd);
	est()->free(ctx);
	free(data);
}

static CU_TestInfo part_tests[] = {
	{ "writes in order, NOCOMPRESS carried", test_writes },
	{ "parts add up to the file", test_parts_add_up },
	{ "NOCOMPRESS found from the start", test_nocompress_at },
	{ "weights reach the speed figures only", test_weights },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(estpart, part_tests);
