/* SPDX-License-Identifier: MIT */
/**
 * @file calibrate.h
 * @brief Calibrating a sensor and lens from captures: darks, flats, colour
 * charts and slanted edges in, a tuning file (docs/tuning.md) and a report
 * out. docs/calibrate.md explains every estimator and its figures.
 *
 * A calibration is a session: captures are added one at a time (each is
 * checked as it comes, and a bad one is refused with a message saying what
 * is wrong with it), then cisp_calib_solve() runs the estimators on what was
 * gathered, and the result can be written as a tuning file and a report.
 * Frames are raw Bayer images in their own codes; every level below is in
 * those codes unless it says otherwise.
 */
#ifndef CISP_CALIBRATE_H
#define CISP_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/iq_color.h>
#include <cisp/iq_image.h>
#include <cisp/iq_report.h>
#include <cisp/iq_sfr.h>
#include <cisp/output_file.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Nodes across and down a lens-shading table (the tuning's 17 x 17 grid). */
#define CISP_CALIB_LSC_GRID 17
/** Most colour temperatures (charts, shading tables) and gains a calibration keeps. */
#define CISP_CALIB_MAX_TABLE 16

/** What a capture shows. */
enum cisp_calib_kind {
	CISP_CALIB_DARK = 0,  /**< the lens covered: black level, dark signal, hot pixels */
	CISP_CALIB_FLAT = 1,  /**< an evenly lit diffuser: shading, photo-response, dead pixels, noise (pairs) */
	CISP_CALIB_CHART = 2, /**< a ColorChecker Classic under a known light: colour */
	CISP_CALIB_EDGE = 3,  /**< a slanted dark/light edge: sharpness */
};

/**
 * cisp_calib_kind_name() - "dark", "flat", "chart" or "edge".
 * @kind: a kind.
 * Return: its name ("?" for another value).
 */
CISP_API const char *cisp_calib_kind_name(enum cisp_calib_kind kind);

/**
 * struct cisp_calib_capture - one frame and what is known about it.
 * @kind: what it shows.
 * @raw: the frame, an unpacked Bayer image (8 bits, or 10..16 bits in
 *       16-bit containers), the size and CFA of every other capture.
 * @black: the black level the frame's metadata states, in its codes (a
 *         DNG's BlackLevel); darks are checked against it for light. < 0:
 *         unknown.
 * @white: the white (clipping) level in the frame's codes.
 * @exposure_s: exposure time in seconds; 0: unknown. Frames with the same
 *              exposure and gain form groups (and pairs, for noise).
 * @gain: total sensor gain (analogue times digital, 1.0 = x1); 0: unknown
 *        (taken as 1).
 * @illuminant: the light on a chart (required) or a flat (optional: names
 *              the shading table's colour temperature): an illuminant name
 *              (D65, D50, D55, D75, A, F2, F11, LED) or a temperature such
 *              as "4000K".
 * @lux: illuminance on a chart, for the lux reference; 0: unknown.
 * @roi: for an edge, the region holding it (NULL: found in the frame).
 * @name: where the frame came from (a file name), for messages and the
 *        tuning's provenance.
 */
struct cisp_calib_capture {
	enum cisp_calib_kind kind;
	const struct cisp_image *raw;
	double black;
	double white;
	double exposure_s;
	double gain;
	const char *illuminant;
	double lux;
	const struct cisp_iq_rect *roi;
	const char *name;
};

/**
 * struct cisp_calib_setup - what the tuning is for.
 * @sensor: the sensor model (the tuning's `sensor`), a plain name.
 * @bits: bit depth of the sensor mode whose codes the tuning's black level
 *        is written in; 0: the frames' (from their white level).
 * @array_width: width of the pixel array the frames cover (the shading
 *               tables' `array`); 0: the frames' width.
 * @array_height: its height; 0: the frames' height.
 * @max_analogue_gain: the sensor's largest analogue gain (the tuning's
 *                     ae.max_analogue_gain); 0: the default.
 * @max_digital_gain: its largest digital gain (ae.max_digital_gain, at most
 *                    4); 0: the default.
 * @lens_min: the lens's lowest position (af.position_range), used when
 *            @lens_max is above it.
 * @lens_max: its highest position.
 */
