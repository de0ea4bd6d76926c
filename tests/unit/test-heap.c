// SPDX-License-Identifier: GPL-2.0
/* The heap of an estimate: kept, and huge pages once big (heap.h). */
#include "unit.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/array.h"
#include "lib/heap.h"

/* The end of the program's data: the heap of brk starts above it. */
extern char end;

/* Child's exit codes. */
enum { HUGE_OK, HUGE_NOT_BRK, HUGE_NO_SMAPS, HUGE_NOT_ADVISED, HUGE_FAULTS,
       HUGE_NOMEM };

/* The "THPeligible:" and "AnonHugePages:" (kB) of the mapping holding p. */
static int smaps_of(const void *p, int *eligible, unsigned long *anon_huge)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	unsigned long lo, hi, v;
	int in = 0, found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
			found |= in;
		} else if (in && sscanf(line, "THPeligible: %lu", &v) == 1) {
			*eligible = (int)v;
		} else if (in && sscanf(line, "AnonHugePages: %lu kB", &v) == 1) {
			*anon_huge = v;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

/* /proc/vmstat's thp_fault_fallback: huge page faults the kernel had no
 * huge page for. */
static unsigned long thp_fallbacks(void)
{
	FILE *f = fopen("/proc/vmstat", "r");
	char line[128];
	unsigned long v = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "thp_fault_fallback %lu", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* In a child (heap_tune() is for the whole process): a 64 MiB table made
 * after heap_tune() lies in the heap, in a mapping advised for huge pages,
 * and at least half of it is in huge pages unless the kernel had none to
 * give. */
static int child(void)
{
	const size_t bytes = 16u << 20;
	unsigned long anon_huge = 0, fallbacks = thp_fallbacks();
	uintptr_t lean;
	int eligible = -1, i;
	uint8_t *p = NULL;

	heap_tune();
	lean = heap_advised;
	/* the first tables may reuse what the heap held already, or lie
	 * in its first HEAP_LEAN bytes: a table the heap grew for */
	for (i = 0; i < 8; i++) {
		p = array_zalloc(bytes / 8, 8);
		if (!p)
			return HUGE_NOMEM;
		/* AddressSanitizer's or valgrind's malloc: not the heap */
		if (p < (uint8_t *)&end || p + bytes > (uint8_t *)sbrk(0))
			return HUGE_NOT_BRK;
		if ((uintptr_t)p >= lean)
			break;
	}
	if (smaps_of(p + bytes / 2, &eligible, &anon_huge))
		return HUGE_NO_SMAPS;
	if (eligible != 1)
		return HUGE_NOT_ADVISED;
	if (anon_huge >= (bytes >> 10) / 2 || thp_fallbacks() > fallbacks)
		return HUGE_OK;
	return HUGE_FAULTS;
}

/* Whether the kernel gives huge pages on request: THP "always" or
 * "madvise". */
static int thp_on_request(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "";
	int on;

	if (!f)
		return 0;
	on = fgets(line, sizeof(line), f) && !strstr(line, "[never]");
	fclose(f);
	return on;
}

static void test_huge(void)
{
	pid_t pid;
	int status;

	if (!thp_on_request()) {
		unit_skip("no transparent huge pages on request here");
		return;
	}
	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0)
		_exit(child());
	CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_FATAL(WIFEXITED(status));
	switch (WEXITSTATUS(status)) {
	case HUGE_NOT_BRK:
		unit_skip("malloc() is not glibc's (a sanitizer's, valgrind's)");
		return;
	case HUGE_NO_SMAPS:
		unit_skip("no /proc/self/smaps entry for the table");
		return;
	default:
		CU_ASSERT_EQUAL(WEXITSTATUS(status), HUGE_OK);
	}
}

static CU_TestInfo tests[] = {
	{ "a big table in huge pages", test_huge },
	CU_TEST_INFO_NULL,
};
UNIT_SUITE(heap, tests)
