/* SPDX-License-Identifier: MIT */
/**
 * DOC: what one photograph of a printed chart says about the lens and the sensor
 *
 * A tuning engineer does not always have a lightbox: often there is a frame
 * of a test chart and nothing else. Two estimators read such a frame
 * (docs/calibrate.md, "A chart frame instead of flats"):
 *
 * - the flat field from the chart's white areas (bright, unclipped and
 *   uniform blocks found against a smooth falloff fitted through them), as
 *   lens-shading tables like the ones flats give;
 * - the tone response from its grey steps (uniform regions): the black
 *   offset (from how neutral steps' channels move together), the clip point
 *   of each channel, the consistency of the channels' responses, and, where
 *   the steps' relative luminances are known, the response curve.
 *
 * Both take the raw mosaic with its levels; neither keeps the frame.
 */
#ifndef CISP_CALIBRATE_CHART_FRAME_H
#define CISP_CALIBRATE_CHART_FRAME_H

#include <stdbool.h>

#include <cisp/calibrate.h>
#include <cisp/image.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_calib_chart_flat - the flat field of a chart frame's white areas.
 * @table: the lens-shading table (each channel flattened on its own, as from
 *         flats; @table.residual_pct is the largest departure of a white
 *         block from the fitted falloff, percent).
 * @blocks: the white blocks the falloff is fitted to.
 * @coverage: their share of the frame's blocks.
 * @radius_reached: the farthest white block's distance from the frame
 *                  centre, fraction of the half-diagonal: beyond it the
 *                  falloff is extrapolated.
 * @residual_rms_pct: the white blocks' rms departure from the fit, percent.
 * @falloff: per channel R, Gr, Gb, B, the fitted level in the darkest
 *           corner over the brightest (the relative illumination there).
 * @centre: where the green falloff's fit is brightest, frame pixels.
 */
struct cisp_calib_chart_flat {
	struct cisp_calib_shading_table table;
	unsigned blocks;
	double coverage;
	double radius_reached;
	double residual_rms_pct;
	double falloff[4];
	double centre[2];
};

/**
 * cisp_calib_flat_from_chart() - lens shading from a chart frame's white areas.
 * @raw: the Bayer mosaic.
 * @black: its black level (codes).
 * @white: the level where it clips (codes).
 * @illuminant: the light as given, or NULL (the table's colour temperature
 *              is then 5000 K).
 * @out: the result.
 *
 * Blocks that are unclipped and as uniform as the frame's smoothest are
 * candidates; a smooth falloff (level^-1/2 as a0 + a1 x + a2 y + a3 r^2 +
 * a4 r^4) is fitted through the brightest and refitted through those within
 * the white's spread below it, until the set settles.
 *
 * Return: 0; -EINVAL for a frame that is not Bayer or too small, or one
 * with too few white areas (fewer than 24 blocks, or none beyond half the
 * half-diagonal); -ENOMEM.
 */
CISP_API int cisp_calib_flat_from_chart(const struct cisp_image *raw, double black, double white, const char *illuminant,
					struct cisp_calib_chart_flat *out);

/** Most grey steps one frame reports. */
#define CISP_CALIB_MAX_STEPS 64

/**
 * struct cisp_calib_step - one uniform region (a grey step) of a frame.
 * @x: its centre, frame pixels.
 * @y: its centre, frame pixels.
 * @blocks: the blocks it spans.
 * @level: its mean per channel R, Gr, Gb, B, codes (black not taken off).
 * @clipped: some of its samples reach the channel's clip point.
 * @neutral: its colour agrees with the other steps' (used for the black
 *           offset and the channels' consistency).
 */
struct cisp_calib_step {
	double x, y;
	unsigned blocks;
	double level[4];
	bool clipped;
	bool neutral;
};