struct cisp_calib_setup {
	const char *sensor;
	unsigned bits;
	uint32_t array_width;
	uint32_t array_height;
	double max_analogue_gain;
	double max_digital_gain;
	int32_t lens_min;
	int32_t lens_max;
};

/** An opaque calibration session. */
struct cisp_calib;

/**
 * cisp_calib_create() - start a calibration.
 * @c: receives the session; free with cisp_calib_destroy().
 * @setup: the sensor.
 * Return: 0, -EINVAL (a sensor name that is not plain) or -ENOMEM.
 */
CISP_API int cisp_calib_create(struct cisp_calib **c, const struct cisp_calib_setup *setup);

/**
 * cisp_calib_destroy() - free a session.
 * @c: the session (may be NULL).
 */
CISP_API void cisp_calib_destroy(struct cisp_calib *c);

/**
 * cisp_calib_add() - check a capture and gather what it says.
 * @c: the session.
 * @cap: the capture; the frame is not kept.
 *
 * A capture that cannot serve is refused, and nothing of it is kept: a
 * frame of another size, CFA or white level than the first; a dark with
 * light in it (its level or its spread above the stated black); a flat that
 * is not flat (a part of it departs from its smooth surroundings) or is
 * almost all clipped; a chart that is not found, is clipped or is
 * underexposed, or whose light is unknown; an edge that is not found.
 * Return: 0, -EINVAL with a message naming the capture and what is wrong,
 * or -ENOMEM.
 */
CISP_API int cisp_calib_add(struct cisp_calib *c, const struct cisp_calib_capture *cap);

/** struct cisp_calib_dark_group - darks of one exposure and gain. */
struct cisp_calib_dark_group {
	double exposure_s; /**< exposure time, s */
	double gain;       /**< sensor gain */
	unsigned frames;   /**< darks in the group */
	double level[4];   /**< mean level per channel R, Gr, Gb, B (defective pixels left out) */
	double temporal;   /**< temporal noise, codes rms (0 without a pair) */
};

/**
 * struct cisp_calib_black - what the darks say.
 * @frames: darks used (0: no darks, nothing below is valid).
 * @level: black level per channel R, Gr, Gb, B: the intercept at zero
 *         exposure of the lowest gain's levels (their level when all have
 *         one exposure).
 * @spread: largest difference between a group's channel level (less its
 *          dark signal) and @level: how much the black level moves with
 *          gain.
 * @dark_current: dark signal growth at the lowest gain, codes per second
 *                (0 with one exposure).
 * @dsnu: dark signal non-uniformity, the rms of the fixed offsets of the
 *        pixels (codes), with the temporal noise of the averaged darks
 *        taken out.
 * @groups: entries in @group.
 * @group: the darks by exposure and gain.
 */
struct cisp_calib_black {
	unsigned frames;
	double level[4];
	double spread;
	double dark_current;
	double dsnu;
	unsigned groups;
	struct cisp_calib_dark_group group[CISP_CALIB_MAX_TABLE];
};

/**
 * struct cisp_calib_noise_gain - the photon transfer curve at one gain.
 * @gain: the sensor gain.
 * @a: variance per code of signal, per channel: var = a * s + b (codes).
 * @b: variance at zero signal, per channel (codes squared).
 * @points: tiles the fit used.
 * @fit_rms: rms relative difference of the tiles' variances from the fit.
 * @conversion_gain: electrons per code (1 / mean a: shot noise is Poisson).
 * @read_noise_e: noise at zero signal in electrons (sqrt(mean b) / mean a).
 * @saturation: signal above black where the curve turns over (the full
 *              well, or the ADC's white level), codes; a lower bound when
 *              @saturated is false.
 * @saturated: the flats reached saturation at this gain.
 * @full_well_e: @saturation in electrons.
 * @dynamic_range_db: 20 log10(@saturation / sqrt(mean b)).
 */
