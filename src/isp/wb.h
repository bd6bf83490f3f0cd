/* SPDX-License-Identifier: MIT */
/* White-balance gains per Bayer channel. */
#ifndef CISP_ISP_WB_H
#define CISP_ISP_WB_H

#include <cisp/format.h>
#include <cisp/params.h>

#include "core/plane.h"

struct cisp_wb_coeffs {
	uint16_t gain[4]; /* Q4.12 per CFA site, index (y & 1) * 2 + (x & 1) */
};

void cisp_wb_prepare(struct cisp_wb_coeffs *c, const struct cisp_wb_params *p, enum cisp_cfa cfa);
/* Rows [y0, y1); @in and @out may be the same plane. */
void cisp_wb_rows(const struct cisp_wb_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		  int y0, int y1);
/* One row of @w samples; gains of its even and odd columns (the dsp.h entry). */
void cisp_wb_row_c(const uint16_t *s, uint16_t *d, int w, const uint16_t gain[2]);

#endif
