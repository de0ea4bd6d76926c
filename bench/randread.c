// SPDX-License-Identifier: GPL-2.0
/*
 * The random-read rate of a device or file: COUNT reads of SIZE bytes at
 * random SIZE-aligned offsets, with O_DIRECT (nothing cached), on THREADS
 * threads at once.  What a cold scan of tree blocks can reach at most with
 * that many reads in flight.
 *
 * Usage: randread PATH SIZE COUNT THREADS [START LENGTH]
 *   START LENGTH: read only within these bytes (say, a filesystem
 *   image's metadata chunks: a sparse image's holes read as zeros).
 * Prints: threads, reads, seconds, reads/s, MB/s.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

static int fd;
static uint64_t size, blocks, first;
static long count_each;

static void *run(void *arg)
{
	uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ULL + 1;
	void *buf;
	long i;

	if (posix_memalign(&buf, 4096, size))
		return (void *)1;
	for (i = 0; i < count_each; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (pread(fd, buf, size, (off_t)(first + x % blocks * size)) !=
		    (ssize_t)size) {
			perror("pread");
			return (void *)1;
		}
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	pthread_t th[64];
	uint64_t bytes;
	struct stat st;
	int i, n;
	double s;
	void *r;

	if (argc < 5) {
		fprintf(stderr, "usage: randread PATH SIZE COUNT THREADS [START LENGTH]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	bytes = st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &bytes)) {
		perror("BLKGETSIZE64");
		return 1;
	}
	size = strtoull(argv[2], NULL, 0);
	n = atoi(argv[4]);
	if (!size || size % 4096 || n < 1 || n > 64 || bytes < size) {
		fprintf(stderr, "randread: bad SIZE or THREADS\n");
		return 2;
	}
	if (argc > 6) {
		first = strtoull(argv[5], NULL, 0) / size * size;
		bytes = strtoull(argv[6], NULL, 0);
	}
	blocks = bytes / size;
	count_each = atol(argv[3]) / n;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run,
			       (void *)(uintptr_t)(i + 1));
	for (i = 0; i < n; i++) {
		pthread_join(th[i], &r);
		if (r)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%d %ld %.3f %.0f %.1f\n", n, count_each * n, s,
	       count_each * n / s, count_each * n * (double)size / s / 1e6);
	return 0;
}
