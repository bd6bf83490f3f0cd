/* SPDX-License-Identifier: MIT */
/* Colour correction matrix with offsets. */
#ifndef CISP_ISP_CCM_H
#define CISP_ISP_CCM_H

#include <cisp/params.h>

#include "plane.h"

/* Rows [y0, y1); @in and @out may be the same planes. */
void cisp_ccm_rows(const struct cisp_ccm_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1);

#endif
