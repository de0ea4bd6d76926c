// SPDX-License-Identifier: GPL-2.0
/* Extent item decoding and accounting on hand-built items. */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "scan/extent.h"
#include "ioctl.h"

/* A regular or prealloc item, as the kernel returns it (little-endian). */
static void make_reg(uint8_t *b, uint8_t type, uint8_t comp, uint64_t ram,
		     uint64_t bytenr, uint64_t disk_len, uint64_t off,
		     uint64_t num)
{
	memset(b, 0, FE_REG_SIZE);
	put_le64(b + FE_RAM_BYTES, ram);
	b[FE_COMPRESSION] = comp;
	b[FE_TYPE] = type;
	put_le64(b + FE_DISK_BYTENR, bytenr);
	put_le64(b + FE_DISK_NUM_BYTES, disk_len);
	put_le64(b + FE_OFFSET, off);
	put_le64(b + FE_NUM_BYTES, num);
}

static void test_parse_inline(void)
{
	uint8_t b[FE_INLINE_HEADER_SIZE + 100];
	struct extent_info ei;

	memset(b, 0xaa, sizeof(b));
	put_le64(b + FE_RAM_BYTES, 3000);
	b[FE_COMPRESSION] = 3;
	b[FE_TYPE] = BTRFS_FILE_EXTENT_INLINE;
	CU_ASSERT_EQUAL(extent_parse(b, sizeof(b), 4096, &ei), EXTENT_OK);
	CU_ASSERT_EQUAL(ei.type, BTRFS_FILE_EXTENT_INLINE);
	CU_ASSERT_EQUAL(ei.compression, 3);
	CU_ASSERT_EQUAL(ei.ram_bytes, 3000);
	CU_ASSERT_EQUAL(ei.inline_len, 100);
	CU_ASSERT_EQUAL(extent_row(&ei), 3);

	/* raw inline: payload == ram_bytes; an empty payload is legal */
	b[FE_COMPRESSION] = 0;
	put_le64(b + FE_RAM_BYTES, 0);
	CU_ASSERT_EQUAL(extent_parse(b, FE_INLINE_HEADER_SIZE, 4096, &ei),
			EXTENT_OK);
	CU_ASSERT_EQUAL(ei.inline_len, 0);
}

static void test_parse_regular(void)
{
	uint8_t b[FE_REG_SIZE];
	struct extent_info ei;

	make_reg(b, BTRFS_FILE_EXTENT_REG, 1, 131072, 1ull << 44, 8192,
		 4096, 65536);
	CU_ASSERT_EQUAL(extent_parse(b, sizeof(b), 4096, &ei), EXTENT_OK);
	CU_ASSERT_EQUAL(ei.type, BTRFS_FILE_EXTENT_REG);
	CU_ASSERT_EQUAL(ei.compression, 1);
	CU_ASSERT_EQUAL(ei.ram_bytes, 131072);
	/* 64-bit bytenr: 1.5 truncated page numbers to unsigned long */
	CU_ASSERT_EQUAL(ei.disk_bytenr, 1ull << 44);
	CU_ASSERT_EQUAL(ei.disk_num_bytes, 8192);
	CU_ASSERT_EQUAL(ei.offset, 4096);
	CU_ASSERT_EQUAL(ei.num_bytes, 65536);

	make_reg(b, BTRFS_FILE_EXTENT_PREALLOC, 0, 1 << 20, 1 << 20, 1 << 20,
		 0, 1 << 20);
	CU_ASSERT_EQUAL(extent_parse(b, sizeof(b), 4096, &ei), EXTENT_OK);
	CU_ASSERT_EQUAL(extent_row(&ei), CS_TYPE_PREALLOC);
}

