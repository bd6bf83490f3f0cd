/* SPDX-License-Identifier: MIT */
/* Helpers shared by the params ABI tests (test_abi.c, test_yaml.c). */
#ifndef CISP_TEST_ABI_H
#define CISP_TEST_ABI_H

#include <cisp/params_state.h>

/* CISP_BLOCK_BIT() of every block type, 1..CISP_BLOCK_TYPE_COUNT - 1. */
#define ABI_ALL_BLOCKS ((1u << CISP_BLOCK_TYPE_COUNT) - 2)

/* A random state every field of which is valid (no limits), from test_rand(). */
void abi_random_state(struct cisp_param_state *s);

#endif
