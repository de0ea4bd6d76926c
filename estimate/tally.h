/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tally: the total a progress line counts down from, known early.  The
 * estimate's own walk hands files to a bounded queue (estrun.h), so it
 * reaches the last file only near the end; a thread of its own walks the
 * same arguments ahead of it, listing files (fstatat(), opening none,
 * reading no data), and sums what each file will cost (the caller's
 * callback: its data bytes, or its sampled bytes).  A file with several
 * links counts once; below an argument, filesystems other than btrfs are
 * left out, as the estimate's walk leaves them out.  Being ahead, it
 * also brings a cold tree's inodes into memory before the estimate's
 * walk opens them (estrun.c starts it for that reason too).
 */
#ifndef COMPSIZE_TALLY_H
#define COMPSIZE_TALLY_H

#include <stdint.h>
#include <sys/stat.h>

/* The bytes regular file st will cost; called on the tally's thread. */
typedef uint64_t (*tally_bytes_fn)(void *arg, const struct stat *st);

struct tally;

/*
 * Start walking paths[0..n) (kept, not copied: they must outlive the
 * tally) with -x if one_fs.  Returns NULL with errno set (ENOMEM, or
 * pthread_create()'s error).
 */
struct tally *tally_start(char *const *paths, int n, int one_fs,
			  tally_bytes_fn bytes, void *arg);

/* The sum so far into *total; returns 1 once the walk is done, else 0. */
int tally_get(struct tally *t, uint64_t *total);

/* Stop the walk where it is, join the thread and free.  NULL is fine. */
void tally_stop(struct tally *t);

#endif
