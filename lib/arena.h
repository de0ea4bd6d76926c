/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bump allocator: many small pieces (names, short arrays) that all live
 * as long as the arena, in chunks that never move, without malloc's
 * header and rounding for each piece.  Nothing is freed before
 * arena_free().
 */
#ifndef COMPSIZE_ARENA_H
#define COMPSIZE_ARENA_H

#include <stddef.h>

struct arena;

/* Returns NULL when out of memory. */
struct arena *arena_create(void);
void arena_free(struct arena *a);

/* size bytes aligned for any of compsize's structures (8), valid until
 * arena_free(); NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t size);

/* A copy of s in the arena; NULL when out of memory. */
char *arena_strdup(struct arena *a, const char *s);

/* The bytes the arena holds from malloc, its chunks' headers included. */
size_t arena_bytes(const struct arena *a);

#endif
