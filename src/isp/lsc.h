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
/*
 * The per-row kernel, split out for dsp.h: cisp_lsc_gain_row() writes for
 * columns [x0, x0 + n) of row @y the gains of the grid nodes left (g0) and
 * right (g1) of each column, interpolated down to the row; the kernel then
 * blends them with the Q10 column weights of cisp_lsc_col_weight().
 */
void cisp_lsc_gain_row(const struct cisp_lsc_coeffs *c, int y, int x0, int n, uint16_t *g0, uint16_t *g1);
const uint16_t *cisp_lsc_col_weight(const struct cisp_lsc_coeffs *c);
void cisp_lsc_row_c(const uint16_t *s, uint16_t *d, int w, const uint16_t *g0, const uint16_t *g1,
		    const uint16_t *wx);

#endif
