// SPDX-License-Identifier: GPL-2.0
/* Exclusive space on hand-built extents, rows and search buffers. */
#include <string.h>
#include <sys/stat.h>
#include "unit.h"
#include "items.h"
#include "ioctl.h"
#include "scan/search.h"
#include "scan/sharing.h"

#define FS 1
#define ROOT 256

static struct extent_info reg(uint64_t bytenr, uint64_t disk, uint8_t comp)
{
	struct extent_info ei = {
		.type = BTRFS_FILE_EXTENT_REG, .compression = comp,
		.disk_bytenr = bytenr, .disk_num_bytes = disk,
		.num_bytes = 4 * disk, .ram_bytes = 4 * disk,
	};
	return ei;
}

static struct extent_info inl(uint64_t len, uint8_t comp)
{
	struct extent_info ei = {
		.type = BTRFS_FILE_EXTENT_INLINE, .compression = comp,
		.inline_len = len, .ram_bytes = 2 * len,
	};
	return ei;
}

static struct sharing *make(void)
{
	struct sharing *sh = sharing_create();

	CU_ASSERT_PTR_NOT_NULL_FATAL(sh);
	CU_ASSERT_EQUAL(sharing_add_fs(sh, FS, -1), 0);
	return sh;
}

static void add(struct sharing *sh, uint64_t ino, uint32_t nlink,
		uint32_t names, struct extent_info ei)
{
	CU_ASSERT_EQUAL(sharing_file(sh, FS, ROOT, ino, nlink, names), 0);
	CU_ASSERT_EQUAL(sharing_extent(sh, FS, &ei), 0);
}

/* Rows: an extent is exclusive to the innermost row holding every
 * reference to it, and to that row's ancestors. */
static void test_rows(void)
{
	struct sharing *sh = make();
	struct sharing_result res;
	uint32_t a, a1, b;

	a = sharing_row_push(sh);
	a1 = sharing_row_push(sh);
	add(sh, 257, 1, 1, reg(1 << 20, 4096, 3));	/* X: a1 only */
	add(sh, 258, 1, 1, reg(2 << 20, 8192, 0));	/* Y: a1 and a */
	add(sh, 259, 1, 1, reg(3 << 20, 16384, 0));	/* Z: a1 and b */
	sharing_row_pop(sh);
	add(sh, 260, 1, 1, reg(2 << 20, 8192, 0));
	sharing_row_pop(sh);
	b = sharing_row_push(sh);
	add(sh, 261, 1, 1, reg(3 << 20, 16384, 0));
	add(sh, 262, 1, 1, inl(100, 3));
	add(sh, 263, 1, 1, (struct extent_info){ .type = BTRFS_FILE_EXTENT_REG });
	sharing_row_pop(sh);
	CU_ASSERT_EQUAL(sharing_resolve(sh, NULL, NULL), 0);
	CU_ASSERT_EQUAL(sharing_row_exclusive(sh, a1), 4096);
	CU_ASSERT_EQUAL(sharing_row_exclusive(sh, a), 4096 + 8192);
	/* inline data is exclusive only in leaves of its own, which only
	 * the filesystem's tree nodes tell (fd -1: none read): not here */
	CU_ASSERT_EQUAL(sharing_row_exclusive(sh, b), 0);
	CU_ASSERT_EQUAL(sharing_row_metadata(sh, b), 0);
	sharing_total(sh, &res);
	CU_ASSERT_EQUAL(res.exclusive, 4096 + 8192 + 16384);
	CU_ASSERT_EQUAL(res.exclusive_data, 4096 + 8192 + 16384);
	CU_ASSERT_EQUAL(res.exclusive_metadata, 0);
	CU_ASSERT_EQUAL(res.type[3], 4096);
	CU_ASSERT_EQUAL(res.type[0], 8192 + 16384);
	CU_ASSERT_EQUAL(res.extents, 3);	/* the hole is none */
	CU_ASSERT_EQUAL(res.shared_extents, 0);
	sharing_free(sh);
}

