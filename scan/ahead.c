// SPDX-License-Identifier: GPL-2.0
/* Searching ahead of a long search: see ahead.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "lib/thread.h"
#include "scan/ahead.h"

/* Threads fetching ranges: a cold stream of a million files' items took
 * about half the time on four as on one, eight no less (bench/RESULTS.md). */
#define AHEAD_READERS	4
/* A range held for the search: its readers fetch ahead at most this many. */
#define AHEAD_SLOTS	(AHEAD_READERS + 1)
/* Bytes of items the search fetches itself before the readers take over:
 * a short search starts no thread. */
#define AHEAD_START	(256u << 10)
/* Bytes of items a range is sized for, from what came before, and the most
 * it holds: the search itself fetches the rest of a longer one. */
#define AHEAD_WANT	(64u << 10)
#define AHEAD_CAP	(128u << 10)

#define ARGS_SIZE	sizeof(struct btrfs_ioctl_search_args_v2)

struct range {
	uint64_t seq;
	uint64_t lo, hi;	/* its objectids */
	/* Its key range; once fetched, from where its items go on past
	 * the ones in buf. */
	struct btrfs_ioctl_search_key key;
	/* ARGS_SIZE bytes for the ioctl's header, then the items as the
	 * kernel returns them. */
	uint8_t *buf;
	size_t used;
	int ready;		/* fetched */
	int whole;		/* buf holds every item of the range */
};

struct ahead {
	int fd;
	uint32_t nodesize;
	struct btrfs_ioctl_search_key range;	/* what the readers share */

	pthread_mutex_t lock;
	pthread_cond_t moved;
	struct range slot[AHEAD_SLOTS];
	uint64_t claimed;	/* ranges claimed by readers */
	uint64_t used;		/* ranges the search has gone through */
	uint64_t next;		/* the first objectid not claimed */
	double per_id;		/* bytes of items an objectid */
	int done;		/* every objectid claimed */
	int stop;
	int started;
	pthread_t th[AHEAD_READERS];
};

/* The key range of objectids lo..hi within a's range. */
static void range_key(const struct ahead *a, uint64_t lo, uint64_t hi,
		      struct btrfs_ioctl_search_key *key)
{
	*key = a->range;
	key->min_objectid = lo;
	key->max_objectid = hi;
	if (lo != a->range.min_objectid) {
		key->min_type = 0;
		key->min_offset = 0;
	}
	if (hi != a->range.max_objectid) {
		key->max_type = UINT8_MAX;
		key->max_offset = UINT64_MAX;
	}
	key->nr_items = 0;
}

/* Claim the next range under a->lock: its slot, or NULL at the end. */
static struct range *claim(struct ahead *a)
{
	struct range *r;
	uint64_t width;

	while (!a->stop && !a->done && a->claimed - a->used >= AHEAD_SLOTS)
		pthread_cond_wait(&a->moved, &a->lock);
	if (a->stop || a->done)
		return NULL;
	r = &a->slot[a->claimed % AHEAD_SLOTS];
	r->seq = a->claimed++;
	width = AHEAD_WANT / a->per_id < (double)UINT64_MAX ?
		(uint64_t)(AHEAD_WANT / a->per_id) : UINT64_MAX;
	if (!width)
		width = 1;
	r->lo = a->next;
	if (width > a->range.max_objectid - r->lo) {
		r->hi = a->range.max_objectid;
		a->done = 1;
	} else {
		r->hi = r->lo + width - 1;
		a->next = r->hi + 1;
	}
	range_key(a, r->lo, r->hi, &r->key);
	r->used = 0;
	r->ready = 0;
	r->whole = 0;
	return r;
}

/*
 * Fetch r's items into r->buf, each ioctl's header placed just before
 * where its items go (the bytes it covers kept aside meanwhile).  On
 * return r->key starts past the items fetched; r->whole says whether
 * none remain.  A failure leaves the rest to the search, which meets it.
 */
static void fetch(struct ahead *a, struct range *r)
{
	struct btrfs_ioctl_search_args_v2 args;
	uint8_t keep[ARGS_SIZE], *at;
	struct search_item it;
	uint32_t nodesize = a->nodesize;
	size_t pos, room;
	uint32_t n;
	int ok;

	if (!nodesize || nodesize > BTRFS_MAX_NODESIZE)
		nodesize = BTRFS_MAX_NODESIZE;
	for (;;) {
		room = AHEAD_CAP - r->used;
		if (room < SEARCH_HEADER_SIZE + nodesize)
			return;
		/* At any byte: the header goes through memcpy(). */
		at = r->buf + r->used;
		memcpy(keep, at, ARGS_SIZE);
		args.key = r->key;
		args.key.nr_items = UINT32_MAX;
		args.buf_size = room;
		memcpy(at, &args, ARGS_SIZE);
		ok = ioctl(a->fd, BTRFS_IOC_TREE_SEARCH_V2, at) == 0;
		memcpy(&args, at, ARGS_SIZE);
		n = ok ? args.key.nr_items : 0;
		memcpy(at, keep, ARGS_SIZE);
		if (!ok)
			return;
		pos = 0;
		while (n && search_buf_next(r->buf + ARGS_SIZE + r->used, room,
					    &pos, &it) > 0)
			n--;
		if (n)
			return;
		r->used += pos;
		/* As search_step(): room for a header and a block left means
		 * the range ended. */
		if (room - pos >= SEARCH_HEADER_SIZE + nodesize || !pos ||
		    search_key_advance(&r->key, it.objectid, it.type,
				       it.offset) ||
		    search_key_past_max(&r->key)) {
			r->whole = 1;
			return;
		}
	}
}

