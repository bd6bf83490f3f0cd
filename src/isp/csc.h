/* SPDX-License-Identifier: MIT */
/*
 * RGB to YCbCr in 16-bit units: 257 times the 8-bit code values, so that
 * cisp_to8() (pack.h) gives the 8-bit output exactly. Y is scaled to the
 * output range (limited: 16..235 is 4112..60395), Cb and Cr are centred on
 * CISP_CSC_CHROMA_ZERO (8-bit 128); docs/stages/csc.md.
 */
#ifndef CISP_ISP_CSC_H
#define CISP_ISP_CSC_H

#include <cisp/params.h>

#include "core/plane.h"

/* Cb and Cr of a grey: 128 * 257. */
#define CISP_CSC_CHROMA_ZERO 32896

/* Rows [y0, y1) of @out (Y, Cb, Cr) from @in (R, G, B); may be the same planes. */
void cisp_csc_rows(const struct cisp_csc_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1);
/* The Q15 matrix (rows Y, Cb, Cr) of @p and its Y offset; one row of the stage (the dsp.h entry). */
const int32_t *cisp_csc_matrix(const struct cisp_csc_params *p, int32_t *y_zero);
void cisp_csc_row_c(const int32_t m[9], int32_t y_zero, const uint16_t *const in[3], uint16_t *const out[3], int w);

#endif
