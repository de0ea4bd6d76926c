/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Option values: the strict parsers behind --depth, --top, -j, --seed,
 * --format, --sort and --sample.  Each accepts the whole string or
 * nothing: no sign, no leading space, no trailing garbage.
 */
#ifndef COMPSIZE_OPTVAL_H
#define COMPSIZE_OPTVAL_H

#include <stdint.h>

/*
 * A whole non-negative decimal number ("0", "17", "007") no larger than
 * max into *v.  Returns 0, or -EINVAL (not such a number, or past max;
 * *v untouched).
 */
int optval_count(const char *s, long long max, long long *v);

/* The index of s in names[0..n-1] (exact, case-sensitive), or -EINVAL. */
int optval_choice(const char *s, const char *const *names, int n);

/*
 * --sample: "N%" (0 < N <= 100, decimals allowed) into *frac (N / 100,
 * *bytes = 0), or a size "N[KMGTP][B|iB]" (binary units, either case;
 * decimals allowed; at least one byte) into *bytes (*frac = 0).  Returns 0
 * or -EINVAL (nothing stored).
 */
int optval_sample(const char *s, double *frac, uint64_t *bytes);

#endif
