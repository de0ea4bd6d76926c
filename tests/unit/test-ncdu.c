// SPDX-License-Identifier: GPL-2.0
/* ncdu's JSON export (ncdu.h): nesting, "dev" where it changes, hard
 * links, errors on a file, a directory and a missing entry, several
 * arguments, escaping as ncdu reads names.  tests/cli/062-ncdu loads the
 * output in ncdu itself. */
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "report/ncdu.h"

static struct stat st_of(dev_t dev, ino_t ino, off_t size, nlink_t nlink)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_dev = dev;
	st.st_ino = ino;
	st.st_size = size;
	st.st_nlink = nlink;
	return st;
}

/* Print n (timestamp fixed), free it, return the text. */
static char *print(struct ncdu *n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(ncdu_print(n, f, "2.0.0", 1700000000), 0);
	fclose(f);
	ncdu_free(n);
	return buf;
}

#define HEAD "[1,2,{\"progname\":\"compsize\",\"progver\":\"2.0.0\",\"timestamp\":1700000000},\n"

static void test_tree(void)
{
	struct ncdu *n = ncdu_create();
	struct stat d = st_of(7, 256, 0, 1), s = st_of(7, 300, 0, 1),
		    f1 = st_of(7, 257, 5000, 1), f2 = st_of(7, 258, 10, 2),
		    sub = st_of(9, 256, 0, 1), f3 = st_of(9, 257, 1, 1);
	char *out;

	CU_ASSERT_FATAL(n != NULL);
	CU_ASSERT_EQUAL(ncdu_dir(n, "mnt/data", &d), 0);
	CU_ASSERT_EQUAL(ncdu_file(n, "mnt/data/a", &f1, 4096), 0);
	CU_ASSERT_EQUAL(ncdu_dir(n, "mnt/data/sub", &s), 0);
	ncdu_leave(n);
	CU_ASSERT_EQUAL(ncdu_file(n, "mnt/data/b", &f2, 0), 0);
	CU_ASSERT_EQUAL(ncdu_dir(n, "mnt/data/snap", &sub), 0);
	CU_ASSERT_EQUAL(ncdu_file(n, "mnt/data/snap/c", &f3, 1), 0);
	ncdu_leave(n);
	ncdu_leave(n);
	ncdu_leave(n);	/* one too many: nothing */
	out = print(n);
	CU_ASSERT_STRING_EQUAL(out, HEAD
		"[{\"name\":\"mnt/data\",\"asize\":0,\"dsize\":0,\"dev\":7,\"ino\":256},\n"
		"{\"name\":\"a\",\"asize\":5000,\"dsize\":4096,\"ino\":257},\n"
		"[{\"name\":\"sub\",\"asize\":0,\"dsize\":0,\"ino\":300}],\n"
		"{\"name\":\"b\",\"asize\":10,\"dsize\":0,\"ino\":258,\"hlnkc\":true,\"nlink\":2},\n"
		"[{\"name\":\"snap\",\"asize\":0,\"dsize\":0,\"dev\":9,\"ino\":256},\n"
		"{\"name\":\"c\",\"asize\":1,\"dsize\":1,\"ino\":257}]]]\n");
	free(out);
}

/* Directories the walk did not leave are closed by the printer. */
static void test_unclosed(void)
{
	struct ncdu *n = ncdu_create();
	struct stat d = st_of(7, 256, 0, 1);
	char *out;

	CU_ASSERT_EQUAL(ncdu_dir(n, "x", &d), 0);
	CU_ASSERT_EQUAL(ncdu_dir(n, "x/y", &d), 0);
	out = print(n);
	CU_ASSERT_STRING_EQUAL(strchr(out, '\n') + 1,
		"[{\"name\":\"x\",\"asize\":0,\"dsize\":0,\"dev\":7,\"ino\":256},\n"
		"[{\"name\":\"y\",\"asize\":0,\"dsize\":0,\"ino\":256}]]]\n");
	free(out);
}

