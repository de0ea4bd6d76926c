// SPDX-License-Identifier: GPL-2.0
/* JSON, CSV and table escaping of file names. */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "report/format.h"

typedef void (*writer)(FILE *f, const char *s);

static char *render(writer w, const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	w(f, s);
	fclose(f);
	return buf;
}

static void check(writer w, const char *in, const char *want)
{
	char *got = render(w, in);

	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

static void test_utf8(void)
{
	const unsigned char ok2[] = "\xc3\xa9", ok3[] = "\xe2\x82\xac",
			    ok4[] = "\xf0\x9f\x98\x80";

	CU_ASSERT_EQUAL(fmt_utf8_len((const unsigned char *)"a", 1), 1);
	CU_ASSERT_EQUAL(fmt_utf8_len(ok2, 2), 2);
	CU_ASSERT_EQUAL(fmt_utf8_len(ok3, 3), 3);
	CU_ASSERT_EQUAL(fmt_utf8_len(ok4, 4), 4);
	CU_ASSERT_EQUAL(fmt_utf8_len(ok4, 3), 0);	/* truncated */
	CU_ASSERT_EQUAL(fmt_utf8_len((const unsigned char *)"\xc0\xaf", 2), 0);
	CU_ASSERT_EQUAL(fmt_utf8_len((const unsigned char *)"\xe0\x80\xaf", 3), 0);
	CU_ASSERT_EQUAL(fmt_utf8_len((const unsigned char *)"\xed\xa0\x80", 3), 0);
	CU_ASSERT_EQUAL(fmt_utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
	CU_ASSERT_EQUAL(fmt_utf8_len((const unsigned char *)"\x80", 1), 0);
	CU_ASSERT_EQUAL(fmt_utf8_len((const unsigned char *)"\xff", 1), 0);
}

static void test_json(void)
{
	check(fmt_json_string, "", "\"\"");
	check(fmt_json_string, "plain/name.txt", "\"plain/name.txt\"");
	check(fmt_json_string, "q\"b\\s", "\"q\\\"b\\\\s\"");
	check(fmt_json_string, "a\nb\tc\rd", "\"a\\nb\\tc\\rd\"");
	check(fmt_json_string, "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	check(fmt_json_string, "caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"");
	/* C1 controls escaped: U+009B is CSI to some terminals */
	check(fmt_json_string, "\xc2\x9b" "2J\xc2\x80\xc2\xa0",
	      "\"\\u009b2J\\u0080\xc2\xa0\"");
	/* invalid UTF-8: U+FFFD per byte, never a lone surrogate */
	check(fmt_json_string, "bad\xff\xfe", "\"bad\\ufffd\\ufffd\"");
	check(fmt_json_string, "\xc3(", "\"\\ufffd(\"");
	check(fmt_json_string, "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
}

static void path_member(FILE *f, const char *s)
{
	fmt_json_path(f, "path", s);
}

static void test_json_path(void)
{
	CU_ASSERT_TRUE(fmt_utf8_valid("caf\xc3\xa9"));
	CU_ASSERT_FALSE(fmt_utf8_valid("caf\xe9"));
	check(path_member, "ok\n", "\"path\":\"ok\\n\"");
	/* the exact bytes beside, in base64 (RFC 4648 padding) */
	check(path_member, "a\xff", "\"path\":\"a\\ufffd\",\"path_bytes\":\"Yf8=\"");
	check(path_member, "\xff\xfe", "\"path\":\"\\ufffd\\ufffd\",\"path_bytes\":\"//4=\"");
	check(path_member, "ab\xff", "\"path\":\"ab\\ufffd\",\"path_bytes\":\"YWL/\"");
	check(fmt_base64, "", "");
	check(fmt_base64, "f", "Zg==");
	check(fmt_base64, "fo", "Zm8=");
	check(fmt_base64, "foo", "Zm9v");
	check(fmt_base64, "foobar", "Zm9vYmFy");
}

static void test_json_long(void)
{
	size_t n = 100000;
	char *s = malloc(n + 1), *got;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	memset(s, 'x', n);
	s[n] = '\0';
	s[n / 2] = '"';
	got = render(fmt_json_string, s);
	CU_ASSERT_EQUAL(strlen(got), n + 3);
	CU_ASSERT_EQUAL(got[0], '"');
	CU_ASSERT_EQUAL(got[n + 2], '"');
	free(got);
	free(s);
}

static void test_csv(void)
{
	check(fmt_csv_field, "", "");
	check(fmt_csv_field, "plain", "plain");
	check(fmt_csv_field, "a,b", "\"a,b\"");
	check(fmt_csv_field, "say \"hi\"", "\"say \"\"hi\"\"\"");
	check(fmt_csv_field, " lead", "\" lead\"");
	check(fmt_csv_field, "trail ", "\"trail \"");
	check(fmt_csv_field, "in side", "in side");
	/* escaped as in the table: no control byte is written raw */
	check(fmt_csv_field, "line\nbreak", "line\\nbreak");
	check(fmt_csv_field, "cr\r", "cr\\x0d");
	check(fmt_csv_field, "\x1b]0;t\x07,\"", "\"\\x1b]0;t\\x07,\"\"\"");
	check(fmt_csv_field, "c1\xc2\x9b", "c1\\xc2\\x9b");
	check(fmt_csv_field, "bad\xff", "bad\\xff");
	check(fmt_csv_field, "back\\slash", "back\\\\slash");
}

static void test_table_path(void)
{
	check(fmt_table_path, "a/b c", "a/b c");
	check(fmt_table_path, "new\nline", "new\\nline");
	check(fmt_table_path, "tab\there", "tab\\there");
	check(fmt_table_path, "back\\slash", "back\\\\slash");
	check(fmt_table_path, "\x1b[31m", "\\x1b[31m");
	check(fmt_table_path, "bad\xff", "bad\\xff");
	check(fmt_table_path, "caf\xc3\xa9", "caf\xc3\xa9");
	check(fmt_table_path, "\xc2\x9b" "2J", "\\xc2\\x9b2J");
	check(fmt_table_path, "nbsp\xc2\xa0", "nbsp\xc2\xa0");
}

static CU_TestInfo tests[] = {
	{ "utf-8 validation", test_utf8 },
	{ "json strings", test_json },
	{ "json long name", test_json_long },
	{ "json path and path_bytes", test_json_path },
	{ "csv fields", test_csv },
	{ "table paths", test_table_path },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(escape, tests)
