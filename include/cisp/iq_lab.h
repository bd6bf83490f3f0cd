/* SPDX-License-Identifier: MIT */
/**
 * @file iq_lab.h
 * @brief The software image-quality lab: a virtual sensor photographs charts
 * under chosen illuminants, an ISP backend develops the frames, and the
 * metrics measure the result against the scene's ground truth.
 *
 * An ISP backend is anything that turns a raw frame and a params buffer (the
 * ABI of params.h) into an RGB48 image: the software ISP, or a future
 * hardware one. By default the lab measures the camera as a user gets it:
 * its tuning file and 3A loop settle on each chart, and the backend develops
 * the last frame with the loop's parameters. The ISP's ceiling (white
 * balance and a matrix fitted to the sensor's true responses of the very
 * patches measured) is a mode of its own, labelled so.
 */
#ifndef CISP_IQ_LAB_H
#define CISP_IQ_LAB_H

#include <stdbool.h>
#include <stddef.h>

#include <cisp/api.h>
#include <cisp/isp.h>
#include <cisp/iq_color.h>
#include <cisp/iq_contrast_range.h>
#include <cisp/iq_converge.h>
#include <cisp/iq_false_color.h>
#include <cisp/iq_image.h>
#include <cisp/iq_noise.h>
#include <cisp/iq_sfr.h>
#include <cisp/iq_shading.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_iq_backend - an ISP implementation under test.
 * @name: for messages and reports.
 * @ctx: the backend's own data, passed to the callbacks.
 * @limits: fill @limits with what the backend supports for @cfg (capability
 *          discovery: the block mask and demosaic algorithms); 0 or a
 *          negative errno.
 * @process: configure for @cfg, reset to the default state, apply the params
 *           buffer @params (@size bytes), and develop @in into @out (the
 *           main output of @cfg); 0 or a negative errno with a message.
 */
struct cisp_iq_backend {
	const char *name;
	void *ctx;
	int (*limits)(void *ctx, const struct cisp_isp_config *cfg, struct cisp_params_limits *limits);
	int (*process)(void *ctx, const struct cisp_isp_config *cfg, const void *params, size_t size,
		       const struct cisp_image *in, struct cisp_image *out);
};

/**
 * cisp_iq_software_backend() - the reference software ISP as a backend.
 * Return: a static backend.
 */
CISP_API const struct cisp_iq_backend *cisp_iq_software_backend(void);

/** What the lab's camera is calibrated with (struct cisp_iq_lab.calibration). */
enum cisp_iq_lab_calibration {
	/**
	 * The camera as a user gets it: its tuning file and 3A loop (AE and AWB
	 * settle on each chart; the white balance AWB finds, the tuning's
	 * matrices, shading, defects, denoise, sharpening and tone).
	 */
	CISP_IQ_LAB_CAMERA = 0,
	/**
	 * The ISP's ceiling: white balance and a matrix fitted to the sensor's
	 * true responses of the very patches measured (a fit, not accuracy),
	 * shading off but for the flat field, linear output.
	 */
	CISP_IQ_LAB_CEILING = 1,
};

/**
 * cisp_iq_lab_calibration_name() - "camera" or "ceiling".
 * @c: the calibration.
 * Return: its name.
 */
CISP_API const char *cisp_iq_lab_calibration_name(enum cisp_iq_lab_calibration c);

/**
 * struct cisp_iq_lab - what the lab photographs with.
 * @sensor: a virtual sensor model name ("cisp-8m10") or model file path.
 * @mode: the sensor mode index.
 * @lux: illuminance on the charts (0: 400 lux).
 * @seed: noise seed.
 * @demosaic: enum cisp_demosaic_algorithm (the ceiling's; the camera's
 *            tuning chooses its own).
 * @backend: the ISP backend (NULL: the software ISP).
 * @calibration: the camera (default) or the ISP's ceiling.
 * @tuning: the camera's tuning file, or NULL for the one found for the
 *          sensor model (cisp_tuning_find()).
 */
struct cisp_iq_lab {
	const char *sensor;
	unsigned mode;
	double lux;
	unsigned seed;
	unsigned demosaic;
	const struct cisp_iq_backend *backend;
	enum cisp_iq_lab_calibration calibration;
	const char *tuning;
};

/** Whether a colour result was measured on the patches it was fitted to. */
enum cisp_iq_lab_fit {
	CISP_IQ_LAB_HELD_OUT = 0,    /**< not fitted on this chart under this light: accuracy */
	CISP_IQ_LAB_FITTED = 1,      /**< fitted on these very patches: a fit residual, not accuracy */
	CISP_IQ_LAB_FIT_UNKNOWN = 2, /**< the tuning does not say what it was calibrated on */
};

