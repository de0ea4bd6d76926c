// SPDX-License-Identifier: GPL-2.0
/* walkorder: the files of the trees the fast scan lists, in the order the
 * walk meets them (each directory's entries by index, depth first, a
 * nested subvolume where its entry is). */
#include <stdlib.h>
#include "unit.h"
#include "walk/walkorder.h"

#define TOP	5
#define SUB	260
#define ROOT	256

/* A file's key: its tree in the high bits. */
static uint64_t key_of(void *arg, uint64_t tree_id, uint64_t ino)
{
	(void)arg;
	return tree_id << 32 | ino;
}

/* The rank of file ino of tree, or -1 when the walk does not meet it. */
static long long rank_of(const struct walkorder_rank *r, size_t n,
			 uint64_t tree_id, uint64_t ino)
{
	uint64_t key = key_of(NULL, tree_id, ino);
	size_t i;

	/* sorted by key, a file's first name first */
	for (i = 0; i < n; i++) {
		if (i && r[i - 1].key > r[i].key)
			return -2;
		if (r[i].key == key)
			return (long long)r[i].rank;
	}
	return -1;
}

/*
 * The top tree's root: file 300 (index 2), directory 257 (3), subvolume
 * SUB (4), file 301 (5); 257: file 303 (7) and 302 (2), and a second
 * name of 300 (9).  SUB's root: file 300 (2), directory 257 (3) with
 * file 310.  Directory 270 is named nowhere: its file 320 is not met.
 * Given in another order than the streams': sorted on the way.
 */
static void test_order(void)
{
	struct walkorder *o = walkorder_create();
	struct walkorder_rank *r = NULL;
	size_t n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 7, 303, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 2, 302, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 9, 300, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 5, 301, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 3, 257, WALKORDER_DIR), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 2, 300, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 270, 2, 320, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, SUB, ROOT, 2, 300, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, SUB, ROOT, 3, 257, WALKORDER_DIR), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, SUB, 257, 2, 310, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 4, SUB,
					WALKORDER_SUBVOL), 0);
	CU_ASSERT_EQUAL(walkorder_ranks(o, TOP, ROOT, key_of, NULL, &r, &n,
					 NULL), 0);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 300), 0);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 302), 1);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 303), 2);
	/* 300's second name is met later: the first counts */
	CU_ASSERT_EQUAL(rank_of(r, n, SUB, 300), 4);
	CU_ASSERT_EQUAL(rank_of(r, n, SUB, 310), 5);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 301), 6);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 320), -1);
	CU_ASSERT_EQUAL(n, 7);
	free(r);
	/* from directory 257 alone */
	CU_ASSERT_EQUAL(walkorder_ranks(o, TOP, 257, key_of, NULL, &r, &n,
					 NULL), 0);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 302), 0);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 300), 2);
	free(r);
	walkorder_free(o);
}

/* A corrupt tree whose directory names its parent: each file once, and
 * the walk ends. */
static void test_loop(void)
{
	struct walkorder *o = walkorder_create();
	struct walkorder_rank *r = NULL;
	size_t n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 2, 257, WALKORDER_DIR), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 3, 300, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 2, ROOT, WALKORDER_DIR), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 3, 257, WALKORDER_DIR), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 4, 301, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 4, TOP,
					WALKORDER_SUBVOL), 0);
	CU_ASSERT_EQUAL(walkorder_ranks(o, TOP, ROOT, key_of, NULL, &r, &n,
					 NULL), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 301), 0);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 300), 1);
	free(r);
	/* a tree none of whose entries were given: nothing */
	CU_ASSERT_EQUAL(walkorder_ranks(o, 999, ROOT, key_of, NULL, &r, &n,
					 NULL), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(r);
	walkorder_free(o);
}

/* A tree the walk meets in inode order (copied with cp -a): nothing to
 * give; the same with a subvolume nested before a file, given. */
static void test_listed(void)
{
	struct walkorder *o = walkorder_create();
	struct walkorder_rank *r = NULL;
	size_t n = 1;
	int listed = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 2, 300, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 3, 257, WALKORDER_DIR), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 4, 302, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 2, 301, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, SUB, ROOT, 2, 257, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_ranks(o, TOP, ROOT, key_of, NULL, &r, &n,
					&listed), 0);
	CU_ASSERT_EQUAL(listed, 1);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(r);
	/* SUB nested after them: still as listed */
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 9, SUB,
					WALKORDER_SUBVOL), 0);
	CU_ASSERT_EQUAL(walkorder_ranks(o, TOP, ROOT, key_of, NULL, &r, &n,
					&listed), 0);
	CU_ASSERT_EQUAL(listed, 1);
	walkorder_free(o);
	/* and nested before 257 and 302: met before them */
	o = walkorder_create();
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 2, 300, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 4, 257, WALKORDER_DIR), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 5, 302, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, 257, 2, 301, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, SUB, ROOT, 2, 257, WALKORDER_FILE), 0);
	CU_ASSERT_EQUAL(walkorder_entry(o, TOP, ROOT, 3, SUB,
					WALKORDER_SUBVOL), 0);
	CU_ASSERT_EQUAL(walkorder_ranks(o, TOP, ROOT, key_of, NULL, &r, &n,
					&listed), 0);
	CU_ASSERT_EQUAL(listed, 0);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 300), 0);
	CU_ASSERT_EQUAL(rank_of(r, n, SUB, 257), 1);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 301), 2);
	CU_ASSERT_EQUAL(rank_of(r, n, TOP, 302), 3);
	free(r);
	walkorder_free(o);
}

static CU_TestInfo tests[] = {
	{ "the walk's order", test_order },
	{ "a loop", test_loop },
	{ "in the order listed", test_listed },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(walkorder, tests)
