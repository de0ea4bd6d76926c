/* SPDX-License-Identifier: GPL-2.0 */
/* Growing arrays: the one realloc idiom every module needs. */
#ifndef COMPSIZE_ARRAY_H
#define COMPSIZE_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

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

#endif
