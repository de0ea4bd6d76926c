/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit test glue: each tests/unit/test-*.c file declares its suite with
 * UNIT_SUITE(name, tests) and main.c runs every suite so declared; adding a
 * suite needs no edit elsewhere.
 */
#ifndef COMPSIZE_UNIT_H
#define COMPSIZE_UNIT_H

#include <CUnit/CUnit.h>

void unit_add_suite(const char *name, CU_TestInfo *tests);

/*
 * The running test cannot check what it is for here (printf-style reason):
 * prints SKIP with the reason and counts it in the final summary line.
 * The test returns after calling it.
 */
void unit_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Seeds for a statistical test: many under make check-stats (STATS=1 in
 * the environment), where unit_counting() is 1 and the test checks what
 * it counts over them (an interval's coverage, a mean); else few, with
 * every other check (make check, valgrind, the sanitizers).
 */
unsigned unit_seeds(unsigned many, unsigned few);
int unit_counting(void);

#define UNIT_SUITE(name, tests)                                            \
	static void __attribute__((constructor)) unit_reg_##name(void)     \
	{                                                                  \
		unit_add_suite(#name, tests);                              \
	}

#endif
