// SPDX-License-Identifier: GPL-2.0
/* lib/json.c: what the strict reader takes and refuses, and the values it
 * keeps; report/compare.c: the report it checks. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "lib/json.h"
#include "report/compare.h"
#include "unit.h"

static int parses(const char *text)
{
	struct json_value *v;
	char err[128];
	int ret = json_parse(text, strlen(text), &v, err, sizeof(err));

	json_free(v);
	return ret == 0;
}

static void test_strict(void)
{
	static const char *const good[] = {
		"{}", "[]", "0", "-0", "1.5e-3", "\"\"", " [1, 2 ,3]\n",
		"{\"a\":{\"b\":[true,false,null]}}", "\"\\u00e9\\ud83d\\ude00\"",
		"\"caf\xc3\xa9\"",
	};
	static const char *const bad[] = {
		"", " ", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "1e",
		"[1 2]", "{\"a\" 1}", "{a:1}", "'a'", "\"a", "\"\\x\"",
		"\"\\ud83d\"", "\"\\ude00\"", "\"a\tb\"", "\"\xc3\"",
		"\"\xed\xa0\x80\"", "\"\xc0\xaf\"", "[1] x", "tru", "nul",
		"[1e999]", "// c\n1", "{\"a\":1}}",
	};
	char deep[2 * JSON_MAX_DEPTH + 4];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CU_ASSERT(parses(good[i]));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT(!parses(bad[i]));
	memset(deep, '[', JSON_MAX_DEPTH);
	memset(deep + JSON_MAX_DEPTH, ']', JSON_MAX_DEPTH);
	deep[2 * JSON_MAX_DEPTH] = '\0';
	CU_ASSERT(parses(deep));
	memset(deep, '[', JSON_MAX_DEPTH + 1);
	memset(deep + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
	deep[2 * JSON_MAX_DEPTH + 2] = '\0';
	CU_ASSERT(!parses(deep));
}

static void test_values(void)
{
	const char *text = "{\"u\":18446744073709551615,\"n\":-9223372036854775808,"
			   "\"big\":18446744073709551616,\"s\":\"a\\nb\\u0041\","
			   "\"u\":2}";
	const struct json_value *m;
	struct json_value *v;
	char err[128];

	CU_ASSERT_EQUAL_FATAL(json_parse(text, strlen(text), &v, err,
					 sizeof(err)), 0);
	m = json_get(v, "u");	/* the first of a name */
	CU_ASSERT(m && m->is_uint && m->u == UINT64_MAX && !m->is_int);
	m = json_get(v, "n");
	CU_ASSERT(m && m->is_int && m->i == INT64_MIN && !m->is_uint);
	m = json_get(v, "big");
	CU_ASSERT(m && !m->is_uint && !m->is_int && m->d > 1.8e19);
	m = json_get(v, "s");
	CU_ASSERT(m && m->type == JSON_STRING && m->len == 4 &&
		  !strcmp(m->str, "a\nbA"));
	CU_ASSERT_PTR_NULL(json_get(v, "none"));
	json_free(v);
}

static void test_errors(void)
{
	struct json_value *v;
	char err[128];

	CU_ASSERT_EQUAL(json_parse("[1,", 3, &v, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "byte 3: truncated: expected a value");
	CU_ASSERT_EQUAL(json_parse("[1}", 3, &v, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "byte 2: expected ',' or ']'");
	CU_ASSERT_PTR_NULL(v);
}

static void test_report(void)
{
	static const char ok[] = "{\"schema\":1,\"filesystems\":[],\"files\":1,"
		"\"total\":{\"disk\":1,\"uncompressed\":2,\"referenced\":2},"
		"\"types\":[{\"type\":\"zstd\",\"disk\":1,\"uncompressed\":2,"
		"\"referenced\":2}],\"paths\":[{\"path\":\"x\",\"path_bytes\":"
		"\"eP8=\",\"files\":1,\"total\":{\"disk\":1,\"uncompressed\":2,"
		"\"referenced\":2},\"types\":[]}]}";
	struct report_row row = { .path = (char *)"x\xff", .files = 3 };
	struct report r = { .rows = &row, .nrows = 1 };
	const struct report_row *out;
	struct compare *c;
	char err[128];
	size_t n;

	CU_ASSERT_EQUAL_FATAL(compare_parse(ok, strlen(ok), &c, err,
					    sizeof(err)), 0);
	/* path_bytes: the exact bytes of a name that is not UTF-8 */
	CU_ASSERT_EQUAL_FATAL(compare_rows(c, &r, 0, 0, &out, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(out[0].change.status, CHANGE_KEPT);
	CU_ASSERT_EQUAL(out[0].change.files, 2);
	CU_ASSERT_EQUAL(out[0].change.disk, -1);
	compare_free(c);
	CU_ASSERT_EQUAL(compare_parse("{\"schema\":7}", 12, &c, err,
				      sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "schema 7; this compsize reads schema 1");
	CU_ASSERT_EQUAL(compare_parse("[]", 2, &c, err, sizeof(err)), -EINVAL);
}

static CU_TestInfo tests[] = {
	{ "strict", test_strict },
	{ "values", test_values },
	{ "errors", test_errors },
	{ "a saved report", test_report },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(json, tests)
