// SPDX-License-Identifier: GPL-2.0
/*
 * Path recursion: openat/fdopendir with an explicit stack.
 *
 * Only the WALK_MAX_OPEN deepest directories stay open: deeper trees would
 * otherwise run out of descriptors (1.5 dies with EMFILE).  Fewer when the
 * process runs out of descriptors (a low RLIMIT_NOFILE, or descriptors the
 * caller keeps): an open() failing with EMFILE closes the open directory
 * nearest the root, never the current one, and is tried again.  A
 * directory pushed out of that window remembers its readdir position and
 * identity, and is reopened through ".." of its child when the walk climbs
 * back to it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "walk/walk.h"

/* Directories kept open at once; the rest of the stack is closed. */
#define WALK_MAX_OPEN	32

struct frame {
	DIR *dir;		/* NULL while closed to save descriptors */
	dev_t dev;
	ino_t ino;		/* to check a reopened directory is the same */
	long pos;		/* telldir() when closed */
	size_t path_len;	/* the directory's own path length */
};

struct walker {
	const struct walk_opts *opts;
	const struct walk_ops *ops;
	void *arg;
	char *path;
	size_t path_cap;
	struct frame *stack;
	size_t depth, stack_cap;
	size_t nopen;		/* open frames: always the top nopen ones */
};

/* Opening must not change anything: no atime update (O_NOATIME, refused
 * for files we don't own unless root), no controlling tty, no blocking on
 * a fifo. */
static int open_entry(int dirfd, const char *name)
{
	int flags = O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	int fd = openat(dirfd, name, flags | O_NOATIME);

	if (fd < 0 && errno == EPERM)
		fd = openat(dirfd, name, flags);
	return fd;
}

/* Entries that vanish or can't be opened for reasons that say nothing
 * about the data are left out silently, as compsize 1.5 does. */
static int ignorable(int err)
{
	return err == ELOOP || err == ENXIO || err == ENODEV ||
	       err == ENOMEDIUM || err == ENOENT;
}

static int set_path(struct walker *w, size_t at, const char *name)
{
	size_t len = strlen(name);
	size_t need = at + len + 2;

	if (need > w->path_cap) {
		size_t cap = w->path_cap ? w->path_cap : 256;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(w->path, cap);
		if (!p)
			return -ENOMEM;
		w->path = p;
		w->path_cap = cap;
	}
	/* "dir/" + "f" gives "dir/f", like 1.5; "dir" + "f" gives "dir/f". */
	if (at && w->path[at - 1] != '/')
		w->path[at++] = '/';
	memcpy(w->path + at, name, len + 1);
	return 0;
}

/* Close the open frame nearest the root, keeping its readdir position;
 * returns 0, or -1 when only the current directory is open. */
static int shed(struct walker *w)
{
	struct frame *f;

	if (w->nopen < 2)
		return -1;
	/* On Linux telldir() is the kernel's directory offset (the d_off
	 * cookie), which stays valid for a new descriptor of the same
	 * directory: seekdir() on it resumes there. */
	f = &w->stack[w->depth - w->nopen];
	f->pos = telldir(f->dir);
	closedir(f->dir);
	f->dir = NULL;
	w->nopen--;
	return 0;
}

/* open_entry(), closing open directories while descriptors run out. */
static int open_entry_shed(struct walker *w, int dirfd, const char *name)
{
	int fd;

	while ((fd = open_entry(dirfd, name)) < 0 && errno == EMFILE &&
	       !shed(w))
		;
	return fd;
}

static int push(struct walker *w, DIR *dir, const struct stat *st)
{
	struct frame *f;

	f = array_grow(w->stack, &w->stack_cap, w->depth, sizeof(*f));
	if (!f)
		return -ENOMEM;
	w->stack = f;
	if (w->nopen == WALK_MAX_OPEN)
		shed(w);
	f = &w->stack[w->depth];
	f->dir = dir;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->pos = 0;
	f->path_len = strlen(w->path);
	w->depth++;
	w->nopen++;
	return 0;
}

/* Open the directory of frame k again by its path, one component at a
 * time from the argument, so that no path length limit applies. */
