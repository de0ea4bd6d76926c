// SPDX-License-Identifier: GPL-2.0
/*
 * est-load: the main program's side of est-plugin.h.  Loads
 * compsize-estimate.so and defines estimate.h's est_ctx functions as calls
 * into it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "est-plugin.h"

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

static const struct est_plugin *plugin;

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
	const struct est_plugin *p;
	const char *path;
	void *h;

	if (plugin)
		return 0;
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
	if (p->abi != EST_PLUGIN_ABI ||
	    p->result_size != sizeof(struct est_result)) {
		snprintf(err, errlen, "%s: estimator interface %u, want %u: reinstall",
			 path, p->abi, EST_PLUGIN_ABI);
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

struct est_ctx *est_create(const struct est_setting *s, size_t n,
			   uint32_t sectorsize)
{
	if (!plugin) {
		errno = ENOSYS;
		return NULL;
	}
	return plugin->create(s, n, sectorsize);
}

void est_free(struct est_ctx *ctx)
{
	if (ctx)
		plugin->free(ctx);
}

int est_files(struct est_ctx *ctx, size_t nf, const int *fd,
	      const struct stat *st, int *err, uint64_t *const *delta)
{
	return plugin->files(ctx, nf, fd, st, err, delta);
}

int est_file(struct est_ctx *ctx, int fd, const struct stat *st,
	     uint64_t *delta)
{
	int err, ret;

	ret = est_files(ctx, 1, &fd, st, &err, &delta);
	return ret ? ret : err;
}

int est_part(struct est_ctx *ctx, int fd, const struct stat *st, uint64_t off,
	     uint64_t len, uint64_t *delta, bool *nocomp)
{
	return plugin->part(ctx, fd, st, off, len, delta, nocomp);
}

int est_nocompress_at(struct est_ctx *ctx, int fd, const struct stat *st,
		      const uint64_t *limit, uint64_t *at)
{
	return plugin->nocompress_at(ctx, fd, st, limit, at);
}

int est_merge(struct est_ctx *dst, struct est_ctx *src)
{
	return plugin->merge(dst, src);
}

void est_get_result(struct est_ctx *ctx, size_t i, struct est_result *out)
{
	plugin->get_result(ctx, i, out);
}
