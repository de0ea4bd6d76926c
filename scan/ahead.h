/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Searching ahead of a long search.  TREE_SEARCH_V2 reads the tree blocks
 * it needs one at a time, waiting for each: a cold scan of a big tree
 * keeps one read in flight.  Past its first batches, where the search had
 * to read from the device, threads fetch the next ranges of objectids into
 * buffers of their own, several reads in flight, while the search takes
 * in each range in turn, in key order.
 */
#ifndef COMPSIZE_AHEAD_H
#define COMPSIZE_AHEAD_H

#include <stdint.h>
#include "scan/search.h"

/*
 * search_run(ctx, fd, start, nodesize, cb, arg): the same items in the
 * same order to cb on the calling thread.  Four threads start where the
 * search is longer than a few batches and had to read from the device
 * (its read_bytes in /proc/thread-self/io), none where the blocks were
 * cached.  They only fetch: a range they could not fetch whole (no
 * memory, an error, more items than a buffer holds) the search fetches
 * on, and meets any error itself.  COMPSIZE_AHEAD=0 in the environment: no thread (the tests that
 * count a run's threads).  Returns what search_run() returns.
 */
int ahead_search_run(struct search_ctx *ctx, int fd,
		     const struct btrfs_ioctl_search_key *start,
		     uint32_t nodesize, search_cb cb, void *arg);

#endif
