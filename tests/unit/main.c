// SPDX-License-Identifier: GPL-2.0
/* CUnit runner: runs every suite registered with UNIT_SUITE(). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/Basic.h>
#include "unit.h"

#define MAX_SUITES 64

static struct {
	const char *name;
	CU_TestInfo *tests;
} suites[MAX_SUITES];
static int nsuites;
static unsigned nskipped;

void unit_skip(const char *fmt, ...)
{
	CU_pTest t = CU_get_current_test();
	va_list ap;

	printf("\n  SKIP %s: ", t ? t->pName : "?");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	nskipped++;
}

int unit_counting(void)
{
	const char *s = getenv("STATS");

	return s && !strcmp(s, "1");
}

unsigned unit_seeds(unsigned many, unsigned few)
{
	return unit_counting() ? many : few;
}

void unit_add_suite(const char *name, CU_TestInfo *tests)
{
	if (nsuites == MAX_SUITES) {
		fprintf(stderr, "unit: too many suites\n");
		abort();
	}
	suites[nsuites].name = name;
	suites[nsuites].tests = tests;
	nsuites++;
}

int main(int argc, char **argv)
{
	unsigned failed;
	int i;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (i = 0; i < nsuites; i++) {
		CU_SuiteInfo info[2] = {
			{ (char *)suites[i].name, NULL, NULL, NULL, NULL,
			  suites[i].tests },
			CU_SUITE_INFO_NULL,
		};
		/* An argument selects suites by name. */
		if (argc > 1 && strcmp(argv[1], suites[i].name))
			continue;
		if (CU_register_suites(info) != CUE_SUCCESS) {
			fprintf(stderr, "unit: %s\n", CU_get_error_msg());
			return 2;
		}
	}
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	/* The failures again at the end, where a log cut to its tail (CI,
	 * or stderr interleaved with a buffered stdout) still shows them. */
	if (failed && CU_get_failure_list()) {
		printf("\nFailures:");
		CU_basic_show_failures(CU_get_failure_list());
		printf("\n");
	}
	if (CU_get_number_of_tests_run() == 0)
		failed = 1;
	printf("unit: %u tests run, %u failed, %u skipped\n",
	       CU_get_number_of_tests_run(), CU_get_number_of_tests_failed(),
	       nskipped);
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
