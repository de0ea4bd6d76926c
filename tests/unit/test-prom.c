// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text (prom.h) of a hand-built report: families with HELP and
 * TYPE, a series per row and type, --exclusive without a type, estimates,
 * label values escaped (and a path given twice printed once).
 * tests/cli/063-prometheus runs promtool and node_exporter on the output.
 */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "report/fields.h"
#include "report/prom.h"

static char *render(const struct report *r)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(prom_print(f, r), 0);
	fclose(f);
	return out;
}

static void test_label(void)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CU_ASSERT_EQUAL(prom_label_value(f, "a\"b\\c\nd\xff\xc3\xa9\x01"), 0);
	fclose(f);
	/* as the table prints it (\\, \n, \xff, \x01), then \ and " escaped */
	CU_ASSERT_STRING_EQUAL(out,
		"\"a\\\"b\\\\\\\\c\\\\nd\\\\xff\xc3\xa9\\\\x01\"");
	free(out);
}

static void test_rows(void)
{
	static struct row_type t1[] = {
		{ 0, { 100, 100, 100, 0, 0, 0, 0, 0 }, { 0 } },
		{ 3, { 4096, 131072, 262144, 0, 0, 0, 0, 0 }, { 0 } },
	};
	static struct row_type t2[] = {
		{ 3, { 10, 20, 30, 0, 0, 0, 0, 0 }, { 0 } },
	};
	static struct report_row rows[] = {
		{ .path = "d", .files = 2, .extents = 1, .refs = 2,
		  .ninline = 1, .nfrag = 1,
		  .size = { 4196, 131172, 262244, 4000, 3000, 1000, 0 },
		  .types = t1, .ntypes = 2 },
		{ .path = "d/x\"\xff", .files = 1, .size = { 10, 20, 30, 7, 7, 0, 0 },
		  .types = t2, .ntypes = 1 },
		{ .path = "d", .files = 2, .size = { 4196, 131172, 262244, 4000, 3000, 1000, 0 },
		  .types = t1, .ntypes = 2 },
	};
	struct cs_stats st = { 0 };
	struct report r = {
		.format = REPORT_PROMETHEUS, .total = &st, .have_usage = 1,
		.rows = rows, .nrows = 3, .nerrors = 2,
		.show = REPORT_SHOW_EXCLUSIVE,
	};
	char *out = render(&r);

	CU_ASSERT_STRING_EQUAL(out,
		"# HELP compsize_disk_bytes Bytes on disk after compression, each extent counted once\n"
		"# TYPE compsize_disk_bytes gauge\n"
		"compsize_disk_bytes{path=\"d\",type=\"none\"} 100\n"
		"compsize_disk_bytes{path=\"d\",type=\"zstd\"} 4096\n"
		"compsize_disk_bytes{path=\"d/x\\\"\\\\xff\",type=\"zstd\"} 10\n"
		"# HELP compsize_uncompressed_bytes The same extents' bytes before compression\n"
		"# TYPE compsize_uncompressed_bytes gauge\n"
		"compsize_uncompressed_bytes{path=\"d\",type=\"none\"} 100\n"
		"compsize_uncompressed_bytes{path=\"d\",type=\"zstd\"} 131072\n"
		"compsize_uncompressed_bytes{path=\"d/x\\\"\\\\xff\",type=\"zstd\"} 20\n"
		"# HELP compsize_referenced_bytes Bytes the files reference, each reference counted\n"
		"# TYPE compsize_referenced_bytes gauge\n"
		"compsize_referenced_bytes{path=\"d\",type=\"none\"} 100\n"
		"compsize_referenced_bytes{path=\"d\",type=\"zstd\"} 262144\n"
		"compsize_referenced_bytes{path=\"d/x\\\"\\\\xff\",type=\"zstd\"} 30\n"
		"# HELP compsize_exclusive_bytes Bytes on disk deleting the files would free: exclusive_data + exclusive_metadata; for a subvolume, the kernel's qgroup excl\n"
		"# TYPE compsize_exclusive_bytes gauge\n"
		"compsize_exclusive_bytes{path=\"d\"} 4000\n"
		"compsize_exclusive_bytes{path=\"d/x\\\"\\\\xff\"} 7\n"
		"# HELP compsize_exclusive_data_bytes Of Exclusive, data extents no reference outside the files reaches (disk bytes)\n"
		"# TYPE compsize_exclusive_data_bytes gauge\n"
		"compsize_exclusive_data_bytes{path=\"d\"} 3000\n"
		"compsize_exclusive_data_bytes{path=\"d/x\\\"\\\\xff\"} 7\n"
		"# HELP compsize_exclusive_metadata_bytes Of Exclusive, metadata: the files' inline data in leaves no other subvolume shares; for a subvolume, its tree blocks no other one reaches\n"
		"# TYPE compsize_exclusive_metadata_bytes gauge\n"
		"compsize_exclusive_metadata_bytes{path=\"d\"} 1000\n"
		"compsize_exclusive_metadata_bytes{path=\"d/x\\\"\\\\xff\"} 0\n"
		"# HELP compsize_files Regular files counted, once per path\n"
		"# TYPE compsize_files gauge\n"
		"compsize_files{path=\"d\"} 2\n"
		"compsize_files{path=\"d/x\\\"\\\\xff\"} 1\n"
		"# HELP compsize_extents Distinct regular extents\n"
		"# TYPE compsize_extents gauge\n"
		"compsize_extents{path=\"d\"} 1\n"
		"compsize_extents{path=\"d/x\\\"\\\\xff\"} 0\n"
		"# HELP compsize_refs References to regular extents\n"
		"# TYPE compsize_refs gauge\n"
		"compsize_refs{path=\"d\"} 2\n"
		"compsize_refs{path=\"d/x\\\"\\\\xff\"} 0\n"
		"# HELP compsize_inline Inline extents (data kept in metadata)\n"
		"# TYPE compsize_inline gauge\n"
		"compsize_inline{path=\"d\"} 1\n"
		"compsize_inline{path=\"d/x\\\"\\\\xff\"} 0\n"
		"# HELP compsize_fragments Runs of physically contiguous data\n"
		"# TYPE compsize_fragments gauge\n"
		"compsize_fragments{path=\"d\"} 1\n"
		"compsize_fragments{path=\"d/x\\\"\\\\xff\"} 0\n"
		"# HELP compsize_read_errors Paths that could not be read (compsize: PATH: cause)\n"
		"# TYPE compsize_read_errors gauge\n"
		"compsize_read_errors 2\n");
	free(out);

	/* without --exclusive: no such family */
	r.show = 0;
	out = render(&r);
	CU_ASSERT_PTR_NULL(strstr(out, "exclusive"));
	free(out);
}

