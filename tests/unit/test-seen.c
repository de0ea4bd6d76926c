// SPDX-License-Identifier: GPL-2.0
/* The set of counted extents. */
#include "unit.h"
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "seen.h"

static void test_basic(void)
{
	struct seen_set *s = seen_create();

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(seen_insert(s, 4096), 1);
	CU_ASSERT_EQUAL(seen_insert(s, 4096), 0);
	CU_ASSERT_EQUAL(seen_insert(s, 0), 1);
	CU_ASSERT_EQUAL(seen_insert(s, 0), 0);
	CU_ASSERT_EQUAL(seen_insert(s, UINT64_MAX), 1);
	/* keys equal in their low 32 bits stay distinct */
	CU_ASSERT_EQUAL(seen_insert(s, (1ull << 44) + 4096), 1);
	CU_ASSERT_TRUE(seen_contains(s, 4096));
	CU_ASSERT_TRUE(seen_contains(s, 0));
	CU_ASSERT_FALSE(seen_contains(s, 8192));
	CU_ASSERT_EQUAL(seen_count(s), 4);
	seen_free(s);
}

/* A million extents: every key found after growth, none invented, and
 * memory within 32 bytes per key. */
static void test_million(void)
{
	struct seen_set *s = seen_create();
	const uint64_t n = 1000000;
	uint64_t i, dup = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (i = 1; i <= n; i++)
		CU_ASSERT_EQUAL(seen_insert(s, i * 4096 * 3), 1);
	for (i = 1; i <= n; i += 7)
		dup += seen_insert(s, i * 4096 * 3);
	CU_ASSERT_EQUAL(dup, 0);
	CU_ASSERT_EQUAL(seen_count(s), n);
	for (i = 1; i <= n; i += 13)
		CU_ASSERT_TRUE(seen_contains(s, i * 4096 * 3));
	CU_ASSERT_FALSE(seen_contains(s, 4096));
	CU_ASSERT_FALSE(seen_contains(s, (n + 1) * 4096 * 3));
	CU_ASSERT(seen_memory(s) <= 32 * n);
	seen_free(s);
}

/* Room made ahead: the keys go in without the table growing, a smaller
 * reserve changes nothing, and one too large for memory fails with the
 * set as it was. */
static void test_reserve(void)
{
	struct seen_set *s = seen_create();
	size_t mem, i, cap;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(seen_insert(s, 77), 1);
	CU_ASSERT_EQUAL(seen_reserve(s, 100000), 0);
	mem = seen_memory(s);
	CU_ASSERT(mem <= 32 * 100000);
	CU_ASSERT_TRUE(seen_contains(s, 77));
	for (i = 1; i < 100000; i++)
		CU_ASSERT_EQUAL(seen_insert(s, i * 4096 + 1), 1);
	CU_ASSERT_EQUAL(seen_count(s), 100000);
	CU_ASSERT_EQUAL(seen_memory(s), mem);
	CU_ASSERT_EQUAL(seen_reserve(s, 10), 0);
	CU_ASSERT_EQUAL(seen_memory(s), mem);
	CU_ASSERT_EQUAL(seen_reserve(s, SIZE_MAX), -ENOMEM);
	CU_ASSERT_EQUAL(seen_memory(s), mem);
	for (i = 1; i < 100000; i += 11)
		CU_ASSERT_TRUE(seen_contains(s, i * 4096 + 1));
	CU_ASSERT_TRUE(seen_contains(s, 77));
	/* the next key past 3/4 full grows it, as without the reserve */
	for (i = 100000; seen_memory(s) == mem && i < 400000; i++)
		CU_ASSERT_EQUAL(seen_insert(s, i * 4096 + 1), 1);
	for (cap = 1; cap * 2 * sizeof(uint64_t) <= mem; cap *= 2)
		;	/* the slots' count: seen_memory() adds the header */
	CU_ASSERT_EQUAL(seen_count(s), cap / 4 * 3 + 1);
	seen_free(s);
}

/* Values kept with keys: through growth (the set had keys before the
 * first value), for the key 0, replaced by a second put; keys given none
 * and keys not there have 0; memory twice a set's without them. */