/**
 * struct cisp_iq_lab_color - a ColorChecker shot under one illuminant.
 * @illuminant: its name.
 * @color: the patches against their truth (computed from their spectra
 *         under the illuminant), exposure normalised, white balance not.
 * @noise: SNR of the six neutral patches (levels: their luminance).
 * @ccm: the colour matrix used.
 * @wb_gain: the white-balance gains used (R, G, B).
 * @exposure: the exposure chosen, lines.
 * @fit: whether the colour was fitted to these very patches under this
 *       light: always in the ceiling; in the camera mode when the tuning's
 *       provenance lists a chart under this light, and unknown for a tuning
 *       without provenance. Only a held-out light's @color is accuracy.
 * @frames: frames the camera's loop ran before this one (0 in the ceiling).
 * @picture: the developed frame (linear sRGB), or empty when not asked for.
 */
struct cisp_iq_lab_color {
	char illuminant[32];
	struct cisp_iq_color_result color;
	struct cisp_iq_noise_result noise;
	double ccm[3][3];
	double wb_gain[3];
	int exposure;
	enum cisp_iq_lab_fit fit;
	unsigned frames;
	struct cisp_iq_image picture;
};

/**
 * cisp_iq_lab_color() - photograph the ColorChecker under an illuminant,
 * with the camera's loop settled (or calibrated from the truth, in the
 * ceiling), develop and measure.
 * @lab: the setup.
 * @illuminant: an illuminant name of the virtual sensor (D65, A, F11...).
 * @keep_picture: keep the developed frame in @out->picture.
 * @out: receives the results; free the picture with cisp_iq_image_free().
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_lab_color(const struct cisp_iq_lab *lab, const char *illuminant, bool keep_picture,
			       struct cisp_iq_lab_color *out);

/** Edges the sharpness shot measures. */
#define CISP_IQ_LAB_EDGES 3

/**
 * struct cisp_iq_lab_sharpness - the slanted-edge chart.
 * @label: per edge, where it is ("centre, vertical edge", ...).
 * @sfr: per edge, its response (luminance).
 * @picture: the developed frame, or empty.
 */
struct cisp_iq_lab_sharpness {
	char label[CISP_IQ_LAB_EDGES][48];
	struct cisp_iq_sfr_result sfr[CISP_IQ_LAB_EDGES];
	struct cisp_iq_image picture;
};

/**
 * cisp_iq_lab_sharpness() - photograph the slanted-edge chart under D65 and
 * measure three edges (centre vertical, centre horizontal, corner).
 * @lab: the setup.
 * @color: a D65 colour result of the same lab, for its white balance and
 *         matrix (the ceiling; the camera finds its own).
 * @keep_picture: keep the developed frame.
 * @out: receives the results.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_lab_sharpness(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color,
				   bool keep_picture,
				   struct cisp_iq_lab_sharpness *out);

/** Steps of the grey step chart. */
#define CISP_IQ_LAB_STEPS 24

/**
 * struct cisp_iq_lab_steps - the grey step chart (24 steps half a stop
 * apart, reflectance 0.9 * 2^(-k/2)): SNR per step and dynamic range.
 * @noise: the measurement on the ISP's output; levels are relative to the
 *         brightest step. The output clamps at black, so the darkest steps
 *         read as clipped and the range at SNR 1 is often a lower bound.
 * @raw_noise: the same on the raw green samples above black (signed): the
 *             sensor's own range.
 * @picture: the developed frame, or empty.
 */
struct cisp_iq_lab_steps {
	struct cisp_iq_noise_result noise;
	struct cisp_iq_noise_result raw_noise;
	struct cisp_iq_image picture;
};

/**
 * cisp_iq_lab_steps() - photograph the grey step chart and measure it.
 * @lab: the setup.
 * @color: a colour result of the same lab (its illuminant and calibration).
 * @keep_picture: keep the developed frame.
 * @out: receives the results.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_lab_steps(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
			       struct cisp_iq_lab_steps *out);

/**
 * struct cisp_iq_lab_star - the Siemens star (36 black/white cycles).
 * @false_color: chroma inside the star.
 * @picture: the developed frame, or empty.
 */
struct cisp_iq_lab_star {
	struct cisp_iq_false_color_result false_color;
	struct cisp_iq_image picture;
};

/**
 * cisp_iq_lab_star() - photograph the Siemens star and measure false colour.
 * @lab: the setup.
 * @color: a colour result of the same lab.
 * @keep_picture: keep the developed frame.
 * @out: receives the results.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_lab_star(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
			      struct cisp_iq_lab_star *out);

/**
 * struct cisp_iq_lab_flat - a flat field with the lens's shading on.
 * @before: uniformity without lens-shading correction.
 * @after: uniformity with correction: the camera's (its tuning's tables),
 *         or in the ceiling an LSC grid (17x13) calibrated by
 *         cisp_iq_fit_lsc() on a noiseless flat field.
 * @picture: the corrected frame, or empty.
 */
