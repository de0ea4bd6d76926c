// SPDX-License-Identifier: GPL-2.0
/* Sizes, percentages and type names exactly as compsize 1.5 prints them. */
#include <string.h>
#include <stdlib.h>
#include "unit.h"
#include "format.h"

static void check_size(uint64_t x, const char *want)
{
	char buf[FMT_BUF];

	CU_ASSERT_STRING_EQUAL(fmt_size(x, 0, buf), want);
}

static void test_size_boundaries(void)
{
	check_size(0, "   0B");
	check_size(1, "   1B");
	check_size(999, " 999B");
	check_size(1023, "1023B");
	check_size(1024, " 1.0K");
	check_size(1126, " 1.0K");	/* 1.0996: truncated, not rounded */
	check_size(1127, " 1.1K");
	check_size(10239, " 9.9K");
	check_size(10240, "  10K");
	check_size(10240 + 1023, "  10K");
	check_size(1048575, "1023K");
	check_size(1048576, " 1.0M");
	check_size(10485759, " 9.9M");
	check_size(10485760, "  10M");
	check_size(1ull << 30, " 1.0G");
	check_size(1ull << 40, " 1.0T");
	check_size(1ull << 50, " 1.0P");
	check_size(1ull << 60, " 1.0E");
	check_size(10ull << 60, "  10E");
	check_size(UINT64_MAX, "  15E");
}

static void test_size_raw(void)
{
	char buf[FMT_BUF];

	CU_ASSERT_STRING_EQUAL(fmt_size(0, 1, buf), "0");
	CU_ASSERT_STRING_EQUAL(fmt_size(10240, 1, buf), "10240");
	CU_ASSERT_STRING_EQUAL(fmt_size(UINT64_MAX, 1, buf),
			       "18446744073709551615");
}

static void test_percent(void)
{
	CU_ASSERT_EQUAL(fmt_percent(0, 0), 0);
	CU_ASSERT_EQUAL(fmt_percent(1, 3), 33);
	CU_ASSERT_EQUAL(fmt_percent(2, 3), 66);	/* truncated */
	CU_ASSERT_EQUAL(fmt_percent(112, 100), 112);
	/* disk * 100 would overflow 64 bits */
	CU_ASSERT_EQUAL(fmt_percent(UINT64_MAX / 2, UINT64_MAX), 49);
	CU_ASSERT_EQUAL(fmt_percent(UINT64_MAX, UINT64_MAX), 100);
}

static void test_type_names(void)
{
	char buf[FMT_BUF];

	CU_ASSERT_STRING_EQUAL(fmt_type_name(0, buf), "none");
	CU_ASSERT_STRING_EQUAL(fmt_type_name(1, buf), "zlib");
	CU_ASSERT_STRING_EQUAL(fmt_type_name(2, buf), "lzo");
	CU_ASSERT_STRING_EQUAL(fmt_type_name(3, buf), "zstd");
	CU_ASSERT_STRING_EQUAL(fmt_type_name(4, buf), "?4");
	CU_ASSERT_STRING_EQUAL(fmt_type_name(255, buf), "?255");
	CU_ASSERT_STRING_EQUAL(fmt_type_name(CS_TYPE_PREALLOC, buf), "prealloc");
}

static CU_TestInfo tests[] = {
	{ "size boundaries", test_size_boundaries },
	{ "size raw", test_size_raw },
	{ "percent", test_percent },
	{ "type names", test_type_names },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(format, tests)
