/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lsdefer: a fastscan_listener whose calls are made on a thread of their
 * own.  --sample's pre-pass does two things with each item the fast scan
 * streams: the usage report's accounting (the scan's own, on the calling
 * thread) and the sample's bookkeeping of each file (its band, its
 * references, its names: the listener).  The second took as long as the
 * first; queued to another thread, the two run side by side.
 *
 * The calls are recorded, with copies of what they point to, in chunks of
 * a small fixed pool, and made on the real listener in the order they
 * were queued, with the same arguments: what the listener builds is what
 * calling it directly builds.  The listener's state belongs to the thread
 * until lsdefer_finish() returns.  A non-zero value from the listener
 * stops the calls after it; every later queued call returns that value,
 * so the scan aborts with it, as it would have a little earlier.
 */
#ifndef COMPSIZE_LSDEFER_H
#define COMPSIZE_LSDEFER_H

#include "scan/fastscan.h"

struct lsdefer;

/*
 * Start a thread making the calls of *ls (copied), and fill *out with a
 * listener that queues them.  Returns NULL when no memory or no thread can
 * be had: call ls directly then.
 */
struct lsdefer *lsdefer_start(const struct fastscan_listener *ls,
			      struct fastscan_listener *out);

/*
 * Make every call queued, join the thread and free d.  Returns 0, or the
 * first non-zero value a call of the listener returned.
 */
int lsdefer_finish(struct lsdefer *d);

#endif