struct cisp_calib_noise_gain {
	double gain;
	double a[4];
	double b[4];
	unsigned points;
	double fit_rms;
	double conversion_gain;
	double read_noise_e;
	double saturation;
	bool saturated;
	double full_well_e;
	double dynamic_range_db;
};

/** struct cisp_calib_ptc_point - one tile of a pair of flats (or darks). */
struct cisp_calib_ptc_point {
	double gain;     /**< the pair's sensor gain */
	unsigned channel; /**< 0 R, 1 Gr, 2 Gb, 3 B */
	double signal;   /**< mean above black, codes */
	double variance; /**< half the variance of the difference of the two frames, codes squared */
};

/**
 * struct cisp_calib_noise - the photon transfer curves.
 * @count: gains measured (0: no pairs).
 * @gain: per gain, lowest first.
 * @num_points: entries in @points.
 * @points: every tile of every pair (for the report's plot).
 */
struct cisp_calib_noise {
	unsigned count;
	struct cisp_calib_noise_gain gain[CISP_CALIB_MAX_TABLE];
	unsigned num_points;
	const struct cisp_calib_ptc_point *points;
};

/** struct cisp_calib_shading_table - lens shading under one light. */
struct cisp_calib_shading_table {
	char illuminant[32]; /**< the flats' light as given, or "" */
	double ct;           /**< its colour temperature (5000 when unknown) */
	double level;        /**< the flats' green level at the centre, fraction of the range */
	/** gains per channel R, Gr, Gb, B at 17 x 17 nodes, row-major; node (i, j) at pixel (i (W-1)/16, j (H-1)/16) */
	float gain[4][CISP_CALIB_LSC_GRID * CISP_CALIB_LSC_GRID];
	double falloff[4];   /**< darkest corner's level over the brightest node's, per channel */
	double residual_pct; /**< largest departure from flat of the flats' blocks after correction, percent */
};

/**
 * struct cisp_calib_shading - what the flats say.
 * @count: tables (0: no usable flat).
 * @table: by colour temperature, rising.
 * @prnu: photo-response non-uniformity, the rms of the pixels' gain
 *        errors (fraction), with the temporal noise taken out.
 */
struct cisp_calib_shading {
	unsigned count;
	struct cisp_calib_shading_table table[CISP_CALIB_MAX_TABLE];
	double prnu;
};

/**
 * struct cisp_calib_chart - a ColorChecker under one light.
 * @name: the capture's name.
 * @illuminant: the light as given.
 * @ct: its correlated colour temperature, kelvin.
 * @on_locus: a Planckian or daylight light (it shapes the white-balance
 *            curve); fluorescent and LED lights lie off it.
 * @corners: the patch grid's outer corners in the frame (pixels; top-left,
 *           top-right, bottom-right, bottom-left).
 * @white_level: the white patch's level, fraction of the range.
 * @camera: per patch, the camera's response after black level and lens
 *          shading, divided by the response to a perfect white (so a
 *          perfect white is 1, 1, 1).
 * @grey: camera R/G and B/G of a perfect white (from the neutral patches).
 * @ccm: the fitted colour matrix (white-balanced camera RGB to linear sRGB,
 *       rows summing to 1).
 * @fit: the patches through white balance and @ccm against the truth:
 *       the fit's residual on the patches it was fitted to, not accuracy.
 * @raw: the patches white-balanced but without a matrix.
 * @loo_mean_de00: mean CIEDE2000 of each patch when the matrix is fitted to
 *                 the other 23 (leave one out): accuracy on colours the fit
 *                 did not see.
 * @loo_max_de00: the largest of those.
 * @lux_scale: the lux reference of this capture (0 without its lux).
 */
