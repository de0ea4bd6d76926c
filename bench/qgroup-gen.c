// SPDX-License-Identifier: GPL-2.0
/*
 * qgroup-gen DIR NDIRS NPER SEED: DIR/dI/fJ, NDIRS x NPER files of 100..2000
 * pseudo-random bytes (inline extents under the default max_inline), for
 * bench/qgroup.sh: a million files in about a minute, where a shell loop
 * takes an hour.  The same SEED gives the same files.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t s;

static uint64_t rnd(void)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

int main(int argc, char **argv)
{
	char path[4096], buf[2048 + 8];
	int nd, np;

	if (argc != 5) {
		fprintf(stderr, "usage: qgroup-gen DIR NDIRS NPER SEED\n");
		return 2;
	}
	nd = atoi(argv[2]);
	np = atoi(argv[3]);
	s = strtoull(argv[4], NULL, 0) * 2654435761u + 88172645463325252ull;
	mkdir(argv[1], 0755);
	for (int d = 0; d < nd; d++) {
		snprintf(path, sizeof(path), "%s/d%d", argv[1], d);
		mkdir(path, 0755);
		for (int f = 0; f < np; f++) {
			size_t n = 100 + rnd() % 1901;
			int fd;

			for (size_t i = 0; i < n; i += 8) {
				uint64_t r = rnd();

				memcpy(buf + i, &r, 8);
			}
			snprintf(path, sizeof(path), "%s/d%d/f%d", argv[1], d, f);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0 || write(fd, buf, n) != (ssize_t)n) {
				perror(path);
				return 1;
			}
			close(fd);
		}
	}
	return 0;
}
