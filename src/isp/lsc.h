/* SPDX-License-Identifier: MIT */
/* Lens shading correction: per-channel gain grids, bilinear between nodes. */
#ifndef CISP_ISP_LSC_H
#define CISP_ISP_LSC_H

#include <cisp/format.h>
#include <cisp/params.h>

#include "core/plane.h"

struct cisp_lsc_coeffs;

/* Tables for a frame of @width x @height; 0 or -ENOMEM. Free with cisp_lsc_free(). */
int cisp_lsc_prepare(struct cisp_lsc_coeffs **c, const struct cisp_lsc_params *p, enum cisp_cfa cfa,
		     int width, int height);
void cisp_lsc_free(struct cisp_lsc_coeffs *c);
/* Rows [y0, y1); @in and @out may be the same plane. */
void cisp_lsc_rows(const struct cisp_lsc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);
/*
 * The gains of one row, split out for dsp.h: the frame's columns in cells
 * between grid columns, cell i spanning [end[i - 1], end[i]) (from 0; the
 * last ends at the width, a cell may be empty), and the gains of the grid
 * nodes left and right of each cell interpolated down to the row, for the
 * CFA sites of even and odd columns. Column x's gain blends them with its
 * Q10 weight wx[x] of the right node.
 */
struct cisp_lsc_row {
	int cells;
	const int *end;
	const uint16_t *wx;
	uint16_t left[CISP_LSC_MAX_GRID - 1][2], right[CISP_LSC_MAX_GRID - 1][2];
};

/* The gains of row @y. */
void cisp_lsc_row_gains(const struct cisp_lsc_coeffs *c, int y, struct cisp_lsc_row *r);
/* Columns [0, w) of a row: s times the gain, 4.12, clamped; s may be d. */
void cisp_lsc_row_c(const uint16_t *s, uint16_t *d, int w, const struct cisp_lsc_row *r);
/* Columns [x0, x1) of cell @i alone. */
void cisp_lsc_cell_c(const uint16_t *s, uint16_t *d, const struct cisp_lsc_row *r, int i, int x0, int x1);

#endif
