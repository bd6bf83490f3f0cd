/* SPDX-License-Identifier: MIT */
/*
 * Colour and white balance for the control loop: the AWB algorithm (awb.c)
 * and the ISP parameters that follow the colour temperature and the gain
 * (colour.c: CCM and LSC interpolated by colour temperature, the noise
 * profile, denoise and sharpening strengths interpolated by gain).
 */
#ifndef CISP_CONTROL_COLOUR_H
#define CISP_CONTROL_COLOUR_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/control.h>
#include <cisp/params_state.h>
#include <cisp/stats.h>

#include "tuning.h"

struct awb;

/* What AWB decided for one frame. */
struct awb_result {
	double gains[3];           /* R, G, B white-balance gains, G = 1 */
	double colour_temperature; /* kelvin */
	enum cisp_awb_state state;
};

int awb_create(struct awb **awb, const struct cisp_tuning *t);
void awb_destroy(struct awb *awb);
/* Forget history (stream start). */
void awb_reset(struct awb *awb);
/* Manual modes: from cisp_control_request fields (awb_enable, colour_temperature, colour_gains). */
void awb_set_manual(struct awb *awb, bool enable_auto, bool use_gains, double ct, const double gains[2]);
/* The current decision without new statistics (for stream start). */
void awb_current(const struct awb *awb, struct awb_result *out);
/* One frame's zones (before WB gains, shading removed) -> gains for the next frame. */
void awb_process(struct awb *awb, const struct cisp_stats *stats, struct awb_result *out);

/*
 * Fill the colour-dependent blocks of @ps: WB gains, CCM and LSC for
 * @awb (interpolated by colour temperature, in mired), the noise profile for
 * @total_gain (analogue x digital), BNR, CNR and sharpening strengths for
 * @total_gain, BLC from the tuning or @mode, tone curve from tuning.gamma.
 * Returns the mask (1u << CISP_BLOCK_*) of blocks whose values changed.
 */
uint32_t colour_params(const struct cisp_tuning *t, const struct cisp_sensor_mode *mode, const struct awb_result *awb,
		       double total_gain, double isp_digital_gain, struct cisp_param_state *ps);

#endif /* CISP_CONTROL_COLOUR_H */
