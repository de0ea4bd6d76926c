// SPDX-License-Identifier: GPL-2.0
/* sampleplan: the pre-pass's sharers and the files that go away (their
 * data met first by another file), on one thread and on two. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <btrfsutil.h>
#include "unit.h"
#include "ioctl.h"
#include "layout.h"
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

/*
 * Files in pairs that share their data (the pair's second file after the
 * first), of these kinds by i / 2 % SMALL_KINDS; a sharer of the first
 * two kinds has its only item as its value (sampleplan_small()), no
 * other file does.
 */
enum {
	SMALL_INLINE,		/* an inline item */
	SMALL_REG,		/* a regular extent of 1..4096 bytes at 0 */
	SMALL_TWO,		/* an inline item, then a regular extent */
	SMALL_HOLE,		/* a hole, then a small regular extent */
	SMALL_OFFSET,		/* a small extent's data from offset 4096 */
	SMALL_AT,		/* a small extent at 4096 in the file */
	SMALL_BIG,		/* a regular extent of 4097 bytes */
	SMALL_PREALLOC,		/* a preallocated small extent */
	SMALL_LINKED,		/* an inline item, the file met twice */
	SMALL_KINDS
};
#define NS	(2 * SMALL_KINDS * 50)

static uint8_t g_item[NS / 2][60];

/* Each kind's n items in order: bytes 0 is the file's small length (1
 * or 4096, by pair); a hole has no address. */
static const struct small_kind {
	unsigned n;
	struct small_item {
		uint8_t type, hole;
		uint16_t pos, offset, bytes;
	} it[2];
} small_kinds[SMALL_KINDS] = {
	[SMALL_INLINE] = { 1, { { BTRFS_FILE_EXTENT_INLINE, 0, 0, 0, 300 } } },
	[SMALL_REG] = { 1, { { BTRFS_FILE_EXTENT_REG, 0, 0, 0, 0 } } },
	[SMALL_TWO] = { 2, { { BTRFS_FILE_EXTENT_INLINE, 0, 0, 0, 300 },
			     { BTRFS_FILE_EXTENT_REG, 0, 4096, 0, 4096 } } },
	[SMALL_HOLE] = { 2, { { BTRFS_FILE_EXTENT_REG, 1, 0, 0, 4096 },
			      { BTRFS_FILE_EXTENT_REG, 0, 4096, 0, 4096 } } },
	[SMALL_OFFSET] = { 1, { { BTRFS_FILE_EXTENT_REG, 0, 0, 4096, 0 } } },
	[SMALL_AT] = { 1, { { BTRFS_FILE_EXTENT_REG, 0, 4096, 0, 0 } } },
	[SMALL_BIG] = { 1, { { BTRFS_FILE_EXTENT_REG, 0, 0, 0, 4097 } } },
	[SMALL_PREALLOC] = { 1, { { BTRFS_FILE_EXTENT_PREALLOC, 0, 0, 0,
				    0 } } },
	[SMALL_LINKED] = { 1, { { BTRFS_FILE_EXTENT_INLINE, 0, 0, 0, 300 } } },
};

/* File i's item it, given to p: both files of a pair the same. */
static void small_ref(struct sampleplan *p, size_t i,
		      const struct small_item *it)
{
	uint64_t bytes = it->bytes ? it->bytes : 1 + 4095 * (i / 2 % 2);
	struct extent_info ei = {
		.type = it->type,
		.file_pos = it->pos,
		.offset = it->offset,
		.num_bytes = bytes,
		.ram_bytes = bytes,
		.disk_num_bytes = 4096,
	};
	uint8_t *item = g_item[i / 2];

	if (it->type == BTRFS_FILE_EXTENT_INLINE) {
		memset(item, 0x11, sizeof(g_item[0]));
		memcpy(item + 21, &i, sizeof(i));
		item[21] &= ~1;
		CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, item,
					       sizeof(g_item[0])), 0);
		return;
	}
	ei.disk_bytenr = it->hole ? 0 : (1ull << 30) + 65536 * (i / 2);
	CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, NULL, 0), 0);
}

static int list_small(void *arg, struct sampleplan *p, int fd,
		      const char *path, const struct stat *st, int depth)
{
	size_t i, k, m;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (i = 0; i < NS; i++) {
		unsigned kind = i / 2 % SMALL_KINDS;
		uint32_t met = kind == SMALL_LINKED ? 2 : 1;

		for (k = 0; k < met; k++) {
			for (m = 0; m < small_kinds[kind].n; m++)
				small_ref(p, i, &small_kinds[kind].it[m]);
			CU_ASSERT_EQUAL(sampleplan_add(p, file_key(g_dev, i),
						       met, 8192, 8192, 1, 100,
						       NULL), 0);
		}
	}
	return WALK_SKIP;
}

static void plan_with(unsigned threads,
		      int (*list)(void *, struct sampleplan *, int,
				  const char *, const struct stat *, int),
		      struct sample_design *d, struct sample_bands **bands,
		      struct seen_set **sharers)
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
		.dir = list,
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

