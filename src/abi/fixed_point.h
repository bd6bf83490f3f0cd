/* SPDX-License-Identifier: MIT */
/*
 * Real numbers into the unsigned fixed-point fields of the params ABI
 * (docs/abi.md): Q4.12 gains (one = 4096), Q8.8 strengths (256), curve
 * samples (65535) and plain counts (1). Every writer of such a field from a
 * computed value goes through here, so they all round the same way.
 */
#ifndef CISP_ABI_FIXED_POINT_H
#define CISP_ABI_FIXED_POINT_H

#include <stdint.h>

/*
 * @value in units of 1 / @one, rounded to the nearest integer with halves
 * away from zero (C's round()), then clamped to 0..65535; NaN gives 0.
 * A Q4.12 gain is abi_fixed_u16(gain, 4096): 0 to 15.99976 in steps of 1/4096.
 */
uint16_t abi_fixed_u16(double value, double one);

#endif /* CISP_ABI_FIXED_POINT_H */
