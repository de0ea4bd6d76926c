// SPDX-License-Identifier: GPL-2.0
/*
 * seen-mem: memory and insert cost of the shared-extent set (seen.c).
 *
 * Usage: seen-mem [N [scattered|sequential]]     (default 1000000, both)
 *
 * Inserts N distinct sector-aligned keys (disk_bytenr values) into a fresh
 * set, twice: laid out back to back as 128 KiB extents ("sequential"), and
 * scattered over the 64-bit space by multiplying with an odd constant, which
 * keeps them distinct and 4 KiB aligned ("scattered").  Each key is then
 * inserted again, which must report it as already there.
 *
 * Prints one line per layout: NAME BYTES_PER_EXTENT NS_PER_INSERT
 * PEAK_BYTES_PER_EXTENT, where bytes come from seen_memory() and the peak is
 * the growth of the process's peak RSS (old and new table live together
 * while the set grows; only meaningful for the first layout a process runs,
 * so run.sh runs one layout per process).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "seen.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int one(const char *name, size_t n, int scattered)
{
	struct seen_set *set = seen_create();
	long rss0 = peak_rss_kb();
	double t0, t1;
	size_t i;

	if (!set)
		return 1;
	t0 = now();
	for (i = 0; i < n; i++) {
		uint64_t key = scattered ? (i + 1) * 4096 * 0x9E3779B97F4A7C15ull
					 : (1ull << 30) + i * (128 * 1024);

		if (seen_insert(set, key) != 1) {
			fprintf(stderr, "seen-mem: insert %zu: not new\n", i);
			return 1;
		}
	}
	t1 = now();
	for (i = 0; i < n; i++) {
		uint64_t key = scattered ? (i + 1) * 4096 * 0x9E3779B97F4A7C15ull
					 : (1ull << 30) + i * (128 * 1024);

		if (seen_insert(set, key) != 0) {
			fprintf(stderr, "seen-mem: insert %zu again: new\n", i);
			return 1;
		}
	}
	if (seen_count(set) != n) {
		fprintf(stderr, "seen-mem: count %zu, want %zu\n", seen_count(set), n);
		return 1;
	}
	printf("%s %.2f %.1f %.2f\n", name, (double)seen_memory(set) / n,
	       (t1 - t0) * 1e9 / n, (peak_rss_kb() - rss0) * 1024.0 / n);
	seen_free(set);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	const char *only = argc > 2 ? argv[2] : NULL;
	int rc = 0;

	if (!n)
		return 2;
	if (!only || !strcmp(only, "scattered"))
		rc |= one("scattered", n, 1);
	if (!only || !strcmp(only, "sequential"))
		rc |= one("sequential", n, 0);
	return rc;
}
