/* SPDX-License-Identifier: MIT */
/**
 * @file iq_calib.h
 * @brief Colour calibration: fitting a colour correction matrix to a
 * camera's response to known patches (a ColorChecker under one illuminant).
 *
 * This is the calibration step that turns a sensor's spectral response into
 * ISP parameters; the image-quality lab uses it for the virtual sensors, and
 * tuning tools use it for real ones.
 */
#ifndef CISP_IQ_CALIB_H
#define CISP_IQ_CALIB_H

#include <stdbool.h>

#include <cisp/api.h>
#include <cisp/image.h>
#include <cisp/params.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_iq_ccm_fit_options - how the matrix is fitted.
 * @preserve_white: constrain every row to sum to 1, so that a white-balanced
 *                  grey stays grey (recommended).
 * @refine_de2000: after the least-squares fit in linear sRGB, minimise the
 *                 mean CIEDE2000 of the patches (Nelder-Mead from the
 *                 least-squares solution).
 * @weights: per-patch weights, or NULL for equal weights.
 */
struct cisp_iq_ccm_fit_options {
	bool preserve_white;
	bool refine_de2000;
	const double *weights;
};

/**
 * struct cisp_iq_ccm_fit - a fitted matrix.
 * @ccm: camera RGB (white-balanced) to linear sRGB, row-major:
 *       out[i] = sum_j ccm[i][j] * in[j].
 * @mean_de00: mean CIEDE2000 of the fitted patches.
 * @max_de00: largest CIEDE2000 of the fitted patches.
 */
struct cisp_iq_ccm_fit {
	double ccm[3][3];
	double mean_de00;
	double max_de00;
};

/**
 * cisp_iq_fit_ccm() - fit a colour correction matrix.
 * @camera: per patch, the white-balanced camera response, linear, scaled so
 *          that a perfect white is (1, 1, 1).
 * @target: per patch, the true colour as XYZ under @white.
 * @white: XYZ of a perfect white under the scene illuminant (Y = 1).
 * @count: patches, 3..CISP_IQ_MAX_PATCHES (iq_color.h).
 * @opt: fitting options (NULL: white-preserving least squares only).
 * @fit: receives the matrix and its residual colour errors.
 *
 * The targets are the corresponding colours under D65 (Bradford), in
 * linear sRGB; errors are measured as in cisp_iq_color_evaluate().
 *
 * Return: 0, or -EINVAL for bad input or patches that do not determine a
 * matrix (e.g. all grey).
 */
CISP_API int cisp_iq_fit_ccm(const double (*camera)[3], const double (*target)[3], const double white[3],
			     unsigned count,
			     const struct cisp_iq_ccm_fit_options *opt, struct cisp_iq_ccm_fit *fit);

/**
 * cisp_iq_ccm_to_params() - express a matrix in the CCM block's fixed point
 * (Q3.12), rounding to nearest; when every row of @ccm sums to 1 within
 * rounding, the diagonal is adjusted so that each row sums to exactly 4096
 * (greys stay exactly grey).
 * @ccm: the matrix.
 * @p: receives header (type, size), coefficients; offsets are 0.
 * Return: 0, or -ERANGE (with a message) when a coefficient or a row's sum
 * of magnitudes does not fit the block's range.
 */
CISP_API int cisp_iq_ccm_to_params(const double ccm[3][3], struct cisp_ccm_params *p);

/**
 * cisp_iq_fit_lsc() - a lens-shading correction grid from a raw picture of a
 * flat field (uniformly lit, uniform surface; noise averages out over the
 * windows).
 * @raw: the flat field, an unpacked Bayer frame.
 * @black: black level, in the frame's codes.
 * @white: white level, in the frame's codes.
 * @grid_w: grid nodes across, 2..CISP_LSC_MAX_GRID.
 * @grid_h: grid nodes down, 2..CISP_LSC_MAX_GRID.
 * @p: receives the LSC block (header, grid size, Q4.12 gains).
 *
 * For each channel, the level at each node is measured by a least-squares
 * plane over a window one grid cell wide around it (clipped at the frame's
 * edges, where the plane extrapolates to the node), and the node's gain is the
 * channel's brightest node level over its own, so the corrected field is flat at
 * the brightest level, and each channel is flat on its own (colour shading
 * is corrected too).
 *
 * Return: 0, or -EINVAL (bad frame or grid, a dark node, a gain over 16).
 */
CISP_API int cisp_iq_fit_lsc(const struct cisp_image *raw, double black, double white, unsigned grid_w, unsigned grid_h,
			     struct cisp_lsc_params *p);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_CALIB_H */
