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

#endif
