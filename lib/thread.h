/* SPDX-License-Identifier: GPL-2.0 */
/* What every thread compsize starts does first. */
#ifndef COMPSIZE_THREAD_H
#define COMPSIZE_THREAD_H

#include <pthread.h>
#include <signal.h>

/* Signals go to the main thread, with their default or compsize's own
 * dispositions; the calling thread never takes one. */
static inline void thread_block_signals(void)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
}

#endif
