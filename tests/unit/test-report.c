// SPDX-License-Identifier: GPL-2.0
/*
 * The report rendered from the field tables: compsize 1.5's table byte for
 * byte, and the JSON and CSV of a hand-built report with rows, estimates
 * and errors.
 */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "report/fields.h"
#include "report/report.h"

/* Render the table into a string. */
static char *table(const struct cs_stats *st, int raw, int *ret, char **err)
{
	char *out = NULL;
	size_t olen = 0, elen = 0;
	FILE *fo = open_memstream(&out, &olen);
	FILE *fe = open_memstream(err, &elen);

	*ret = report_table(fo, fe, st, raw);
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

/* report_print() of r into a string; nothing may go to err. */
static char *print(const struct report *r)
{
	char *out = NULL, *err = NULL;
	size_t olen = 0, elen = 0;
	FILE *fo = open_memstream(&out, &olen);
	FILE *fe = open_memstream(&err, &elen);

	CU_ASSERT_EQUAL(report_print(fo, fe, r), 0);
	fclose(fo);
	fclose(fe);
	CU_ASSERT_STRING_EQUAL(err, "");
	free(err);
	return out;
}

/* A run's report: one zstd file in one row, one estimate, one error. */
static char *render(enum report_format format, int raw)
{
	static struct row_type types[] = {
		{ 3, { 4096, 131072, 131072, 0, 0, 0, 0, 0 }, { 0 } },
	};
	/* same layout (disk, uncompressed, input), then fresh copy */
	static uint64_t est[6] = { 8192, 131072, 131072, 8192, 131072, 131072 };
	static struct report_row rows[] = {
		{ .path = "d/f\"1", .files = 1, .extents = 1, .refs = 1,
		  .nfrag = 1, .size = { 4096, 131072, 131072, 0 },
		  .types = types, .ntypes = 1, .est = est },
	};
	static const struct report_est e[] = {
		{ .setting = "compress=zstd:1", .input = 131072, .disk = 8192,
		  .uncompressed = 131072, .compress_mbps = 512.25,
		  .decompress_mbps = 1024, .sampled = 1, .disk_ci95 = 99.6,
		  .fresh_ci95 = 250.4,
		  .units_read = 3, .units = 40, .data_read = 12288,
		  .data = 131072 },
	};
	static const struct report_error errs[] = {
		{ "d/x", "Permission denied" },
	};
	struct cs_stats st = { 0 };
	struct report r = {
		.format = format, .units.mode = raw ? FMT_MODE_RAW : FMT_MODE_15,
		.total = &st, .have_usage = 1,
		.rows = rows, .nrows = 1, .est = e, .nest = 1,
		.errors = errs, .nerrors = 1,
	};

	st.nfiles = st.nextents = st.nrefs = st.nfrag = 1;
	st.disk[3] = 4096;
	st.uncomp[3] = st.refd[3] = 131072;
	return print(&r);
}

static void test_json(void)
{
	char *out = render(REPORT_JSON, 0);

	CU_ASSERT_STRING_EQUAL(out,
		"{\"schema\":1,\"filesystems\":[],\"files\":1,\"extents\":1,\"refs\":1,\"inline\":0,\"fragments\":1,"
		"\"total\":{\"disk\":4096,\"uncompressed\":131072,"
		"\"referenced\":131072},\"types\":[{\"type\":\"zstd\",\"disk\":4096,"
		"\"uncompressed\":131072,\"referenced\":131072}],"
		"\"method\":\"search\","
		"\"estimates\":[{\"setting\":\"compress=zstd:1\",\"input\":131072,"
		"\"disk\":8192,\"uncompressed\":131072,\"disk_fresh\":0,"
		"\"uncompressed_fresh\":0,\"model\":\"fresh-copy\","
		"\"compress_mbps\":512.2,\"decompress_mbps\":1024.0,"
		"\"current\":false,\"cpus\":0,\"compress_mbps_all\":0.0,"
		"\"decompress_mbps_all\":0.0,\"cpu_s_per_gb_write\":0.0000,"
		"\"cpu_s_per_gb_read\":0.0000,\"disk_ci95\":100,"
		"\"disk_fresh_ci95\":250,\"sample_units_read\":3,\"sample_units\":40,"
		"\"sample_data_read\":12288,\"sample_data\":131072}],"
		"\"paths\":[{\"path\":\"d/f\\\"1\",\"files\":1,\"extents\":1,\"refs\":1,"
		"\"inline\":0,\"fragments\":1,\"total\":{\"disk\":4096,"
		"\"uncompressed\":131072,\"referenced\":131072},"
		"\"types\":[{\"type\":\"zstd\",\"disk\":4096,\"uncompressed\":131072,"
		"\"referenced\":131072}],"
		"\"estimates\":[{\"setting\":\"compress=zstd:1\",\"input\":131072,"
		"\"disk\":8192,\"uncompressed\":131072,\"disk_fresh\":8192}]}],"
		"\"errors\":[{\"path\":\"d/x\",\"error\":\"Permission denied\"}]}\n");
	free(out);
}

static void test_csv(void)
{
	char *out = render(REPORT_CSV, 0);

	CU_ASSERT_STRING_EQUAL(out,
		"kind,path,type,setting,disk,uncompressed,referenced,files,extents,refs,inline,compress_mbps,decompress_mbps,disk_ci95,disk_fresh,current,compress_mbps_all,decompress_mbps_all,cpu_s_per_gb_write,cpu_s_per_gb_read,write_mbps,read_mbps,rewrite_change,disk_extrapolated,disk_min,disk_max,rewrite_change_ci95\n"
		"total,,TOTAL,,4096,131072,131072,1,1,1,0,,,,,,,,,,,,,,,,\n"
		"total,,zstd,,4096,131072,131072,,,,,,,,,,,,,,,,,,,,\n"
		"path,\"d/f\"\"1\",TOTAL,,4096,131072,131072,1,1,1,0,,,,,,,,,,,,,,,,\n"
		"path,\"d/f\"\"1\",zstd,,4096,131072,131072,,,,,,,,,,,,,,,,,,,,\n"
		"estimate,,,compress=zstd:1,8192,131072,,,,,,512.2,1024.0,100,0,0,0.0,0.0,0.0000,0.0000,,,,,,,\n"
		"estimate,\"d/f\"\"1\",,compress=zstd:1,8192,131072,,,,,,,,,8192,,,,,,,,,,,,\n");
	free(out);
}

static void test_table_rows(void)
{
	char *out = render(REPORT_TABLE, 1);

	CU_ASSERT_STRING_EQUAL(out,
		"Perc     Disk Usage   Uncompressed Referenced   zstd:1       Path\n"
		"  3%     4096         131072       131072       8192         d/f\"1\n"
		"\n"
		"Processed 1 file, 1 regular extents (1 refs), 0 inline.\n"
		"Type       Perc     Disk Usage   Uncompressed Referenced  \n"
		"TOTAL        3%     4096         131072       131072      \n"
		"zstd         3%     4096         131072       131072      \n"
		"\n"
		"Setting                  Perc     Disk Usage   Change       Compress   Decompress 95% CI\n"
		"compress=zstd:1            6%     8192         +4096        510MB/s    1000MB/s   \xc2\xb1" "100\n"
		"Sample: 3 of 40 units read, 12288 of 131072 of data.\n"
		"\n"
		"Setting                  Compress x0    Decompress x0    CPU write   CPU read   \n"
		"compress=zstd:1          -              -                -           -          \n");
	free(out);
}

/* -b numbers of 13 digits and more: compsize 1.5's table keeps its 12
 * characters (1.5 does), the rows and estimate tables widen their columns;
 * a speed that was not measured is "-", one below 0.5 MB/s "<1MB/s". */
static void test_table_wide(void)
{
	uint64_t est[6] = { 1234567890123ull, 2000000000000ull, 1,
			    1234567890123ull, 2000000000000ull, 1 };
	struct report_row rows[] = {
		{ .path = "d", .size = { 1000000000000ull, 2000000000000ull,
					 2000000000000ull, 0 },
		  .est = est },
	};
	struct report_est e[] = {
		{ .setting = "compress=zstd:1", .disk = 1234567890123ull,
		  .uncompressed = 2000000000000ull, .same_layout = 1,
		  .disk_fresh = 1234567890123ull, .compress_mbps = 0,
		  .decompress_mbps = 0.3 },
	};
	struct cs_stats st = { 0 };
	struct report r = {
		.format = REPORT_TABLE, .units.mode = FMT_MODE_RAW,
		.total = &st, .have_usage = 1, .rows = rows, .nrows = 1,
		.est = e, .nest = 1,
	};
	char *out = NULL;
	size_t olen = 0;
	FILE *fo = open_memstream(&out, &olen);

	st.nfiles = st.nextents = st.nrefs = 1;
	st.disk[0] = 1000000000000ull;
	st.uncomp[0] = st.refd[0] = 2000000000000ull;
	CU_ASSERT_EQUAL(report_print(fo, fo, &r), 0);
	fclose(fo);
	CU_ASSERT_STRING_EQUAL(out,
		"Perc     Disk Usage    Uncompressed  Referenced    zstd:1        Path\n"
		" 50%     1000000000000 2000000000000 2000000000000 1234567890123 d\n"
		"\n"
		"Processed 1 file, 1 regular extents (1 refs), 0 inline.\n"
		"Type       Perc     Disk Usage   Uncompressed Referenced  \n"
		"TOTAL       50%     1000000000000 2000000000000 2000000000000\n"
		"none        50%     1000000000000 2000000000000 2000000000000\n"
		"\n"
		"Setting                  Perc     Disk Usage    Change        Fresh copy    Compress   Decompress\n"
		"compress=zstd:1           61%     1234567890123 +234567890123 1234567890123 -          <1MB/s    \n"
		"\n"
		"Setting                  Compress x0    Decompress x0    CPU write   CPU read   \n"
		"compress=zstd:1          -              -                -           -          \n");
	free(out);
}

/* A run's report with every estimate column: same layout, extrapolated,
 * --rewrite, sampled, --device-speed, the current setting (the output of
 * compsize before the field table drove the estimates, byte for byte). */
static char *render_all_est(enum report_format format)
{
	static uint64_t est[6] = { 5000, 9000, 9000, 6000, 9000, 9000 };
	static struct report_row rows[] = {
		{ .path = "d", .size = { 4096, 8192, 8192, 0 }, .est = est },
	};
	static const struct report_est e[] = {
		{ .setting = "compress=zstd:1", .input = 9000, .disk = 5000,
		  .uncompressed = 9000, .same_layout = 1, .disk_fresh = 6000,
		  .uncompressed_fresh = 9000, .disk_extrapolated = 700,
		  .disk_min = 4800, .disk_max = 5300, .compress_mbps = 400,
		  .decompress_mbps = 1500, .current = 1, .have_rewrite = 1,
		  .rewrite_change = -1234, .rewrite_ci95 = 99.5, .sampled = 1,
		  .disk_ci95 = 321.4, .fresh_ci95 = 400, .units_read = 2,
		  .units = 9, .data_read = 4000, .data = 9000,
		  .dec = { .compress_all_mbps = 1600,
			   .decompress_all_mbps = 6000,
			   .cpu_s_per_gb_write = 2.5,
			   .cpu_s_per_gb_read = 0.6667, .write_mbps = 180,
			   .read_mbps = 6000, .write_device_bound = 1 } },
	};
	struct cs_stats st = { 0 };
	struct report r = {
		.format = format, .units.mode = FMT_MODE_RAW, .total = &st,
		.have_usage = 1, .rows = rows, .nrows = 1, .est = e, .nest = 1,
		.cpus = 4, .dev_write_mbps = 100, .dev_read_mbps = 8000,
	};

	st.nfiles = st.nextents = st.nrefs = 1;
	st.disk[3] = 4096;
	st.uncomp[3] = st.refd[3] = 8192;
	return print(&r);
}

static void test_every_estimate_column(void)
{
	char *out = render_all_est(REPORT_TABLE);

	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"Setting                  Perc     Disk Usage   Change       Fresh copy   Rewrite      Compress   Decompress 95% CI Disk Usage range\n"
		"compress=zstd:1*          55%     5000         +904         6000         -1234\xc2\xb1" "100    400MB/s    1500MB/s   \xc2\xb1" "321 4800..5300\n"
		"Disk Usage range: where overwritten data that no file references any more\n"
		"was estimated from what remains, the usage whatever that data was.\n"
		"* the setting the filesystem is mounted with now\n"
		"Sample: 2 of 9 units read, 4000 of 9000 of data.\n"
		"\n"
		"Setting                  Compress x4    Decompress x4    CPU write   CPU read    Write        Read        \n"
		"compress=zstd:1          1600MB/s       6000MB/s         2.5s/GB     0.67s/GB    180MB/s dev  6000MB/s cpu\n"
		"Write, Read: file data through a device of 100 MB/s write, 8000 MB/s read (dev: the device limits it, cpu: the 4 CPUs)\n"));
	free(out);
	out = render_all_est(REPORT_JSON);
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"\"estimates\":[{\"setting\":\"compress=zstd:1\",\"input\":9000,"
		"\"disk\":5000,\"uncompressed\":9000,\"disk_fresh\":6000,"
		"\"uncompressed_fresh\":9000,\"model\":\"same-layout\","
		"\"compress_mbps\":400.0,\"decompress_mbps\":1500.0,"
		"\"current\":true,\"cpus\":4,\"compress_mbps_all\":1600.0,"
		"\"decompress_mbps_all\":6000.0,\"cpu_s_per_gb_write\":2.5000,"
		"\"cpu_s_per_gb_read\":0.6667,\"write_mbps\":180.0,"
		"\"read_mbps\":6000.0,\"rewrite_change\":-1234,"
		"\"rewrite_change_ci95\":100,\"disk_extrapolated\":700,"
		"\"disk_min\":4800,\"disk_max\":5300,\"disk_ci95\":321,"
		"\"disk_fresh_ci95\":400,\"sample_units_read\":2,"
		"\"sample_units\":9,\"sample_data_read\":4000,"
		"\"sample_data\":9000}],"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"\"estimates\":[{\"setting\":\"compress=zstd:1\",\"input\":9000,"
		"\"disk\":5000,\"uncompressed\":9000,\"disk_fresh\":6000}]}]"));
	free(out);
	out = render_all_est(REPORT_CSV);
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"\nestimate,,,compress=zstd:1,5000,9000,,,,,,400.0,1500.0,321,6000,1,1600.0,6000.0,2.5000,0.6667,180.0,6000.0,-1234,700,4800,5300,100\n"
		"estimate,d,,compress=zstd:1,5000,9000,,,,,,,,,6000,,,,,,,,,,,,\n"));
	free(out);
}

