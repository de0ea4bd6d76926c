// SPDX-License-Identifier: GPL-2.0
/* prune: which directories a sample's walk may leave out, and the files
 * it counts without the walk. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
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
	CU_ASSERT_EQUAL(prune_plan(p, need7, NULL, &calls), 0);
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
	CU_ASSERT_EQUAL(prune_plan(p, need7, NULL, &calls), 0);
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
	CU_ASSERT_EQUAL(prune_plan(p, need_fail, NULL, NULL), -ENOMEM);
	prune_free(p);
	prune_free(NULL);
}

/* The hints: each file's before need() asks of it, once, in order. */
struct hints {
	uint64_t told[64], asked[64];
	size_t ntold, nasked;
	int early;		/* a file asked before it was told */
};

static void hint(void *arg, uint64_t ino)
{
	struct hints *h = arg;

	if (h->ntold < 64)
		h->told[h->ntold++] = ino;
}

static int need_hinted(void *arg, uint64_t ino)
{
	struct hints *h = arg;
	size_t i;
	int told = 0;

	for (i = 0; i < h->ntold; i++)
		told |= h->told[i] == ino;
	h->early |= !told;
	if (h->nasked < 64)
		h->asked[h->nasked++] = ino;
	return ino % 10 == 7;
}

static void test_hint(void)
{
	struct prune *p = prune_create(TREE, ROOT);
	struct hints h = { .ntold = 0 };
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* more files than the hints run ahead, in no order of inodes */
	for (i = 0; i < 20; i++)
		add(p, ROOT, 1000 + (i * 7) % 20, BTRFS_FT_REG_FILE);
	CU_ASSERT_EQUAL(prune_plan(p, need_hinted, hint, &h), 0);
	CU_ASSERT_EQUAL(h.early, 0);
	CU_ASSERT_EQUAL_FATAL(h.nasked, 20);
	CU_ASSERT_EQUAL_FATAL(h.ntold, 20);
	for (i = 0; i < 20; i++) {
		CU_ASSERT_EQUAL(h.told[i], 1000 + (i * 7) % 20);
		CU_ASSERT_EQUAL(h.asked[i], h.told[i]);
	}
	prune_free(p);
}

/* On two threads: each file asked once, some on the other thread, each
 * hinted first (within its half) and hinted once. */
#define SPLIT_FILES	20000
#define SPLIT_INO(i)	(100000 + ((uint64_t)(i) * 7919) % SPLIT_FILES)

struct split {
	pthread_t main;
	uint8_t told[SPLIT_FILES], asked[SPLIT_FILES];
	unsigned long other, early, twice, fail_at;
};

static void split_hint(void *arg, uint64_t ino)
{
	struct split *s = arg;

	__atomic_add_fetch(&s->told[ino - 100000], 1, __ATOMIC_RELAXED);
}

static int split_need(void *arg, uint64_t ino)
{
	struct split *s = arg;
	size_t i = ino - 100000;

	if (!pthread_equal(pthread_self(), s->main))
		__atomic_add_fetch(&s->other, 1, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&s->told[i], __ATOMIC_RELAXED))
		__atomic_add_fetch(&s->early, 1, __ATOMIC_RELAXED);
	if (__atomic_add_fetch(&s->asked[i], 1, __ATOMIC_RELAXED) > 1)
		__atomic_add_fetch(&s->twice, 1, __ATOMIC_RELAXED);
	if (s->fail_at && ino == s->fail_at)
		return -EIO;
	return ino % 10 == 7;
}

/* SPLIT_FILES files in directories of 100, and a second name for one in
 * ten: planned on threads threads. */
static struct prune *split_tree(void)
{
	struct prune *p = prune_create(TREE, ROOT);
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (i = 0; i < SPLIT_FILES / 100; i++)
		add(p, ROOT, 300 + i, BTRFS_FT_DIR);
	for (i = 0; i < SPLIT_FILES; i++) {
		add(p, 300 + i / 100, SPLIT_INO(i), BTRFS_FT_REG_FILE);
		if (i % 10 == 3)
			add(p, 300 + (i + 50) % SPLIT_FILES / 100, SPLIT_INO(i),
			    BTRFS_FT_REG_FILE);
	}
	return p;
}

static void test_split(void)
{
	static struct split s1, s2;
	struct prune *one = split_tree(), *two = split_tree();
	const uint64_t *a1, *a2;
	size_t n1, n2, i;

	s1.main = s2.main = pthread_self();
	CU_ASSERT_EQUAL(prune_plan_threads(one, split_need, split_hint, &s1,
					   1), 0);
	CU_ASSERT_EQUAL(prune_plan_threads(two, split_need, split_hint, &s2,
					   2), 0);
	CU_ASSERT_EQUAL(s1.other, 0);
	CU_ASSERT(s2.other > 0 && s2.other < 2 * SPLIT_FILES);
	CU_ASSERT_EQUAL(s1.early + s2.early, 0);
	for (i = 0; i < SPLIT_FILES; i++) {
		/* the second names are asked of too, as one thread asks */
		CU_ASSERT_EQUAL(s2.asked[i], s1.asked[i]);
		CU_ASSERT_EQUAL(s2.told[i], s1.told[i]);
	}
	/* the same files counted, in the same order; the same directories
	 * left out */
	n1 = prune_ahead(one, &a1);
	n2 = prune_ahead(two, &a2);
	CU_ASSERT_EQUAL_FATAL(n1, n2);
	CU_ASSERT(n1 > SPLIT_FILES / 2);
	CU_ASSERT_EQUAL(memcmp(a1, a2, n1 * sizeof(*a1)), 0);
	for (i = 0; i < SPLIT_FILES; i += 37)
		CU_ASSERT_EQUAL(prune_counted(two, SPLIT_INO(i)),
				prune_counted(one, SPLIT_INO(i)));
	for (i = 0; i < SPLIT_FILES / 100; i++)
		CU_ASSERT_EQUAL(prune_skip_dir(two, ROOT, 300 + i),
				prune_skip_dir(one, ROOT, 300 + i));
	prune_free(one);
	prune_free(two);
}

/* An error on either half comes back as it would asked in order; fewer
 * files than a split is worth stay on this thread. */
static void test_split_error(void)
{
	static struct split s;
	struct prune *p;
	size_t k;

	for (k = 0; k < 3; k++) {
		memset(&s, 0, sizeof(s));
		s.main = pthread_self();
		s.fail_at = SPLIT_INO(k == 0 ? 10 : k == 1 ? SPLIT_FILES - 10 :
				      SPLIT_FILES / 2);
		p = split_tree();
		CU_ASSERT_EQUAL(prune_plan_threads(p, split_need, split_hint,
						   &s, 2), -EIO);
		CU_ASSERT(s.other > 0);
		prune_free(p);
	}
	memset(&s, 0, sizeof(s));
	s.main = pthread_self();
	p = prune_create(TREE, ROOT);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (k = 0; k < 100; k++)
		add(p, ROOT, SPLIT_INO(k), BTRFS_FT_REG_FILE);
	CU_ASSERT_EQUAL(prune_plan_threads(p, split_need, split_hint, &s, 2),
			0);
	CU_ASSERT_EQUAL(s.other, 0);
	prune_free(p);
}

static CU_TestInfo tests[] = {
	{ "plan", test_plan },
	{ "loop", test_loop },
	{ "error", test_error },
	{ "hint", test_hint },
	{ "two threads", test_split },
	{ "two threads, an error", test_split_error },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(prune, tests)
