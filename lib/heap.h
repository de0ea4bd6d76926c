/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The heap of an estimate or a sample: kept, and in huge pages once big.
 * A sample builds tables and arrays of tens of megabytes (a 109k-file
 * tree: 28 MB) a page at a time, and the first touch of each page is a
 * fault: 10,300 of them for a 1% sample of that tree, at 15-28 us each
 * on the virtual machine it was measured on (the host backs the page
 * too), 0.15-0.3 s of CPU, more than the sample's own work beyond the
 * usage scan.  In 2 MiB pages the same run faults about 2,600 times
 * (docs/sampling.md).
 */
#ifndef COMPSIZE_HEAP_H
#define COMPSIZE_HEAP_H

#include <stdint.h>
#include <unistd.h>

/* Where the heap is advised up to; 0 before heap_tune() or without it. */
extern uintptr_t heap_advised;

/*
 * From now on every thread allocates from the one heap, memory freed
 * stays in it for the next allocation, it grows in steps of 64 MiB
 * (address space: a page costs nothing until touched), and what it grows
 * beyond its first 8 MiB is advised as transparent huge pages
 * (heap_grown()), which the kernel gives on request under THP "madvise"
 * (Debian's default) or "always".  A run whose heap stays under 8 MiB
 * keeps its 4 KiB pages; past that, what a 2 MiB page holds beyond what
 * was touched is resident too (an estimate of a few files, whose
 * workers' buffers reach past 8 MiB: 8-10 MB instead of 4.5).
 * Nothing is changed where address space or data is limited (ulimit -v,
 * -d) or memory is not overcommitted (vm.overcommit_memory=2): there the
 * big steps could fail where the allocation itself fits.  For
 * --estimate; the usage scan keeps glibc's defaults.  Call before any
 * thread starts.
 */
void heap_tune(void);

/* Advise what the heap grew by since the last call (heap_grown()). */
void heap_advise(void);

/* After an allocation that may have grown the heap (array.h's): one
 * comparison while it has not, a system call once per step. */
static inline void heap_grown(void)
{
	if (heap_advised && (uintptr_t)sbrk(0) > heap_advised)
		heap_advise();
}

#endif