/* The bytes a value of type t takes. */
static size_t type_size(enum field_type t)
{
	switch (t) {
	case FT_FLAG:
	case FT_ENUM:
		return sizeof(int);
	case FT_MBPS:
	case FT_CPU:
	case FT_HALF:
		return sizeof(double);
	case FT_DCOUNT:
		return sizeof(int64_t);
	default:
		return sizeof(uint64_t);
	}
}

/* Every field has a key, unique in its table, help, a value inside the
 * structure it reads, and what its type needs. */
static void check_fields(const struct field *f, size_t n, size_t size)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		CU_ASSERT_PTR_NOT_NULL_FATAL(f[i].key);
		CU_ASSERT_PTR_NOT_NULL(f[i].help);
		CU_ASSERT(f[i].offset + type_size(f[i].type) <= size);
		CU_ASSERT(f[i].type != FT_ENUM || f[i].names);
		/* a cell drawn from other values is only in the table */
		CU_ASSERT(!(f[i].flags & FIELD_TABLE_ONLY) || f[i].label);
		for (j = 0; j < i; j++)
			CU_ASSERT(strcmp(f[i].key, f[j].key) != 0);
	}
}

static void test_fields(void)
{
	check_fields(fields_size, fields_nsize, sizeof(struct report_sizes));
	check_fields(fields_count, fields_ncount, sizeof(struct report_row));
	check_fields(fields_est, fields_nest, sizeof(struct est_view));
	check_fields(fields_hist, fields_nhist, sizeof(struct report_hist));
	check_fields(fields_change, fields_nchange,
		     sizeof(struct report_change));
}

