// SPDX-License-Identifier: GPL-2.0
/* The heap of an estimate: kept, and in huge pages once big (heap.h). */
#include <fcntl.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "lib/heap.h"

/* The first bytes of the heap, left in 4 KiB pages. */
#define HEAP_LEAN	((uintptr_t)8 << 20)
/*
 * How much more the heap grows each time it must.  The growth is advised
 * after the allocation that made it, whose pages may be touched by then
 * (realloc()'s copy); the bigger the step, the fewer such pages (a 1%
 * sample of the bench tree: 3,600 faults with steps of 32 MiB, 2,600
 * with 64; with no lean start, 350).
 */
#define HEAP_STEP	(64 << 20)
#define HUGE_PAGE	((uintptr_t)2 << 20)

uintptr_t heap_advised;

/* Whether the limit on resource is set (not RLIM_INFINITY). */
static int limited(int resource)
{
	struct rlimit r;

	return getrlimit(resource, &r) || r.rlim_cur != RLIM_INFINITY;
}

/* vm.overcommit_memory is 2: address space is committed memory. */
static int strict_commit(void)
{
	char c = 0;
	int fd = open("/proc/sys/vm/overcommit_memory", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == '2';
}

void heap_tune(void)
{
	uintptr_t start = (uintptr_t)sbrk(0);

	if (start == (uintptr_t)-1 || limited(RLIMIT_AS) ||
	    limited(RLIMIT_DATA) || strict_commit())
		return;
	/* One heap: a thread's own arena is mapped apart, where its growth
	 * is not seen.  Blocks up to 32 MiB come from it and go back to it
	 * (not to the system, to be faulted in again), and it is not
	 * trimmed. */
	mallopt(M_ARENA_MAX, 1);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	mallopt(M_TOP_PAD, HEAP_STEP);
	heap_advised = (start + HEAP_LEAN + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void heap_advise(void)
{
	uintptr_t end = (uintptr_t)sbrk(0) & ~(uintptr_t)4095;

	if (!heap_advised || end <= heap_advised)
		return;
	/* A failure (a kernel without transparent huge pages) leaves the
	 * pages as they were: only slower. */
	(void)madvise((void *)heap_advised, end - heap_advised, MADV_HUGEPAGE);
	heap_advised = end;
}
