// SPDX-License-Identifier: GPL-2.0
/*
 * Test driver for the estimate module: est-driver SETTINGS PATH...
 * Feeds every regular file under PATH to the estimator and prints one line
 * per setting: name disk uncompressed input files compress-MB/s
 * decompress-MB/s. Stand-in for `compsize --estimate` in tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "estimate/plugin.h"

/* nftw() has no user pointer; the driver is a test tool, not the library. */
static const struct est_ops *drv_ops;
static struct est_ctx *drv_ctx;
static int drv_errors;

static int drv_visit(const char *path, const struct stat *sb, int type,
		     struct FTW *ftw)
{
	struct stat st;
	int fd, ret;

	(void)sb;
	(void)ftw;
	if (type != FTW_F)
		return 0;
	fd = open(path, O_RDONLY | O_NOATIME | O_NOFOLLOW);
	if (fd < 0 && errno == EPERM)
		fd = open(path, O_RDONLY | O_NOFOLLOW);
	if (fd < 0) {
		if (errno != ELOOP)
			fprintf(stderr, "est-driver: %s: %s\n", path, strerror(errno));
		drv_errors += errno != ELOOP;
		return 0;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		drv_ops->files(drv_ctx, 1, &fd, &st, NULL, NULL, NULL, &ret, NULL);
		if (ret) {
			fprintf(stderr, "est-driver: %s: %s\n", path, strerror(-ret));
			drv_errors++;
		}
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct est_setting *s = NULL;
	struct est_result r;
	char err[256], name[64];
	size_t n = 0, i;
	int a;

	if (argc < 3) {
		fprintf(stderr, "usage: est-driver SETTINGS PATH...\n");
		return 2;
	}
	if (est_parse_list(argv[1], &s, &n, err, sizeof(err))) {
		fprintf(stderr, "est-driver: %s\n", err);
		return 2;
	}
	if (est_plugin_load(err, sizeof(err))) {
		fprintf(stderr, "est-driver: %s\n", err);
		return 1;
	}
	drv_ops = est_plugin_ops();
	drv_ctx = drv_ops->create(s, n, 4096);
	if (!drv_ctx) {
		perror("est-driver");
		return 1;
	}
	for (a = 2; a < argc; a++)
		if (nftw(argv[a], drv_visit, 64, FTW_PHYS) < 0) {
			perror(argv[a]);
			drv_errors++;
		}
	for (i = 0; i < n; i++) {
		est_setting_name(&s[i], name, sizeof(name));
		drv_ops->get_result(drv_ctx, i, &r);
		printf("%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %.1f %.1f\n", name, r.disk, r.uncompressed, r.input,
		       r.files, r.compress_mbps, r.decompress_mbps);
	}
	drv_ops->free(drv_ctx);
	free(s);
	return drv_errors ? 1 : 0;
}
