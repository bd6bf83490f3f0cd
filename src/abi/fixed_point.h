/* SPDX-License-Identifier: MIT */
/*
 * Real numbers into the unsigned fixed-point fields of the params ABI
 * (docs/abi.md): Q4.12 gains (one = 4096), Q8.8 strengths (256), curve
 * samples (65535) and plain counts (1). Every writer of such a field from a
 * computed value goes through here, so they all round the same way.
 */
#ifndef CISP_ABI_FIXED_POINT_H
#define CISP_ABI_FIXED_POINT_H

#include <stdbool.h>
#include <stdint.h>

/*
 * @value in units of 1 / @one, rounded to the nearest integer with halves
 * away from zero (C's round()), then clamped to 0..65535; NaN gives 0.
 * A Q4.12 gain is abi_fixed_u16(gain, 4096): 0 to 15.99976 in steps of 1/4096.
 */
uint16_t abi_fixed_u16(double value, double one);

/*
 * One row of a Q3.12 colour matrix (the ccm block, one = 4096): each of
 * @row as lround(x * 4096), and with @keep_white the rounding error added to
 * the diagonal @diag so that the row sums to exactly 4096 (white stays
 * white). @q always receives the row (a NaN or a coefficient beyond
 * +-2^30 / 4096 is held there, and the row reported). Returns 0, or -ERANGE
 * without a message when the row does not fit the ABI: its magnitudes add
 * up to over 32767, which covers any coefficient outside int16. The caller
 * decides what that means: refuse, scale or skip.
 */
int abi_fixed_ccm_row(const double row[3], int diag, bool keep_white, long q[3]);

#endif /* CISP_ABI_FIXED_POINT_H */