static void plan(unsigned threads, struct sample_design *d,
		 struct sample_bands **bands, struct seen_set **sharers)
{
	plan_with(threads, list_dir, d, bands, sharers);
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

/* The small sharers' only item, back from their values: nothing else
 * has one. */
static void test_small(void)
{
	struct sample_design d;
	struct sample_bands *b = NULL;
	struct seen_set *s = NULL;
	size_t i, bad = 0, with = 0;

	plan_with(1, list_small, &d, &b, &s);
	CU_ASSERT_EQUAL(seen_count(s), NS);
	for (i = 0; i < NS; i++) {
		unsigned kind = i / 2 % SMALL_KINDS;
		uint64_t v = seen_value(s, file_key(g_dev, i)), key = 0;
		struct extent_info ei;

		bad += !seen_contains(s, file_key(g_dev, i));
		if (!sampleplan_small(v, &ei, &key)) {
			bad += kind == SMALL_INLINE || kind == SMALL_REG ||
			       kind == SMALL_LINKED;
			continue;
		}
		with++;
		if (kind == SMALL_INLINE || kind == SMALL_LINKED) {
			bad += ei.type != BTRFS_FILE_EXTENT_INLINE;
			bad += key != layout_inline_key(g_item[i / 2],
							sizeof(g_item[0]));
		} else if (kind == SMALL_REG) {
			bad += ei.type != BTRFS_FILE_EXTENT_REG;
			bad += ei.disk_bytenr != (1ull << 30) + 65536 * (i / 2);
			bad += ei.num_bytes != 1 + 4095 * (i / 2 % 2);
			bad += ei.offset || ei.file_pos || ei.ram_bytes;
		} else {
			bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(with, 3 * NS / SMALL_KINDS);
	/* no value is no item */
	{
		struct extent_info ei;
		uint64_t key = 7;

		CU_ASSERT_EQUAL(sampleplan_small(0, &ei, &key), 0);
		CU_ASSERT_EQUAL(key, 7);
	}
	sample_bands_free(b);
	seen_free(s);
}

/*
 * Files of several extents, some met before through another file: a file
 * goes away when more than half of its bytes (by reference) are in such
 * extents, and stays at half or less; its own extent met twice is still
 * its own.  Groups of HALF_FILES files, in walk order (bytes per
 * reference; E1..E6 extents, E5 twice in file 3):
 *   0: E1 100, E2 100              its own            stays
 *   1: E1 100, E3 100              half away          stays
 *   2: E2 101, E4 100              101 of 201 away    goes away
 *   3: E5 100, E5 100, E1 150      150 of 350 away    stays
 *   4: E5 100, E6 99               100 of 199 away    goes away
 *   5: E6 99 (after 4)             all away           goes away
 */
#define HALF_FILES	6
#define HALF_GROUPS	700

static const struct half_ref {
	uint8_t file, extent;
	uint16_t bytes;
} half_refs[] = {
	{ 0, 1, 100 }, { 0, 2, 100 },
	{ 1, 1, 100 }, { 1, 3, 100 },
	{ 2, 2, 101 }, { 2, 4, 100 },
	{ 3, 5, 100 }, { 3, 5, 100 }, { 3, 1, 150 },
	{ 4, 5, 100 }, { 4, 6, 99 },
	{ 5, 6, 99 },
};

static int half_away(size_t f)
{
	return f == 2 || f == 4 || f == 5;
}

static int list_half(void *arg, struct sampleplan *p, int fd,
		     const char *path, const struct stat *st, int depth)
{
	size_t g, f, i;

	(void)arg;
	(void)fd;
	(void)path;
	(void)depth;
	g_dev = st->st_dev;
	for (g = 0; g < HALF_GROUPS; g++)
		for (f = 0; f < HALF_FILES; f++) {
			uint64_t pos = 0;

			for (i = 0; i < sizeof(half_refs) / sizeof(*half_refs);
			     i++) {
				const struct half_ref *r = &half_refs[i];
				struct extent_info ei = {
					.type = BTRFS_FILE_EXTENT_REG,
					.file_pos = pos,
					.disk_bytenr = (1ull << 30) +
						       (8 * g + r->extent) *
						       131072,
					.disk_num_bytes = 4096,
					.num_bytes = r->bytes,
					.ram_bytes = 131072,
				};

				if (r->file != f)
					continue;
				pos += r->bytes;
				CU_ASSERT_EQUAL(sampleplan_ref(p, &ei, NULL, 0),
						0);
			}
			CU_ASSERT_EQUAL(sampleplan_add(p,
					file_key(g_dev, HALF_FILES * g + f), 1,
					pos, pos, 1 + f % 3, 100, NULL), 0);
		}
	return WALK_SKIP;
}

static void test_half(void)
{
	unsigned threads;

	for (threads = 1; threads <= 2; threads++) {
		struct sample_design d;
		struct sample_bands *b = NULL;
		struct seen_set *s = NULL;
		size_t i, bad = 0;

		plan_with(threads, list_half, &d, &b, &s);
		for (i = 0; i < HALF_FILES * HALF_GROUPS; i++) {
			unsigned band = sample_bands_get(b, file_key(g_dev, i));

			bad += (band & ~SAMPLE_AWAY) != 1 + i % HALF_FILES % 3;
			bad += !!(band & SAMPLE_AWAY) !=
			       half_away(i % HALF_FILES);
		}
		CU_ASSERT_EQUAL(bad, 0);
		/* every file shares an extent with another */
		CU_ASSERT_EQUAL(seen_count(s), HALF_FILES * HALF_GROUPS);
		sample_bands_free(b);
		seen_free(s);
	}
}

static CU_TestInfo tests[] = {
	{ "sharers, one thread and two", test_sharers },
	{ "small sharers' items", test_small },
	{ "away at more than half", test_half },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(sampleplan, tests)
