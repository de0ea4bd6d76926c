// SPDX-License-Identifier: GPL-2.0
/*
 * The main program's side of estimate/plugin.h.  Loads
 * compsize-estimate.so and hands out the table it exports.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "estimate/plugin.h"

#ifndef COMPSIZE_PLUGIN_DIR
#define COMPSIZE_PLUGIN_DIR "/usr/local/lib/compsize"
#endif
/* 1: the program of a build tree, which loads the estimator beside it
 * first.  The installed program is compiled with 0 and loads only
 * COMPSIZE_PLUGIN_DIR's: a compsize-estimate.so that happens to lie beside
 * it (a writable sbin, a copied binary) is never run. */
#ifndef COMPSIZE_PLUGIN_BESIDE_EXE
#define COMPSIZE_PLUGIN_BESIDE_EXE 1
#endif

/*
 * The table, when the plugin's objects are linked into this program (the
 * unit tests, the fuzzers, the test driver): a weak reference, NULL in
 * compsize itself, which loads it.
 */
extern const struct est_ops compsize_est_ops __attribute__((weak));

/* What est_plugin_load() loaded: process-wide, as the dlopen() is. */
static const struct est_ops *plugin;

/* dirname(/proc/self/exe)/compsize-estimate.so, or "" if unknown. */
static void beside_exe(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	buf[0] = '\0';
	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return;
	*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/%s", exe, EST_PLUGIN_FILE) >= len)
		buf[0] = '\0';
}

int est_plugin_load(char *err, size_t errlen)
{
	const char *installed = COMPSIZE_PLUGIN_DIR "/" EST_PLUGIN_FILE;
	char local[PATH_MAX + sizeof(EST_PLUGIN_FILE)];
	const struct est_ops *p;
	const char *path;
	void *h;

	if (plugin)
		return 0;
	if (&compsize_est_ops) {
		plugin = &compsize_est_ops;
		return 0;
	}
	local[0] = '\0';
	if (COMPSIZE_PLUGIN_BESIDE_EXE)
		beside_exe(local, sizeof(local));
	path = local[0] && !access(local, F_OK) ? local : installed;
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(err, errlen, "cannot load the estimator: %s", dlerror());
		return -1;
	}
	p = dlsym(h, EST_PLUGIN_SYMBOL);
	if (!p) {
		snprintf(err, errlen, "%s: not a compsize estimator", path);
		dlclose(h);
		return -1;
	}
	if (p->abi != EST_OPS_ABI ||
	    p->result_size != sizeof(struct est_result)) {
		snprintf(err, errlen, "%s: estimator interface %u, want %u: reinstall",
			 path, p->abi, EST_OPS_ABI);
		dlclose(h);
		return -1;
	}
	if (strcmp(p->version, COMPSIZE_VERSION)) {
		snprintf(err, errlen,
			 "%s is from compsize %s, this is compsize %s: reinstall",
			 path, p->version, COMPSIZE_VERSION);
		dlclose(h);
		return -1;
	}
	plugin = p;	/* never unloaded: worker threads run its code */
	return 0;
}

const struct est_ops *est_plugin_ops(void)
{
	if (plugin)
		return plugin;
	return &compsize_est_ops ? &compsize_est_ops : NULL;
}
