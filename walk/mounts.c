// SPDX-License-Identifier: GPL-2.0
/* Directories with a mount point beneath them, from /proc/self/mountinfo. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "walk/mounts.h"

struct dir_id {
	dev_t dev;
	ino_t ino;
};

struct mounts {
	struct dir_id *dirs;
	size_t n, cap;
	int unknown;	/* mountinfo unreadable: assume mounts everywhere */
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

static int add(struct mounts *m, const struct stat *st)
{
	struct dir_id *d;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->dirs[i].dev == st->st_dev && m->dirs[i].ino == st->st_ino)
			return 0;
	d = array_grow(m->dirs, &m->cap, m->n, sizeof(*d));
	if (!d)
		return -ENOMEM;
	m->dirs = d;
	m->dirs[m->n].dev = st->st_dev;
	m->dirs[m->n].ino = st->st_ino;
	m->n++;
	return 0;
}

/* Note every proper ancestor of the mount point at path. */
static int add_ancestors(struct mounts *m, char *path)
{
	struct stat st;
	char *slash;
	int ret;

	while ((slash = strrchr(path, '/'))) {
		if (slash == path) {
			if (!path[1])
				break;	/* "/" has no ancestor */
			path[1] = '\0';
		} else {
			*slash = '\0';
		}
		/* What the walk sees at that path: the top of any stack of
		 * mounts there. */
		if (!stat(path, &st)) {
			ret = add(m, &st);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The whole of a /proc file, NUL-terminated, or NULL.  Plain read(): stdio
 * would bring in libc code and a buffer nothing else in a scan uses. */
static char *read_file(const char *path)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *p;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - len < 2) {
			p = array_grow(buf, &cap, cap ? cap : 4095, 1);
			if (!p)
				break;
			buf = p;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0) {
				buf[len] = '\0';
				close(fd);
				return buf;
			}
			break;
		}
		len += (size_t)n;
	}
	free(buf);
	close(fd);
	return NULL;
}

/* The next line of text at *pos, NUL-terminated in place, or NULL. */
static char *next_line(char **pos)
{
	char *line = *pos, *nl;

	if (!*line)
		return NULL;
	nl = strchr(line, '\n');
	if (nl) {
		*nl = '\0';
		*pos = nl + 1;
	} else {
		*pos = line + strlen(line);
	}
	return line;
}

/* A mountinfo line's mount point (its 5th field: "id parent major:minor
 * root mountpoint ..."), NUL-terminated and unescaped in place, with
 * *rest after it; NULL if the line has none. */
static char *mount_point(char *line, char **rest)
{
	char *mp = line, *end;
	int field;

	for (field = 1; mp && field < 5; field++) {
		mp = strchr(mp, ' ');
		if (mp)
			mp++;
	}
	if (!mp || mp[0] != '/')
		return NULL;
	for (end = mp; *end && *end != ' '; end++)
		;
	*rest = *end ? end + 1 : end;
	*end = '\0';
	unescape(mp);
	return mp;
}

struct mounts *mounts_create(void)
{
	struct mounts *m = calloc(1, sizeof(*m));
	char *text, *line, *pos, *mp, *rest;

	if (!m)
		return NULL;
	text = read_file("/proc/self/mountinfo");
	if (!text) {
		m->unknown = 1;
		return m;
	}
	for (pos = text; (line = next_line(&pos));) {
		mp = mount_point(line, &rest);
		if (!mp)
			continue;
		if (add_ancestors(m, mp)) {
			m->unknown = 1;
			break;
		}
	}
	free(text);
	return m;
}

void mounts_free(struct mounts *m)
{
	if (!m)
		return;
	free(m->dirs);
	free(m);
}

int mounts_beneath(const struct mounts *m, const struct stat *st)
{
	size_t i;

	if (m->unknown)
		return 1;
	for (i = 0; i < m->n; i++)
		if (m->dirs[i].dev == st->st_dev && m->dirs[i].ino == st->st_ino)
			return 1;
	return 0;
}

/* Is mount point mp (unescaped) path itself or a directory above it? */
static size_t mount_prefix(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (!strcmp(mp, "/"))
		return 1;
	if (strncmp(mp, path, n) || (path[n] && path[n] != '/'))
		return 0;
	return n + 1;
}

int mounts_compress_option(const char *path, char *buf, size_t len)
{
	char *real = realpath(path, NULL), *text, *line, *pos, *mp, *end;
	char *opts, *o, *best_opts = NULL;
	size_t best = 0, m;
	int field, ret = 0;

	if (!real)
		return -errno;
	text = read_file("/proc/self/mountinfo");
	if (!text) {
		free(real);
		return -ENOENT;
	}
	for (pos = text; (line = next_line(&pos));) {
		/* ... mountpoint opts [tags] - fstype source superopts */
		mp = mount_point(line, &opts);
		if (!mp)
			continue;
		opts = strstr(opts, " - ");
		/* the super options, after fstype and source */
		for (field = 0; opts && field < 3; field++)
			opts = strchr(opts + 1, ' ');
		if (!opts)
			continue;
		m = mount_prefix(mp, real);
		/* the last of a stack of mounts on one point is the top */
		if (m && m >= best) {
			best = m;
			best_opts = opts + 1;
		}
	}
	for (o = best_opts; o && *o; o = end) {
		end = strchr(o, ',');
		if (!end)
			end = o + strlen(o);
		if (!strncmp(o, "compress=", 9) ||
		    !strncmp(o, "compress-force=", 15)) {
			if ((size_t)(end - o) < len) {
				memcpy(buf, o, end - o);
				buf[end - o] = '\0';
				ret = 1;
			}
			break;
		}
		if (*end)
			end++;
	}
	free(text);
	free(real);
	return ret;
}
