/* SPDX-License-Identifier: MIT */
/**
 * @file iq_color.h
 * @brief Colour accuracy: CIE colorimetry, CIEDE2000, the ColorChecker
 * reference, and the evaluation of a camera's rendering of a chart.
 *
 * Conventions: XYZ is scaled so that the Y of the reference white is 1;
 * CIELAB is relative to a given white; "linear sRGB" is IEC 61966-2-1 RGB
 * before its transfer function (D65 white, 1.0 = white). docs/iq.md gives
 * every formula and its source.
 */
#ifndef CISP_IQ_COLOR_H
#define CISP_IQ_COLOR_H

#include <stdbool.h>

#include <cisp/api.h>
#include <cisp/iq_image.h>

#ifdef __cplusplus
extern "C" {
#endif

/** CIE D65 white, 2-degree observer, Y = 1 (as sRGB defines it). */
CISP_API extern const double cisp_iq_white_d65[3];
/** CIE D50 white, 2-degree observer, Y = 1 (the ICC connection space white). */
CISP_API extern const double cisp_iq_white_d50[3];

/**
 * cisp_iq_xyz_to_lab() - CIE 1976 L*a*b* of a colour.
 * @xyz: the colour.
 * @white: the reference white (Y = 1).
 * @lab: receives L* (0..100), a*, b*.
 */
CISP_API void cisp_iq_xyz_to_lab(const double xyz[3], const double white[3], double lab[3]);

/**
 * cisp_iq_lab_to_xyz() - the inverse of cisp_iq_xyz_to_lab().
 * @lab: L*, a*, b*.
 * @white: the reference white.
 * @xyz: receives the colour.
 */
CISP_API void cisp_iq_lab_to_xyz(const double lab[3], const double white[3], double xyz[3]);

/**
 * cisp_iq_srgb_to_xyz() - linear sRGB to XYZ (D65 white).
 * @rgb: linear R, G, B.
 * @xyz: receives X, Y, Z.
 */
CISP_API void cisp_iq_srgb_to_xyz(const double rgb[3], double xyz[3]);

/**
 * cisp_iq_xyz_to_srgb() - XYZ (D65 white) to linear sRGB (not clipped).
 * @xyz: X, Y, Z.
 * @rgb: receives linear R, G, B.
 */
CISP_API void cisp_iq_xyz_to_srgb(const double xyz[3], double rgb[3]);

/**
 * cisp_iq_adapt() - chromatic adaptation with the linear Bradford transform:
 * the corresponding colour under another white.
 * @xyz: the colour seen under @from.
 * @from: the white it is seen under.
 * @to: the destination white.
 * @out: receives the corresponding colour (may be @xyz).
 */
CISP_API void cisp_iq_adapt(const double xyz[3], const double from[3], const double to[3], double out[3]);

/**
 * cisp_iq_delta_e2000() - the CIEDE2000 colour difference, with the
 * parametric factors kL = kC = kH = 1.
 * @lab1: one colour.
 * @lab2: the other.
 * Return: ΔE00 (symmetric in its arguments).
 */
CISP_API double cisp_iq_delta_e2000(const double lab1[3], const double lab2[3]);

/**
 * cisp_iq_delta_e76() - the CIE 1976 colour difference (Euclidean in L*a*b*).
 * @lab1: one colour.
 * @lab2: the other.
 * Return: ΔE*ab.
 */
CISP_API double cisp_iq_delta_e76(const double lab1[3], const double lab2[3]);

/**
 * cisp_iq_angular_error() - the angle between two RGB vectors, the usual
 * measure of a white-balance error (illuminant estimate against truth, or a
 * rendered grey against the neutral axis).
 * @a: one vector.
 * @b: the other.
 * Return: degrees, 0..180; 0 when either vector is zero.
 */
CISP_API double cisp_iq_angular_error(const double a[3], const double b[3]);

/** Patches of the ColorChecker Classic. */
#define CISP_IQ_COLORCHECKER_PATCHES 24

/**
 * struct cisp_iq_colorchecker_patch - a published ColorChecker patch.
 * @name: the patch name ("dark skin" ... "black 2").
 * @lab_d50: CIELAB under D50, 2-degree observer (the manufacturer's values
 *           for charts made after November 2014).
 */
struct cisp_iq_colorchecker_patch {
	const char *name;
	double lab_d50[3];
};

/**
 * cisp_iq_colorchecker() - the ColorChecker Classic reference, in reading
 * order (row by row, dark skin first, black 2 last; patches 19..24 are the
 * neutral row).
 * Return: CISP_IQ_COLORCHECKER_PATCHES entries.
 */
CISP_API const struct cisp_iq_colorchecker_patch *cisp_iq_colorchecker(void);

/** Most patches one colour evaluation takes. */
#define CISP_IQ_MAX_PATCHES 64

/**
 * struct cisp_iq_color_options - how measured colours are normalised before
 * they are compared.
 * @exposure: scale the measured colours by one factor so that the Y of the
 *            neutral patches matches the reference (least squares): removes
 *            an exposure error, keeps relative tone.
 * @white: adapt the measured colours (Bradford) from their own grey to the
 *         reference white: removes a white-balance error, so ΔE then
 *         measures colour rendering only.
 */
struct cisp_iq_color_options {
	bool exposure;
	bool white;
};

/**
 * struct cisp_iq_color_patch - one patch of an evaluation.
 * @name: the patch name.
 * @neutral: the patch is grey (used for exposure, white and the WB angle).
 * @ref_lab: reference CIELAB (D50 white).
 * @lab: measured CIELAB after normalisation (D50 white).
 * @ref_srgb: reference as gamma-encoded sRGB 0..1 (clipped), for swatches.
 * @srgb: measured as gamma-encoded sRGB 0..1 (clipped).
 * @de00: CIEDE2000 between @ref_lab and @lab.
 * @de76: CIE 1976 difference.
 */
struct cisp_iq_color_patch {
	char name[32];
	bool neutral;
	double ref_lab[3];
	double lab[3];
	double ref_srgb[3];
	double srgb[3];
	double de00;
	double de76;
};

/**
 * struct cisp_iq_color_result - a colour evaluation.
 * @count: patches.
 * @patch: the patches.
 * @mean_de00: mean ΔE00 over all patches.
 * @max_de00: largest ΔE00.
 * @max_patch: index of the patch with the largest ΔE00.
 * @mean_de00_chromatic: mean ΔE00 over the non-neutral patches.
 * @mean_de76: mean ΔE*ab.
 * @wb_error_deg: angle between the measured mean of the neutral patches and
 *                the reference's, both in linear sRGB (the reference
 *                adapted to D65), before any normalisation; degrees.
 * @exposure_scale: the factor applied by exposure normalisation (1 if off).
 */
struct cisp_iq_color_result {
	unsigned count;
	struct cisp_iq_color_patch patch[CISP_IQ_MAX_PATCHES];
	double mean_de00;
	double max_de00;
	unsigned max_patch;
	double mean_de00_chromatic;
	double mean_de76;
	double wb_error_deg;
	double exposure_scale;
};

/**
 * cisp_iq_color_evaluate() - compare a camera's rendering of patches with
 * their true colours.
 * @measured: per patch, the camera's output in linear sRGB (1.0 = white).
 * @reference: per patch, the true colour as XYZ under @ref_white.
 * @ref_white: XYZ of a perfect white under the scene illuminant (Y = 1).
 * @names: per patch, its name (NULL: "patch N").
 * @neutral: per patch, whether it is grey (NULL: none, which turns off the
 *           normalisations and the WB angle).
 * @count: patches, 1..CISP_IQ_MAX_PATCHES.
 * @opt: normalisations (NULL: none).
 * @result: receives the evaluation.
 *
 * A camera is expected to render the scene as the corresponding colours
 * under its output white: the reference is adapted (Bradford) from
 * @ref_white to D65, then both are expressed in CIELAB relative to D50 (as
 * published chart values are).
 *
 * Return: 0, or -EINVAL with a message.
 */
CISP_API int cisp_iq_color_evaluate(const double (*measured)[3], const double (*reference)[3],
				    const double ref_white[3],
				    const char *const *names, const bool *neutral, unsigned count,
				    const struct cisp_iq_color_options *opt, struct cisp_iq_color_result *result);

/**
 * cisp_iq_colorchecker_evaluate() - cisp_iq_color_evaluate() against the
 * published ColorChecker values (for photographs of a real chart).
 * @measured: 24 measured linear sRGB colours in reading order.
 * @opt: normalisations (NULL: none).
 * @result: receives the evaluation.
 * Return: 0 or -EINVAL.
 */
CISP_API int cisp_iq_colorchecker_evaluate(const double (*measured)[3], const struct cisp_iq_color_options *opt,
					   struct cisp_iq_color_result *result);

/**
 * cisp_iq_chart_patches() - the sampling rectangles of a grid chart from its
 * four outer corners.
 * @corners: x, y of the top-left, top-right, bottom-right and bottom-left
 *           corners of the patch grid, in image pixels.
 * @cols: patches across.
 * @rows: patches down.
 * @fraction: the part of each patch's cell that is sampled, 0.1..1 (0.5
 *            keeps clear of the edges).
 * @rects: receives @cols * @rows rectangles, row by row.
 *
 * Each rectangle is the axis-aligned box inside the (projectively mapped)
 * cell's centre area.
 */
CISP_API void cisp_iq_chart_patches(const double corners[4][2], unsigned cols, unsigned rows, double fraction,
				    struct cisp_iq_rect *rects);

/**
 * cisp_iq_find_colorchecker() - find an upright ColorChecker in a picture.
 * @img: the picture, linear RGB.
 * @corners: receives the outer corners of the patch grid, as
 *           cisp_iq_chart_patches() takes them.
 * @score: receives the match's residual (0 perfect; below about 0.05 is a
 *         clear match), or NULL.
 *
 * Searches positions and sizes of a 6x4 grid (on a copy scaled to at most
 * 480 pixels across) for the one whose cell centres are uniform and best
 * match the chart's colours after a gain per channel (so exposure and white
 * balance do not matter). The chart must be upright within a few degrees,
 * not upside down, and at least 1/7 of the picture's height.
 *
 * Return: 0, or -ENOENT when nothing matches well (score above 0.25), or
 * -EINVAL for a grey or too small picture.
 */
CISP_API int cisp_iq_find_colorchecker(const struct cisp_iq_image *img, double corners[4][2], double *score);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_COLOR_H */
