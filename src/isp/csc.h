/* SPDX-License-Identifier: MIT */
/*
 * RGB to YCbCr in 16-bit units: Y scaled to the output range, Cb and Cr
 * centred on 32768; the 8-bit output takes the top byte with rounding.
 */
#ifndef CISP_ISP_CSC_H
#define CISP_ISP_CSC_H

#include <cisp/params.h>

#include "plane.h"

/* Rows [y0, y1) of @out (Y, Cb, Cr) from @in (R, G, B); may be the same planes. */
void cisp_csc_rows(const struct cisp_csc_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1);

#endif
