/* SPDX-License-Identifier: MIT */
/*
 * The quality Bayer denoise (CISP_BNR_QUALITY, docs/stages/bnr.md): the
 * mean of a patch-guided range filter (bnr_patch.c) and Walsh-Hadamard
 * shrinkage of the half-resolution colour planes (bnr_transform.c), both
 * computed on tiles of the output from a mirrored copy of the input.
 */
#ifndef CISP_ISP_BNR_QUALITY_H
#define CISP_ISP_BNR_QUALITY_H

#include <stdint.h>

#include "plane.h"

/* Rows of vertical support above and below an output row (the transform's; the patch filter needs 5). */
#define CISP_BNR_QUALITY_RADIUS 7
/* Largest tile: rows (even) and columns (even). */
#define CISP_BNR_TILE_H 16
#define CISP_BNR_TILE_W 64

/* What both filters need. Sites are (y & 1) * 2 + (x & 1). */
struct cisp_bnr_quality {
	uint32_t a[4], b[4]; /* the noise profile of each site's channel */
	uint8_t green[4];    /* the site is a green one */
	uint32_t s2;         /* strength^2 (Q16.16 of the squared scale) */
};

/*
 * Copy of the input at frame positions (mirror(x), mirror(y)) for x in
 * [x0, x0 + w), y in [y0, y0 + h) (coordinates may lie outside the frame),
 * into @dst with row stride @stride.
 */
void cisp_bnr_load_region(const struct plane16 *in, int x0, int y0, int w, int h, uint16_t *dst, int stride);

/*
 * The tile of output rows [y0, y0 + th), columns [x0, x0 + tw) (th <=
 * CISP_BNR_TILE_H, tw <= CISP_BNR_TILE_W, x0 even) of each filter into @dst
 * (row stride @stride).
 */
void cisp_bnr_patch_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			 int th, uint16_t *dst, int stride);
void cisp_bnr_transform_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			     int th, uint16_t *dst, int stride);

/* Rows [y0, y1) of @out: the mean of the two filters; @in != @out. */
void cisp_bnr_quality_rows(const struct cisp_bnr_quality *q, const struct plane16 *in, const struct plane16 *out,
			   int y0, int y1);

#endif
