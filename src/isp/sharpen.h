/* SPDX-License-Identifier: MIT */
/* Luma sharpening with noise coring and an overshoot limit. */
#ifndef CISP_ISP_SHARPEN_H
#define CISP_ISP_SHARPEN_H

#include <cisp/params.h>

#include "plane.h"

/* Rows of vertical support above and below an output row. */
#define CISP_SHARPEN_RADIUS 2

/* Rows [y0, y1) of @out from @in; @in and @out must not overlap. */
void cisp_sharpen_rows(const struct cisp_sharpen_params *p, const struct rgb16 *in, const struct rgb16 *out,
		       int y0, int y1);

#endif
