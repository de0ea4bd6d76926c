/* SPDX-License-Identifier: GPL-2.0 */
/*
 * estimate/plugin.h: the write-path emulation and the codecs it drives (the
 * estimate/ folder) are built as a shared object, compsize-estimate.so,
 * that the main program loads only for --estimate.  A scan never maps
 * libzstd, liblzo2 or zlib: their code alone would make compsize's
 * resident size larger than compsize 1.5's.  The object exports one
 * symbol, the struct est_ops table of estimate.h; every caller goes
 * through that table, so nothing is defined on both sides.
 */
#ifndef COMPSIZE_EST_PLUGIN_H
#define COMPSIZE_EST_PLUGIN_H

#include <stddef.h>
#include "estimate/estimate.h"

#define EST_PLUGIN_FILE		"compsize-estimate.so"
#define EST_PLUGIN_SYMBOL	"compsize_est_ops"

/*
 * Load compsize-estimate.so, once: from the directory of the running
 * executable (a build tree), else from COMPSIZE_PLUGIN_DIR (where make
 * install puts it).  A program that links the plugin's objects in (the
 * tests) uses its own table and loads nothing.  Returns 0, or -1 with a
 * one-line reason in err (the paths tried and dlerror(), or a version
 * mismatch).
 */
int est_plugin_load(char *err, size_t errlen);

/*
 * The estimator's table: the one est_plugin_load() loaded, else the one
 * linked in, else NULL.
 */
const struct est_ops *est_plugin_ops(void);

#endif
