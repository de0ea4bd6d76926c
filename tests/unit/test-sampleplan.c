// SPDX-License-Identifier: GPL-2.0
/* sampleplan: the pre-pass's sharers and the files that go away (their
 * data met first by another file), on one thread and on two. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <btrfsutil.h>
#include "unit.h"
#include "ioctl.h"
#include "sample.h"
#include "sampleplan.h"
#include "seen.h"

/* More of each kind of reference than a split sort needs. */
#define NF	40020	/* pairs of both kinds complete: a multiple of 60 */

/* Even files hold one extent, odd ones an inline item.  Extents: files
 * 0 and 10 share one, 20 and 30 another, ...; inline items: 1 and 7 have
 * the same bytes, 13 and 19, ...  Each file's size differs. */
static uint64_t extent_of(size_t i)
{
	return i % 10 == 0 ? i / 20 : 1000000 + i;
}

static uint64_t inline_of(size_t i)
{
	return i % 6 == 1 ? i / 12 : 1000000 + i;
}

static int shares(size_t i)
{
	return i % 2 ? i % 6 == 1 : i % 10 == 0;
}

static uint64_t file_key(dev_t dev, size_t i)
{
	return sample_key(dev, 5000 + i);
}

static dev_t g_dev;

static int list_dir(void *arg, struct sampleplan *p, int fd,
		    const char *path, const struct stat *st, int depth)
{
	size_t i;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (i = 0; i < NF; i++) {
		struct extent_info ei = { .file_pos = 0 };
		uint64_t size = 8192 + 4096 * (i % 37), v;
		uint8_t item[40];

		if (i % 2 == 0) {
			ei.type = BTRFS_FILE_EXTENT_REG;
			ei.disk_bytenr = (1ull << 30) +
					 131072 * extent_of(i);
			ei.disk_num_bytes = 4096;
			ei.num_bytes = ei.ram_bytes = size;
			CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, NULL, 0), 0);
		} else {
			ei.type = BTRFS_FILE_EXTENT_INLINE;
			ei.ram_bytes = size = 300;
			memset(item, 0x5a, sizeof(item));
			v = inline_of(i);
			memcpy(item + 21, &v, sizeof(v));
			CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, item,
						       sizeof(item)), 0);
		}
		CU_ASSERT_EQUAL(sampleplan_add(p, file_key(st->st_dev, i), 1,
					       size, size, 1 + i % 3, 100,
					       NULL), 0);
	}
	return WALK_SKIP;
}

static void plan(unsigned threads, struct sample_design *d,
		 struct sample_bands **bands, struct seen_set **sharers)
{
	char dir[] = "/tmp/compsize-unit-sampleplan.XXXXXX";
	char *paths[1] = { dir };
	const struct walk_opts wo = { .one_fs = 0 };
	const struct sampleplan_opts so = {
		.frac = 0.01,
		.seed = 7,
		.bands = 1,
		.sharers = 1,
		.threads = threads,
		.dir = list_dir,
	};
	int sampling = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT_EQUAL(sampleplan_run(paths, 1, &wo, &so, d, &sampling,
				       bands, sharers), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	CU_ASSERT_EQUAL(sampling, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*bands);
	CU_ASSERT_PTR_NOT_NULL_FATAL(*sharers);
}

static void test_sharers(void)
{
	struct sample_design d1, d2;
	struct sample_bands *b1 = NULL, *b2 = NULL;
	struct seen_set *s1 = NULL, *s2 = NULL;
	size_t i, nshare = 0, bad = 0, away = 0;

	plan(1, &d1, &b1, &s1);
	plan(2, &d2, &b2, &s2);
	for (i = 0; i < NF; i++) {
		uint64_t key = file_key(g_dev, i);
		unsigned band = sample_bands_get(b2, key);

		nshare += shares(i);
		bad += seen_contains(s1, key) != shares(i);
		bad += seen_contains(s2, key) != shares(i);
		bad += sample_bands_get(b1, key) != band;
		/* the second file of an extent goes away, the first stays,
		 * and an inline item never sends a file away */
		if (i % 2 == 0 && i % 10 == 0)
			bad += !!(band & SAMPLE_AWAY) != (i % 20 == 10);
		else
			bad += !!(band & SAMPLE_AWAY);
		away += !!(band & SAMPLE_AWAY);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(seen_count(s1), nshare);
	CU_ASSERT_EQUAL(seen_count(s2), nshare);
	CU_ASSERT_EQUAL(away, NF / 20);
	CU_ASSERT_EQUAL(memcmp(&d1, &d2, sizeof(d1)), 0);
	sample_bands_free(b1);
	sample_bands_free(b2);
	seen_free(s1);
	seen_free(s2);
}

static CU_TestInfo tests[] = {
	{ "sharers, one thread and two", test_sharers },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(sampleplan, tests)
