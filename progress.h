/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress: a one-line progress report redrawn on a terminal by a thread
 * of its own ("PREFIX 1.2GiB of 3.4GiB read, 250MiB/s, ETA 0:09"): nothing
 * in the first second, then a redraw at most five times a second.
 */
#ifndef COMPSIZE_PROGRESS_H
#define COMPSIZE_PROGRESS_H

#include <stdint.h>

/*
 * The figures to show, asked for by the progress thread at each redraw:
 * bytes done so far, and the bytes there are to do once that total is
 * known (*total_known, else the line shows no total and no ETA).  The
 * bytes this process has read (/proc/self/io) count as done when they are
 * more, so the line moves inside a large file too.
 */
typedef void (*progress_counts_fn)(void *arg, uint64_t *done,
				   uint64_t *total, int *total_known);

struct progress;

/*
 * Start drawing on the terminal fd, each line starting with prefix (kept,
 * not copied).  Returns NULL with errno set (ENOMEM, or
 * pthread_create()'s error).
 */
struct progress *progress_start(int fd, const char *prefix,
				progress_counts_fn counts, void *arg);

/* Erase the line, if one is drawn, before writing to stderr.  NULL is
 * fine. */
void progress_clear(struct progress *p);

/* Stop the thread, erase the line and free.  NULL is fine. */
void progress_stop(struct progress *p);

#endif
