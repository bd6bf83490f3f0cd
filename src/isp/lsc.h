/* SPDX-License-Identifier: MIT */
/* Lens shading correction: per-channel gain grids, bilinear between nodes. */
#ifndef CISP_ISP_LSC_H
#define CISP_ISP_LSC_H

#include <cisp/format.h>
#include <cisp/params.h>

#include "plane.h"

struct cisp_lsc_coeffs;

/* Tables for a frame of @width x @height; 0 or -ENOMEM. Free with cisp_lsc_free(). */
int cisp_lsc_prepare(struct cisp_lsc_coeffs **c, const struct cisp_lsc_params *p, enum cisp_cfa cfa,
		     int width, int height);
void cisp_lsc_free(struct cisp_lsc_coeffs *c);
/* Rows [y0, y1); @in and @out may be the same plane. */
void cisp_lsc_rows(const struct cisp_lsc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);

#endif
