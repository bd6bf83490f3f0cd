/* SPDX-License-Identifier: MIT */
/* Helpers shared by the params ABI tests (test_abi.c, test_yaml.c). */
#ifndef CISP_TEST_ABI_H
#define CISP_TEST_ABI_H

#include <cisp/params_state.h>

/* A random state every field of which is valid (no limits), from test_rand(). */
void abi_random_state(struct cisp_param_state *s);

#endif
