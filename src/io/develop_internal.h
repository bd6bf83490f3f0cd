/* SPDX-License-Identifier: MIT */
/*
 * The parts of cisp_develop() (develop.h) that compute from the mosaic and
 * the colour matrix: white balance by mode, automatic exposure, tone curves.
 */
#ifndef CISP_IO_DEVELOP_INTERNAL_H
#define CISP_IO_DEVELOP_INTERNAL_H

#include <cisp/develop.h>

/*
 * White-balance gains R, G, B (G = 1) for @opt's awb of DAYLIGHT,
 * TEMPERATURE, GAINS or BOX; @box is BOX's rectangle in the frame's
 * coordinates, @s the parameter state whose levels measure it. 0, or
 * -EINVAL with a message (no positive camera response, a box with no
 * unclipped sample of a colour).
 */
int develop_wb_gains(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt,
		     const struct cisp_develop_area *box, const struct cisp_param_state *s, double gains[3]);

/* Whether @kelvin and @tint lie in the ranges CISP_DEVELOP_AWB_TEMPERATURE takes. */
bool develop_temperature_valid(double kelvin, double tint);

/* The tone curve @tone as the tone block's 257 nodes. */
void develop_tone_curve(enum cisp_develop_tone tone, uint16_t curve[257]);

/*
 * The automatic exposure of @area of @frame under the levels, gains and
 * matrix of @s and the tone curve @tone (docs/raw.md): the gain, 1..16, that
 * puts the median luminance at mid-grey after the curve, lowered so that at
 * most 1% of the cells clip. 0, or -ENOMEM.
 */
int develop_auto_exposure(const struct cisp_raw_frame *frame, const struct cisp_develop_area *area,
			  const struct cisp_param_state *s, enum cisp_develop_tone tone, double *gain);

#endif
