// SPDX-License-Identifier: GPL-2.0
/* Waste from the references of S alone (no filesystem to ask): the union
 * of ranges, compressed shares, rows counting each extent once. */
#include "unit.h"
#include "ioctl.h"
#include "scan/waste.h"

static void ref(struct waste *w, uint64_t bytenr, uint64_t disk, uint64_t ram,
		uint64_t offset, uint64_t num, uint8_t compression)
{
	struct extent_info ei = {
		.type = BTRFS_FILE_EXTENT_REG, .compression = compression,
		.disk_bytenr = bytenr, .disk_num_bytes = disk,
		.ram_bytes = ram, .offset = offset, .num_bytes = num,
	};

	CU_ASSERT_EQUAL(waste_extent(w, 0, &ei), 0);
}

static void test_waste(void)
{
	struct waste *w = waste_create();
	struct extent_info hole = { .type = BTRFS_FILE_EXTENT_REG };
	uint32_t a, b, c;
	uint64_t walked, wasting;

	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_EQUAL(waste_add_fs(w, 0, -1), 0);
	a = waste_row_push(w);		/* a directory */
	b = waste_row_push(w);		/* a file in it */
	/* 1 MiB raw: [0, 256K) and [512K, 1M) referenced, 256K lost */
	ref(w, 1 << 20, 1 << 20, 1 << 20, 0, 256 << 10, 0);
	ref(w, 1 << 20, 1 << 20, 1 << 20, 512 << 10, 512 << 10, 0);
	/* a whole extent: nothing lost */
	ref(w, 8 << 20, 4096, 4096, 0, 4096, 0);
	CU_ASSERT_EQUAL(waste_extent(w, 0, &hole), 0);
	waste_row_pop(w);
	c = waste_row_push(w);		/* another file */
	/* the same extent, overlapping: [128K, 384K) more is covered */
	ref(w, 1 << 20, 1 << 20, 1 << 20, 128 << 10, 256 << 10, 0);
	/* zstd: 32K on disk for 128K, 96K of it unreferenced: 24K */
	ref(w, 16 << 20, 32 << 10, 128 << 10, 64 << 10, 32 << 10, 3);
	waste_row_pop(w);
	waste_row_pop(w);
	CU_ASSERT_EQUAL(waste_resolve(w, NULL, NULL), 0);
	/* the raw extent: [384K, 512K) is left: 128K */
	CU_ASSERT_EQUAL(waste_total(w), (128 << 10) + (24 << 10));
	CU_ASSERT_EQUAL(waste_type(w, 0), 128 << 10);
	CU_ASSERT_EQUAL(waste_type(w, 3), 24 << 10);
	CU_ASSERT_EQUAL(waste_row(w, 0), waste_total(w));
	/* the directory counts the shared extent once */
	CU_ASSERT_EQUAL(waste_row(w, a), (128 << 10) + (24 << 10));
	CU_ASSERT_EQUAL(waste_row(w, b), 128 << 10);
	CU_ASSERT_EQUAL(waste_row(w, c), (128 << 10) + (24 << 10));
	waste_counts(w, &walked, &wasting);
	CU_ASSERT_EQUAL(walked, 2);
	CU_ASSERT_EQUAL(wasting, 2);
	waste_free(w);
}

static CU_TestInfo tests[] = {
	{ "waste", test_waste },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(waste, tests)
