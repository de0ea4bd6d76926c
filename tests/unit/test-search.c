// SPDX-License-Identifier: GPL-2.0
/* The search-buffer iterator on hand-built kernel result buffers. */
#include <errno.h>
#include <string.h>
#include "unit.h"
#include "items.h"
#include "ioctl.h"
#include "scan/search.h"

static void test_iterate(void)
{
	uint8_t buf[512], payload[53] = { 1, 2, 3 };
	struct search_item it;
	size_t used = 0, pos = 0;

	CU_ASSERT_EQUAL(sizeof(struct btrfs_ioctl_search_header),
			SEARCH_HEADER_SIZE);
	used = put_item(buf, used, 257, BTRFS_EXTENT_DATA_KEY, 0, payload, 53);
	/* odd length: the next header is unaligned */
	used = put_item(buf, used, 257, BTRFS_EXTENT_DATA_KEY, 4096, payload,
			31);
	used = put_item(buf, used, 258, BTRFS_EXTENT_DATA_KEY, 1ull << 40,
			payload, 0);

	CU_ASSERT_EQUAL(search_buf_next(buf, used, &pos, &it), 1);
	CU_ASSERT_EQUAL(it.objectid, 257);
	CU_ASSERT_EQUAL(it.offset, 0);
	CU_ASSERT_EQUAL(it.len, 53);
	CU_ASSERT_EQUAL(it.transid, 7);
	CU_ASSERT_EQUAL(it.data[2], 3);
	CU_ASSERT_EQUAL(search_buf_next(buf, used, &pos, &it), 1);
	CU_ASSERT_EQUAL(it.offset, 4096);
	CU_ASSERT_EQUAL(it.len, 31);
	CU_ASSERT_EQUAL(search_buf_next(buf, used, &pos, &it), 1);
	CU_ASSERT_EQUAL(it.objectid, 258);
	CU_ASSERT_EQUAL(it.offset, 1ull << 40);
	CU_ASSERT_EQUAL(it.len, 0);
	CU_ASSERT_EQUAL(search_buf_next(buf, used, &pos, &it), 0);
	CU_ASSERT_EQUAL(pos, used);
}

static void test_truncated(void)
{
	uint8_t buf[256], payload[53] = { 0 };
	struct search_item it;
	size_t used, pos;

	used = put_item(buf, 0, 257, BTRFS_EXTENT_DATA_KEY, 0, payload, 53);
	/* the buffer ends inside the item */
	pos = 0;
	CU_ASSERT_EQUAL(search_buf_next(buf, used - 1, &pos, &it), -EUCLEAN);
	/* ... inside the header */
	pos = 0;
	CU_ASSERT_EQUAL(search_buf_next(buf, 10, &pos, &it), -EUCLEAN);
	/* a length that points past the end */
	used = put_item(buf, 0, 257, BTRFS_EXTENT_DATA_KEY, 0, payload, 53);
	((struct btrfs_ioctl_search_header *)buf)->len = 0xffffffffu;
	pos = 0;
	CU_ASSERT_EQUAL(search_buf_next(buf, used, &pos, &it), -EUCLEAN);
}

