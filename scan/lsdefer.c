// SPDX-License-Identifier: GPL-2.0
/* A fastscan_listener's calls made on a thread of their own: see lsdefer.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "scan/lsdefer.h"
#include "lib/thread.h"

/* A pooled chunk holds some thousands of calls; a larger record (an item
 * can't be larger than a tree block, but nothing here relies on it) gets
 * a chunk of its own. */
#define LSDEFER_CHUNK	(256u << 10)
#define LSDEFER_CHUNKS	16

enum { REC_FILE = 1, REC_REF, REC_ENTRY, REC_PLACE };

struct rec {
	uint32_t type;
	uint32_t size;		/* the whole record's, a multiple of 8 */
};

struct rec_ref {
	struct extent_info ei;
	uint64_t len;		/* then the item's len bytes */
};

struct rec_entry {
	uint64_t tree_id, dir, child;
	uint8_t loc_type, ftype;
};

struct rec_place {
	uint64_t tree_id, dir, index, child;
	int32_t kind;
};

struct chunk {
	struct chunk *next;
	size_t cap, used;
	uint64_t buf[];
};

struct lsdefer {
	struct fastscan_listener real;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t filled, freed;
	struct chunk *head, *tail;	/* queued for the thread, in order */
	struct chunk *spare;		/* pooled chunks free */
	unsigned made;			/* pooled chunks allocated */
	struct chunk *cur;		/* the one being filled */
	int done;			/* nothing more will be queued */
	int err;			/* the listener's first non-zero */
};

/* Make the calls recorded in c; the first non-zero value, or 0. */
static int replay(const struct fastscan_listener *ls, const struct chunk *c)
{
	const unsigned char *b = (const unsigned char *)c->buf, *p;
	struct fastscan_file f;
	struct rec_entry e;
	struct rec_place pl;
	struct rec_ref r;
	struct rec h;
	size_t pos = 0;
	int ret = 0;

	while (!ret && pos < c->used) {
		memcpy(&h, b + pos, sizeof(h));
		p = b + pos + sizeof(h);
		pos += h.size;
		switch (h.type) {
		case REC_FILE:
			memcpy(&f, p, sizeof(f));
			f.name = (const char *)p + sizeof(f);
			ret = ls->file(ls->arg, &f);
			break;
		case REC_REF:
			memcpy(&r, p, sizeof(r));
			ret = ls->ref(ls->arg, &r.ei, p + sizeof(r), r.len);
			break;
		case REC_ENTRY:
			memcpy(&e, p, sizeof(e));
			ret = ls->entry(ls->arg, e.tree_id, e.dir, e.child,
					e.loc_type, e.ftype);
			break;
		case REC_PLACE:
			memcpy(&pl, p, sizeof(pl));
			ret = ls->place(ls->arg, pl.tree_id, pl.dir, pl.index,
					pl.child, pl.kind);
			break;
		}
	}
	return ret;
}

/* A chunk back where it came from: the pool, or free() when its own. */
static void give_back(struct lsdefer *d, struct chunk *c)
{
	if (c->cap != LSDEFER_CHUNK) {
		free(c);
		return;
	}
	c->next = d->spare;
	d->spare = c;
	pthread_cond_signal(&d->freed);
}

static void *lsdefer_main(void *arg)
{
	struct lsdefer *d = arg;
	struct chunk *c;
	int err;

	thread_block_signals();
	for (;;) {
		pthread_mutex_lock(&d->lock);
		while (!d->head && !d->done)
			pthread_cond_wait(&d->filled, &d->lock);
		c = d->head;
		if (c) {
			d->head = c->next;
			if (!d->head)
				d->tail = NULL;
		}
		err = d->err;
		pthread_mutex_unlock(&d->lock);
		if (!c)
			break;
		/* after a non-zero value, no more calls: as the scan stops */
		if (!err)
			err = replay(&d->real, c);
		pthread_mutex_lock(&d->lock);
		if (err && !d->err)
			__atomic_store_n(&d->err, err, __ATOMIC_RELAXED);
		give_back(d, c);
		pthread_mutex_unlock(&d->lock);
	}
	return NULL;
}

/* Queue d->cur for the thread. */
static void submit(struct lsdefer *d)
{
	struct chunk *c = d->cur;

	d->cur = NULL;
	pthread_mutex_lock(&d->lock);
	if (!c->used) {
		give_back(d, c);
	} else {
		c->next = NULL;
		if (d->tail)
			d->tail->next = c;
		else
			d->head = c;
		d->tail = c;
		pthread_cond_signal(&d->filled);
	}
	pthread_mutex_unlock(&d->lock);
}

/* An empty chunk with room for size bytes, waiting for the thread to
 * free one when the pool is all in use; NULL when out of memory. */
static struct chunk *take(struct lsdefer *d, size_t size)
{
	struct chunk *c = NULL;
	size_t cap = size > LSDEFER_CHUNK ? size : LSDEFER_CHUNK;