/**
 * struct cisp_calib_tone - the tone response read from grey steps.
 * @count: the steps found, brightest first.
 * @step: them.
 * @black_found: whether @black could be told (at least 3 neutral steps,
 *               and a channel whose gain differs from green's by 10 %).
 * @black: the black offset estimated from the neutral steps, codes: where
 *         the red and blue responses, each a straight line in green, meet
 *         green (a neutral step's channels are k (L - black) + black). A
 *         negative one says the channels are not linear with one offset.
 * @black_spread: half the difference of the red and blue estimates, codes.
 * @channel_ratio: the slope of red and blue against green (R, B).
 * @linearity_pct: the neutral steps' largest departure from those lines,
 *                 percent of their level above black (a sensor whose
 *                 channels respond alike through one curve departs by 0).
 * @clip: per channel, the level where its samples pile up (codes); when
 *        they do not, the top of the highest bin (0.5 % of the white level
 *        wide) that holds 0.1 % of them.
 * @clip_fraction: the share of the channel's samples at @clip or above.
 * @clip_found: whether the samples pile up at @clip.
 */
struct cisp_calib_tone {
	unsigned count;
	struct cisp_calib_step step[CISP_CALIB_MAX_STEPS];
	bool black_found;
	double black;
	double black_spread;
	double channel_ratio[2];
	double linearity_pct;
	double clip[4];
	double clip_fraction[4];
	bool clip_found[4];
};

/**
 * cisp_calib_tone_from_steps() - the grey steps of a frame and what they say.
 * @raw: the Bayer mosaic.
 * @white: its white level (codes; the clip point is found below it).
 * @out: the result.
 *
 * Uniform blocks are merged with neighbours of the same level into regions;
 * regions of at least 3 blocks and under a tenth of the frame are steps.
 *
 * Return: 0; -EINVAL for a frame that is not Bayer, too small, or with
 * fewer than 3 steps; -ENOMEM.
 */
CISP_API int cisp_calib_tone_from_steps(const struct cisp_image *raw, double white, struct cisp_calib_tone *out);

/**
 * struct cisp_calib_tone_curve - steps of known relative luminance against a straight line.
 * @steps: the unclipped steps fitted.
 * @gain: the green level per unit luminance, codes.
 * @offset: the green level at zero luminance (the black offset), codes.
 * @linearity_pct: the steps' largest departure from the line, percent of
 *                 the line's level above @offset (steps above 2 % of the
 *                 range).
 */
struct cisp_calib_tone_curve {
	unsigned steps;
	double gain, offset, linearity_pct;
};

/**
 * cisp_calib_tone_curve() - the response curve of steps of known luminance.
 * @tone: steps from cisp_calib_tone_from_steps().
 * @luminance: per step of @tone, its relative luminance (negative: unknown).
 * @out: the fit.
 *
 * Return: 0; -EINVAL with fewer than 3 unclipped steps of known luminance.
 */
CISP_API int cisp_calib_tone_curve(const struct cisp_calib_tone *tone, const double *luminance,
				   struct cisp_calib_tone_curve *out);

/**
 * cisp_calib_add_chart_flat() - take a session's lens shading from a chart frame.
 * @c: the session.
 * @cap: the chart frame (its kind is ignored; @cap->illuminant names the
 *       light or is NULL); the black level is the darks' when there are
 *       any, else the stated one, else 0.
 *
 * The frame must match the session's other captures; its table
 * (cisp_calib_flat_from_chart()) serves when the flats give none.
 * Return: 0, -EINVAL (a frame of another shape, too few white areas) or -ENOMEM.
 */
CISP_API int cisp_calib_add_chart_flat(struct cisp_calib *c, const struct cisp_calib_capture *cap);

/**
 * cisp_calib_add_steps() - read a frame's grey steps into a session's report.
 * @c: the session.
 * @cap: the frame (its kind and light are ignored).
 *
 * The tone response (cisp_calib_tone_from_steps()) goes into the report;
 * the tuning has no key for it. Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_calib_add_steps(struct cisp_calib *c, const struct cisp_calib_capture *cap);

/**
 * cisp_calib_chart_frames() - what a session's chart frames said.
 * @c: the session.
 * @flat: receives the last flat from a chart, or NULL when none was added.
 * @tone: receives the last grey steps read, or NULL when none were added.
 */
CISP_API void cisp_calib_chart_frames(const struct cisp_calib *c, const struct cisp_calib_chart_flat **flat,
				      const struct cisp_calib_tone **tone);

#ifdef __cplusplus
}
#endif

#endif
