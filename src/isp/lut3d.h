/* SPDX-License-Identifier: MIT */
/* 3D lookup table with tetrahedral interpolation. */
#ifndef CISP_ISP_LUT3D_H
#define CISP_ISP_LUT3D_H

#include <cisp/params.h>

#include "core/plane.h"

/* Rows [y0, y1); @in and @out may be the same planes. */
void cisp_lut3d_rows(const struct cisp_lut3d_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		     int y1);

#endif
