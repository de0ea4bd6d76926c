/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Path recursion with compsize 1.5's semantics: regular files and
 * directories only, symlinks never followed, a file reached by two paths
 * visited twice, -x stopping at any device change (nested subvolumes
 * included).  Iterative, with openat() relative to the parent directory, so
 * depth costs heap, not stack, and path length is unbounded.
 */
#ifndef COMPSIZE_WALK_H
#define COMPSIZE_WALK_H

#include <sys/stat.h>

/* What enter_fs() decides about a directory tree or file on a new device. */
enum walk_enter {
	WALK_ENTER = 0,		/* go on */
	WALK_SKIP = 1,		/* leave it out */
};

struct walk_ops {
	/* A regular file open read-only on *fd (-1 with stat_files), at depth levels below its
	 * argument (0: the argument itself).  The callback may take the
	 * descriptor by setting *fd to -1 (it closes it then); otherwise the
	 * walker closes it.  Return 0 to go on or a negative errno to abort
	 * the whole walk. */
	int (*file)(void *arg, int *fd, const char *path,
		    const struct stat *st, int depth);
	/* With stat_files, instead of file() when not NULL: the regular
	 * file name in the directory open on dirfd (the walker's: neither
	 * closed nor kept), listed with fstatat() and not opened.  Returns
	 * 0 or a negative errno, as file(). */
	int (*file_at)(void *arg, int dirfd, const char *name,
		       const char *path, const struct stat *st, int depth);
	/* With stat_files, NULL or what is known of the regular file ino
	 * in a directory on dev without asking the kernel: fills *st and
	 * returns 1, or returns 0 to have it fstatat()ed, or 2 to leave it
	 * out (the caller counted it already).  Only for a directory with
	 * nothing mounted beneath it: the entry's d_ino is then the
	 * file's. */
	int (*known)(void *arg, dev_t dev, ino_t ino, struct stat *st);
	/* NULL, or whether to leave out the subdirectory whose entry (its
	 * d_ino ino) is in the directory dir_ino on dev, without opening
	 * it: 1 to leave it out, 0 to visit it. */
	int (*skip_dir)(void *arg, dev_t dev, ino_t dir_ino, ino_t ino);
	/* Called for each argument and whenever the walk reaches a different
	 * st_dev (a mount or a subvolume), before anything under it is read;
	 * top is 1 for an argument.  Returns a walk_enter, or a negative
	 * errno to abort the walk. */
	int (*enter_fs)(void *arg, int fd, const char *path,
			const struct stat *st, int top);
	/* A directory about to be read, open on fd (closed by the walker):
	 * return WALK_ENTER to read it, WALK_SKIP if the callback accounted
	 * for it, or a negative errno to abort.  May be NULL. */
	int (*dir)(void *arg, int fd, const char *path, const struct stat *st,
		   int depth);
	/* The walk is done with a directory dir() returned WALK_ENTER for
	 * (or, when dir is NULL, any directory it entered), still open on
	 * fd (the walker's, closed after), or -1 when it was closed and
	 * could not be found again.  Return 0 to go on or a negative errno
	 * to abort the walk.  May be NULL. */
	int (*leave_dir)(void *arg, int fd, const char *path, int depth);
	/* Called before each entry; non-zero aborts the walk with it. */
	int (*tick)(void *arg);
	/* A path that could not be read: err is a positive errno. */
	void (*error)(void *arg, const char *path, int err);
};

struct walk_opts {
	int one_fs;		/* -x: don't cross st_dev boundaries */
	int stat_files;		/* file() gets fd -1 and an fstatat() of the
				 * file, not opened (but for an argument or a
				 * file on another device than its directory) */
};

/*
 * Walk path (a file or directory) calling ops for what is found.  Errors on
 * single paths go to ops->error and the walk goes on; they are counted in
 * the return value's absence: returns 0 when the walk finished (errors or
 * not), the negative value of a callback that aborted it, or -ENOMEM.
 */
int walk_path(const char *path, const struct walk_opts *opts,
	      const struct walk_ops *ops, void *arg);

#endif
