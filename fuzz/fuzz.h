/* SPDX-License-Identifier: MIT */
/*
 * What every fuzz target defines (the libFuzzer entry point), and FUZZ_CHECK
 * for the properties a target asserts beyond "no crash": a violated one
 * aborts, which libFuzzer reports like a crash.
 */
#ifndef CISP_FUZZ_H
#define CISP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                          \
	do {                                                                                      \
		if (!(cond)) {                                                                    \
			fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                                  \
		}                                                                                 \
	} while (0)

#endif
