// SPDX-License-Identifier: GPL-2.0
/* tally: the progress line's total, from a walk of its own (tally.h). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/vfs.h>
#include "ioctl.h"
#include "sample/sample.h"
#include "seen.h"
#include "estimate/tally.h"
#include "walk/walk.h"

struct tally {
	char *const *paths;
	int n, one_fs;
	tally_bytes_fn bytes;
	void *arg;
	struct seen_set *links;
	pthread_t th;
	/* lock guards total, done and stop */
	pthread_mutex_t lock;
	uint64_t total;
	int done, stop;
};

static int tally_file(void *arg, int *fd, const char *path,
		      const struct stat *st, int depth)
{
	struct tally *t = arg;
	uint64_t b;

	(void)fd;
	(void)path;
	(void)depth;
	/* its data is read once, at the first path (estrun_submit()) */
	if (st->st_nlink > 1 &&
	    seen_insert(t->links, sample_key(st->st_dev, st->st_ino)) == 0)
		return 0;
	b = t->bytes(t->arg, st);
	pthread_mutex_lock(&t->lock);
	t->total += b;
	pthread_mutex_unlock(&t->lock);
	return 0;
}

static int tally_file_at(void *arg, int dirfd, const char *name,
			 const char *path, const struct stat *st, int depth)
{
	int fd = -1;

	(void)dirfd;
	(void)name;
	return tally_file(arg, &fd, path, st, depth);
}

/* Below an argument, the estimate skips what is not btrfs (procfs,
 * tmpfs...): so does the tally. */
static int tally_enter_fs(void *arg, int fd, const char *path,
			  const struct stat *st, int top)
{
	struct statfs sfs;

	(void)arg;
	(void)path;
	(void)st;
	if (top || (!fstatfs(fd, &sfs) &&
		    (uint32_t)sfs.f_type == (uint32_t)BTRFS_SUPER_MAGIC))
		return WALK_ENTER;
	return WALK_SKIP;
}

static int tally_tick(void *arg)
{
	struct tally *t = arg;
	int stop;

	pthread_mutex_lock(&t->lock);
	stop = t->stop;
	pthread_mutex_unlock(&t->lock);
	return stop ? -ECANCELED : 0;
}

/* The estimate's walk reports errors; this one only counts. */
static void tally_error(void *arg, const char *path, int err)
{
	(void)arg;
	(void)path;
	(void)err;
}

static void *tally_main(void *arg)
{
	static const struct walk_ops ops = {
		.file = tally_file,
		.file_at = tally_file_at,
		.enter_fs = tally_enter_fs,
		.tick = tally_tick,
		.error = tally_error,
	};
	struct tally *t = arg;
	struct walk_opts wo = { .one_fs = t->one_fs, .stat_files = 1 };
	sigset_t all;
	int i, ret = 0;

	/* Signals go to the main thread; this one never takes one. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (i = 0; i < t->n && ret != -ECANCELED; i++)
		ret = walk_path(t->paths[i], &wo, &ops, t);
	pthread_mutex_lock(&t->lock);
	/* out of memory: no total rather than a wrong one */
	t->done = !ret;
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

struct tally *tally_start(char *const *paths, int n, int one_fs,
			  tally_bytes_fn bytes, void *arg)
{
	struct tally *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return NULL;
	t->paths = paths;
	t->n = n;
	t->one_fs = one_fs;
	t->bytes = bytes;
	t->arg = arg;
	t->links = seen_create();
	if (!t->links) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	ret = pthread_create(&t->th, NULL, tally_main, t);
	if (ret) {
		pthread_mutex_destroy(&t->lock);
		seen_free(t->links);
		free(t);
		errno = ret;
		return NULL;
	}
	return t;
}

int tally_get(struct tally *t, uint64_t *total)
{
	int done;

	pthread_mutex_lock(&t->lock);
	*total = t->total;
	done = t->done;
	pthread_mutex_unlock(&t->lock);
	return done;
}

void tally_stop(struct tally *t)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->stop = 1;
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->th, NULL);
	pthread_mutex_destroy(&t->lock);
	seen_free(t->links);
	free(t);
}
