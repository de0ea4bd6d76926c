// SPDX-License-Identifier: GPL-2.0
/* The tree as ncdu's JSON export (ncdu.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "report/ncdu.h"

#define NODE_DIR	0x1
#define NODE_ERROR	0x2	/* read_error */
#define NODE_STAT	0x4	/* dev, ino, sizes known */
#define NODE_OTHERFS	0x8	/* excluded: another filesystem */

/* Entries in walk order: a directory before its entries, which is the
 * export's order, so printing needs no links, only each one's depth. */
struct node {
	uint64_t dev, ino, asize, dsize, nlink;
	size_t name;		/* offset in names */
	uint32_t depth;		/* 0: an argument */
	uint32_t flags;		/* NODE_* */
};

struct ncdu {
	struct node *nodes;
	size_t nnodes, cap_nodes;
	char *names;		/* the names, each NUL-terminated */
	size_t lnames, cap_names;
	/* Open directories: node index and the length of its path in path */
	size_t *open, *open_len;
	size_t nopen, cap_open, cap_open_len;
	/* The path of the innermost open directory, or of the last file
	 * added when last_file */
	char *path;
	size_t cap_path;
	int last_file;
};

struct ncdu *ncdu_create(void)
{
	return calloc(1, sizeof(struct ncdu));
}

void ncdu_free(struct ncdu *n)
{
	if (!n)
		return;
	free(n->nodes);
	free(n->names);
	free(n->open);
	free(n->open_len);
	free(n->path);
	free(n);
}

/* Keep path as the last path met (n->path).  Returns 0 or -ENOMEM. */
static int set_path(struct ncdu *n, const char *path)
{
	size_t len = strlen(path);
	char *p = array_grow(n->path, &n->cap_path, len, 1);

	if (!p)
		return -ENOMEM;
	n->path = p;
	memcpy(p, path, len + 1);
	return 0;
}

/* A new entry for path at the current depth; NULL when out of memory. */
static struct node *add(struct ncdu *n, const char *path)
{
	const char *name = path, *slash;
	struct node *nd;
	size_t len;
	char *s;

	if (n->nopen) {
		/* below an argument, the walk's paths are DIR/NAME */
		slash = strrchr(path, '/');
		if (slash)
			name = slash + 1;
	}
	len = strlen(name);
	s = array_grow(n->names, &n->cap_names, n->lnames + len, 1);
	if (!s)
		return NULL;
	n->names = s;
	nd = array_grow(n->nodes, &n->cap_nodes, n->nnodes, sizeof(*nd));
	if (!nd)
		return NULL;
	n->nodes = nd;
	nd = &n->nodes[n->nnodes++];
	memset(nd, 0, sizeof(*nd));
	memcpy(s + n->lnames, name, len + 1);
	nd->name = n->lnames;
	n->lnames += len + 1;
	nd->depth = (uint32_t)n->nopen;
	return nd;
}

static void set_stat(struct node *nd, const struct stat *st)
{
	nd->flags |= NODE_STAT;
	nd->dev = (uint64_t)st->st_dev;
	nd->ino = (uint64_t)st->st_ino;
	nd->nlink = (uint64_t)st->st_nlink;
}

int ncdu_dir(struct ncdu *n, const char *path, const struct stat *st)
{
	size_t *o = array_grow(n->open, &n->cap_open, n->nopen,
			       sizeof(*o));
	struct node *nd;

	if (!o)
		return -ENOMEM;
	n->open = o;
	o = array_grow(n->open_len, &n->cap_open_len, n->nopen, sizeof(*o));
	if (!o)
		return -ENOMEM;
	n->open_len = o;
	if (set_path(n, path))
		return -ENOMEM;
	nd = add(n, path);
	if (!nd)
		return -ENOMEM;
	set_stat(nd, st);
	nd->flags |= NODE_DIR;
	n->open[n->nopen] = n->nnodes - 1;
	n->open_len[n->nopen++] = strlen(path);
	n->last_file = 0;
	return 0;
}

void ncdu_leave(struct ncdu *n)
{
	if (!n->nopen)
		return;
	n->nopen--;
	n->last_file = 0;
	/* The walk's paths nest: the parent's is a prefix of its child's. */
	if (n->nopen)
		n->path[n->open_len[n->nopen - 1]] = '\0';
}

int ncdu_file(struct ncdu *n, const char *path, const struct stat *st,
	      uint64_t dsize)
{
	struct node *nd = add(n, path);

	if (!nd)
		return -ENOMEM;
	set_stat(nd, st);
	nd->asize = st->st_size > 0 ? (uint64_t)st->st_size : 0;
	nd->dsize = dsize;
	/* a path to compare errors with; the open directory's returns at
	 * the next ncdu_leave() or ncdu_dir() */
	if (set_path(n, path)) {
		n->last_file = 0;
		return -ENOMEM;
	}
	n->last_file = 1;
	return 0;
}