static void test_estimates(void)
{
	/* same layout (disk, uncompressed, input), then fresh copy */
	static uint64_t est[12] = { 8192, 131072, 131072, 9000, 131072, 131072,
				    1, 2, 3, 4, 5, 6 };
	static struct report_row rows[] = {
		{ .path = "d", .est = est },
	};
	static const struct report_est e[] = {
		{ .setting = "compress=zstd:1", .compress_mbps = 512.25,
		  .decompress_mbps = 1024, .same_layout = 1 },
		{ .setting = "compress-force=lzo", .same_layout = 1 },
	};
	struct cs_stats st = { 0 };
	struct report r = {
		.format = REPORT_PROMETHEUS, .total = &st, .have_usage = 1,
		.rows = rows, .nrows = 1, .est = e, .nest = 2,
	};
	char *out = render(&r);

	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"# TYPE compsize_estimate_disk_bytes gauge\n"
		"compsize_estimate_disk_bytes{path=\"d\",setting=\"compress=zstd:1\"} 8192\n"
		"compsize_estimate_disk_bytes{path=\"d\",setting=\"compress-force=lzo\"} 9000\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"compsize_estimate_uncompressed_bytes{path=\"d\",setting=\"compress=zstd:1\"} 131072\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"compsize_estimate_input_bytes{path=\"d\",setting=\"compress-force=lzo\"} 131072\n"));
	/* a speed not measured has no series */
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"# TYPE compsize_estimate_compress_bytes_per_second gauge\n"
		"compsize_estimate_compress_bytes_per_second{setting=\"compress=zstd:1\"} 512250000\n"
		"# HELP"));
	free(out);
}

/* Every field has the HELP text Prometheus shows. */
static void test_help(void)
{
	size_t i;

	for (i = 0; i < fields_nsize; i++)
		CU_ASSERT_PTR_NOT_NULL(fields_size[i].help);
	for (i = 0; i < fields_ncount; i++)
		CU_ASSERT_PTR_NOT_NULL(fields_count[i].help);
	for (i = 0; i < fields_nest; i++)
		CU_ASSERT_PTR_NOT_NULL(fields_est[i].help);
}

static CU_TestInfo tests[] = {
	{ "label values", test_label },
	{ "rows, types, exclusive", test_rows },
	{ "estimates", test_estimates },
	{ "help", test_help },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(prom, tests)