static void test_parse_bad(void)
{
	uint8_t b[FE_REG_SIZE + 8];
	struct extent_info ei;

	make_reg(b, BTRFS_FILE_EXTENT_REG, 0, 4096, 8192, 4096, 0, 4096);
	CU_ASSERT_EQUAL(extent_parse(b, FE_REG_SIZE - 1, 4096, &ei),
			EXTENT_BAD_SIZE);
	CU_ASSERT_EQUAL(extent_parse(b, FE_REG_SIZE + 1, 4096, &ei),
			EXTENT_BAD_SIZE);
	CU_ASSERT_EQUAL(extent_parse(b, 20, 4096, &ei), EXTENT_SHORT_INLINE);
	CU_ASSERT_EQUAL(extent_parse(b, 0, 4096, &ei), EXTENT_SHORT_INLINE);
	b[FE_TYPE] = 3;
	CU_ASSERT_EQUAL(extent_parse(b, FE_REG_SIZE, 4096, &ei),
			EXTENT_BAD_TYPE);
	/* aligned to 4K but not to a 64K sector */
	make_reg(b, BTRFS_FILE_EXTENT_REG, 0, 4096, 12288, 4096, 0, 4096);
	CU_ASSERT_EQUAL(extent_parse(b, FE_REG_SIZE, 4096, &ei), EXTENT_OK);
	CU_ASSERT_EQUAL(extent_parse(b, FE_REG_SIZE, 65536, &ei),
			EXTENT_MISALIGNED);
	put_le64(b + FE_DISK_BYTENR, 12289);
	CU_ASSERT_EQUAL(extent_parse(b, FE_REG_SIZE, 4096, &ei),
			EXTENT_MISALIGNED);
	CU_ASSERT_PTR_NOT_NULL(strstr(extent_strerror(EXTENT_BAD_SIZE), "53"));
}

static void account(struct cs_stats *st, struct seen_set *seen,
		    const uint8_t *b, uint32_t len)
{
	struct extent_info ei;

	CU_ASSERT_EQUAL_FATAL(extent_parse(b, len, 4096, &ei), EXTENT_OK);
	CU_ASSERT_EQUAL(extent_account(st, seen, &ei), 0);
}

static void test_account(void)
{
	struct seen_set *seen = seen_create();
	struct cs_hist *h = calloc(1, sizeof(*h));
	struct cs_stats st = { .hist = h };
	uint8_t b[FE_REG_SIZE], in[FE_INLINE_HEADER_SIZE + 40];

	CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	extent_begin_file(&st);
	/* compressed extent, 128K of data in 8K, referenced twice in part
	 * (a partial overwrite splits one extent into two items) */
	make_reg(b, BTRFS_FILE_EXTENT_REG, 3, 131072, 1 << 20, 8192, 0, 4096);
	account(&st, seen, b, sizeof(b));
	make_reg(b, BTRFS_FILE_EXTENT_REG, 3, 131072, 1 << 20, 8192, 8192,
		 120 << 10);
	account(&st, seen, b, sizeof(b));
	/* a hole adds nothing */
	make_reg(b, BTRFS_FILE_EXTENT_REG, 0, 65536, 0, 0, 0, 65536);
	account(&st, seen, b, sizeof(b));
	/* a prealloc extent */
	make_reg(b, BTRFS_FILE_EXTENT_PREALLOC, 0, 65536, 2 << 20, 65536, 0,
		 65536);
	account(&st, seen, b, sizeof(b));
	/* a second file reflinking the first extent */
	extent_begin_file(&st);
	make_reg(b, BTRFS_FILE_EXTENT_REG, 3, 131072, 1 << 20, 8192, 0,
		 131072);
	account(&st, seen, b, sizeof(b));
	/* a third with an inline lzo extent */
	extent_begin_file(&st);
	memset(in, 0, sizeof(in));
	put_le64(in + FE_RAM_BYTES, 100);
	in[FE_COMPRESSION] = 2;
	in[FE_TYPE] = BTRFS_FILE_EXTENT_INLINE;
	account(&st, seen, in, sizeof(in));

	CU_ASSERT_EQUAL(st.nfiles, 3);
	CU_ASSERT_EQUAL(st.nextents, 2);
	CU_ASSERT_EQUAL(st.nrefs, 4);
	CU_ASSERT_EQUAL(st.ninline, 1);
	CU_ASSERT_EQUAL(st.disk[3], 8192);
	CU_ASSERT_EQUAL(st.uncomp[3], 131072);
	CU_ASSERT_EQUAL(st.refd[3], 4096 + (120 << 10) + 131072);
	CU_ASSERT_EQUAL(st.disk[0], 0);
	CU_ASSERT_EQUAL(st.uncomp[0], 0);
	CU_ASSERT_EQUAL(st.disk[CS_TYPE_PREALLOC], 65536);
	CU_ASSERT_EQUAL(st.refd[CS_TYPE_PREALLOC], 65536);
	CU_ASSERT_EQUAL(st.disk[2], 40);
	CU_ASSERT_EQUAL(st.uncomp[2], 100);
	CU_ASSERT_EQUAL(st.refd[2], 100);
	/* fragments: file 1 has the extent, then the same extent again
	 * (not contiguous with its own end), then the prealloc extent;
	 * file 2 one, file 3 one inline */
	CU_ASSERT_EQUAL(st.nfrag, 3 + 1 + 1);
	/* --histogram: the compressed extent once in 128K (by ram_bytes,
	 * not the parts referenced), prealloc in 64K, the inline one in 4K */
	CU_ASSERT_EQUAL(h->cell[3][5].extents, 1);
	CU_ASSERT_EQUAL(h->cell[3][5].disk, 8192);
	CU_ASSERT_EQUAL(h->cell[3][5].uncomp, 131072);
	CU_ASSERT_EQUAL(h->cell[CS_TYPE_PREALLOC][4].extents, 1);
	CU_ASSERT_EQUAL(h->cell[2][0].ninline, 1);
	CU_ASSERT_EQUAL(h->cell[2][0].disk, 40);
	CU_ASSERT_EQUAL(h->cell[2][0].extents, 0);
	free(h);
	seen_free(seen);
}

