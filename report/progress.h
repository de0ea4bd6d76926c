/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress: a one-line progress report redrawn on a terminal by a thread
 * of its own ("PREFIX 1.2G of 3.4G read, 250MB/s, ETA 0:09", in the
 * table's words): nothing in the first second, then a redraw at most five
 * times a second.  On a file or pipe, a full line every 10 seconds.
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
 * Start drawing on fd (a terminal: one line redrawn; else full lines), each line starting with prefix (kept,
 * not copied).  Returns NULL with errno set (ENOMEM, or
 * pthread_create()'s error).
 */
struct progress *progress_start(int fd, const char *prefix,
				progress_counts_fn counts, void *arg);

/*
 * The scan's line ("PREFIX 12345 files, 1.2G referenced, 0:07"): files
 * and bytes done so far, asked for by the progress thread at each redraw
 * (the caller's to make safe to read from it), and the time since the
 * start.  Nothing in the first two seconds: a short scan shows nothing.
 */
typedef void (*progress_scan_fn)(void *arg, uint64_t *files,
				 uint64_t *bytes);
struct progress *progress_start_scan(int fd, const char *prefix,
				     progress_scan_fn counts, void *arg);

/* Erase the line, if one is drawn, before writing to stderr.  NULL is
 * fine. */
void progress_clear(struct progress *p);

/*
 * While a line is drawn on a terminal, SIGINT and SIGTERM (unless
 * ignored) erase it before ending the process by their default action.
 */

/* Stop the thread, erase the line and free.  NULL is fine. */
void progress_stop(struct progress *p);

#endif
