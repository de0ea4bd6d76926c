// SPDX-License-Identifier: GPL-2.0
/* The set of extents already counted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "seen.h"

#define SEEN_MIN_BITS	6

/* Slot value 0 marks an empty slot; the key 0 is kept aside in has_zero.
 * values: NULL until seen_put() gives one, then a value a slot (0 for a key
 * given none), zero_value the key 0's. */
struct seen_set {
	uint64_t *slots;
	uint64_t *values;
	unsigned bits;
	size_t count;
	int has_zero;
	uint64_t zero_value;
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

struct seen_set *seen_at(struct seen_set ***sets, size_t *n, size_t i)
{
	if (i >= *n) {
		struct seen_set **v = realloc(*sets, (i + 1) * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + *n, 0, (i + 1 - *n) * sizeof(*v));
		*sets = v;
		*n = i + 1;
	}
	if (!(*sets)[i])
		(*sets)[i] = seen_create();
	return (*sets)[i];
}

void seen_free(struct seen_set *set)
{
	if (!set)
		return;
	free(set->slots);
	free(set->values);
	free(set);
}

/* Put key in an empty slot of slots (2^bits of them): which one. */
static size_t place(uint64_t *slots, unsigned bits, uint64_t key)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t i = slot_of(key, bits);

	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = key;
	return i;
}

/* Move the keys to a table of 2^bits slots. */
static int grow_to(struct seen_set *set, unsigned bits)
{
	size_t i, j, old_size = (size_t)1 << set->bits;
	uint64_t *slots, *values = NULL;

	if (bits >= 8 * sizeof(size_t) - 4)
		return -ENOMEM;
	slots = array_zalloc((size_t)1 << bits, sizeof(*slots));
	if (slots && set->values) {
		values = array_zalloc((size_t)1 << bits, sizeof(*values));
		if (!values) {
			free(slots);
			slots = NULL;
		}
	}
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < old_size; i++)
		if (set->slots[i]) {
			j = place(slots, bits, set->slots[i]);
			if (values)
				values[j] = set->values[i];
		}
	free(set->slots);
	free(set->values);
	set->slots = slots;
	set->values = values;
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

/* Add key, or find it: *value its value's place (NULL while the set has
 * none).  Returns as seen_insert().  Inlined: seen_insert() is the usage
 * scan's hottest call. */
static inline __attribute__((always_inline)) int insert_at(struct seen_set *set, uint64_t key, uint64_t **value)
{
	size_t mask, i;

	if (!key) {
		*value = &set->zero_value;
		if (set->has_zero)
			return 0;
		set->has_zero = 1;
		set->count++;
		return 1;
	}
	mask = ((size_t)1 << set->bits) - 1;
	for (i = slot_of(key, set->bits); set->slots[i]; i = (i + 1) & mask)
		if (set->slots[i] == key) {
			*value = set->values ? &set->values[i] : NULL;
			return 0;
		}
	/* Keep the table at most 3/4 full so probe runs stay short. */
	if ((set->count + 1) * 4 > (mask + 1) * 3) {
		if (grow(set))
			return -ENOMEM;
		i = place(set->slots, set->bits, key);
	} else {
		set->slots[i] = key;
	}
	*value = set->values ? &set->values[i] : NULL;
	set->count++;
	return 1;
}

int seen_insert(struct seen_set *set, uint64_t key)
{
	uint64_t *value;

	return insert_at(set, key, &value);
}

int seen_put(struct seen_set *set, uint64_t key, uint64_t value)
{
	uint64_t *at;
	int ret;

	if (!set->values) {
		set->values = array_zalloc((size_t)1 << set->bits,
					   sizeof(*set->values));
		if (!set->values)
			return -ENOMEM;
	}
	ret = insert_at(set, key, &at);
	if (ret >= 0)
		*at = value;
	return ret;
}

/* The slot of key (not 0), or -1 when it is not there. */
static long find(const struct seen_set *set, uint64_t key)
{
	size_t mask = ((size_t)1 << set->bits) - 1;
	size_t i;

	for (i = slot_of(key, set->bits); set->slots[i]; i = (i + 1) & mask)
		if (set->slots[i] == key)
			return (long)i;
	return -1;
}

uint64_t seen_value(const struct seen_set *set, uint64_t key)
{
	long i;

	if (!key)
		return set->zero_value;
	if (!set->values)
		return 0;
	i = find(set, key);
	return i < 0 ? 0 : set->values[i];
}

int seen_contains(const struct seen_set *set, uint64_t key)
{
	if (!key)
		return set->has_zero;
	return find(set, key) >= 0;
}

size_t seen_count(const struct seen_set *set)
{
	return set->count;
}

size_t seen_memory(const struct seen_set *set)
{
	return sizeof(*set) +
	       ((set->values ? 2 : 1) * sizeof(uint64_t) << set->bits);
}