struct cisp_iq_lab_flat {
	struct cisp_iq_shading_result before;
	struct cisp_iq_shading_result after;
	struct cisp_iq_image picture;
};

/**
 * cisp_iq_lab_flat() - measure what the lens-shading correction leaves.
 * @lab: the setup.
 * @color: a colour result of the same lab.
 * @keep_picture: keep the corrected frame.
 * @out: receives the results.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_lab_flat(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
			      struct cisp_iq_lab_flat *out);

/** Bands of the lab's stepped-range chart, a stop apart. */
#define CISP_IQ_LAB_RANGE_BANDS 20

/**
 * struct cisp_iq_lab_dynamic_range - the stepped-range chart through the
 * camera: 20 textured bands a stop apart (Michelson contrast 0.2) and a
 * 6-stop edge, developed as the camera outputs it (docs/iq.md).
 * @ltm: the camera's loop turned local tone mapping on (its tuning's `ltm`
 *       section); when false both developments are the same.
 * @range: the bands whose texture the output keeps, as the camera
 *         develops the frame (its default: LTM on when @ltm).
 * @halo: the edge, the same development.
 * @range_off: the same frame and parameters with the LTM block off.
 * @halo_off: the edge, LTM off.
 * @exposure: the exposure the camera chose, lines.
 * @picture: the development with the camera's default, its code values
 *           taken for sRGB (linear, so the report shows the output as it
 *           is), or empty.
 */
struct cisp_iq_lab_dynamic_range {
	bool ltm;
	struct cisp_iq_contrast_range_result range;
	struct cisp_iq_halo_result halo;
	struct cisp_iq_contrast_range_result range_off;
	struct cisp_iq_halo_result halo_off;
	int exposure;
	struct cisp_iq_image picture;
};

/**
 * cisp_iq_lab_dynamic_range() - photograph the stepped-range chart with the
 * camera (its tuning's loop settles on it) and measure the range kept and
 * the halo with the camera's local tone mapping and without.
 * @lab: the setup, in the camera mode (the ceiling has no tone mapping).
 * @color: a colour result of the same lab (its illuminant).
 * @keep_picture: keep the developed frame.
 * @out: receives the results; free the picture with cisp_iq_image_free().
 *
 * The chart is drawn at the frame's size as a 16-bit sRGB image in a
 * temporary directory (TMPDIR, else /tmp) that the virtual sensor reads as
 * its scene; both are removed once the sensor has it.
 * Return: 0 or a negative errno with a message (-EINVAL in the ceiling).
 */
CISP_API int cisp_iq_lab_dynamic_range(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color,
				       bool keep_picture, struct cisp_iq_lab_dynamic_range *out);

/**
 * struct cisp_iq_lab_3a - the camera's own 3A loop and tuning on the
 * ColorChecker scene: how fast it converges and where it ends.
 * @illuminant: the light.
 * @ae: per frame, the loop's measured / target brightness (target 1,
 *      tolerance 0.05).
 * @awb: per frame, the white-balance angular error of the developed neutral
 *       patches (white to dark grey) in linear RGB, degrees (target 0,
 *       tolerance 2).
 * @af: per frame, the lens position (target: the sensor's true focus,
 *      tolerance 2 % of the AF range).
 * @color: the last frame's ColorChecker through the camera's tuning and AWB
 *         against the published values, exposure normalised.
 * @picture: the last frame (linear sRGB), or empty when not asked for.
 */
struct cisp_iq_lab_3a {
	char illuminant[32];
	struct cisp_iq_convergence ae;
	struct cisp_iq_convergence awb;
	struct cisp_iq_convergence af;
	struct cisp_iq_color_result color;
	struct cisp_iq_image picture;
};

/**
 * cisp_iq_lab_3a() - run the virtual camera (sensor, its tuning file, the
 * 3A loop, the ISP device) on the ColorChecker and record convergence.
 * @lab: the setup (sensor, mode, lux, seed; the backend is not used: the
 *       camera runs the device's software ISP).
 * @illuminant: an illuminant of the virtual sensor.
 * @frames: frames to run, 8..CISP_IQ_MAX_FRAMES.
 * @keep_picture: keep the last frame in @out->picture.
 * @out: receives the records; free the picture with cisp_iq_image_free().
 *
 * The first frame is white-balanced by hand for 2800 K with the lens at the
 * near end of its range (both wrong for a chart 1 m away in daylight); from
 * the second frame AE, AWB and continuous AF run. AE starts where the loop
 * starts by itself.
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_iq_lab_3a(const struct cisp_iq_lab *lab, const char *illuminant, unsigned frames, bool keep_picture,
			    struct cisp_iq_lab_3a *out);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_LAB_H */
