/* SPDX-License-Identifier: MIT */
/*
 * Writing params blocks from an algorithm's prepare(): values in the ABI's
 * fixed point, and a block or enabled bit written only when it changes, so
 * that the loop knows which blocks a result carries.
 */
#ifndef CISP_CONTROL_BLOCK_H
#define CISP_CONTROL_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/params_state.h>

#include "abi/fixed_point.h" /* abi_fixed_u16(): the values blocks hold */

/* Copy block @src over @dst (@size bytes, of type @type): CISP_BLOCK_BIT(@type) when that changed it, else 0. */
uint32_t control_write_block(void *dst, const void *src, size_t size, unsigned type);

/* Enable (@on) or disable block @type: CISP_BLOCK_BIT(@type) when that changed @ps, else 0. */
uint32_t control_enable_block(struct cisp_param_state *ps, unsigned type, bool on);

#endif /* CISP_CONTROL_BLOCK_H */