	if (cap == LSDEFER_CHUNK) {
		pthread_mutex_lock(&d->lock);
		while (!d->spare && d->made == LSDEFER_CHUNKS)
			pthread_cond_wait(&d->freed, &d->lock);
		c = d->spare;
		if (c)
			d->spare = c->next;
		else
			d->made++;
		pthread_mutex_unlock(&d->lock);
	}
	if (!c) {
		c = malloc(sizeof(*c) + cap);
		if (!c) {
			if (cap == LSDEFER_CHUNK) {
				pthread_mutex_lock(&d->lock);
				d->made--;
				pthread_mutex_unlock(&d->lock);
			}
			return NULL;
		}
		c->cap = cap;
	}
	c->used = 0;
	c->next = NULL;
	return c;
}

/* Room for a record of type with size bytes after its header; NULL when
 * out of memory. */
static unsigned char *reserve(struct lsdefer *d, uint32_t type, size_t size)
{
	struct rec h = { .type = type };
	unsigned char *p;

	if (size > UINT32_MAX - sizeof(h) - 7)
		return NULL;
	size = (sizeof(h) + size + 7) & ~(size_t)7;
	if (d->cur && d->cur->cap - d->cur->used < size)
		submit(d);
	if (!d->cur) {
		d->cur = take(d, size);
		if (!d->cur)
			return NULL;
	}
	h.size = (uint32_t)size;
	p = (unsigned char *)d->cur->buf + d->cur->used;
	memcpy(p, &h, sizeof(h));
	d->cur->used += size;
	return p + sizeof(h);
}

/* What a queued call returns: the listener's first non-zero value. */
static int status(struct lsdefer *d)
{
	return __atomic_load_n(&d->err, __ATOMIC_RELAXED);
}

static int q_file(void *arg, const struct fastscan_file *f)
{
	struct lsdefer *d = arg;
	unsigned char *p = reserve(d, REC_FILE, sizeof(*f) + f->name_len + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p, f, sizeof(*f));
	/* its name after it, with the NUL (replay() points to it) */
	memcpy(p + sizeof(*f), f->name, f->name_len + 1);
	return status(d);
}

static int q_ref(void *arg, const struct extent_info *ei,
		 const uint8_t *item, size_t len)
{
	struct lsdefer *d = arg;
	struct rec_ref r = { .ei = *ei, .len = len };
	unsigned char *p;

	if (len > SIZE_MAX - sizeof(r))
		return -ENOMEM;
	p = reserve(d, REC_REF, sizeof(r) + len);
	if (!p)
		return -ENOMEM;
	memcpy(p, &r, sizeof(r));
	if (len)
		memcpy(p + sizeof(r), item, len);
	return status(d);
}

static int q_entry(void *arg, uint64_t tree_id, uint64_t dir, uint64_t child,
		   uint8_t loc_type, uint8_t ftype)
{
	struct lsdefer *d = arg;
	struct rec_entry e = {
		.tree_id = tree_id,
		.dir = dir,
		.child = child,
		.loc_type = loc_type,
		.ftype = ftype,
	};
	unsigned char *p = reserve(d, REC_ENTRY, sizeof(e));

	if (!p)
		return -ENOMEM;
	memcpy(p, &e, sizeof(e));
	return status(d);
}

static int q_place(void *arg, uint64_t tree_id, uint64_t dir,
		   uint64_t index, uint64_t child, int kind)
{
	struct lsdefer *d = arg;
	struct rec_place pl = {
		.tree_id = tree_id,
		.dir = dir,
		.index = index,
		.child = child,
		.kind = kind,
	};
	unsigned char *p = reserve(d, REC_PLACE, sizeof(pl));

	if (!p)
		return -ENOMEM;
	memcpy(p, &pl, sizeof(pl));
	return status(d);
}

struct lsdefer *lsdefer_start(const struct fastscan_listener *ls,
			      struct fastscan_listener *out)
{
	struct lsdefer *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->real = *ls;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->filled, NULL);
	pthread_cond_init(&d->freed, NULL);
	if (pthread_create(&d->th, NULL, lsdefer_main, d)) {
		pthread_cond_destroy(&d->freed);
		pthread_cond_destroy(&d->filled);
		pthread_mutex_destroy(&d->lock);
		free(d);
		return NULL;
	}
	*out = (struct fastscan_listener){
		.file = ls->file ? q_file : NULL,
		.ref = ls->ref ? q_ref : NULL,
		.entry = ls->entry ? q_entry : NULL,
		.place = ls->place ? q_place : NULL,
		.arg = d,
		.names = ls->names,
	};
	return d;
}

int lsdefer_finish(struct lsdefer *d)
{
	struct chunk *c;
	int ret;

	if (d->cur)
		submit(d);
	pthread_mutex_lock(&d->lock);
	d->done = 1;
	pthread_cond_signal(&d->filled);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->th, NULL);
	ret = d->err;
	while ((c = d->spare)) {
		d->spare = c->next;
		free(c);
	}
	pthread_cond_destroy(&d->freed);
	pthread_cond_destroy(&d->filled);
	pthread_mutex_destroy(&d->lock);
	free(d);
	return ret;
}
