/* SPDX-License-Identifier: MIT */
/**
 * @file iq_false_color.h
 * @brief False colour: colour that appears in the picture of a neutral
 * (black and white) chart such as a Siemens star or a zone plate, mostly
 * from demosaicing fine detail near and above Nyquist.
 */
#ifndef CISP_IQ_FALSE_COLOR_H
#define CISP_IQ_FALSE_COLOR_H

#include <cisp/api.h>
#include <cisp/iq_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_iq_false_color_result - chroma statistics of a neutral region.
 * Chroma is CIE C*ab = sqrt(a*^2 + b*^2) of each pixel, taken as linear sRGB
 * with a D65 white.
 * @mean_chroma: mean C*ab.
 * @p99_chroma: 99th percentile of C*ab (to 0.1).
 * @max_chroma: largest C*ab.
 * @fraction_visible: fraction of pixels with C*ab above 5 (clearly visible tint).
 */
struct cisp_iq_false_color_result {
	double mean_chroma;
	double p99_chroma;
	double max_chroma;
	double fraction_visible;
};

/**
 * cisp_iq_false_color() - measure colour in a neutral region.
 * @img: an RGB image, linear.
 * @roi: the region (at least 4x4).
 * @result: receives the measurement.
 * Return: 0, or -EINVAL (also for a grey image).
 */
CISP_API int cisp_iq_false_color(const struct cisp_iq_image *img, const struct cisp_iq_rect *roi,
				 struct cisp_iq_false_color_result *result);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_FALSE_COLOR_H */
