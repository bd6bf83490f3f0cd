/* SPDX-License-Identifier: MIT */
/* Colour correction matrix with offsets. */
#ifndef CISP_ISP_CCM_H
#define CISP_ISP_CCM_H

#include <cisp/params.h>

#include "core/plane.h"

/* Rows [y0, y1); @in and @out may be the same planes. */
void cisp_ccm_rows(const struct cisp_ccm_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1);
/* One row (the dsp.h entry); @in may be @out. */
void cisp_ccm_row_c(const int16_t m[9], const int32_t off[3], const uint16_t *const in[3], uint16_t *const out[3],
		    int w);

#endif
