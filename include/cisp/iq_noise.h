/* SPDX-License-Identifier: MIT */
/**
 * @file iq_noise.h
 * @brief Noise: statistics of uniform patches, signal-to-noise ratio per grey
 * step in luminance and chroma, and the dynamic range the steps show.
 */
#ifndef CISP_IQ_NOISE_H
#define CISP_IQ_NOISE_H

#include <stdbool.h>

#include <cisp/api.h>
#include <cisp/iq_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest SNR reported (a noiseless patch): 100 dB. */
#define CISP_IQ_SNR_MAX 100000.0
/** Most steps one noise measurement takes. */
#define CISP_IQ_MAX_STEPS 64

/**
 * struct cisp_iq_patch_stats - statistics of one uniform patch.
 * @pixels: pixels measured.
 * @mean: mean per channel (R, G, B; a grey image uses entry 0 only).
 * @sd: standard deviation per channel.
 * @mean_y: mean luminance Y = 0.2126 R + 0.7152 G + 0.0722 B (grey: the value).
 * @sd_y: standard deviation of Y.
 * @sd_chroma: sqrt(var(Cb) + var(Cr)) with the BT.709 colour differences
 *             Cb = (B - Y) / 1.8556, Cr = (R - Y) / 1.5748 (grey: 0).
 * @clipped: fraction of pixels with a channel at or above 0.999, or exactly
 *           0 when no sample of the patch is negative (clamped at black:
 *           their noise is cut off; data that goes below 0 is not clamped).
 */
struct cisp_iq_patch_stats {
	unsigned pixels;
	double mean[3];
	double sd[3];
	double mean_y;
	double sd_y;
	double sd_chroma;
	double clipped;
};

/**
 * cisp_iq_patch_stats() - measure a patch.
 * @img: the image, linear.
 * @r: the patch, at least 4x4 pixels.
 * @detrend: subtract a least-squares plane from each signal first, so that
 *           shading and illumination gradients across the patch are not
 *           counted as noise (the means are kept).
 * @s: receives the statistics.
 * Return: 0 or -EINVAL.
 */
CISP_API int cisp_iq_patch_stats(const struct cisp_iq_image *img, const struct cisp_iq_rect *r, bool detrend,
				 struct cisp_iq_patch_stats *s);

/**
 * struct cisp_iq_noise_step - one grey step.
 * @level: the step's scene luminance relative to the brightest (given).
 * @stats: its statistics.
 * @snr_y: luminance SNR, mean_y / sd_y (capped at CISP_IQ_SNR_MAX).
 * @snr_c: chroma SNR, mean_y / sd_chroma (capped).
 * @clipped: more than 2 % of its pixels clip; left out of the dynamic range.
 */
struct cisp_iq_noise_step {
	double level;
	struct cisp_iq_patch_stats stats;
	double snr_y;
	double snr_c;
	bool clipped;
};

/**
 * struct cisp_iq_dynamic_range - the range of levels with SNR at or above
 * a threshold.
 * @threshold: the SNR threshold (1 or 10).
 * @steps: unclipped steps with luminance SNR >= @threshold.
 * @ev: log2 of the brightest unclipped step's level over the level where the
 *      SNR falls to @threshold (interpolated log-log between steps), stops.
 * @lower_bound: even the darkest step reaches the threshold, so @ev is at
 *               least this.
 */
struct cisp_iq_dynamic_range {
	double threshold;
	unsigned steps;
	double ev;
	bool lower_bound;
};

/**
 * struct cisp_iq_noise_result - SNR per step and dynamic range.
 * @count: steps.
 * @step: the steps, in the order given.
 * @dr: dynamic range at SNR 1 (dr[0]) and SNR 10 (dr[1]).
 */
struct cisp_iq_noise_result {
	unsigned count;
	struct cisp_iq_noise_step step[CISP_IQ_MAX_STEPS];
	struct cisp_iq_dynamic_range dr[2];
};

/**
 * cisp_iq_noise() - measure grey steps.
 * @img: the image, linear.
 * @rects: the steps' regions.
 * @levels: the steps' relative scene luminances, each > 0.
 * @count: steps, 1..CISP_IQ_MAX_STEPS.
 * @detrend: as for cisp_iq_patch_stats().
 * @result: receives the measurement.
 * Return: 0 or -EINVAL.
 */
CISP_API int cisp_iq_noise(const struct cisp_iq_image *img, const struct cisp_iq_rect *rects, const double *levels,
			   unsigned count, bool detrend, struct cisp_iq_noise_result *result);

/**
 * cisp_iq_dynamic_range() - the dynamic range of measured steps.
 * @steps: steps with level, snr_y and clipped set.
 * @count: steps.
 * @threshold: the SNR threshold.
 * @dr: receives the range.
 */
CISP_API void cisp_iq_dynamic_range(const struct cisp_iq_noise_step *steps, unsigned count, double threshold,
				    struct cisp_iq_dynamic_range *dr);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_NOISE_H */
