// SPDX-License-Identifier: GPL-2.0
/* Sizes, percentages and type names exactly as compsize 1.5 prints them. */
#include <string.h>
#include <stdlib.h>
#include "unit.h"
#include "report/format.h"

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

/* btrfs-progs' units (pretty_size_snprintf()): what btrfs filesystem du
 * prints for the same number (tests/cli/070-units compares with it). */
static void check_units(uint64_t x, enum fmt_mode mode, unsigned fixed,
			const char *want)
{
	struct fmt_units u = { mode, fixed };
	char buf[FMT_BUF];

	CU_ASSERT_STRING_EQUAL(fmt_size_in(x, &u, buf), want);
}

static void test_size_units(void)
{
	/* human, base 1024: the largest unit reached, two decimals rounded */
	check_units(0, FMT_MODE_IEC, 0, "0.00B");
	check_units(1023, FMT_MODE_IEC, 0, "1023.00B");
	check_units(1024, FMT_MODE_IEC, 0, "1.00KiB");
	check_units(1535, FMT_MODE_IEC, 0, "1.50KiB");
	check_units(1048575, FMT_MODE_IEC, 0, "1024.00KiB");
	check_units(1048576, FMT_MODE_IEC, 0, "1.00MiB");
	check_units(1ull << 40, FMT_MODE_IEC, 0, "1.00TiB");
	check_units(1ull << 60, FMT_MODE_IEC, 0, "1.00EiB");
	check_units(UINT64_MAX, FMT_MODE_IEC, 0, "16.00EiB");
	/* base 1000 */
	check_units(999, FMT_MODE_SI, 0, "999.00B");
	check_units(1000, FMT_MODE_SI, 0, "1.00kB");
	check_units(999999, FMT_MODE_SI, 0, "1000.00kB");
	check_units(1000000, FMT_MODE_SI, 0, "1.00MB");
	check_units(5140480, FMT_MODE_SI, 0, "5.14MB");
	check_units(UINT64_MAX, FMT_MODE_SI, 0, "18.45EB");
	/* one unit */
	check_units(0, FMT_MODE_IEC, 1, "0.00KiB");
	check_units(5140480, FMT_MODE_IEC, 1, "5020.00KiB");
	check_units(5140480, FMT_MODE_SI, 2, "5.14MB");
	check_units(1ull << 30, FMT_MODE_IEC, 3, "1.00GiB");
	check_units(1000000000000ull, FMT_MODE_SI, 4, "1.00TB");
	check_units(1ull << 39, FMT_MODE_IEC, 4, "0.50TiB");
	/* single precision, as btrfs-progs: not 120563270.52 */
	check_units(123456789012ull, FMT_MODE_IEC, 1, "120563272.00KiB");
	/* the widest cell fits FMT_BUF */
	check_units(UINT64_MAX, FMT_MODE_IEC, 1, "18014398509481984.00KiB");
	check_units(UINT64_MAX, FMT_MODE_SI, 1, "18446744949882880.00kB");
	/* compsize 1.5's own */
	check_units(10240, FMT_MODE_15, 0, "  10K");
	check_units(10240, FMT_MODE_RAW, 0, "10240");
}

/* The options combine as btrfs-progs' get_unit_mode_from_arg(). */
static void check_opts(const enum fmt_unit_opt *o, size_t n,
		       enum fmt_mode mode, unsigned fixed)
{
	struct fmt_units u = { FMT_MODE_15, 0 };
	size_t i;

	for (i = 0; i < n; i++)
		fmt_units_apply(&u, o[i]);
	CU_ASSERT_EQUAL(u.mode, mode);
	CU_ASSERT_EQUAL(u.fixed, fixed);
}

#define OPTS(...) (const enum fmt_unit_opt[]){ __VA_ARGS__ }, \
	sizeof((const enum fmt_unit_opt[]){ __VA_ARGS__ }) / sizeof(enum fmt_unit_opt)

static void test_unit_options(void)
{
	check_opts(OPTS(FMT_OPT_HUMAN), FMT_MODE_IEC, 0);
	check_opts(OPTS(FMT_OPT_SI), FMT_MODE_SI, 0);
	check_opts(OPTS(FMT_OPT_KBYTES), FMT_MODE_IEC, 1);
	check_opts(OPTS(FMT_OPT_TBYTES), FMT_MODE_IEC, 4);
	check_opts(OPTS(FMT_OPT_SI, FMT_OPT_MBYTES), FMT_MODE_SI, 2);
	check_opts(OPTS(FMT_OPT_MBYTES, FMT_OPT_SI), FMT_MODE_SI, 2);
	check_opts(OPTS(FMT_OPT_SI, FMT_OPT_IEC), FMT_MODE_IEC, 0);
	/* --raw wins over a unit, before or after it */
	check_opts(OPTS(FMT_OPT_RAW, FMT_OPT_KBYTES), FMT_MODE_RAW, 1);
	check_opts(OPTS(FMT_OPT_KBYTES, FMT_OPT_RAW), FMT_MODE_RAW, 0);
	/* --human-readable resets the unit, --si after --raw leaves raw */
	check_opts(OPTS(FMT_OPT_GBYTES, FMT_OPT_HUMAN), FMT_MODE_IEC, 0);
	check_opts(OPTS(FMT_OPT_RAW, FMT_OPT_SI), FMT_MODE_SI, 0);
	check_opts(OPTS(FMT_OPT_RAW, FMT_OPT_HUMAN), FMT_MODE_IEC, 0);
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
	{ "size units", test_size_units },
	{ "unit options", test_unit_options },
	{ "percent", test_percent },
	{ "type names", test_type_names },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(format, tests)
