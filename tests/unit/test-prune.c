// SPDX-License-Identifier: GPL-2.0
/* prune: which directories a sample's walk may leave out, and the files
 * it counts without the walk. */
#include <errno.h>
#include <btrfsutil.h>
#include "unit.h"
#include "ioctl.h"
#include "sample/prune.h"

#define TREE	300
#define ROOT	256

/* The files the walk must meet: ino % 10 == 7. */
static int need7(void *arg, uint64_t ino)
{
	int *calls = arg;

	(*calls)++;
	return ino % 10 == 7;
}

static void add(struct prune *p, uint64_t dir, uint64_t child, uint8_t ftype)
{
	CU_ASSERT_EQUAL(prune_entry(p, TREE, dir, child, BTRFS_INODE_ITEM_KEY,
				    ftype), 0);
}

/*
 * ROOT holds directories 257 (holding 260 holding file 1007) and 258
 * (holding files 1000 and 1001, and directory 261 holding 1010), and file
 * 1002; 259 names a subvolume (id 258, which is also a directory's inode
 * number here) and holds nothing else.
 */
static void test_plan(void)
{
	struct prune *p = prune_create(TREE, ROOT);
	const uint64_t *ahead;
	size_t n;
	int calls = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	add(p, ROOT, 257, BTRFS_FT_DIR);
	add(p, ROOT, 258, BTRFS_FT_DIR);
	add(p, ROOT, 259, BTRFS_FT_DIR);
	add(p, ROOT, 1002, BTRFS_FT_REG_FILE);
	add(p, 257, 260, BTRFS_FT_DIR);
	add(p, 260, 1007, BTRFS_FT_REG_FILE);
	add(p, 258, 1000, BTRFS_FT_REG_FILE);
	add(p, 258, 1001, BTRFS_FT_REG_FILE);
	add(p, 258, 261, BTRFS_FT_DIR);
	add(p, 261, 1010, BTRFS_FT_REG_FILE);
	/* a second name of 1000, a symlink, and another tree's names:
	 * none counts */
	add(p, 261, 1000, BTRFS_FT_REG_FILE);
	add(p, 261, 1020, BTRFS_FT_SYMLINK);
	CU_ASSERT_EQUAL(prune_entry(p, TREE + 1, 258, 1027,
				    BTRFS_INODE_ITEM_KEY, BTRFS_FT_REG_FILE),
			0);
	CU_ASSERT_EQUAL(prune_entry(p, TREE, 259, 258, BTRFS_ROOT_ITEM_KEY,
				    BTRFS_FT_DIR), 0);
	CU_ASSERT_EQUAL(prune_plan(p, need7, &calls), 0);
	CU_ASSERT_EQUAL(calls, 6);

	/* counted ahead: every file but 1007, once, in the names' order */
	n = prune_ahead(p, &ahead);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT_EQUAL(ahead[0], 1002);
	CU_ASSERT_EQUAL(ahead[1], 1000);
	CU_ASSERT_EQUAL(ahead[2], 1001);
	CU_ASSERT_EQUAL(ahead[3], 1010);
	CU_ASSERT(prune_counted(p, 1000));
	CU_ASSERT(prune_counted(p, 1010));
	CU_ASSERT(!prune_counted(p, 1007));
	CU_ASSERT(!prune_counted(p, 1027));

	/* walked: the way to 1007, and to the subvolume */
	CU_ASSERT(!prune_skip_dir(p, ROOT, 257));
	CU_ASSERT(!prune_skip_dir(p, 257, 260));
	CU_ASSERT(!prune_skip_dir(p, ROOT, 259));
	/* left out: 258 and 261, nothing in them to meet */
	CU_ASSERT(prune_skip_dir(p, ROOT, 258));
	CU_ASSERT(prune_skip_dir(p, 258, 261));
	/* the subvolume's entry in 259 has d_ino 258: not left out */
	CU_ASSERT(!prune_skip_dir(p, 259, 258));
	/* a directory the pre-pass did not list */
	CU_ASSERT(!prune_skip_dir(p, ROOT, 262));
	prune_free(p);
}

/* A corrupt tree whose directories name each other in a loop, and a
 * directory with two names: the plan ends, and each is walked. */
static void test_loop(void)
{
	struct prune *p = prune_create(TREE, ROOT);
	int calls = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	add(p, 300, 301, BTRFS_FT_DIR);
	add(p, 301, 300, BTRFS_FT_DIR);
	add(p, 301, 1017, BTRFS_FT_REG_FILE);
	add(p, ROOT, 302, BTRFS_FT_DIR);
	add(p, 257, 302, BTRFS_FT_DIR);
	add(p, 302, 1027, BTRFS_FT_REG_FILE);
	CU_ASSERT_EQUAL(prune_plan(p, need7, &calls), 0);
	CU_ASSERT(!prune_skip_dir(p, 300, 301));
	CU_ASSERT(!prune_skip_dir(p, 301, 300));
	CU_ASSERT(!prune_skip_dir(p, ROOT, 302));
	prune_free(p);
}

/* An error from need() ends the plan with it. */
static int need_fail(void *arg, uint64_t ino)
{
	(void)arg;
	return ino == 1001 ? -ENOMEM : 0;
}

static void test_error(void)
{
	struct prune *p = prune_create(TREE, ROOT);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	add(p, ROOT, 1000, BTRFS_FT_REG_FILE);
	add(p, ROOT, 1001, BTRFS_FT_REG_FILE);
	CU_ASSERT_EQUAL(prune_plan(p, need_fail, NULL), -ENOMEM);
	prune_free(p);
	prune_free(NULL);
}

static CU_TestInfo tests[] = {
	{ "plan", test_plan },
	{ "loop", test_loop },
	{ "error", test_error },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(prune, tests)
