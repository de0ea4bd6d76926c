/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of u64 keys (extent disk_bytenr values) that counts each shared
 * extent once.  Open addressing with linear probing: 8 bytes a slot, at most
 * 3/4 full, so at most 21.3 bytes per key just after a growth and 10.7 just
 * before (twice that once a key is given a value).  Replaces compsize 1.5's
 * radix tree, whose keys were truncated to unsigned long page numbers.
 */
#ifndef COMPSIZE_SEEN_H
#define COMPSIZE_SEEN_H

#include <stddef.h>
#include <stdint.h>

struct seen_set;

/* Returns NULL when out of memory. */
struct seen_set *seen_create(void);
void seen_free(struct seen_set *set);

/* Set i of the array *sets of *n sets (one a filesystem, say): the array
 * grown with empty slots and the set created when first asked for.
 * Returns NULL when out of memory. */
struct seen_set *seen_at(struct seen_set ***sets, size_t *n, size_t i);

/* Add key (any value, 0 included).  Returns 1 if it was new, 0 if it was
 * already there, -ENOMEM if the set could not grow (the key is not added). */
int seen_insert(struct seen_set *set, uint64_t key);

/* Make room for n keys in all without growing on the way (a set that
 * will take that many: one table instead of each size up to it).
 * Returns 0, or -ENOMEM with the set as it was. */
int seen_reserve(struct seen_set *set, size_t n);

/* Add key as seen_insert() does, with value (kept with it: seen_value()),
 * or give key, there already, value.  Returns as seen_insert(). */
int seen_put(struct seen_set *set, uint64_t key, uint64_t value);

/* The value seen_put() gave key; 0 when none was or key is not there. */
uint64_t seen_value(const struct seen_set *set, uint64_t key);

/* Is key in the set? */
int seen_contains(const struct seen_set *set, uint64_t key);

size_t seen_count(const struct seen_set *set);
/* Bytes of memory the set holds. */
size_t seen_memory(const struct seen_set *set);

#endif
