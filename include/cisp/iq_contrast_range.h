/* SPDX-License-Identifier: MIT */
/**
 * @file iq_contrast_range.h
 * @brief Dynamic range as a viewer sees it: over a stepped chart of textured
 * bands a stop apart, the range of scene luminance whose texture the output
 * still shows, and the halo a tone mapper leaves at a high-contrast edge.
 *
 * Both measure an output as it is encoded for display (its tone curve and
 * transfer applied, values 0..1), not linear light: what they judge is how
 * much of the scene the picture keeps visible.
 */
#ifndef CISP_IQ_CONTRAST_RANGE_H
#define CISP_IQ_CONTRAST_RANGE_H

#include <stdbool.h>

#include <cisp/api.h>
#include <cisp/iq_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most bands a contrast-range measurement takes. */
#define CISP_IQ_CONTRAST_MAX_BANDS 32

/**
 * struct cisp_iq_checker_band - one band of a stepped chart, as it lies in
 * the picture: a checkerboard of bright and dark squares.
 * @rect: the band; its checkerboard starts at the top-left corner with a
 *        bright square.
 * @square: the side of a square, pixels (at least 4).
 * @stops: the band's scene luminance in stops from the chart's brightest
 *         band (0, -1, -2...).
 */
struct cisp_iq_checker_band {
	struct cisp_iq_rect rect;
	int32_t square;
	double stops;
};

/**
 * struct cisp_iq_contrast_band - what the output shows of one band.
 * @stops: the band's scene luminance (struct cisp_iq_checker_band.stops).
 * @bright: mean green of the centres of its bright squares, 0..1.
 * @dark: the same of its dark squares.
 * @michelson: (@bright - @dark) / (@bright + @dark); 0 when both are 0.
 * @kept: the texture is visible: @bright - @dark is at least one 8-bit
 *        code (1/255) and @michelson at least the minimum asked.
 */
struct cisp_iq_contrast_band {
	double stops;
	double bright;
	double dark;
	double michelson;
	bool kept;
};

/**
 * struct cisp_iq_contrast_range_result - a stepped chart measured.
 * @count: bands measured.
 * @band: per band, in the order given.
 * @stops: the range kept, in stops: from the brightest band kept down to
 *         the last of the bands kept after it without a gap, both
 *         included (one band kept alone counts 1 stop); 0 when none is.
 * @top: the brightest band kept, its @band index (-1 when none).
 * @bottom: the darkest band of that run (-1 when none).
 */
struct cisp_iq_contrast_range_result {
	unsigned count;
	struct cisp_iq_contrast_band band[CISP_IQ_CONTRAST_MAX_BANDS];
	double stops;
	int top;
	int bottom;
};

/**
 * cisp_iq_contrast_range() - measure how many stops of a stepped chart keep
 * visible texture.
 * @img: the picture as encoded for display (0..1), 3 channels.
 * @bands: the chart's bands, brightest first, each a stop (or any fixed
 *         step) darker than the one before.
 * @count: 1..CISP_IQ_CONTRAST_MAX_BANDS.
 * @min_michelson: the least Michelson contrast that counts as visible
 *                 (e.g. 0.02 for a chart of contrast 0.2).
 * @out: receives the measurement.
 *
 * Only the squares a whole square away from the band's border are read
 * (the neighbours' blur and any halo stay out), and of each its central
 * half. Each band needs at least one bright and one dark square so placed.
 * Return: 0 or -EINVAL with a message (a band outside the picture or too
 * small, a bad count or square).
 */
CISP_API int cisp_iq_contrast_range(const struct cisp_iq_image *img, const struct cisp_iq_checker_band *bands,
				    unsigned count, double min_michelson, struct cisp_iq_contrast_range_result *out);

/**
 * struct cisp_iq_halo_result - the profile across a dark-to-bright edge.
 * @dark: mean green of the outer eighth of the dark side, 0..1.
 * @bright: the same of the bright side.
 * @overshoot_pct: how far the bright side rises above @bright at most, in
 *                 percent of @bright - @dark (0 when it never does).
 * @undershoot_pct: how far the dark side falls below @dark at most, in the
 *                  same units.
 */
struct cisp_iq_halo_result {
	double dark;
	double bright;
	double overshoot_pct;
	double undershoot_pct;
};

/**
 * cisp_iq_halo() - measure the overshoot on both sides of a vertical edge.
 * @img: the picture as encoded for display (0..1), 3 channels.
 * @roi: a region holding the edge at its middle column, dark on the left,
 *       bright on the right; at least 16 pixels wide.
 * @out: receives the measurement (from the mean green of each column).
 * Return: 0 or -EINVAL with a message (a region outside the picture or too
 * narrow, a right side not brighter than the left).
 */
CISP_API int cisp_iq_halo(const struct cisp_iq_image *img, const struct cisp_iq_rect *roi,
			  struct cisp_iq_halo_result *out);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_CONTRAST_RANGE_H */