static void *reader(void *arg)
{
	struct ahead *a = arg;
	struct range *r;
	double per;

	thread_block_signals();
	pthread_mutex_lock(&a->lock);
	while ((r = claim(a))) {
		pthread_mutex_unlock(&a->lock);
		fetch(a, r);
		pthread_mutex_lock(&a->lock);
		/* The next ranges sized by what this one held; past an empty
		 * one, twice as wide (the objectids after a tree's last one
		 * reach 2^64). */
		per = (double)r->used / ((double)(r->hi - r->lo) + 1);
		if (!r->whole)
			per *= 2;
		a->per_id = per > 0 ? (a->per_id + per) / 2 : a->per_id / 2;
		r->ready = 1;
		pthread_cond_broadcast(&a->moved);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* Start the readers from key on; 0 when none could start. */
static int ahead_start(struct ahead *a, const struct btrfs_ioctl_search_key *key,
		       double per_id, int readers)
{
	int i;

	a->range.min_objectid = key->min_objectid;
	a->range.min_type = key->min_type;
	a->range.min_offset = key->min_offset;
	a->next = key->min_objectid;
	a->per_id = per_id;
	for (i = 0; i < AHEAD_SLOTS; i++) {
		a->slot[i].buf = malloc(ARGS_SIZE + AHEAD_CAP);
		if (!a->slot[i].buf)
			return 0;
	}
	while (a->started < readers &&
	       !pthread_create(&a->th[a->started], NULL, reader, a))
		a->started++;
	return a->started;
}

static void ahead_end(struct ahead *a)
{
	int i;

	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_broadcast(&a->moved);
	pthread_mutex_unlock(&a->lock);
	for (i = 0; i < a->started; i++)
		pthread_join(a->th[i], NULL);
	for (i = 0; i < AHEAD_SLOTS; i++)
		free(a->slot[i].buf);
}

/* The items of each range in turn, as the readers fetched them. */
static int follow(struct ahead *a, struct search_ctx *ctx, search_cb cb,
		  void *arg)
{
	struct search_item it;
	struct range *r;
	size_t pos;
	int ret = 0, end;

	for (;;) {
		pthread_mutex_lock(&a->lock);
		r = &a->slot[a->used % AHEAD_SLOTS];
		while (!(a->used < a->claimed && r->seq == a->used &&
			 r->ready) && !(a->done && a->used == a->claimed))
			pthread_cond_wait(&a->moved, &a->lock);
		end = a->used == a->claimed;
		pthread_mutex_unlock(&a->lock);
		if (end)
			return 0;
		pos = 0;
		while (!ret && (ret = search_buf_next(r->buf + ARGS_SIZE,
						      r->used, &pos, &it)) > 0)
			ret = cb(&it, arg);
		if (!ret && !r->whole)
			ret = search_run(ctx, a->fd, &r->key, a->nodesize, cb,
					 arg);
		if (ret)
			return ret;
		pthread_mutex_lock(&a->lock);
		a->used++;
		pthread_cond_broadcast(&a->moved);
		pthread_mutex_unlock(&a->lock);
	}
}

struct counted {
	search_cb cb;
	void *arg;
	uint64_t bytes;
};

static int count_cb(const struct search_item *it, void *arg)
{
	struct counted *c = arg;

	c->bytes += SEARCH_HEADER_SIZE + it->len;
	return c->cb(it, c->arg);
}

/* The bytes this thread has had read from storage (the kernel's
 * task_io_account_read()), or UINT64_MAX where it does not count them. */
static uint64_t read_bytes(int io)
{
	char buf[512];
	const char *p;
	ssize_t n;

	if (io < 0)
		return UINT64_MAX;
	n = pread(io, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	p = strstr(buf, "\nread_bytes: ");
	return p ? strtoull(p + 13, NULL, 10) : UINT64_MAX;
}

/* Readers for the rest of a search: four where it had to read from the
 * device, none where the blocks were cached (copying them out on more
 * CPUs gained nothing measurable on two: bench/RESULTS.md). */
static int readers_for(uint64_t before, uint64_t now)
{
	return before != UINT64_MAX && now != UINT64_MAX && now > before ?
	       AHEAD_READERS : 0;
}

int ahead_search_run(struct search_ctx *ctx, int fd,
		     const struct btrfs_ioctl_search_key *start,
		     uint32_t nodesize, search_cb cb, void *arg)
{
	struct ahead a = {
		.fd = fd,
		.nodesize = nodesize,
		.range = *start,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.moved = PTHREAD_COND_INITIALIZER,
	};
	struct btrfs_ioctl_search_key key = *start;
	struct counted c = { .cb = cb, .arg = arg };
	uint64_t ids, before = UINT64_MAX;
	int ret, more, io = -1, n;

	do {
		ret = search_step(ctx, fd, &key, nodesize, count_cb, &c,
				  &more);
		if (ret || !more)
			goto out;
		if (io < 0 && before == UINT64_MAX) {
			io = open("/proc/thread-self/io", O_RDONLY | O_CLOEXEC);
			before = read_bytes(io);
		}
	} while (c.bytes < AHEAD_START);
	ids = key.min_objectid - start->min_objectid;
	n = readers_for(before, read_bytes(io));
	/* For the tests that count a run's threads: the search alone. */
	if (getenv("COMPSIZE_AHEAD") && !strcmp(getenv("COMPSIZE_AHEAD"), "0"))
		n = 0;
	if (n && ahead_start(&a, &key, (double)c.bytes / (ids ? ids : 1), n))
		ret = follow(&a, ctx, cb, arg);
	else
		ret = search_run(ctx, fd, &key, nodesize, cb, arg);
	ahead_end(&a);
out:
	if (io >= 0)
		close(io);
	return ret;
}