static void test_hist_class(void)
{
	CU_ASSERT_EQUAL(extent_hist_class(0), 0);
	CU_ASSERT_EQUAL(extent_hist_class(4096), 0);
	CU_ASSERT_EQUAL(extent_hist_class(4097), 1);
	CU_ASSERT_EQUAL(extent_hist_class(8192), 1);
	CU_ASSERT_EQUAL(extent_hist_class(131072), 5);
	CU_ASSERT_EQUAL(extent_hist_class(131073), 6);
	CU_ASSERT_EQUAL(extent_hist_class(128ull << 20), 15);
	CU_ASSERT_EQUAL(extent_hist_class(UINT64_MAX), CS_HIST_CLASSES - 1);
	CU_ASSERT_EQUAL(extent_hist_max(15), 128ull << 20);
}

/* FIEMAP's ranges (sector_shift): merged neighbours overlap other files'
 * ranges of the same extents; each sector counts once, apart from an
 * extent address equal to a range's first sector. */
static void test_account_ranges(void)
{
	struct seen_set *seen = seen_create();
	struct cs_stats st = { 0 };
	struct extent_info ei = {
		.type = BTRFS_FILE_EXTENT_REG, .sector_shift = 12,
	};

	CU_ASSERT_PTR_NOT_NULL_FATAL(seen);
	extent_begin_file(&st);
	/* two extents of 1 MiB merged: [1 MiB, 3 MiB) */
	ei.disk_bytenr = 1 << 20;
	ei.num_bytes = ei.ram_bytes = ei.disk_num_bytes = 2 << 20;
	CU_ASSERT_EQUAL(extent_account(&st, seen, &ei), 0);
	/* a clone of the second, then of a part across a 64-sector key */
	ei.disk_bytenr = 2 << 20;
	ei.num_bytes = ei.ram_bytes = ei.disk_num_bytes = 1 << 20;
	CU_ASSERT_EQUAL(extent_account(&st, seen, &ei), 0);
	ei.disk_bytenr = (1 << 20) + 61 * 4096;
	ei.num_bytes = ei.ram_bytes = ei.disk_num_bytes = 10 * 4096;
	CU_ASSERT_EQUAL(extent_account(&st, seen, &ei), 0);
	/* beyond: 3 sectors new, 2 counted */
	ei.disk_bytenr = (3 << 20) - 2 * 4096;
	ei.num_bytes = ei.ram_bytes = ei.disk_num_bytes = 5 * 4096;
	CU_ASSERT_EQUAL(extent_account(&st, seen, &ei), 0);
	/* a compressed extent at an address a range starts at: its own */
	ei.sector_shift = 0;
	ei.compression = 3;
	ei.disk_bytenr = 1 << 20;
	ei.disk_num_bytes = 4096;
	ei.num_bytes = ei.ram_bytes = 65536;
	CU_ASSERT_EQUAL(extent_account(&st, seen, &ei), 0);

	CU_ASSERT_EQUAL(st.disk[0], (2 << 20) + 3 * 4096);
	CU_ASSERT_EQUAL(st.uncomp[0], (2 << 20) + 3 * 4096);
	CU_ASSERT_EQUAL(st.refd[0], (3 << 20) + 15 * 4096);
	CU_ASSERT_EQUAL(st.nextents, 3);
	CU_ASSERT_EQUAL(st.nrefs, 5);
	CU_ASSERT_EQUAL(st.disk[3], 4096);
	seen_free(seen);
}

static CU_TestInfo tests[] = {
	{ "parse inline", test_parse_inline },
	{ "parse regular and prealloc", test_parse_regular },
	{ "parse malformed", test_parse_bad },
	{ "account shared, holes, prealloc, inline", test_account },
	{ "histogram classes", test_hist_class },
	{ "account FIEMAP's overlapping ranges", test_account_ranges },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(extent, tests)
