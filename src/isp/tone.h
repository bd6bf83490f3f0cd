/* SPDX-License-Identifier: MIT */
/* Global tone curve then transfer function, as one 16-bit lookup table. */
#ifndef CISP_ISP_TONE_H
#define CISP_ISP_TONE_H

#include <cisp/params.h>

#include "plane.h"

struct cisp_tone_coeffs {
	uint16_t lut[65536];
};

void cisp_tone_prepare(struct cisp_tone_coeffs *c, const struct cisp_tone_params *p);
/* Rows [y0, y1); @in and @out may be the same planes. */
void cisp_tone_rows(const struct cisp_tone_coeffs *c, const struct rgb16 *in, const struct rgb16 *out, int y0,
		    int y1);
/* One row through a 65536-entry table (the dsp.h entry); @s may be @d. */
void cisp_lut_row_c(const uint16_t *lut, const uint16_t *s, uint16_t *d, int w);

#endif
