/* SPDX-License-Identifier: MIT */
/* Black level correction: subtract black, rescale so white becomes 65535. */
#ifndef CISP_ISP_BLC_H
#define CISP_ISP_BLC_H

#include <cisp/format.h>
#include <cisp/params.h>

#include "core/plane.h"

struct cisp_blc_coeffs {
	uint16_t black[4]; /* per CFA site, index (y & 1) * 2 + (x & 1) */
	uint16_t gain[4];  /* Q2.14, same index */
	uint16_t white;    /* samples at or above it become 65535 */
};

void cisp_blc_prepare(struct cisp_blc_coeffs *c, const struct cisp_blc_params *p, enum cisp_cfa cfa);
/* Rows [y0, y1); @in and @out may be the same plane. */
void cisp_blc_rows(const struct cisp_blc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);
/* One row of @w samples; black and gain of its even and odd columns (the dsp.h entry). */
void cisp_blc_row_c(const uint16_t *s, uint16_t *d, int w, const uint16_t black[2], const uint16_t gain[2],
		    uint16_t white);

#endif
