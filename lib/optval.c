// SPDX-License-Identifier: GPL-2.0
/* Option value parsers (optval.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/optval.h"

int optval_count(const char *s, long long max, long long *v)
{
	char *end;
	long long n;

	/* strtoll() would take a sign or leading space. */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno || *end || n > max)
		return -EINVAL;
	*v = n;
	return 0;
}

int optval_choice(const char *s, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -EINVAL;
}

int optval_sample(const char *s, double *frac, uint64_t *bytes)
{
	static const char units[] = "KMGTP";
	const char *u;
	char *end;
	double v;
	int shift;

	/* strtod() would take a sign, leading space, "inf" and "nan". */
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -EINVAL;
	if (!strcmp(end, "%")) {
		if (v > 100)
			return -EINVAL;
		*frac = v / 100;
		*bytes = 0;
		return 0;
	}
	shift = 0;
	if (*end) {
		u = strchr(units, *end & ~0x20);	/* k or K */
		if (!u || !*u || (end[1] && strcmp(end + 1, "iB") &&
				  strcmp(end + 1, "B")))
			return -EINVAL;
		shift = 10 * (int)(u - units + 1);
	}
	v = ldexp(v, shift);
	/* past 2^64 - 1 would not convert */
	if (v < 1 || v > 1.8e19)
		return -EINVAL;
	*bytes = (uint64_t)v;
	*frac = 0;
	return 0;
}
