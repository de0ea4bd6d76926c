// SPDX-License-Identifier: GPL-2.0
/* --find's predicates: parsing, bad input, and matching at boundaries. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "report/find.h"

static struct find *parse(const char *s)
{
	struct find *f = NULL;
	const char *why;
	char *bad;

	CU_ASSERT_EQUAL(find_parse(s, &f, &bad, &why), 0);
	return f;
}

/* s is rejected, naming predicate want */
static void check_bad(const char *s, const char *want)
{
	struct find *f = NULL;
	const char *why = NULL;
	char *bad = NULL;

	CU_ASSERT_EQUAL(find_parse(s, &f, &bad, &why), -EINVAL);
	CU_ASSERT_PTR_NULL(f);
	CU_ASSERT_PTR_NOT_NULL(why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(bad);
	CU_ASSERT_STRING_EQUAL(bad, want);
	free(bad);
}

static void test_parse(void)
{
	struct find *f = parse("type=none,size>1M,ratio<=0.5");

	CU_ASSERT_EQUAL(find_needs(f), 0);
	find_free(f);
	f = parse("shared>0,waste>=4K,gain!=2G,exclusive<1");
	CU_ASSERT_EQUAL(find_needs(f), FIND_NEED_EXCLUSIVE | FIND_NEED_WASTE |
			FIND_NEED_ESTIMATE);
	CU_ASSERT_STRING_EQUAL(find_text(f, FIND_NEED_ESTIMATE), "gain!=2G");
	CU_ASSERT_STRING_EQUAL(find_text(f, FIND_NEED_EXCLUSIVE), "shared>0");
	CU_ASSERT_PTR_NULL(find_text(f, 0x100));
	find_free(f);

	check_bad("bogus=1", "bogus=1");
	check_bad("size>1M,ratio<x", "ratio<x");
	check_bad("size>1Q", "size>1Q");
	check_bad("size>-1", "size>-1");
	check_bad("type<zstd", "type<zstd");
	check_bad("type=gzip", "type=gzip");
	check_bad("disk>=", "disk>=");
	check_bad("extents>1.5", "extents>1.5");
	check_bad("ratio~1", "ratio~1");
	check_bad("=1", "=1");
	check_bad("size>1,,disk<2", "size>1,,disk<2");
	check_bad("size>1,", "size>1,");
	check_bad("", "");
	check_bad("ratio<nan", "ratio<nan");
}

static int match(const char *s, const struct report *r,
		 const struct report_row *row)
{
	struct find *f = parse(s);
	int m = find_match(f, r, row);

	find_free(f);
	return m;
}

static void test_match(void)
{
	struct row_type types[] = {
		{ 0, { 4096, 4096, 4096, 0, 0, 0, 0, 0 }, { 0 } },
		{ 3, { 4096, 131072, 131072, 0, 0, 0, 0, 0 }, { 0 } },
	};
	/* same layout: disk 4096 for setting 0 */
	uint64_t est[6] = { 4096, 135168, 135168, 4096, 135168, 135168 };
	struct report_est re = { .same_layout = 1 };
	struct report r = { .nest = 1, .est = &re };
	struct report_row row = {
		.path = "f", .files = 1, .extents = 3, .ninline = 0,
		.size = { 8192, 135168, 135168, 4096, 4096, 0, 0, 12288 },
		.types = types, .ntypes = 2, .est = est,
	};

	CU_ASSERT(match("type=none", &r, &row));
	CU_ASSERT(match("type=zstd", &r, &row));
	CU_ASSERT(!match("type=lzo", &r, &row));
	CU_ASSERT(match("type!=prealloc", &r, &row));
	CU_ASSERT(!match("type=inline", &r, &row));
	/* 8192 / 135168 */
	CU_ASSERT(match("ratio<0.0607", &r, &row));
	CU_ASSERT(!match("ratio<0.0606", &r, &row));
	/* referenced 135168 over 3 extents: 45056 exactly */
	CU_ASSERT(match("avg-extent=45056", &r, &row));
	CU_ASSERT(match("avg-extent<=44K", &r, &row));
	CU_ASSERT(!match("avg-extent<44K", &r, &row));
	CU_ASSERT(match("size=132K,disk=8K,extents=3", &r, &row));
	CU_ASSERT(!match("size=132K,disk=8K,extents=4", &r, &row));
	CU_ASSERT(match("shared=4K,exclusive=4096", &r, &row));
	CU_ASSERT(match("waste=12K", &r, &row));
	CU_ASSERT(match("gain=4K", &r, &row));
	/* a file that would grow matches no gain above 0 */
	est[0] = 65536;
	CU_ASSERT(!match("gain>0", &r, &row));
	CU_ASSERT(match("gain<1", &r, &row));
	CU_ASSERT(match("gain!=0", &r, &row));
	/* no data: no ratio, no average */
	memset(&row.size, 0, sizeof(row.size));
	row.extents = 0;
	row.ninline = 1;
	CU_ASSERT(!match("ratio>=0", &r, &row));
	CU_ASSERT(!match("avg-extent>=0", &r, &row));
	CU_ASSERT(match("type=inline,shared=0", &r, &row));
}

static CU_TestInfo tests[] = {
	{ "parse", test_parse },
	{ "match", test_match },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(find, tests)
