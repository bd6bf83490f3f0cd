/* SPDX-License-Identifier: MIT */
/**
 * @file iq_sfr.h
 * @brief Sharpness: the slanted-edge spatial frequency response (ISO 12233
 * method) and the figures read from it.
 *
 * Steps (docs/iq.md has the details): per-row edge location by the centroid
 * of the windowed derivative, a straight-line fit of those locations, a 4x
 * oversampled edge spread function from every pixel's distance to the fitted
 * edge, its derivative (the line spread function) under a Hamming window, and
 * the magnitude of its Fourier transform normalised to 1 at zero frequency,
 * corrected for the derivative filter and the 1/4-pixel bins. Frequencies are
 * in cycles per pixel measured across the edge (0.5 is Nyquist).
 */
#ifndef CISP_IQ_SFR_H
#define CISP_IQ_SFR_H

#include <stdbool.h>

#include <cisp/api.h>
#include <cisp/iq_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** MTF samples in a result: at 0, 0.01, ..., 1.00 cycles per pixel. */
#define CISP_IQ_SFR_POINTS 101
/** ESF samples in a result: every 0.25 pixel from -10 to +10 pixels. */
#define CISP_IQ_ESF_POINTS 81

/**
 * struct cisp_iq_sfr_result - the response of one edge.
 * @vertical: the edge runs top to bottom (it measures horizontal
 *            resolution); false for a near-horizontal edge.
 * @angle_deg: the edge's angle from the vertical (or horizontal), degrees.
 * @mtf: the MTF at i / 100 cycles per pixel.
 * @mtf50: the lowest frequency where the MTF falls to 0.5, cycles per pixel
 *         (1.0 when it stays above 0.5 up to there).
 * @mtf_nyq2: the MTF at half Nyquist (0.25 cycles per pixel).
 * @mtf_nyq: the MTF at Nyquist (0.5 cycles per pixel).
 * @low: the dark side's level, in the image's units.
 * @high: the bright side's level.
 * @overshoot_pct: how far the ESF rises above @high, in percent of
 *                 @high - @low (sharpening halo on the bright side).
 * @undershoot_pct: how far it dips below @low, in percent.
 * @rise_10_90: distance across the edge from 10 % to 90 %, pixels.
 * @esf: the edge profile, dark to bright, normalised to @low = 0 and
 *       @high = 1, at (i - 40) / 4 pixels from the 50 % point.
 */
struct cisp_iq_sfr_result {
	bool vertical;
	double angle_deg;
	double mtf[CISP_IQ_SFR_POINTS];
	double mtf50;
	double mtf_nyq2;
	double mtf_nyq;
	double low;
	double high;
	double overshoot_pct;
	double undershoot_pct;
	double rise_10_90;
	double esf[CISP_IQ_ESF_POINTS];
};

/**
 * cisp_iq_sfr() - measure one slanted edge.
 * @img: the image, linear light (1 or 3 channels).
 * @roi: a region holding one straight edge, at least 16x16 pixels, with the
 *       edge crossing it from side to side, slanted between about 2 and 20
 *       degrees from the vertical or horizontal (5 degrees is usual) so that
 *       it moves at least one pixel across the region.
 * @channel: 0..2 for one channel of an RGB image, -1 for luminance
 *           (0.2126 R + 0.7152 G + 0.0722 B) or the only channel of a grey image.
 * @result: receives the response.
 *
 * Return: 0, or -EINVAL with a message for a bad region, no edge (too
 * little contrast), or an edge too close to the pixel grid.
 */
CISP_API int cisp_iq_sfr(const struct cisp_iq_image *img, const struct cisp_iq_rect *roi, int channel,
			 struct cisp_iq_sfr_result *result);

/**
 * cisp_iq_sfr_at() - the MTF of a result at any frequency, interpolated.
 * @result: a result of cisp_iq_sfr().
 * @freq: cycles per pixel, 0..1.
 * Return: the MTF.
 */
CISP_API double cisp_iq_sfr_at(const struct cisp_iq_sfr_result *result, double freq);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_SFR_H */