static int open_by_path(struct walker *w, size_t k)
{
	size_t j, start, end;
	int fd, nfd, err;
	char c;

	end = w->stack[0].path_len;
	c = w->path[end];
	w->path[end] = '\0';
	fd = open_entry(AT_FDCWD, w->path);
	w->path[end] = c;
	for (j = 1; fd >= 0 && j <= k; j++) {
		/* set_path() put a '/' after the parent unless it ended in one. */
		start = w->stack[j - 1].path_len;
		if (w->path[start - 1] != '/')
			start++;
		end = w->stack[j].path_len;
		c = w->path[end];
		w->path[end] = '\0';
		nfd = open_entry(fd, w->path + start);
		err = errno;
		w->path[end] = c;
		close(fd);
		fd = nfd;
		errno = err;
	}
	return fd < 0 ? -errno : fd;
}

/* Give the closed frame f (index k) its directory back: fd is ".." of its
 * child or -1.  Returns 0 or a positive errno; ESTALE if what we reach is no
 * longer the directory we left. */
static int reopen(struct walker *w, size_t k, int fd)
{
	struct frame *f = &w->stack[k];
	struct stat st;
	int err;

	/* ".." of the child follows f wherever it was renamed to; if the
	 * child itself moved or was removed, f may still be at its path. */
	if (fd >= 0 && (fstat(fd, &st) || st.st_dev != f->dev ||
			st.st_ino != f->ino)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fd = open_by_path(w, k);
		if (fd < 0)
			return -fd;
		if (fstat(fd, &st)) {
			err = errno;
			goto fail;
		}
		if (st.st_dev != f->dev || st.st_ino != f->ino) {
			err = ESTALE;
			goto fail;
		}
	}
	f->dir = fdopendir(fd);
	if (!f->dir) {
		err = errno;
		goto fail;
	}
	seekdir(f->dir, f->pos);
	w->nopen++;
	return 0;
fail:
	close(fd);
	return err;
}

/* Drop the top frame, telling the caller (fd: its directory, or -1);
 * returns what leave_dir() returned. */
static int leave(struct walker *w, int fd)
{
	w->depth--;
	if (!w->ops->leave_dir)
		return 0;
	w->path[w->stack[w->depth].path_len] = '\0';
	return w->ops->leave_dir(w->arg, fd, w->path, (int)w->depth);
}

/* Report a path that could not be read, or, when memory ran out (a
 * failed fdopendir() or readdir() buffer, say), abort the whole walk:
 * that is not the path's fault.  Returns 0 or -ENOMEM. */
static int fail(struct walker *w, const char *path, int err)
{
	if (err == ENOMEM)
		return -ENOMEM;
	w->ops->error(w->arg, path, err);
	return 0;
}

/*
 * Pop the top frame.  If the frame under it was closed, reopen it, normally
 * as ".." of the popped one (one openat() at any depth or path length).  A
 * directory that can't be found again is reported, and the rest of it is
 * left out.  Returns 0, the error of a leave_dir() that aborts the walk,
 * or -ENOMEM.
 */