static void test_values(void)
{
	struct seen_set *s = seen_create();
	size_t mem, grown, bad = 0;
	uint64_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (i = 1; i <= 1000; i++)
		CU_ASSERT_EQUAL(seen_insert(s, i * 4096), 1);
	CU_ASSERT_EQUAL(seen_value(s, 4096), 0);
	mem = seen_memory(s);
	CU_ASSERT_EQUAL(seen_put(s, 4096, 5), 0);	/* there already */
	/* a value a slot: the slots' bytes again, a power of two */
	grown = seen_memory(s) - mem;
	CU_ASSERT(grown < mem && grown >= 8 * 1000 &&
		  !(grown & (grown - 1)));
	CU_ASSERT_EQUAL(seen_put(s, 0, 77), 1);
	CU_ASSERT_EQUAL(seen_put(s, 0, 78), 0);
	for (i = 1001; i <= 200000; i++)
		CU_ASSERT_EQUAL(seen_put(s, i * 4096, i ^ 0xabcdef), 1);
	for (i = 200001; i <= 200100; i++)
		CU_ASSERT_EQUAL(seen_insert(s, i * 4096), 1);
	CU_ASSERT_EQUAL(seen_value(s, 4096), 5);
	CU_ASSERT_EQUAL(seen_value(s, 0), 78);
	for (i = 2; i <= 1000; i++)
		bad += seen_value(s, i * 4096) != 0;
	for (i = 1001; i <= 200000; i++)
		bad += seen_value(s, i * 4096) != (i ^ 0xabcdef);
	for (i = 200001; i <= 200100; i++)
		bad += seen_value(s, i * 4096) != 0 ||
		       !seen_contains(s, i * 4096);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(seen_value(s, 3), 0);
	CU_ASSERT_FALSE(seen_contains(s, 3));
	CU_ASSERT_EQUAL(seen_count(s), 200101);
	CU_ASSERT(seen_memory(s) <= 64 * 200101);
	seen_free(s);
}

/* array_zalloc(), the tables' slots: zeroed where malloc() hands back
 * memory written before (a block freed on the heap, reused), at sizes on
 * the heap and mapped; NULL on overflow; something for none. */
static void test_zalloc(void)
{
	static const size_t sizes[] = { 24, 4096, 100000, 1u << 20 };
	size_t i, k, bad;
	uint8_t *p, *q;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		p = malloc(sizes[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		memset(p, 0xa5, sizes[i]);
		free(p);
		q = array_zalloc(sizes[i] / 8, 8);
		CU_ASSERT_PTR_NOT_NULL_FATAL(q);
		for (k = bad = 0; k < sizes[i]; k++)
			bad += q[k] != 0;
		CU_ASSERT_EQUAL(bad, 0);
		free(q);
	}
	CU_ASSERT_PTR_NULL(array_zalloc(SIZE_MAX / 8 + 1, 8));
	p = array_zalloc(0, 8);
	CU_ASSERT_PTR_NOT_NULL(p);
	free(p);
}

/* array_zalloc() writes every page of what it hands out: a block of its
 * own mapping has all its pages present (/proc/self/pagemap, bit 63) when
 * it comes back, not mapped later at the first read (as calloc()'s, which
 * the compiler may turn malloc() and memset() into, would be). */
static void test_zalloc_written(void)
{
	const size_t bytes = 16u << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t entry;
	uint8_t *p = array_zalloc(bytes / 8, 8);
	size_t i, absent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	if (fd < 0) {
		free(p);
		CU_PASS("no /proc/self/pagemap");
		return;
	}
	for (i = 0; i < bytes; i += page) {
		off_t at = (off_t)((uintptr_t)(p + i) / page * sizeof(entry));

		CU_ASSERT_EQUAL_FATAL(pread(fd, &entry, sizeof(entry), at),
				      (ssize_t)sizeof(entry));
		absent += !(entry >> 63);
	}
	CU_ASSERT_EQUAL(absent, 0);
	close(fd);
	free(p);
}

static CU_TestInfo tests[] = {
	{ "basic", test_basic },
	{ "a million extents", test_million },
	{ "tables zeroed", test_zalloc },
	{ "tables written when made", test_zalloc_written },
	{ "room made ahead", test_reserve },
	{ "values", test_values },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(seen, tests)
