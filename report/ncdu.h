/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --format=ncdu: the tree of files as ncdu's JSON export (format 1.2,
 * what ncdu -o writes and ncdu -f reads), so that ncdu browses compsize's
 * figures: dsize is a file's share of the report's Disk Usage, asize its
 * apparent size (st_size).  The caller attributes each extent to the
 * first file met that references it, so the dsizes add up to Disk Usage.
 *
 * The tree is gathered along the walk in memory (about 60 bytes and the
 * name a file) and printed whole at the end (ncdu_print()), so a run
 * that is aborted prints nothing half-written.
 */
#ifndef COMPSIZE_NCDU_H
#define COMPSIZE_NCDU_H

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

struct ncdu;

/* An empty tree, or NULL when out of memory. */
struct ncdu *ncdu_create(void);
void ncdu_free(struct ncdu *n);

/*
 * A directory at path begins (st: its stat): the entries added next are
 * its own until the matching ncdu_leave().  With no directory open, path
 * is an argument and its name in the tree is path as given; otherwise its
 * name is path's last component.  Directories take no file data: asize
 * and dsize 0.  Returns 0 or -ENOMEM.
 */
int ncdu_dir(struct ncdu *n, const char *path, const struct stat *st);

/* The innermost open directory is done.  No-op when none is open. */
void ncdu_leave(struct ncdu *n);

/*
 * A regular file at path (named as in ncdu_dir()) with dsize bytes of
 * disk usage; st gives asize (st_size), dev, ino and, with more than one
 * link, hlnkc and nlink.  Returns 0 or -ENOMEM.
 */
int ncdu_file(struct ncdu *n, const char *path, const struct stat *st,
	      uint64_t dsize);

/*
 * path (st: its stat) is another filesystem the report leaves out: an
 * entry with "excluded":"otherfs" (ncdu shows ">").  Returns 0 or
 * -ENOMEM.
 */
int ncdu_excluded(struct ncdu *n, const char *path, const struct stat *st);

/*
 * path could not be read: the open directory or the file last added with
 * that path is marked read_error (ncdu shows "!" and "<" above it), or
 * else an entry with read_error alone is added where it would be.
 * Returns 0 or -ENOMEM.
 */
int ncdu_error(struct ncdu *n, const char *path);

/*
 * Print the export to out: [1,2,{metadata},root].  The root is the one
 * directory argument; several arguments, or a file argument, go into a
 * directory named "compsize: N arguments" (ncdu's root must be a
 * directory).  Names are written as ncdu -o writes them: quote, backslash
 * and control characters escaped, every other byte as it is, valid UTF-8
 * or not (ncdu reads names as bytes).  Returns 0 or -ENOMEM (nothing
 * printed); a failed write is left in out's error flag.
 */
int ncdu_print(const struct ncdu *n, FILE *out, const char *progver,
	       int64_t timestamp);

#endif
