/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LSD radix sorts of arrays of records by a 64-bit field: stable, a byte
 * a pass, the passes where every record has the same byte skipped (keys
 * that differ in their low bytes only, as a tree's inode numbers or a
 * walk's ranks do, take two or three passes): linear in the records,
 * where qsort() makes n log n calls of a comparison, for the pre-pass's
 * arrays of some 100,000 records.  And the binary search of an array so
 * sorted.
 */
#ifndef COMPSIZE_RADIX_H
#define COMPSIZE_RADIX_H

#include <stdint.h>
#include <stdlib.h>

/*
 * static type *name(type *v, type *tmp, size_t n): v[0..n) sorted by its
 * field, through tmp[0..n); returns the one of the two that holds the
 * result, or NULL when out of memory (v is then as it was).
 */
#define RADIX_SORT_DEFINE(name, type, field)				\
static type *name(type *v, type *tmp, size_t n)				\
{									\
	type *src = v, *dst = tmp, *t;					\
	size_t (*count)[256], i, k, sum, c;				\
	unsigned d;							\
									\
	if (n < 2)							\
		return v;						\
	count = calloc(8, sizeof(*count));				\
	if (!count)							\
		return NULL;						\
	for (i = 0; i < n; i++)						\
		for (d = 0; d < 8; d++)					\
			count[d][(src[i].field >> (8 * d)) & 255]++;	\
	for (d = 0; d < 8; d++) {					\
		if (count[d][(src[0].field >> (8 * d)) & 255] == n)	\
			continue;					\
		for (k = sum = 0; k < 256; k++) {			\
			c = count[d][k];				\
			count[d][k] = sum;				\
			sum += c;					\
		}							\
		for (i = 0; i < n; i++)					\
			dst[count[d][(src[i].field >> (8 * d)) & 255]++] = \
				src[i];					\
		t = src;						\
		src = dst;						\
		dst = t;						\
	}								\
	free(count);							\
	return src;							\
}

/*
 * static size_t name(const type *v, size_t n, uint64_t key): the first
 * of v[0..n), sorted by its field, whose field is not below key, or n.
 */
#define LOWER_BOUND_DEFINE(name, type, field)				\
static size_t name(const type *v, size_t n, uint64_t key)		\
{									\
	size_t lo = 0, hi = n, mid;					\
									\
	while (lo < hi) {						\
		mid = lo + (hi - lo) / 2;				\
		if (v[mid].field < key)					\
			lo = mid + 1;					\
		else							\
			hi = mid;					\
	}								\
	return lo;							\
}

#endif
