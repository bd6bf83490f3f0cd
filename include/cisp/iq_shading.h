/* SPDX-License-Identifier: MIT */
/**
 * @file iq_shading.h
 * @brief Shading: how uniform a picture of a flat field is, in brightness
 * (vignetting left after lens-shading correction) and in colour.
 */
#ifndef CISP_IQ_SHADING_H
#define CISP_IQ_SHADING_H

#include <cisp/api.h>
#include <cisp/iq_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest grid of a shading measurement (blocks per side). */
#define CISP_IQ_SHADING_MAX_GRID 15

/**
 * struct cisp_iq_shading_result - block means of a flat field.
 * @grid: blocks per side (odd, so one block is at the centre).
 * @luma: per block (row-major), mean luminance over the centre block's.
 * @color: per block, the colour deviation from the centre in percent:
 *         the larger of |(R/G) / (R/G)centre - 1| and |(B/G) / (B/G)centre - 1|
 *         (0 for a grey image).
 * @luma_min: the darkest block relative to the centre (1 = no falloff).
 * @luma_corner: the mean of the four corner blocks relative to the centre.
 * @luma_nonuniformity_pct: (brightest - darkest block) / centre, percent.
 * @color_max_pct: the largest @color of any block, percent.
 */
struct cisp_iq_shading_result {
	unsigned grid;
	double luma[CISP_IQ_SHADING_MAX_GRID * CISP_IQ_SHADING_MAX_GRID];
	double color[CISP_IQ_SHADING_MAX_GRID * CISP_IQ_SHADING_MAX_GRID];
	double luma_min;
	double luma_corner;
	double luma_nonuniformity_pct;
	double color_max_pct;
};

/**
 * cisp_iq_shading() - measure a flat field.
 * @img: a picture of a uniformly lit uniform surface, linear.
 * @grid: blocks per side, odd, 3..CISP_IQ_SHADING_MAX_GRID (9 is usual);
 *        each block must be at least 2x2 pixels.
 * @result: receives the measurement.
 * Return: 0 or -EINVAL.
 */
CISP_API int cisp_iq_shading(const struct cisp_iq_image *img, unsigned grid, struct cisp_iq_shading_result *result);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_SHADING_H */