/* An extent an item left in place keeps is shared, not exclusive: once,
 * whoever asks, and nothing for an extent not of S (its fd is -1:
 * resolving reads nothing else). */
static void test_keep(void)
{
	struct sharing *sh = make();
	struct sharing_result res;

	add(sh, 257, 1, 1, reg(1 << 20, 4096, 0));
	add(sh, 258, 1, 1, reg(2 << 20, 8192, 3));
	add(sh, 259, 1, 1, reg(3 << 20, 16384, 0));
	sharing_keep(sh, FS, 2 << 20);
	sharing_keep(sh, FS, 2 << 20);
	sharing_keep(sh, FS, 9 << 20);		/* not of S */
	sharing_keep(sh, FS + 1, 1 << 20);	/* another filesystem */
	sharing_keep(sh, FS, 0);		/* a hole */
	CU_ASSERT_EQUAL(sharing_resolve(sh, NULL, NULL), 0);
	sharing_total(sh, &res);
	CU_ASSERT_EQUAL(res.extents, 3);
	CU_ASSERT_EQUAL(res.shared_extents, 1);
	CU_ASSERT_EQUAL(res.exclusive, 4096 + 16384);
	CU_ASSERT_EQUAL(res.type[3], 0);
	sharing_free(sh);
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static size_t put_inode(uint8_t *buf, size_t pos, uint64_t ino,
			uint32_t mode, uint32_t nlink)
{
	uint8_t it[INODE_ITEM_SIZE] = { 0 };

	put_le(it + INODE_MODE, mode, 4);
	put_le(it + INODE_NLINK, nlink, 4);
	return put_item(buf, pos, ino, BTRFS_INODE_ITEM_KEY, 0, it,
			sizeof(it));
}

/* An INODE_REF item of ino in directory dir with names of the given
 * lengths (ext: an INODE_EXTREF item, keyed by a hash instead). */
static size_t put_refs(uint8_t *buf, size_t pos, uint64_t ino, uint64_t dir,
		       int ext, const uint16_t *lens, int n)
{
	uint8_t it[256] = { 0 };
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (ext) {
			put_le(it + len, dir, 8);
			put_le(it + len + INODE_EXTREF_NAME_LEN, lens[i], 2);
			len += INODE_EXTREF_SIZE + lens[i];
		} else {
			put_le(it + len + INODE_REF_NAME_LEN, lens[i], 2);
			len += INODE_REF_SIZE + lens[i];
		}
	}
	return put_item(buf, pos, ino,
			ext ? BTRFS_INODE_EXTREF_KEY : BTRFS_INODE_REF_KEY,
			dir, it, len);
}

/* One name of ino in directory 256. */
static size_t put_name(uint8_t *buf, size_t pos, uint64_t ino)
{
	static const uint16_t one = 5;

	return put_refs(buf, pos, ino, 256, 0, &one, 1);
}

static size_t put_extent(uint8_t *buf, size_t pos, uint64_t ino,
			 uint8_t type, uint64_t bytenr)
{
	uint8_t fe[FE_REG_SIZE] = { 0 };

	fe[FE_TYPE] = type;
	put_le(fe + FE_DISK_BYTENR, bytenr, 8);
	put_le(fe + FE_DISK_NUM_BYTES, 4096, 8);
	put_le(fe + FE_NUM_BYTES, 4096, 8);
	return put_item(buf, pos, ino, BTRFS_EXTENT_DATA_KEY, 0, fe,
			type == BTRFS_FILE_EXTENT_INLINE ? 30 : FE_REG_SIZE);
}

/* Reading the rest of the filesystem: which references make an extent
 * shared.  A file's names are its INODE_REF and INODE_EXTREF items', not
 * its inode item's nlink, which lags behind until the commit. */