struct cisp_calib_chart {
	char name[128];
	char illuminant[32];
	double ct;
	bool on_locus;
	double corners[4][2];
	double white_level;
	double camera[CISP_IQ_COLORCHECKER_PATCHES][3];
	double grey[2];
	double ccm[3][3];
	struct cisp_iq_color_result fit;
	struct cisp_iq_color_result raw;
	double loo_mean_de00;
	double loo_max_de00;
	double lux_scale;
};

/** struct cisp_calib_ct_point - a point of the white-balance curve. */
struct cisp_calib_ct_point {
	double ct;       /**< kelvin */
	double r_over_g; /**< camera R/G of a grey under that light */
	double b_over_g; /**< camera B/G */
	bool measured;   /**< a chart's light, not a point of the curve between or beyond them */
};

/**
 * struct cisp_calib_held_out - one chart's light left out of the colour
 * calibration: what the others predict for it.
 * @illuminant: the chart's light.
 * @ct: its colour temperature found on the others' curve (as AWB would).
 * @curve_distance: its grey's distance from the others' curve (r/g, b/g).
 * @color: its patches with white balance from its own greys and the matrix
 *         the others' table gives at @ct.
 */
struct cisp_calib_held_out {
	char illuminant[32];
	double ct;
	double curve_distance;
	struct cisp_iq_color_result color;
};

/**
 * struct cisp_calib_colour - what the charts say.
 * @count: charts (0: none).
 * @chart: by colour temperature, rising.
 * @curve_count: points in @curve.
 * @curve: the white-balance curve (docs/calibrate.md: between the on-locus
 *         lights log(R/G) and log(B/G) are linear in 1/T, which extends it
 *         beyond them as the Wien approximation does).
 * @transverse: the distance off the curve AWB should accept without pulling
 *              (the tuning's awb.transverse): the default, or more when a
 *              chart's light lies further off.
 * @lux_scale: the lux reference (ae.lux_scale), the mean of the charts that
 *             gave their lux; 0 without.
 * @held_out: with three or more charts, each chart predicted from the
 *            others (@count entries); accuracy on a light not calibrated.
 */
struct cisp_calib_colour {
	unsigned count;
	struct cisp_calib_chart chart[CISP_CALIB_MAX_TABLE];
	unsigned curve_count;
	struct cisp_calib_ct_point curve[CISP_CALIB_MAX_TABLE];
	double transverse;
	double lux_scale;
	struct cisp_calib_held_out held_out[CISP_CALIB_MAX_TABLE];
};

/** struct cisp_calib_defect - a defective pixel. */
struct cisp_calib_defect {
	uint32_t x;  /**< column in the frame */
	uint32_t y;  /**< row */
	bool hot;    /**< brighter than its neighbours (in the darks or flats); else darker in the flats */
};

/**
 * struct cisp_calib_defects - pixels for the static defect list.
 * @count: entries in @list.
 * @list: sorted by row then column.
 * @threshold_dark: a dark pixel is defective above black plus this (codes).
 * @threshold_flat: a flat pixel is defective beyond this relative
 *                  departure from its smooth surroundings.
 */
struct cisp_calib_defects {
	unsigned count;
	const struct cisp_calib_defect *list;
	double threshold_dark;
	double threshold_flat;
};

/**
 * struct cisp_calib_sharpness - the slanted edge.
 * @valid: an edge was measured.
 * @roi: where, in the frame.
 * @sfr: its response in linear luminance after the reference ISP's black
 *       level, white balance and quality demosaic (before any sharpening).
 * @sharpen: the sharpening strength (the tuning's denoise.sharpen at the
 *           lowest gain) that lifts the response at a quarter of the
 *           sampling rate to 0.6, by the sharpening stage's own response
 *           (docs/calibrate.md); 0 when it is there already.
 */
struct cisp_calib_sharpness {
	bool valid;
	struct cisp_iq_rect roi;
	struct cisp_iq_sfr_result sfr;
	double sharpen;
};

