// SPDX-License-Identifier: GPL-2.0
/* The bump allocator: pieces aligned, kept, and bigger than a chunk. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "unit.h"
#include "lib/arena.h"

static void test_pieces(void)
{
	struct arena *a = arena_create();
	char *s[3000], name[128], *big;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(arena_bytes(a), 0);
	/* enough names for several chunks: none moves or overlaps */
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "dir/%0*zu", (int)(i % 90) + 1, i);
		s[i] = arena_strdup(a, name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s[i]);
		CU_ASSERT_EQUAL((uintptr_t)s[i] % 8, 0);
	}
	for (i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "dir/%0*zu", (int)(i % 90) + 1, i);
		CU_ASSERT_STRING_EQUAL(s[i], name);
	}
	/* a piece bigger than a chunk gets one of its own */
	big = arena_alloc(a, 1 << 20);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, 0xab, 1 << 20);
	CU_ASSERT_STRING_EQUAL(s[2999], name);
	CU_ASSERT(arena_bytes(a) >= (1 << 20) + 3000 * 8);
	CU_ASSERT(arena_bytes(a) < (1 << 20) + 4 * 256 * 1024);
	arena_free(a);
	arena_free(NULL);
}

static CU_TestInfo tests[] = {
	{ "pieces aligned and kept", test_pieces },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(arena, tests)
