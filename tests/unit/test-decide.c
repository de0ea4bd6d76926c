// SPDX-License-Identifier: GPL-2.0
/* Decision figures and the --plot SVG. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "report/decide.h"
#include "report/plot.h"

static void test_decide(void)
{
	struct decide_in in = {
		.disk = 1000, .uncompressed = 3000,
		.compress_mbps = 250, .decompress_mbps = 1000, .cpus = 4,
		.dev_write_mbps = 100, .dev_read_mbps = 500,
	};
	struct decide_out out;

	decide(&in, &out);
	CU_ASSERT_DOUBLE_EQUAL(out.compress_all_mbps, 1000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.decompress_all_mbps, 4000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.cpu_s_per_gb_write, 4, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(out.cpu_s_per_gb_read, 1, 1e-9);
	/* the device moves 100 MB/s of compressed bytes: 300 of data */
	CU_ASSERT_DOUBLE_EQUAL(out.write_mbps, 300, 1e-9);
	CU_ASSERT_TRUE(out.write_device_bound);
	/* reading: the device would give 1500, the CPUs 4000 */
	CU_ASSERT_DOUBLE_EQUAL(out.read_mbps, 1500, 1e-9);
	/* a fast device: the CPUs limit it */
	in.dev_write_mbps = 7000;
	decide(&in, &out);
	CU_ASSERT_DOUBLE_EQUAL(out.write_mbps, 1000, 1e-9);
	CU_ASSERT_FALSE(out.write_device_bound);
	/* no device: nothing through it */
	in.dev_write_mbps = in.dev_read_mbps = 0;
	decide(&in, &out);
	CU_ASSERT_EQUAL(out.write_mbps, 0);
	CU_ASSERT_EQUAL(out.read_mbps, 0);
}

static void test_parse_speed(void)
{
	double w, r;

	CU_ASSERT_EQUAL(decide_parse_speed("150", &w, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(w, 150, 0);
	CU_ASSERT_DOUBLE_EQUAL(r, 150, 0);
	CU_ASSERT_EQUAL(decide_parse_speed("500,2000.5", &w, &r), 0);
	CU_ASSERT_DOUBLE_EQUAL(w, 500, 0);
	CU_ASSERT_DOUBLE_EQUAL(r, 2000.5, 0);
	CU_ASSERT_EQUAL(decide_parse_speed("", &w, &r), -1);
	CU_ASSERT_EQUAL(decide_parse_speed("0", &w, &r), -1);
	CU_ASSERT_EQUAL(decide_parse_speed("-5", &w, &r), -1);
	CU_ASSERT_EQUAL(decide_parse_speed("100,", &w, &r), -1);
	CU_ASSERT_EQUAL(decide_parse_speed(",100", &w, &r), -1);
	CU_ASSERT_EQUAL(decide_parse_speed("100,200,300", &w, &r), -1);
	CU_ASSERT_EQUAL(decide_parse_speed("100MB", &w, &r), -1);
	CU_ASSERT_EQUAL(decide_parse_speed("nan", &w, &r), -1);
}

static void test_log10(void)
{
	static const double v[] = { 1, 2, 10, 123.456, 1e-3, 7e9, 0.5 };
	static const double want[] = { 0, 0.30102999566, 1, 2.09151220163,
				       -3, 9.84509804001, -0.30102999566 };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		CU_ASSERT_DOUBLE_EQUAL(plot_log10(v[i]), want[i], 1e-9);
}

static void test_svg(void)
{
	const char *names[] = { "compress=zstd:1", "compress-force=lzo" };
	double c[] = { 400, 600 }, d[] = { 1200, 900 };
	double r0[] = { 2.5, 1.8 }, r1[] = { 3.0, 0 };
	struct plot_series s[] = {
		{ "TOTAL", r0 }, { "dir/a&b <\x01\xff\xc3\xa9>", r1 },
	};
	struct plot_in in = {
		.nset = 2, .setting = names, .compress_mbps = c,
		.decompress_mbps = d, .series = s, .nseries = 2,
		.title = "t\"itle",
	};
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(plot_svg(f, &in), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "<svg "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "</svg>\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "dir/a&amp;b &lt;??\xc3\xa9&gt;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "t&quot;itle"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, ">force lzo<"));
	/* 3 points in each of the two charts, 2 legend dots */
	{
		size_t n = 0;
		const char *p = buf;

		while ((p = strstr(p, "<circle")))
			n++, p++;
		CU_ASSERT_EQUAL(n, 8);
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 && buf[i] != '\n')
			CU_FAIL("control byte in the SVG");
	free(buf);
	/* nothing to plot */
	r0[0] = r0[1] = r1[0] = 0;
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(plot_svg(f, &in), -EINVAL);
	fclose(f);
	free(buf);
}

/* Many rows: each drawn one in a style of its own (colour and marker),
 * 20 rows at most beside the total, the rest counted. */
static void test_svg_rows(void)
{
	enum { NS = 26 };
	const char *names[] = { "compress=zstd:1", "compress=zstd:3" };
	double c[] = { 400, 300 }, d[] = { 1200, 1100 };
	double r[NS][2];
	char name[NS][16], key[NS][64];
	struct plot_series s[NS];
	struct plot_in in = {
		.nset = 2, .setting = names, .compress_mbps = c,
		.decompress_mbps = d, .series = s, .nseries = NS,
	};
	char *buf = NULL;
	const char *p;
	size_t len = 0, i, j, n = 0, pts = 0;
	FILE *f;

	for (i = 0; i < NS; i++) {
		r[i][0] = 2 + i * 0.01;
		r[i][1] = 2.2 + i * 0.01;
		snprintf(name[i], sizeof(name[i]), "row%zu", i);
		s[i].name = name[i];
		s[i].ratio = r[i];
	}
	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(plot_svg(f, &in), 0);
	fclose(f);
	for (p = buf; (p = strstr(p, "class=\"pt\"")); p++)
		pts++;
	CU_ASSERT_EQUAL(pts, 21 * 2 * 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "... and 5 more rows, not drawn"));
	/* a legend entry: its element, then its fill */
	for (p = buf; (p = strstr(p, "class=\"key\"")) && n < NS; p++) {
		const char *b = p, *fill = strstr(p, "fill=");

		while (b > buf && *b != '<')
			b--;
		CU_ASSERT_PTR_NOT_NULL_FATAL(fill);
		snprintf(key[n], sizeof(key[n]), "%.5s %.16s", b, fill);
		n++;
	}
	CU_ASSERT_EQUAL(n, 21);
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(key[i], key[j]))
				CU_FAIL("two series drawn alike");
	free(buf);
}

static CU_TestInfo tests[] = {
	{ "device, CPU limits", test_decide },
	{ "--device-speed values", test_parse_speed },
	{ "log10 without libm", test_log10 },
	{ "SVG", test_svg },
	{ "SVG of many rows", test_svg_rows },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(decide, tests)
