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

#include "core/plane.h"

/* Rows of vertical support above and below an output row (the transform's; the patch filter needs 5). */
#define CISP_BNR_QUALITY_RADIUS 7
/* Largest tile of the C filters' own work: rows (even) and columns (even). */
#define CISP_BNR_TILE_H 16
#define CISP_BNR_TILE_W 64
/*
 * Rows a tile function takes at most (the C ones work them in tiles of
 * CISP_BNR_TILE_H rows), and the least rows of the banded executor's bands
 * through the quality denoise: a taller vector tile recomputes fewer rows
 * of guide, pair sums and transform blocks around it.
 */
#define CISP_BNR_TILE_H_MAX 64

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
 * CISP_BNR_TILE_H_MAX, tw <= CISP_BNR_TILE_W, x0 even) of each filter into @dst
 * (row stride @stride).
 */
void cisp_bnr_patch_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			 int th, uint16_t *dst, int stride);
void cisp_bnr_transform_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			     int th, uint16_t *dst, int stride);

/*
 * Tap offsets (dx, dy) of the patch filter: 0..3 are every site's, 4..7
 * red and blue sites' (the rest of the 5x5 window), 8..15 green sites'
 * (the diagonal neighbours and four of the 7x7 window a quarter turn apart).
 */
#define CISP_BNR_TAPS 16
extern const int8_t cisp_bnr_taps[CISP_BNR_TAPS][2];

/* Whether tap @k is one of a site's; @green: the site is green. */
static inline int cisp_bnr_tap_used(int k, int green)
{
	return k < 4 || (k < 8) != (green != 0);
}

/*
 * The patch filter's limit Q (docs/stages/bnr.md) at a sample of @site whose
 * 3x3 same-colour samples sum to @sum9 (simd_bnr_quality.h computes the
 * same in double).
 */
static inline uint64_t cisp_bnr_patch_limit(const struct cisp_bnr_quality *q, int site, uint32_t sum9)
{
	uint64_t var = (((uint64_t)q->a[site] * ((sum9 + 4) / 9) + 32768) >> 16) + q->b[site];

	return 36 * ((var * q->s2) >> 16);
}

/* 64 T^2 in Q8 for the transform's threshold T = 2.4 noise standard deviations (368.64 * 256). */
#define CISP_BNR_THRESHOLD_Q8 94372

/*
 * The transform's threshold of a block whose 16 M_0 values sum to @sum, from
 * the sums of the profile's a (@sa) and b (@sb): below 2^46
 * (simd_bnr_quality.h computes the same in double).
 */
static inline uint64_t cisp_bnr_block_threshold(const struct cisp_bnr_quality *q, uint64_t sa, uint64_t sb,
						uint32_t sum)
{
	uint64_t var = ((sa * ((sum + 32) >> 6) + (1u << 17)) >> 18) + ((sb + 2) >> 2);

	return (((var * q->s2) >> 16) * CISP_BNR_THRESHOLD_Q8) >> 8;
}

/* Rows [y0, y1) of @out: the mean of the two filters; @in != @out. */
void cisp_bnr_quality_rows(const struct cisp_bnr_quality *q, const struct plane16 *in, const struct plane16 *out,
			   int y0, int y1);
/* The same with the tile functions of @d (dsp.h): the same bytes. */
struct cisp_dsp;
void cisp_bnr_quality_rows_dsp(const struct cisp_dsp *d, const struct cisp_bnr_quality *q, const struct plane16 *in,
			       const struct plane16 *out, int y0, int y1);

#endif
