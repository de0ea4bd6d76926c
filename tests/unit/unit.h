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

#define UNIT_SUITE(name, tests)                                            \
	static void __attribute__((constructor)) unit_reg_##name(void)     \
	{                                                                  \
		unit_add_suite(#name, tests);                              \
	}

#endif
