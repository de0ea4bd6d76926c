/* SPDX-License-Identifier: GPL-2.0 */
/* Growing arrays: the one realloc idiom every module needs. */
#ifndef COMPSIZE_ARRAY_H
#define COMPSIZE_ARRAY_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make room for element n of the array arr of *cap elements of size bytes,
 * doubling it (at least 8) when full.  Returns the array, moved or not, or
 * NULL when out of memory, in which case arr is left as it was.
 */
static inline void *array_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t new_cap;
	void *p;

	if (n < *cap)
		return arr;
	new_cap = *cap ? 2 * *cap : 8;
	if (new_cap <= n)
		new_cap = n + 1;
	if (new_cap > SIZE_MAX / size)
		return NULL;
	p = realloc(arr, new_cap * size);
	if (p)
		*cap = new_cap;
	return p;
}

/*
 * n elements of size bytes, zeroed as calloc() gives them, but written
 * before they are read.  A hash table's slots are probed (read) before
 * one is filled: in a fresh mapping of calloc()'s each page read first
 * maps the shared zero page, and the write that follows replaces it,
 * which flushes the TLB of every CPU the process runs on (an interrupt
 * to each of its other threads, and a wait for them, a page at a time).
 * Written first, each page is faulted in once, with no flush.  NULL when
 * out of memory.
 */
static inline void *array_zalloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	p = malloc(bytes > 0 ? bytes : 1);
	/* GCC folds malloc() and a memset() of zeros into calloc(), which
	 * skips the writes: what it may assume of p must end here */
	__asm__ volatile("" : "+r"(p) : : "memory");
	if (p)
		memset(p, 0, bytes);
	return p;
}

/* A growing array of u64 values. */
struct u64_vec {
	uint64_t *v;
	size_t n, cap;
};

/* Append x to vec.  Returns 0, or -ENOMEM with vec as it was. */
static inline int u64_vec_push(struct u64_vec *vec, uint64_t x)
{
	uint64_t *v = array_grow(vec->v, &vec->cap, vec->n, sizeof(*v));

	if (!v)
		return -ENOMEM;
	vec->v = v;
	vec->v[vec->n++] = x;
	return 0;
}

/* qsort()/bsearch() order of uint64_t values, ascending. */
static inline int array_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#endif
