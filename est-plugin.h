/* SPDX-License-Identifier: GPL-2.0 */
/*
 * est-plugin: the write-path emulation (estimate.c) and the codecs it
 * drives are built as a shared object, compsize-estimate.so, that the main
 * program loads only for --estimate.  A scan never maps libzstd, liblzo2 or
 * zlib: their code alone would make compsize's resident size larger than
 * compsize 1.5's.  The object exports one table of the est_ctx functions of
 * estimate.h; in the main program est-load.c defines those functions, so
 * estrun.c calls them the same way whether the estimator is linked in (the
 * tests) or loaded.
 */
#ifndef COMPSIZE_EST_PLUGIN_H
#define COMPSIZE_EST_PLUGIN_H

#include <stdint.h>
#include "estimate.h"

/* Bump when struct est_plugin or the meaning of a function changes. */
#define EST_PLUGIN_ABI		4
#define EST_PLUGIN_FILE		"compsize-estimate.so"
#define EST_PLUGIN_SYMBOL	"compsize_est_plugin"

struct est_plugin {
	uint32_t abi;			/* EST_PLUGIN_ABI */
	uint32_t result_size;		/* sizeof(struct est_result) */
	const char *version;		/* COMPSIZE_VERSION */
	struct est_ctx *(*create)(const struct est_setting *s, size_t n,
				  uint32_t sectorsize);
	void (*free)(struct est_ctx *ctx);
	int (*files)(struct est_ctx *ctx, size_t nf, const int *fd,
		     const struct stat *st, int *err, uint64_t *const *delta);
	int (*part)(struct est_ctx *ctx, int fd, const struct stat *st,
		    uint64_t off, uint64_t len, uint64_t *delta, bool *nocomp);
	int (*nocompress_at)(struct est_ctx *ctx, int fd,
			     const struct stat *st, const uint64_t *limit,
			     uint64_t *at);
	int (*merge)(struct est_ctx *dst, struct est_ctx *src);
	void (*get_result)(struct est_ctx *ctx, size_t i,
			   struct est_result *out);
};

/*
 * Load compsize-estimate.so, once: from the directory of the running
 * executable (a build tree), else from COMPSIZE_PLUGIN_DIR (where make
 * install puts it).  Returns 0, or -1 with a one-line reason in err (the
 * paths tried and dlerror(), or a version mismatch).
 */
int est_plugin_load(char *err, size_t errlen);

#endif
