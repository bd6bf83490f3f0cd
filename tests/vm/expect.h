/* SPDX-License-Identifier: MIT */
/*
 * The checks of the programs tests/vm/run.sh runs in its guest: each prints
 * "ok   ..." or "FAIL ..." and counts its failures; the program ends with
 * "RESULT pass|fail" and exits non-zero when any failed.
 */
#ifndef CISP_TESTS_VM_EXPECT_H
#define CISP_TESTS_VM_EXPECT_H

#include <stdio.h>

static int failures;

#define EXPECT(cond, ...)                    \
	do {                                 \
		if (cond) {                  \
			printf("ok   ");     \
		} else {                     \
			printf("FAIL ");     \
			failures++;          \
		}                            \
		printf(__VA_ARGS__);         \
		printf("\n");                \
	} while (0)

#endif
