// SPDX-License-Identifier: GPL-2.0
/* lsdefer: a listener's calls made on another thread, in order, with the
 * same arguments; its first error stops them and comes back. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"
#include "scan/lsdefer.h"

/* What the listener was called with, as one running hash and a count per
 * kind of call; fail_at: the call that returns -ENOMEM (0: none). */
struct calls {
	pthread_t thread;
	int other_thread;	/* a call made on another thread than main's */
	uint64_t hash;
	size_t files, refs, entries, places, n, fail_at, after_fail;
};

static void mix(struct calls *c, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		c->hash = (c->hash ^ b[i]) * 0x100000001b3ull;
}

static int count(struct calls *c)
{
	c->other_thread |= !pthread_equal(pthread_self(), c->thread);
	if (c->fail_at && c->n >= c->fail_at)
		c->after_fail++;
	return ++c->n == c->fail_at ? -ENOMEM : 0;
}

static int on_file(void *arg, const struct fastscan_file *f)
{
	struct calls *c = arg;

	c->files++;
	mix(c, "F", 1);
	mix(c, &f->ino, sizeof(f->ino));
	mix(c, &f->size, sizeof(f->size));
	mix(c, &f->nlink, sizeof(f->nlink));
	mix(c, &f->disk, sizeof(f->disk));
	/* its name, with the NUL after it */
	mix(c, &f->name_len, sizeof(f->name_len));
	mix(c, f->name, f->name_len + 1);
	return count(c);
}

static int on_ref(void *arg, const struct extent_info *ei,
		  const uint8_t *item, size_t len)
{
	struct calls *c = arg;

	c->refs++;
	mix(c, "R", 1);
	mix(c, &ei->disk_bytenr, sizeof(ei->disk_bytenr));
	mix(c, &ei->file_pos, sizeof(ei->file_pos));
	mix(c, &len, sizeof(len));
	mix(c, item, len);
	return count(c);
}

static int on_entry(void *arg, uint64_t tree_id, uint64_t dir, uint64_t child,
		    uint8_t loc_type, uint8_t ftype)
{
	struct calls *c = arg;

	c->entries++;
	mix(c, "E", 1);
	mix(c, &tree_id, sizeof(tree_id));
	mix(c, &dir, sizeof(dir));
	mix(c, &child, sizeof(child));
	mix(c, &loc_type, 1);
	mix(c, &ftype, 1);
	return count(c);
}

static int on_place(void *arg, uint64_t tree_id, uint64_t dir,
		    uint64_t index, uint64_t child, int kind)
{
	struct calls *c = arg;

	c->places++;
	mix(c, "P", 1);
	mix(c, &tree_id, sizeof(tree_id));
	mix(c, &dir, sizeof(dir));
	mix(c, &index, sizeof(index));
	mix(c, &child, sizeof(child));
	mix(c, &kind, sizeof(kind));
	return count(c);
}

/*
 * n calls of every kind, some refs with items larger than a pooled chunk
 * and many more calls than the pool holds, made on ls; stops at the first
 * non-zero return, which it returns.
 */
static int play(const struct fastscan_listener *ls, size_t n)
{
	static uint8_t item[300 << 10];
	static const char *const names[] = { "", "a.c", "libz.so.1.2.13",
					      "some name of a file.tar.gz" };
	struct fastscan_file f = { .tree_id = 5 };
	struct extent_info ei = { .type = 1 };
	size_t i, len, off;
	int ret = 0;

	for (i = 0; i < sizeof(item); i++)
		item[i] = (uint8_t)(i * 131 + (i >> 9));
	for (i = 0; !ret && i < n; i++) {
		f.ino = 256 + i;
		f.size = i * 4096 + 7;
		f.nlink = 1 + (uint32_t)(i % 3);
		f.disk = i * 977;
		f.name = names[i % 4];
		f.name_len = (uint32_t)strlen(f.name);
		ei.disk_bytenr = i << 12;
		ei.file_pos = i * 3;
		len = i % 1000 == 999 ? sizeof(item) - i % 7 : i % 97;
		off = i % 5 < len ? i % 5 : 0;
		ret = ls->ref(ls->arg, &ei, item + off, len - off);
		if (!ret)
			ret = ls->file(ls->arg, &f);
		if (!ret)
			ret = ls->entry(ls->arg, 5, 256 + i / 10, 256 + i,
					1, (uint8_t)(i % 8));
		if (!ret)
			ret = ls->place(ls->arg, 5, 256 + i / 10, 2 + i % 10,
					256 + i, (int)(i % 3));
	}
	return ret;
}

