// SPDX-License-Identifier: GPL-2.0
/* A bump allocator in chunks that never move (arena.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/arena.h"

/* A chunk this big, or one piece alone when bigger */
#define ARENA_CHUNK	(256 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(8) unsigned char data[];
};

struct arena {
	struct chunk *head;	/* the one pieces come from; older after it */
	size_t bytes;
};

struct arena *arena_create(void)
{
	return calloc(1, sizeof(struct arena));
}

void arena_free(struct arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *arena_alloc(struct arena *a, size_t size)
{
	struct chunk *c = a->head;
	size_t need = (size + 7) & ~(size_t)7, cap;

	if (need < size)
		return NULL;
	if (!c || c->cap - c->used < need) {
		cap = need > ARENA_CHUNK - sizeof(*c) ? need
						      : ARENA_CHUNK - sizeof(*c);
		if (cap > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
		a->bytes += sizeof(*c) + cap;
	}
	c->used += need;
	return c->data + c->used - need;
}

char *arena_strdup(struct arena *a, const char *s)
{
	size_t len = strlen(s) + 1;
	char *p = arena_alloc(a, len);

	if (p)
		memcpy(p, s, len);
	return p;
}

size_t arena_bytes(const struct arena *a)
{
	return a->bytes;
}
