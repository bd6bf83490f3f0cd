/* SPDX-License-Identifier: MIT */
/* Defective pixel correction: a static list plus dynamic detection. */
#ifndef CISP_ISP_DPC_H
#define CISP_ISP_DPC_H

#include <cisp/params.h>

#include "core/plane.h"

struct cisp_dpc_coeffs {
	uint16_t threshold;                 /* 0: dynamic detection off */
	const struct cisp_dpc_pixel *pixels; /* sorted static list (points into the params state) */
	unsigned count;
};

void cisp_dpc_prepare(struct cisp_dpc_coeffs *c, const struct cisp_dpc_params *p);
/* Rows [y0, y1) of @out from @in (reads 2 rows above and below); @in != @out. */
void cisp_dpc_rows(const struct cisp_dpc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);
/*
 * The pieces of cisp_dpc_rows(), split out for dsp.h and banded execution:
 * the row of a same-colour neighbour (mirrored within the colour's plane),
 * the dynamic detection of one row (all columns, or columns [x0, x1)), and
 * the static list of row @y (*k: index of its first entry, from
 * cisp_dpc_first_static(); advanced past the row).
 */
static inline int cisp_dpc_mirror(int i, int n)
{
	/* Within the colour's half-resolution plane: column -1 maps to 3, not to 1 (the pixel itself, as mirror() would). */
	if (i < 0)
		i = 2 * (i & 1) - i;
	if (i >= n)
		i = 2 * n - 4 - i + 2 * (i & 1);
	return i;
}
void cisp_dpc_row_c(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w, int t);
void cisp_dpc_row_range_c(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w,
			  int t, int x0, int x1);
unsigned cisp_dpc_first_static(const struct cisp_dpc_coeffs *c, int y);
void cisp_dpc_static_row(const struct cisp_dpc_coeffs *c, unsigned *k, int y, const uint16_t *up,
			 const uint16_t *mid, const uint16_t *dn, uint16_t *d, int w);

#endif