static void test_same_calls(void)
{
	struct calls direct = { .thread = pthread_self() };
	struct calls queued = { .thread = pthread_self() };
	struct fastscan_listener ls = {
		.file = on_file, .ref = on_ref, .entry = on_entry,
		.place = on_place, .arg = &direct, .names = 1,
	}, q;
	struct lsdefer *d;

	CU_ASSERT_EQUAL(play(&ls, 20000), 0);
	ls.arg = &queued;
	d = lsdefer_start(&ls, &q);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(q.names, 1);
	CU_ASSERT_EQUAL(play(&q, 20000), 0);
	CU_ASSERT_EQUAL(lsdefer_finish(d), 0);
	CU_ASSERT_EQUAL(queued.n, 80000);
	CU_ASSERT_EQUAL(queued.files, direct.files);
	CU_ASSERT_EQUAL(queued.refs, direct.refs);
	CU_ASSERT_EQUAL(queued.entries, direct.entries);
	CU_ASSERT_EQUAL(queued.places, direct.places);
	CU_ASSERT_EQUAL(queued.hash, direct.hash);
	CU_ASSERT_EQUAL(direct.other_thread, 0);
	CU_ASSERT_EQUAL(queued.other_thread, 1);
}

/* A listener without ref, entry or place gets a queue without them. */
static void test_null_calls(void)
{
	struct calls c = { .thread = pthread_self() };
	struct fastscan_listener ls = { .file = on_file, .arg = &c }, q;
	struct fastscan_file f = { .ino = 300, .name = "" };
	struct lsdefer *d = lsdefer_start(&ls, &q);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NULL(q.ref);
	CU_ASSERT_PTR_NULL(q.entry);
	CU_ASSERT_PTR_NULL(q.place);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q.file);
	CU_ASSERT_EQUAL(q.file(q.arg, &f), 0);
	CU_ASSERT_EQUAL(lsdefer_finish(d), 0);
	CU_ASSERT_EQUAL(c.files, 1);
}

/* The listener fails at its 5000th call: no call after it, the queue's
 * calls return the error soon, and lsdefer_finish() returns it. */
static void test_error(void)
{
	struct calls c = { .thread = pthread_self(), .fail_at = 5000 };
	struct fastscan_listener ls = {
		.file = on_file, .ref = on_ref, .entry = on_entry,
		.place = on_place, .arg = &c,
	}, q;
	struct lsdefer *d = lsdefer_start(&ls, &q);
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	/* the pool is bounded: the queue can't run far past the failure */
	ret = play(&q, 1000000);
	CU_ASSERT_EQUAL(ret, -ENOMEM);
	CU_ASSERT_EQUAL(lsdefer_finish(d), -ENOMEM);
	CU_ASSERT_EQUAL(c.n, 5000);
	CU_ASSERT_EQUAL(c.after_fail, 0);
}

/* Nothing queued. */
static void test_empty(void)
{
	struct calls c = { .thread = pthread_self() };
	struct fastscan_listener ls = { .file = on_file, .arg = &c }, q;
	struct lsdefer *d = lsdefer_start(&ls, &q);

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(lsdefer_finish(d), 0);
	CU_ASSERT_EQUAL(c.n, 0);
}

static CU_TestInfo tests[] = {
	{ "same_calls", test_same_calls },
	{ "null_calls", test_null_calls },
	{ "error", test_error },
	{ "empty", test_empty },
	CU_TEST_INFO_NULL,
};

UNIT_SUITE(lsdefer, tests);