static void test_outside(void)
{
	static const uint16_t two[2] = { 3, 7 };
	struct sharing *sh = make();
	struct sharing_result res;
	uint8_t buf[4096];
	size_t n = 0;

	/* in S: 300 with one of its two names; 301 with both */
	add(sh, 300, 2, 1, reg(1 << 20, 4096, 0));
	add(sh, 301, 2, 1, reg(2 << 20, 4096, 0));
	add(sh, 301, 2, 1, reg(2 << 20, 4096, 0));
	add(sh, 302, 1, 1, reg(3 << 20, 4096, 0));
	add(sh, 303, 1, 1, reg(4 << 20, 4096, 0));
	add(sh, 304, 1, 1, reg(5 << 20, 4096, 0));
	/* the same subvolume read whole; a link outside: two names in one
	 * item, its nlink still 1 (the link not yet committed) */
	n = put_inode(buf, n, 300, S_IFREG | 0644, 1);
	n = put_refs(buf, n, 300, 256, 0, two, 2);
	n = put_extent(buf, n, 300, BTRFS_FILE_EXTENT_REG, 1 << 20);
	/* wholly in S: two names, one of them in an INODE_EXTREF item */
	n = put_inode(buf, n, 301, S_IFREG | 0644, 2);
	n = put_name(buf, n, 301);
	n = put_refs(buf, n, 301, 257, 1, two, 1);
	n = put_extent(buf, n, 301, BTRFS_FILE_EXTENT_REG, 2 << 20);
	/* an orphan: its last name removed, nlink not yet 0 */
	n = put_inode(buf, n, 310, S_IFREG | 0644, 1);
	n = put_extent(buf, n, 310, BTRFS_FILE_EXTENT_REG, 3 << 20);
	n = put_inode(buf, n, 311, S_IFLNK | 0777, 1);	/* not a file */
	n = put_name(buf, n, 311);
	n = put_extent(buf, n, 311, BTRFS_FILE_EXTENT_REG, 3 << 20);
	n = put_inode(buf, n, 312, S_IFREG | 0644, 1);	/* a reflink */
	n = put_name(buf, n, 312);
	n = put_extent(buf, n, 312, BTRFS_FILE_EXTENT_PREALLOC, 4 << 20);
	n = put_extent(buf, n, 312, BTRFS_FILE_EXTENT_INLINE, 0);
	CU_ASSERT_EQUAL(sharing_read_items(sh, FS, ROOT, buf, n), 0);
	/* a subvolume wholly in S is not looked at */
	CU_ASSERT_EQUAL(sharing_whole_root(sh, FS, 257), 0);
	n = put_inode(buf, 0, 400, S_IFREG | 0644, 1);
	n = put_name(buf, n, 400);
	n = put_extent(buf, n, 400, BTRFS_FILE_EXTENT_REG, 5 << 20);
	CU_ASSERT_EQUAL(sharing_read_items(sh, FS, 257, buf, n), 0);
	CU_ASSERT_EQUAL(sharing_resolve(sh, NULL, NULL), 0);
	sharing_total(sh, &res);
	CU_ASSERT_EQUAL(res.extents, 5);
	CU_ASSERT_EQUAL(res.shared_extents, 2);
	CU_ASSERT_EQUAL(res.exclusive, 3 * 4096);
	/* once everything is shared, reading stops */
	n = put_inode(buf, 0, 500, S_IFREG | 0644, 1);
	n = put_name(buf, n, 500);
	n = put_extent(buf, n, 500, BTRFS_FILE_EXTENT_REG, 2 << 20);
	n = put_extent(buf, n, 500, BTRFS_FILE_EXTENT_REG, 3 << 20);
	CU_ASSERT_EQUAL(sharing_read_items(sh, FS, 258, buf, n), 0);
	n = put_extent(buf, n, 500, BTRFS_FILE_EXTENT_REG, 5 << 20);
	CU_ASSERT_EQUAL(sharing_read_items(sh, FS, 258, buf, n), 1);
	CU_ASSERT_EQUAL(sharing_read_items(sh, FS, 258, buf, n - 1),
			-EUCLEAN);
	CU_ASSERT(sharing_memory(sh) > 0);
	sharing_free(sh);
}

static CU_TestInfo tests[] = {
	{ "rows", test_rows },
	{ "extents an item left keeps", test_keep },
	{ "outside references", test_outside },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(sharing, tests)