static void test_errors(void)
{
	struct ncdu *n = ncdu_create();
	struct stat d = st_of(7, 256, 0, 1), f = st_of(7, 257, 3, 1);
	char *out;

	CU_ASSERT_EQUAL(ncdu_dir(n, "r", &d), 0);
	/* the file just added */
	CU_ASSERT_EQUAL(ncdu_file(n, "r/f", &f, 3), 0);
	CU_ASSERT_EQUAL(ncdu_error(n, "r/f"), 0);
	/* an entry that could not be opened */
	CU_ASSERT_EQUAL(ncdu_error(n, "r/gone"), 0);
	/* the open directory (readdir failed) */
	CU_ASSERT_EQUAL(ncdu_dir(n, "r/s", &d), 0);
	CU_ASSERT_EQUAL(ncdu_file(n, "r/s/g", &f, 0), 0);
	CU_ASSERT_EQUAL(ncdu_error(n, "r/s"), 0);
	ncdu_leave(n);
	/* after leaving, errors go to the parent again */
	CU_ASSERT_EQUAL(ncdu_error(n, "r"), 0);
	ncdu_leave(n);
	/* an argument that could not be read */
	CU_ASSERT_EQUAL(ncdu_error(n, "missing"), 0);
	out = print(n);
	CU_ASSERT_STRING_EQUAL(strchr(out, '\n') + 1,
		"[{\"name\":\"compsize: 2 arguments\"},\n"
		"[{\"name\":\"r\",\"asize\":0,\"dsize\":0,\"dev\":7,\"ino\":256,\"read_error\":true},\n"
		"{\"name\":\"f\",\"asize\":3,\"dsize\":3,\"ino\":257,\"read_error\":true},\n"
		"{\"name\":\"gone\",\"read_error\":true},\n"
		"[{\"name\":\"s\",\"asize\":0,\"dsize\":0,\"ino\":256,\"read_error\":true},\n"
		"{\"name\":\"g\",\"asize\":3,\"dsize\":0,\"ino\":257}]],\n"
		"{\"name\":\"missing\",\"read_error\":true}]]\n");
	free(out);
}

/* A mount of another filesystem inside the tree: listed, excluded. */
static void test_excluded(void)
{
	struct ncdu *n = ncdu_create();
	struct stat d = st_of(7, 256, 0, 1), t = st_of(30, 1, 40, 2);
	char *out;

	CU_ASSERT_EQUAL(ncdu_dir(n, "r", &d), 0);
	CU_ASSERT_EQUAL(ncdu_excluded(n, "r/tmp", &t), 0);
	ncdu_leave(n);
	out = print(n);
	CU_ASSERT_STRING_EQUAL(strchr(out, '\n') + 1,
		"[{\"name\":\"r\",\"asize\":0,\"dsize\":0,\"dev\":7,\"ino\":256},\n"
		"{\"name\":\"tmp\",\"asize\":0,\"dsize\":0,\"dev\":30,\"ino\":1,\"excluded\":\"otherfs\"}]]\n");
	free(out);
}

static void test_roots(void)
{
	struct ncdu *n = ncdu_create();
	struct stat d = st_of(7, 256, 0, 1), f = st_of(7, 257, 3, 1);
	char *out;

	CU_ASSERT_EQUAL(ncdu_file(n, "x", &f, 4096), 0);
	CU_ASSERT_EQUAL(ncdu_dir(n, "y/", &d), 0);
	CU_ASSERT_EQUAL(ncdu_file(n, "y/z", &f, 1), 0);
	ncdu_leave(n);
	out = print(n);
	CU_ASSERT_STRING_EQUAL(strchr(out, '\n') + 1,
		"[{\"name\":\"compsize: 2 arguments\"},\n"
		"{\"name\":\"x\",\"asize\":3,\"dsize\":4096,\"dev\":7,\"ino\":257},\n"
		"[{\"name\":\"y/\",\"asize\":0,\"dsize\":0,\"dev\":7,\"ino\":256},\n"
		"{\"name\":\"z\",\"asize\":3,\"dsize\":1,\"ino\":257}]]]\n");
	free(out);

	/* one file alone: still inside a directory */
	n = ncdu_create();
	CU_ASSERT_EQUAL(ncdu_file(n, "x", &f, 4096), 0);
	out = print(n);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "[{\"name\":\"compsize: 1 argument\"},\n{\"name\":\"x\""));
	free(out);

	/* nothing at all */
	out = print(ncdu_create());
	CU_ASSERT_STRING_EQUAL(out, HEAD "[{\"name\":\"compsize: 0 arguments\"}]]\n");
	free(out);
}

static void test_escaping(void)
{
	struct ncdu *n = ncdu_create();
	struct stat d = st_of(7, 256, 0, 1), f = st_of(7, 257, 3, 1);
	char *out;

	CU_ASSERT_EQUAL(ncdu_dir(n, "r", &d), 0);
	CU_ASSERT_EQUAL(ncdu_file(n, "r/q\"b\\n\nt\tdel\x7f" "c\x01" "bad\xff\xfe" "\xc3\xa9\xc2\x9b",
				  &f, 0), 0);
	out = print(n);
	/* as ncdu -o writes names: only what ncdu's reader rejects raw */
	CU_ASSERT_PTR_NOT_NULL(strstr(out,
		"{\"name\":\"q\\\"b\\\\n\\nt\\tdel\\u007fc\\u0001bad\xff\xfe\xc3\xa9\xc2\x9b\","));
	free(out);
}

static CU_TestInfo tests[] = {
	{ "tree", test_tree },
	{ "unclosed directories", test_unclosed },
	{ "errors", test_errors },
	{ "other filesystems", test_excluded },
	{ "several arguments", test_roots },
	{ "escaping", test_escaping },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(ncdu, tests)