int ncdu_excluded(struct ncdu *n, const char *path, const struct stat *st)
{
	struct node *nd = add(n, path);

	if (!nd)
		return -ENOMEM;
	set_stat(nd, st);
	nd->flags |= NODE_OTHERFS;
	n->last_file = 0;
	return 0;
}

int ncdu_error(struct ncdu *n, const char *path)
{
	struct node *nd;

	if (n->last_file && !strcmp(n->path, path)) {
		n->nodes[n->nnodes - 1].flags |= NODE_ERROR;
		return 0;
	}
	if (n->nopen) {
		size_t len = n->open_len[n->nopen - 1];

		n->path[len] = '\0';
		n->last_file = 0;
		if (!strcmp(n->path, path)) {
			n->nodes[n->open[n->nopen - 1]].flags |= NODE_ERROR;
			return 0;
		}
	}
	nd = add(n, path);
	if (!nd)
		return -ENOMEM;
	nd->flags |= NODE_ERROR;
	return 0;
}

/*
 * A string as ncdu reads it (dir_import.c, rstring()): quote, backslash
 * and the control characters it rejects raw (0x00-0x1f, 0x7f) escaped,
 * every other byte as it is, as ncdu -o writes names: a name that is not
 * UTF-8 comes back with its own bytes.
 */
static void put_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* The info object of nd; parent_dev: its directory's device, so that
 * "dev" is written only where it changes, as ncdu -o does. */
static void put_info(FILE *f, const struct ncdu *n, const struct node *nd,
		     const uint64_t *parent_dev)
{
	fputs("{\"name\":", f);
	put_string(f, n->names + nd->name);
	if (nd->flags & NODE_STAT) {
		fprintf(f, ",\"asize\":%" PRIu64 ",\"dsize\":%" PRIu64,
			nd->asize, nd->dsize);
		if (!parent_dev || *parent_dev != nd->dev)
			fprintf(f, ",\"dev\":%" PRIu64, nd->dev);
		fprintf(f, ",\"ino\":%" PRIu64, nd->ino);
		/* ncdu counts an entry with hlnkc once per directory, by
		 * (dev, ino), as du counts hard links */
		if (!(nd->flags & (NODE_DIR | NODE_OTHERFS)) && nd->nlink > 1)
			fprintf(f, ",\"hlnkc\":true,\"nlink\":%" PRIu64,
				nd->nlink);
	}
	if (nd->flags & NODE_ERROR)
		fputs(",\"read_error\":true", f);
	/* the name ncdu's reader takes (dir_import.c) */
	if (nd->flags & NODE_OTHERFS)
		fputs(",\"excluded\":\"otherfs\"", f);
	fputc('}', f);
}

int ncdu_print(const struct ncdu *n, FILE *out, const char *progver,
	       int64_t timestamp)
{
	/* devs[k]: the device of the directory whose array is the k-th
	 * open (with wrap, [0] is the made-up root's: none) */
	uint64_t *devs;
	size_t i, roots = 0, open = 0, max = 0, wrap;

	for (i = 0; i < n->nnodes; i++) {
		roots += !n->nodes[i].depth;
		if (n->nodes[i].depth > max)
			max = n->nodes[i].depth;
	}
	/* ncdu's root must be a directory: one argument that is one is
	 * the root, anything else goes into a made-up one */
	wrap = roots != 1 || !(n->nodes[0].flags & NODE_DIR);
	/* allocated first: out of memory prints nothing */
	devs = calloc(max + 2, sizeof(*devs));
	if (!devs)
		return -ENOMEM;
	fputs("[1,2,{\"progname\":\"compsize\",\"progver\":", out);
	put_string(out, progver);
	fprintf(out, ",\"timestamp\":%" PRId64 "}", timestamp);
	if (wrap) {
		fprintf(out, ",\n[{\"name\":\"compsize: %zu argument%s\"}",
			roots, roots == 1 ? "" : "s");
		open = 1;
	}
	for (i = 0; i < n->nnodes; i++) {
		const struct node *nd = &n->nodes[i];
		size_t depth = nd->depth + wrap;

		while (open > depth) {
			fputc(']', out);
			open--;
		}
		fputs(",\n", out);
		if (nd->flags & NODE_DIR)
			fputc('[', out);
		put_info(out, n, nd, depth > wrap ? &devs[depth - 1] : NULL);
		if (!(nd->flags & NODE_DIR))
			continue;
		devs[depth] = nd->dev;
		open = depth + 1;
	}
	while (open--)
		fputc(']', out);
	fputs("]\n", out);
	free(devs);
	return 0;
}