/* The estimate fields' CSV and Prometheus places are 1, 2, ... each once;
 * one in CSV without a place of its own has a size or count column of
 * its key; a row's estimate has no NEED_* bits (struct est_view); a
 * table's padded columns come before its last, unpadded ones. */
static void test_fields_est(void)
{
	const struct field *order[FIELDS_EST_MAX];
	size_t i, n, last[2] = { 0, 0 };
	int prom;

	for (prom = 0; prom < 2; prom++) {
		n = fields_order(fields_est, fields_nest, prom, order);
		CU_ASSERT(n > 0);
		for (i = 0; i < n; i++)
			CU_ASSERT_EQUAL(prom ? order[i]->prom : order[i]->csv,
					i + 1);
	}
	for (i = 0; i < fields_nest; i++) {
		const struct field *f = &fields_est[i];
		int table = !!(f->flags & FIELD_DECIDE);

		if (!f->csv && !(f->flags & (FIELD_NO_CSV | FIELD_TABLE_ONLY)))
			CU_ASSERT(field_find(fields_size, fields_nsize, f->key) ||
				  field_find(fields_count, fields_ncount,
					     f->key));
		if (f->flags & (FIELD_ROW_EST | FIELD_PER_SETTING))
			CU_ASSERT_EQUAL(f->need, 0);
		if (f->prom)
			CU_ASSERT(f->type == FT_BYTES || f->type == FT_MBPS ||
				  f->type == FT_COUNT);
		if (!f->label)
			continue;
		if (!f->width)
			last[table] = i + 1;
		else
			CU_ASSERT_EQUAL(last[table], 0);
	}
}

