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

/* Render the table into a string. */
static char *table(const struct cs_stats *st, int raw, int *ret, char **err)
{
	char *out = NULL;
	size_t olen = 0, elen = 0;
	FILE *fo = open_memstream(&out, &olen);
	FILE *fe = open_memstream(err, &elen);

	*ret = out_table(fo, fe, st, raw);
	fclose(fo);
	fclose(fe);
	return out;
}

static void test_table(void)
{
	struct cs_stats st = { 0 };
	char *out, *err;
	int ret;

	out = table(&st, 0, &ret, &err);
	CU_ASSERT_EQUAL(ret, 1);
	CU_ASSERT_STRING_EQUAL(out, "");
	CU_ASSERT_STRING_EQUAL(err, "No files.\n");
	free(out);
	free(err);

	st.nfiles = 2;
	out = table(&st, 0, &ret, &err);
	CU_ASSERT_EQUAL(ret, 1);
	CU_ASSERT_STRING_EQUAL(err, "All empty or still-delalloced files.\n");
	free(out);
	free(err);

	st.nfiles = 1;
	st.nextents = 1;
	st.nrefs = 2;
	st.ninline = 0;
	st.disk[3] = 4096;
	st.uncomp[3] = 131072;
	st.refd[3] = 262144;
	st.disk[CS_TYPE_PREALLOC] = st.uncomp[CS_TYPE_PREALLOC] = 1 << 20;
	st.disk[7] = st.uncomp[7] = st.refd[7] = 5;
	out = table(&st, 0, &ret, &err);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_STRING_EQUAL(err, "");
	CU_ASSERT_STRING_EQUAL(out,
		"Processed 1 file, 1 regular extents (2 refs), 0 inline.\n"
		"Type       Perc     Disk Usage   Uncompressed Referenced  \n"
		"TOTAL       89%      1.0M         1.1M         256K       \n"
		"zstd         3%      4.0K         128K         256K       \n"
		"?7         100%        5B           5B           5B       \n"
		"prealloc   100%      1.0M         1.0M           0B       \n");
	free(out);
	free(err);

	out = table(&st, 1, &ret, &err);
	CU_ASSERT_STRING_EQUAL(strchr(strchr(out, '\n') + 1, '\n') + 1,
		"TOTAL       89%     1052677      1179653      262149      \n"
		"zstd         3%     4096         131072       262144      \n"
		"?7         100%     5            5            5           \n"
		"prealloc   100%     1048576      1048576      0           \n");
	free(out);
	free(err);
}

static CU_TestInfo tests[] = {
	{ "size boundaries", test_size_boundaries },
	{ "size raw", test_size_raw },
	{ "percent", test_percent },
	{ "type names", test_type_names },
	{ "table", test_table },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(output, tests)
