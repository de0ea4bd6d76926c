// SPDX-License-Identifier: GPL-2.0
/* spool: rendered rows kept on disk until the report prints them
 * (spool.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "report/spool.h"

FILE *spool_create(void)
{
	const char *dir = getenv("TMPDIR");
	char *name;
	FILE *f;
	int fd, e;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		/* a filesystem without O_TMPFILE */
		if (asprintf(&name, "%s/compsize-rows.XXXXXX", dir) < 0)
			return NULL;
		fd = mkostemp(name, O_CLOEXEC);
		if (fd >= 0)
			unlink(name);
		free(name);
		if (fd < 0)
			return NULL;
	}
	f = fdopen(fd, "w+");
	if (!f) {
		e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

int spool_copy(FILE *spool, FILE *out)
{
	char buf[65536];
	size_t n;

	errno = 0;
	if (fflush(spool) || ferror(spool) || fseeko(spool, 0, SEEK_SET))
		return errno ? -errno : -EIO;
	while ((n = fread(buf, 1, sizeof(buf), spool)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return errno ? -errno : -EIO;
	if (ferror(spool))
		return errno ? -errno : -EIO;
	return 0;
}