/**
 * struct cisp_calib_result - everything a calibration measured.
 * @width: frame width, pixels.
 * @height: frame height.
 * @cfa: the frames' CFA order.
 * @white: the frames' white level (codes).
 * @bits: the bit depth the tuning's black level is written in.
 * @black: from the darks.
 * @noise: from pairs of flats (and darks).
 * @shading: from the flats.
 * @defects: from the darks and flats.
 * @colour: from the charts.
 * @sharpness: from the edge.
 */
struct cisp_calib_result {
	uint32_t width;
	uint32_t height;
	enum cisp_cfa cfa;
	double white;
	unsigned bits;
	struct cisp_calib_black black;
	struct cisp_calib_noise noise;
	struct cisp_calib_shading shading;
	struct cisp_calib_defects defects;
	struct cisp_calib_colour colour;
	struct cisp_calib_sharpness sharpness;
};

/**
 * cisp_calib_solve() - run the estimators on the captures added so far.
 * @c: the session.
 * @result: receives a pointer to the result, owned by the session and valid
 *          until the next cisp_calib_add(), cisp_calib_solve() or
 *          cisp_calib_destroy().
 * Return: 0, -ENODATA when nothing was added, -EINVAL (captures that do not
 * determine something, with a message), or -ENOMEM.
 */
CISP_API int cisp_calib_solve(struct cisp_calib *c, const struct cisp_calib_result **result);

/**
 * struct cisp_calib_provenance - where a tuning came from, for its
 * `provenance` section.
 * @tool: the program and its version ("cisp calibrate 0.1").
 * @command: the command line (NULL: none).
 * @date: the date (ISO 8601; NULL: now, in UTC).
 */
struct cisp_calib_provenance {
	const char *tool;
	const char *command;
	const char *date;
};

/**
 * cisp_calib_write_tuning() - write a tuning file from the result.
 * @c: a solved session.
 * @base: a tuning file whose values the calibration did not measure are
 *        kept (AE, AF, flicker, denoise strengths, gamma, ...), or NULL for
 *        the defaults.
 * @prov: the provenance to record.
 * @out: where to write it (the caller commits or discards it).
 *
 * The black level, noise profile, lens shading, static defects, colour
 * matrices, white-balance curve and lux reference are the result's when it
 * has them, else @base's. The file is parsed back before this returns, so
 * what is written is a tuning cisp reads.
 * Return: 0; -EINVAL when a required section (awb curve, ccm, noise) has
 * neither a measurement nor a base, with a message naming the capture that
 * is missing; the errors of loading @base; -EIO.
 */
CISP_API int cisp_calib_write_tuning(struct cisp_calib *c, const char *base, const struct cisp_calib_provenance *prov,
				     struct cisp_output_file *out);

/**
 * cisp_calib_report() - add the result to a report: the black levels, the
 * photon transfer curves, the shading tables and what they leave, the
 * defects, each chart's patches before and after its matrix (labelled as
 * fit residuals), the held-out charts, the white-balance curve and the
 * edge.
 * @c: a solved session.
 * @r: the report.
 * Return: 0 or -ENOMEM.
 */
CISP_API int cisp_calib_report(struct cisp_calib *c, struct cisp_iq_report *r);

/**
 * cisp_calib_illuminant_ct() - the correlated colour temperature of a
 * light as cisp_calib_capture.illuminant names it: the CIE's nominal one
 * for its illuminants (A 2856 K, D65 6504 K, F11 4000 K, ...), the one a
 * name gives ("4000K", "blackbody:3200"), else McCamy's formula on the
 * light's chromaticity.
 * @name: the light.
 * @ct: receives kelvin.
 * @on_locus: receives whether it is a Planckian or daylight light (NULL:
 *            not wanted).
 * Return: 0, or -EINVAL for a name that is not a light.
 */
CISP_API int cisp_calib_illuminant_ct(const char *name, double *ct, bool *on_locus);

