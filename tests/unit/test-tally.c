// SPDX-License-Identifier: GPL-2.0
/* The progress line's early total (tally.h): every file once, hard links
 * once, the caller's cost of each, and a stop mid-walk. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "unit.h"
#include "estimate/tally.h"

/* tally_bytes_fn: st_size */
static uint64_t size_of(void *arg, const struct stat *st)
{
	(void)arg;
	return (uint64_t)st->st_size;
}

static void put(const char *dir, const char *name, size_t len)
{
	char path[512];
	char *buf = calloc(1, len + 1);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0 && buf);
	CU_ASSERT_EQUAL(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

static int wait_done(struct tally *t, uint64_t *total)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (tally_get(t, total))
			return 1;
		usleep(1000);
	}
	return 0;
}

static void test_tally(void)
{
	char dir[] = "/tmp/compsize-tally.XXXXXX", sub[64], a[128], b[128];
	char cmd[256];
	char *paths[2];
	struct tally *t;
	uint64_t total = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(sub, 0755), 0);
	put(dir, "one", 1000);
	put(sub, "two", 20000);
	put(sub, "empty", 0);
	/* a hard link: the file counts once */
	snprintf(a, sizeof(a), "%s/two", sub);
	snprintf(b, sizeof(b), "%s/link", dir);
	CU_ASSERT_EQUAL(link(a, b), 0);
	/* a symlink is not followed */
	snprintf(b, sizeof(b), "%s/sym", dir);
	CU_ASSERT_EQUAL(symlink(a, b), 0);

	paths[0] = dir;
	t = tally_start(paths, 1, 0, size_of, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT(wait_done(t, &total));
	CU_ASSERT_EQUAL(total, 21000);
	tally_stop(t);

	/* two arguments, one a file inside the other: counted at each path
	 * (the estimate reads a file at each path unless it has links) */
	snprintf(a, sizeof(a), "%s/one", dir);
	paths[1] = a;
	t = tally_start(paths, 2, 0, size_of, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT(wait_done(t, &total));
	CU_ASSERT_EQUAL(total, 22000);
	tally_stop(t);

	/* stopped at once: no hang, nothing leaked (valgrind) */
	t = tally_start(paths, 2, 0, size_of, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	tally_stop(t);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

static CU_TestInfo tests[] = {
	{ "tally", test_tally },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(tally, tests)
