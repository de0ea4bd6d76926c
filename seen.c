// SPDX-License-Identifier: GPL-2.0
/* The set of extents already counted. */
#include <errno.h>
#include <stdlib.h>
#include "array.h"
#include "seen.h"

#define SEEN_MIN_BITS	6

/* Slot value 0 marks an empty slot; the key 0 is kept aside in has_zero. */
struct seen_set {
	uint64_t *slots;
	unsigned bits;
	size_t count;
	int has_zero;
};

static size_t slot_of(uint64_t key, unsigned bits)
{
	/* Fibonacci hashing: disk_bytenr values are sector multiples, so the
	 * low bits alone would cluster. */
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

struct seen_set *seen_create(void)
{
	struct seen_set *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	set->bits = SEEN_MIN_BITS;
	set->slots = calloc((size_t)1 << set->bits, sizeof(*set->slots));
	if (!set->slots) {
		free(set);
		return NULL;
	}
	return set;
}

void seen_free(struct seen_set *set)
{
	if (!set)
		return;
	free(set->slots);
	free(set);
}

static void place(uint64_t *slots, unsigned bits, uint64_t key)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t i = slot_of(key, bits);

	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = key;
}

/* Move the keys to a table of 2^bits slots. */
static int grow_to(struct seen_set *set, unsigned bits)
{
	size_t i, old_size = (size_t)1 << set->bits;
	uint64_t *slots;

	if (bits >= 8 * sizeof(size_t) - 4)
		return -ENOMEM;
	slots = array_zalloc((size_t)1 << bits, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < old_size; i++)
		if (set->slots[i])
			place(slots, bits, set->slots[i]);
	free(set->slots);
	set->slots = slots;
	set->bits = bits;
	return 0;
}

static int grow(struct seen_set *set)
{
	return grow_to(set, set->bits + 1);
}

int seen_reserve(struct seen_set *set, size_t n)
{
	unsigned bits = set->bits;

	/* at most 3/4 full, as seen_insert() keeps it */
	while (bits < 8 * sizeof(size_t) - 4 &&
	       n > (((size_t)1 << bits) / 4) * 3)
		bits++;
	if (bits >= 8 * sizeof(size_t) - 4)
		return -ENOMEM;
	return bits > set->bits ? grow_to(set, bits) : 0;
}

int seen_insert(struct seen_set *set, uint64_t key)
{
	size_t mask, i;

	if (!key) {
		if (set->has_zero)
			return 0;
		set->has_zero = 1;
		set->count++;
		return 1;
	}
	mask = ((size_t)1 << set->bits) - 1;
	for (i = slot_of(key, set->bits); set->slots[i]; i = (i + 1) & mask)
		if (set->slots[i] == key)
			return 0;
	/* Keep the table at most 3/4 full so probe runs stay short. */
	if ((set->count + 1) * 4 > (mask + 1) * 3) {
		if (grow(set))
			return -ENOMEM;
		place(set->slots, set->bits, key);
	} else {
		set->slots[i] = key;
	}
	set->count++;
	return 1;
}

int seen_contains(const struct seen_set *set, uint64_t key)
{
	size_t mask = ((size_t)1 << set->bits) - 1;
	size_t i;

	if (!key)
		return set->has_zero;
	for (i = slot_of(key, set->bits); set->slots[i]; i = (i + 1) & mask)
		if (set->slots[i] == key)
			return 1;
	return 0;
}

size_t seen_count(const struct seen_set *set)
{
	return set->count;
}

size_t seen_memory(const struct seen_set *set)
{
	return sizeof(*set) + (sizeof(uint64_t) << set->bits);
}