/**
 * struct cisp_calib_camera - a lightbox session on a virtual sensor: what
 * cisp_calib_capture_virtual() photographs.
 * @sensor: the virtual sensor model ("cisp-8m10") or model file path.
 * @mode: the sensor mode (0 is usually the whole pixel array, which the
 *        shading tables must span).
 * @illuminants: the lights of the charts, comma-separated ("D65,A").
 * @seed: the sensor's noise seed.
 * @options: more sensor options ("defect_density=0.001"), or NULL.
 * @save: called with each capture before it is added (to save it as a
 *        file), or NULL; a non-zero return stops the session with it.
 * @opaque: passed to @save.
 */
struct cisp_calib_camera {
	const char *sensor;
	unsigned mode;
	const char *illuminants;
	unsigned seed;
	const char *options;
	int (*save)(void *opaque, const struct cisp_calib_capture *cap);
	void *opaque;
};

/**
 * cisp_calib_virtual_setup() - the setup of a calibration on a virtual
 * sensor's mode: its model, the mode's bits, its pixel array, gain limits
 * and lens range.
 * @cam: the camera (sensor and mode).
 * @setup: receives the setup; its sensor name points into @model.
 * @model: receives the model name.
 * @size: room in @model.
 * Return: 0, the sensor's errors, or -EINVAL for a mode that does not read
 * the whole pixel array (the shading tables must span it).
 */
CISP_API int cisp_calib_virtual_setup(const struct cisp_calib_camera *cam, struct cisp_calib_setup *setup, char *model,
				      size_t size);

/**
 * cisp_calib_capture_virtual() - photograph a calibration series with a
 * virtual sensor and add it to a session: darks at four gains and two
 * exposures, pairs of flats at nine levels and four gains, eight flats
 * under each light, a ColorChecker under each light and a slanted edge
 * (docs/calibrate.md lists the series).
 * @c: a session (made for the same sensor and mode).
 * @cam: the session's camera.
 * Return: 0, or the errors of the sensor and of cisp_calib_add().
 */
CISP_API int cisp_calib_capture_virtual(struct cisp_calib *c, const struct cisp_calib_camera *cam);

/**
 * struct cisp_tuning_import - what an imported tuning needs that the file
 * does not say.
 * @sensor: the cisp tuning's sensor model, a plain name.
 * @bits: the bit depth of the sensor mode whose codes the black level is
 *        written in (8..16).
 * @array_width: the pixel array the shading tables span (the tuning's
 *               lens_shading.array); 0: each mode's whole frame.
 * @array_height: its height.
 * @base: a tuning file whose values stand for what the file lacks, or
 *        NULL for the uncalibrated tuning's.
 */
struct cisp_tuning_import {
	const char *sensor;
	unsigned bits;
	uint32_t array_width;
	uint32_t array_height;
	const char *base;
};

/**
 * cisp_tuning_import() - convert another camera stack's tuning into a cisp
 * tuning file: the Raspberry Pi tuning tool's JSON (black level, noise, lux
 * reference, AWB curve, colour matrices, ALSC tables) or libcamera's rkisp1
 * YAML (black level, lens shading). docs/calibrate.md gives the mapping.
 * What has no cisp equivalent is named in a warning (cisp_log()), and so is
 * each required section the file lacks (taken from the base).
 * @path: the file.
 * @opt: the sensor, its bit depth and the base.
 * @out: where to write the tuning (the caller commits or discards it); the
 *       text is parsed back first, so what is written is a tuning cisp reads.
 * Return: 0, -EINVAL with a message (not JSON or YAML, neither format, a
 * value of the wrong kind or count, a result cisp refuses), the errors of
 * reading the file and the base, or -ENOMEM.
 */
CISP_API int cisp_tuning_import(const char *path, const struct cisp_tuning_import *opt, struct cisp_output_file *out);

#ifdef __cplusplus
}
#endif

#endif /* CISP_CALIBRATE_H */
