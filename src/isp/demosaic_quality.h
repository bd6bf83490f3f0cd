/* SPDX-License-Identifier: MIT */
/*
 * The quality demosaic's two passes, for demosaic_quality.c, its tests and
 * optimised versions. docs/stages/demosaic_quality.md defines the arithmetic.
 *
 * Pass 1 writes green on every pixel; pass 2 reads that green plane (rows
 * above and below its own) and writes red and blue. Either pass computes any
 * rows [y0, y1) with the same result whatever the split into bands.
 */
#ifndef CISP_ISP_DEMOSAIC_QUALITY_H
#define CISP_ISP_DEMOSAIC_QUALITY_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/format.h>

#include "plane.h"

/* Bayer rows pass 1 reads above and below an output row (reflected at the frame edges). */
#define CISP_DMQ_GREEN_RADIUS 7
/* Green and Bayer rows pass 2 reads above and below an output row (reflected). */
#define CISP_DMQ_COLOUR_RADIUS 5

/* Bytes of scratch either pass needs for up to @rows output rows of a frame @width wide. */
size_t cisp_dmq_scratch_size(int width, int rows);

/* Pass 1: green of rows [y0, y1) into @g (may be the output's green plane). */
void cisp_dmq_green_rows(const struct plane16 *bayer, enum cisp_cfa cfa, const struct plane16 *g, int y0,
			 int y1, void *scratch);

/*
 * Pass 2: red and blue of rows [y0, y1) into out->c[0] and out->c[2], from
 * @bayer and the green plane @g of pass 1. @false_colour is the suppression
 * strength, 0..256 (Q8.8).
 */
void cisp_dmq_colour_rows(const struct plane16 *bayer, const struct plane16 *g, enum cisp_cfa cfa,
			  unsigned false_colour, const struct rgb16 *out, int y0, int y1, void *scratch);

/*
 * The layout of the scratch, shared by the reference and the optimised
 * passes: rows of int32 with CISP_DMQ_PAD columns each side (filled by
 * reflection), width + 2 * CISP_DMQ_PAD apart. Pass 1: rows of dh for frame
 * rows [y0 - 1, y1 + 1), of dv for [y0 - 5, y1 + 5), of CV for
 * [y0 - 4, y1 + 4), one row of CH (and two more rows the vectorised pass
 * uses: sums of 4 columns of CH and of dh). Pass 2: rows of KR, KB and green
 * for [y0 - 5, y1 + 5).
 */
#define CISP_DMQ_PAD 8

/* The tables SIG and SOFT of the document (entries 0..71 and 0..35). */
extern const uint8_t cisp_dmq_sig_table[72];
extern const uint8_t cisp_dmq_soft_table[36];

/* Parity of the columns of the red and blue sites on frame row y (mirror() keeps it). */
static inline int cisp_dmq_rb_column(enum cisp_cfa cfa, int y)
{
	int rx = cfa == CISP_CFA_GRBG || cfa == CISP_CFA_BGGR;
	int ry = cfa == CISP_CFA_GBRG || cfa == CISP_CFA_BGGR;

	return (rx + ry + y) & 1;
}

/* Whether frame row y holds red (rather than blue) sites. */
static inline int cisp_dmq_red_row(enum cisp_cfa cfa, int y)
{
	int ry = cfa == CISP_CFA_GBRG || cfa == CISP_CFA_BGGR;

	return ((y - ry) & 1) == 0;
}

/*
 * dh (green minus the other colour along the row) of the Bayer row @r of
 * width @w, columns [x0, x1), reflecting at the row's ends; rbx is the parity
 * of its red/blue columns.
 */
void cisp_dmq_diff_h_range(const uint16_t *r, int w, int rbx, int32_t *out, int x0, int x1);
/* Fill the CISP_DMQ_PAD columns on each side of a scratch row of @w values by reflection. */
void cisp_dmq_pad_row(int32_t *r, int w);

#endif