static void test_key_advance(void)
{
	struct btrfs_ioctl_search_key key = { 0 };

	CU_ASSERT_EQUAL(search_key_advance(&key, 5, 108, 4096), 0);
	CU_ASSERT_EQUAL(key.min_objectid, 5);
	CU_ASSERT_EQUAL(key.min_type, 108);
	CU_ASSERT_EQUAL(key.min_offset, 4097);
	CU_ASSERT_EQUAL(search_key_advance(&key, 5, 108, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(key.min_type, 109);
	CU_ASSERT_EQUAL(key.min_offset, 0);
	CU_ASSERT_EQUAL(search_key_advance(&key, 5, 255, UINT64_MAX), 0);
	CU_ASSERT_EQUAL(key.min_objectid, 6);
	CU_ASSERT_EQUAL(key.min_type, 0);
	CU_ASSERT_EQUAL(search_key_advance(&key, UINT64_MAX, 255, UINT64_MAX),
			1);
}

static void test_key_range(void)
{
	struct btrfs_ioctl_search_key key;

	memset(&key, 0xaa, sizeof(key));
	search_key_range(&key, 5, 256, BTRFS_INODE_ITEM_KEY, 300,
			 BTRFS_EXTENT_DATA_KEY);
	CU_ASSERT_EQUAL(key.tree_id, 5);
	CU_ASSERT_EQUAL(key.min_objectid, 256);
	CU_ASSERT_EQUAL(key.min_type, BTRFS_INODE_ITEM_KEY);
	CU_ASSERT_EQUAL(key.min_offset, 0);
	CU_ASSERT_EQUAL(key.max_objectid, 300);
	CU_ASSERT_EQUAL(key.max_type, BTRFS_EXTENT_DATA_KEY);
	CU_ASSERT_EQUAL(key.max_offset, UINT64_MAX);
	CU_ASSERT_EQUAL(key.min_transid, 0);
	CU_ASSERT_EQUAL(key.max_transid, UINT64_MAX);
	CU_ASSERT_EQUAL(key.nr_items, 0);
}

/* The names an INODE_REF or INODE_EXTREF item holds: each header whole,
 * a name's length past the item ends the count. */
static void test_ref_names(void)
{
	uint8_t d[80] = { 0 };
	struct search_item it = { .type = BTRFS_INODE_REF_KEY, .data = d };

	/* two names of 3 and 4 bytes: 13 + 14 bytes */
	d[INODE_REF_NAME_LEN] = 3;
	d[13 + INODE_REF_NAME_LEN] = 4;
	it.len = 27;
	CU_ASSERT_EQUAL(search_ref_names(&it), 2);
	/* the second header cut short */
	it.len = 13 + INODE_REF_SIZE - 1;
	CU_ASSERT_EQUAL(search_ref_names(&it), 1);
	/* a header whole, its name past the end: counted, then stops */
	it.len = 13 + INODE_REF_SIZE + 1;
	CU_ASSERT_EQUAL(search_ref_names(&it), 2);
	it.len = 0;
	CU_ASSERT_EQUAL(search_ref_names(&it), 0);
	/* extended refs: parent and index before the length */
	memset(d, 0, sizeof(d));
	it.type = BTRFS_INODE_EXTREF_KEY;
	d[INODE_EXTREF_NAME_LEN] = 2;
	d[20 + INODE_EXTREF_NAME_LEN] = 9;
	d[47 + INODE_EXTREF_NAME_LEN] = 0;
	it.len = 20 + 27 + INODE_EXTREF_SIZE;
	CU_ASSERT_EQUAL(search_ref_names(&it), 3);
	/* any other item holds none */
	it.type = BTRFS_INODE_ITEM_KEY;
	CU_ASSERT_EQUAL(search_ref_names(&it), 0);
}

struct refs_seen {
	uint64_t dir[4], index[4];
	int whole[4], n;
};

static int see_ref(void *arg, uint64_t dir, uint64_t index, int whole)
{
	struct refs_seen *r = arg;

	if (r->n < 4) {
		r->dir[r->n] = dir;
		r->index[r->n] = index;
		r->whole[r->n] = whole;
	}
	return ++r->n == 3 ? 7 : 0;
}

/* Each name's directory and index: an INODE_REF's directory is the key's
 * offset, an INODE_EXTREF's in the name's header; a name past the item's
 * end is told as not whole, and last; fn's non-zero return stops. */
static void test_each_ref(void)
{
	uint8_t d[80] = { 0 };
	struct search_item it = { .type = BTRFS_INODE_REF_KEY, .data = d,
				  .offset = 300 };
	struct refs_seen r = { 0 };

	d[INODE_REF_INDEX] = 5;
	d[INODE_REF_NAME_LEN] = 3;
	d[13 + INODE_REF_INDEX] = 9;
	d[13 + INODE_REF_NAME_LEN] = 4;
	it.len = 13 + INODE_REF_SIZE + 1;
	CU_ASSERT_EQUAL(search_each_ref(&it, see_ref, &r), 0);
	CU_ASSERT_EQUAL(r.n, 2);
	CU_ASSERT(r.dir[0] == 300 && r.index[0] == 5 && r.whole[0]);
	CU_ASSERT(r.dir[1] == 300 && r.index[1] == 9 && !r.whole[1]);
	/* extended refs: three names, the third's return stops */
	memset(d, 0, sizeof(d));
	memset(&r, 0, sizeof(r));
	it.type = BTRFS_INODE_EXTREF_KEY;
	d[INODE_EXTREF_PARENT] = 40;
	d[INODE_EXTREF_INDEX] = 2;
	d[20 + INODE_EXTREF_PARENT] = 41;
	d[20 + INODE_EXTREF_INDEX] = 3;
	d[INODE_EXTREF_NAME_LEN] = 2;
	d[20 + INODE_EXTREF_NAME_LEN] = 9;
	it.len = 20 + 27 + INODE_EXTREF_SIZE;
	CU_ASSERT_EQUAL(search_each_ref(&it, see_ref, &r), 7);
	CU_ASSERT_EQUAL(r.n, 3);
	CU_ASSERT(r.dir[0] == 40 && r.index[0] == 2 && r.whole[0]);
	CU_ASSERT(r.dir[1] == 41 && r.index[1] == 3 && r.whole[1]);
	/* any other item holds none */
	memset(&r, 0, sizeof(r));
	it.type = BTRFS_DIR_ITEM_KEY;
	CU_ASSERT_EQUAL(search_each_ref(&it, see_ref, &r), 0);
	CU_ASSERT_EQUAL(r.n, 0);
}

static CU_TestInfo tests[] = {
	{ "key range", test_key_range },
	{ "iterate", test_iterate },
	{ "truncated buffers", test_truncated },
	{ "key advance", test_key_advance },
	{ "names of inode ref items", test_ref_names },
	{ "each name of an inode ref item", test_each_ref },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(search, tests)
