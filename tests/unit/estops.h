/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The estimator as the unit tests reach it: through the struct est_ops
 * table, as the program does (the plugin's objects are linked in, and
 * est_plugin_ops() returns their table).
 */
#ifndef COMPSIZE_UNIT_ESTOPS_H
#define COMPSIZE_UNIT_ESTOPS_H

#include <sys/stat.h>
#include "estimate/plugin.h"

static inline const struct est_ops *est(void)
{
	return est_plugin_ops();
}

/* One file through the table's files(): its result, or files()' error;
 * delta NULL or 6n values (estimate.h). */
static inline int one_file(struct est_ctx *ctx, int fd, const struct stat *st,
			   uint64_t *delta)
{
	int err, ret;

	ret = est()->files(ctx, 1, &fd, st, NULL, NULL, NULL, &err, &delta);
	return ret ? ret : err;
}

#endif
