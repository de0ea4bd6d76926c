/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which directories have a mount point somewhere beneath them.  The fast
 * scan reads a directory's whole subtree from btrfs metadata, which can't
 * see mounts: only a directory with none beneath it may be scanned that way.
 */
#ifndef COMPSIZE_MOUNTS_H
#define COMPSIZE_MOUNTS_H

#include <stddef.h>
#include <sys/stat.h>

struct mounts;

/* Read /proc/self/mountinfo and note every directory above a mount point.
 * Returns NULL when out of memory; an unreadable mountinfo gives a set that
 * treats every directory as having mounts beneath it. */
struct mounts *mounts_create(void);
void mounts_free(struct mounts *m);

/* Is some mount point strictly beneath the directory st describes? */
int mounts_beneath(const struct mounts *m, const struct stat *st);

/*
 * The compress= or compress-force= option of the filesystem path is on
 * now, as /proc/self/mountinfo shows it (e.g. "compress=zstd:3"), copied
 * into buf.  Returns 1, 0 when it has none (or it does not fit), or -errno
 * (path not found, mountinfo unreadable).
 */
int mounts_compress_option(const char *path, char *buf, size_t len);

#endif