static int pop(struct walker *w)
{
	struct frame *top = &w->stack[w->depth - 1];
	int fd = -1, err, ret;

	/* open_entry(): O_NOATIME, or reading it again would touch it. */
	if (w->depth > 1 && !top[-1].dir)
		fd = open_entry(dirfd(top->dir), "..");
	ret = leave(w, dirfd(top->dir));
	closedir(top->dir);
	w->nopen--;
	while (!ret && w->depth && !w->stack[w->depth - 1].dir) {
		err = reopen(w, w->depth - 1, fd);
		fd = -1;
		if (!err)
			break;
		w->path[w->stack[w->depth - 1].path_len] = '\0';
		ret = fail(w, w->path, err);
		if (!ret)
			ret = leave(w, -1);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Visit the entry named name in parent (AT_FDCWD and NULL for an
 * argument; w->path already holds its path). */
static int visit(struct walker *w, int dirfd, const struct dirent *de,
		 const char *name, const struct frame *parent)
{
	int top = parent == NULL;
	struct stat st;
	DIR *dir;
	int fd, ret, known = 0;

	if (!top && de->d_type == DT_DIR && w->ops->skip_dir &&
	    w->ops->skip_dir(w->arg, parent->dev, parent->ino, de->d_ino))
		return 0;
	if (w->opts->stat_files && !top && de->d_type == DT_REG &&
	    w->ops->known) {
		known = w->ops->known(w->arg, parent->dev, de->d_ino, &st);
		if (known == 2)
			return 0;
	}
	/* Files without opening them: known to the caller already, or one
	 * fstatat() (no atime, no open and close).  A file on another
	 * device (a bind mount) is opened, for enter_fs(); a directory
	 * (d_type) is opened without asking. */
	if (w->opts->stat_files && !top && de->d_type != DT_DIR &&
	    (known ||
	     (!fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	      S_ISREG(st.st_mode) && st.st_dev == parent->dev))) {
		fd = -1;
		ret = w->ops->file_at ?
		      w->ops->file_at(w->arg, dirfd, name, w->path, &st,
				      (int)w->depth) :
		      w->ops->file(w->arg, &fd, w->path, &st, (int)w->depth);
		return ret < 0 ? ret : 0;
	}
	fd = open_entry_shed(w, dirfd, name);
	if (fd < 0) {
		ret = errno;
		/* A missing argument is the user's mistake, not a race. */
		if (ignorable(ret) && !(top && ret == ENOENT))
			return 0;
		return fail(w, w->path, ret);
	}
	if (fstat(fd, &st)) {
		ret = fail(w, w->path, errno);
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		goto out;
	if (!top && w->opts->one_fs && st.st_dev != parent->dev)
		goto out;
	if (top || st.st_dev != parent->dev) {
		ret = w->ops->enter_fs(w->arg, fd, w->path, &st, top);
		if (ret < 0) {
			close(fd);
			return ret;
		}
		if (ret == WALK_SKIP)
			goto out;
	}
	if (S_ISREG(st.st_mode)) {
		ret = w->ops->file(w->arg, &fd, w->path, &st, (int)w->depth);
		if (fd >= 0)
			close(fd);
		return ret < 0 ? ret : 0;
	}
	if (w->ops->dir) {
		ret = w->ops->dir(w->arg, fd, w->path, &st, (int)w->depth);
		if (ret < 0) {
			close(fd);
			return ret;
		}
		if (ret == WALK_SKIP)
			goto out;
	}
	dir = fdopendir(fd);
	if (!dir) {
		ret = fail(w, w->path, errno);
		if (!ret && w->ops->leave_dir)
			ret = w->ops->leave_dir(w->arg, fd, w->path,
						(int)w->depth);
		close(fd);
		return ret < 0 ? ret : 0;
	}
	ret = push(w, dir, &st);
	if (ret)
		closedir(dir);
	return ret;
out:
	close(fd);
	return 0;
}

/* Is this directory entry worth opening? */
static int wanted(struct walker *w, DIR *dir, const struct dirent *de)
{
	struct stat st;

	if (de->d_name[0] == '.' &&
	    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
		return 0;
	if (de->d_type == DT_DIR || de->d_type == DT_REG)
		return 1;
	if (de->d_type != DT_UNKNOWN)
		return 0;
	/* Don't open device nodes just to learn what they are. */
	if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
		return 1;	/* let visit() report or ignore it */
	(void)w;
	return S_ISREG(st.st_mode) || S_ISDIR(st.st_mode);
}

int walk_path(const char *path, const struct walk_opts *opts,
	      const struct walk_ops *ops, void *arg)
{
	struct walker w = { .opts = opts, .ops = ops, .arg = arg };
	struct dirent *de;
	struct frame *top;
	int ret;

	ret = set_path(&w, 0, path);
	if (ret)
		goto out;
	ret = ops->tick(arg);
	if (ret)
		goto out;
	ret = visit(&w, AT_FDCWD, NULL, path, NULL);
	while (!ret && w.depth) {
		top = &w.stack[w.depth - 1];
		errno = 0;
		de = readdir(top->dir);
		if (!de) {
			if (errno) {
				w.path[top->path_len] = '\0';
				ret = fail(&w, w.path, errno);
				if (ret)
					break;
			}
			ret = pop(&w);
			continue;
		}
		if (!wanted(&w, top->dir, de))
			continue;
		ret = ops->tick(arg);
		if (ret)
			break;
		ret = set_path(&w, top->path_len, de->d_name);
		if (ret)
			break;
		ret = visit(&w, dirfd(top->dir), de, de->d_name, top);
	}
out:
	while (w.depth) {
		top = &w.stack[--w.depth];
		if (top->dir)
			closedir(top->dir);
	}
	free(w.stack);
	free(w.path);
	return ret;
}
