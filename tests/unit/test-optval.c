// SPDX-License-Identifier: GPL-2.0
/* Option value parsers: boundaries and bad input. */
#include <errno.h>
#include <limits.h>
#include "unit.h"
#include "lib/optval.h"

static void test_count(void)
{
	long long v = -7;

	CU_ASSERT_EQUAL(optval_count("0", 10, &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(optval_count("10", 10, &v), 0);
	CU_ASSERT_EQUAL(v, 10);
	CU_ASSERT_EQUAL(optval_count("007", 10, &v), 0);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(optval_count("1024", 1024, &v), 0);
	CU_ASSERT_EQUAL(v, 1024);
	CU_ASSERT_EQUAL(optval_count("9223372036854775807", LLONG_MAX, &v), 0);
	CU_ASSERT_EQUAL(v, LLONG_MAX);

	v = 42;
	/* past max, by one and by overflow */
	CU_ASSERT_EQUAL(optval_count("11", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("1025", 1024, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("9223372036854775808", LLONG_MAX, &v),
			-EINVAL);
	CU_ASSERT_EQUAL(optval_count("99999999999999999999", LLONG_MAX, &v),
			-EINVAL);
	/* not a whole non-negative decimal number */
	CU_ASSERT_EQUAL(optval_count("", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("-1", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("+1", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count(" 1", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("1 ", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("1x", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("1.0", 10, &v), -EINVAL);
	CU_ASSERT_EQUAL(optval_count("x", 10, &v), -EINVAL);
	/* rejected values leave *v alone */
	CU_ASSERT_EQUAL(v, 42);
}

static void test_choice(void)
{
	static const char *const names[] = { "table", "json", "csv" };

	CU_ASSERT_EQUAL(optval_choice("table", names, 3), 0);
	CU_ASSERT_EQUAL(optval_choice("json", names, 3), 1);
	CU_ASSERT_EQUAL(optval_choice("csv", names, 3), 2);
	CU_ASSERT_EQUAL(optval_choice("CSV", names, 3), -EINVAL);
	CU_ASSERT_EQUAL(optval_choice("js", names, 3), -EINVAL);
	CU_ASSERT_EQUAL(optval_choice("jsonx", names, 3), -EINVAL);
	CU_ASSERT_EQUAL(optval_choice("", names, 3), -EINVAL);
	/* only the first n names count */
	CU_ASSERT_EQUAL(optval_choice("csv", names, 2), -EINVAL);
}

static void check_frac(const char *s, double want)
{
	double frac = -1;
	uint64_t bytes = 99;

	CU_ASSERT_EQUAL_FATAL(optval_sample(s, &frac, &bytes), 0);
	CU_ASSERT_DOUBLE_EQUAL(frac, want, 1e-12);
	CU_ASSERT_EQUAL(bytes, 0);
}

static void check_bytes(const char *s, uint64_t want)
{
	double frac = -1;
	uint64_t bytes = 99;

	CU_ASSERT_EQUAL_FATAL(optval_sample(s, &frac, &bytes), 0);
	CU_ASSERT_EQUAL(bytes, want);
	CU_ASSERT_EQUAL(frac, 0);
}

static void check_bad(const char *s)
{
	double frac = -1;
	uint64_t bytes = 99;

	CU_ASSERT_EQUAL(optval_sample(s, &frac, &bytes), -EINVAL);
	CU_ASSERT_EQUAL(frac, -1);
	CU_ASSERT_EQUAL(bytes, 99);
}

static void test_sample(void)
{
	check_frac("5%", 0.05);
	check_frac("100%", 1);
	check_frac("0.5%", 0.005);
	check_frac("0.0001%", 0.000001);
	check_bytes("1", 1);
	check_bytes("4096", 4096);
	check_bytes("1K", 1024);
	check_bytes("1k", 1024);
	check_bytes("2G", 2ull << 30);
	check_bytes("2GB", 2ull << 30);
	check_bytes("2GiB", 2ull << 30);
	check_bytes("1.5M", 3ull << 19);
	check_bytes("500m", 500ull << 20);
	check_bytes("1P", 1ull << 50);
	check_bytes("15P", 15ull << 50);

	check_bad("");
	check_bad("0");
	check_bad("0%");
	check_bad("0K");
	check_bad("100.1%");
	check_bad("101%");
	check_bad("-5%");
	check_bad("+5%");
	check_bad(" 5%");
	check_bad("5% ");
	check_bad("5%%");
	check_bad("%");
	check_bad("0.5");	/* less than a byte */
	check_bad("5X");
	check_bad("5E");	/* units stop at P */
	check_bad("5Gi");
	check_bad("5Gb");
	check_bad("5GiBx");
	check_bad("inf");
	check_bad("nan");
	check_bad("20000P");	/* past 2^64 bytes */
	check_bad("1e400");
}

static CU_TestInfo tests[] = {
	{ "count", test_count },
	{ "choice", test_choice },
	{ "sample", test_sample },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(optval, tests)