/* --subvolumes rows: ID, Flags and Files before Perc in the table, the
 * rows in "subvolumes" with id and readonly (not in the grand total), CSV
 * records of kind subvolume with the two columns last. */
static char *render_subvols(enum report_format format)
{
	static struct report_row rows[] = {
		{ .path = "/snap", .id = 257, .readonly = 1, .files = 12,
		  .size = { 4096, 8192, 8192, 4096, 0, 4096, 20480 } },
		{ .path = "/", .id = 5, .files = 0 },
	};
	struct sharing_result excl = { .exclusive = 4096 };
	struct cs_stats st = { 0 };
	struct report r = {
		.format = format, .units.mode = FMT_MODE_RAW, .total = &st,
		.have_usage = 1, .rows = rows, .nrows = 2, .excl = &excl,
		.excl_no_types = 1,
		.show = REPORT_SHOW_EXCLUSIVE | REPORT_SHOW_SUBVOLUMES,
	};

	st.nfiles = 12;
	st.disk[0] = 4096;
	st.uncomp[0] = st.refd[0] = 8192;
	return print(&r);
}

static void test_subvolumes(void)
{
	char *out = render_subvols(REPORT_TABLE);

	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(out,
		"ID  Flags    Files Perc     Disk Usage   Uncompressed Referenced   Exclusive    Path\n"
		"257 readonly 12     50%     4096         8192         8192         4096         /snap\n"
		"5   -        0       0%     0            0            0            0            /\n"));
	free(out);
	out = render_subvols(REPORT_JSON);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"subvolumes\":[{\"path\":\"/snap\","
				  "\"id\":257,\"readonly\":true,"
				  "\"being_deleted\":false,\"files\":12,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"exclusive\":4096,"
				  "\"exclusive_data\":0,\"exclusive_metadata\":4096,"
				  "\"qgroup_referenced\":20480}"));
	/* the grand total's types have no exclusive figures (the kernel's
	 * are per subvolume), nor the grand total a qgroup_referenced */
	CU_ASSERT_PTR_NULL(strstr(out, "\"types\":[{\"type\":\"none\",\"disk\":0,\"uncompressed\":0,\"referenced\":0,\"exclusive\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"id\":5,\"readonly\":false,"));
	CU_ASSERT_PTR_NULL(strstr(out, "\"paths\""));
	/* the grand total has no id */
	CU_ASSERT_EQUAL(strncmp(out, "{\"schema\":1,\"filesystems\":[],\"files\":12,", 40), 0);
	free(out);
	out = render_subvols(REPORT_CSV);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",rewrite_change,disk_extrapolated,disk_min,disk_max,rewrite_change_ci95,exclusive,exclusive_data,exclusive_metadata,qgroup_referenced,id,readonly,being_deleted\n"
				  "total,,TOTAL,,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nsubvolume,/snap,TOTAL,,4096,8192,8192,12,"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",4096,0,4096,20480,257,1,0\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, ",0,0,0,0,5,0,0\n"));
	free(out);
}

static CU_TestInfo tests[] = {
	{ "1.5 table", test_table },
	{ "json", test_json },
	{ "csv", test_csv },
	{ "table with rows and estimates", test_table_rows },
	{ "wide numbers", test_table_wide },
	{ "every estimate column", test_every_estimate_column },
	{ "fields", test_fields },
	{ "estimate fields", test_fields_est },
	{ "subvolume rows", test_subvolumes },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(report, tests)
