/* SPDX-License-Identifier: MIT */
/*
 * Automatic white balance on the statistics' zones, with the tuning's
 * colour-temperature curve (awb.c; docs/tuning.md, "awb"). The loop runs it
 * as awb_algorithm; the functions below are its core, for tests.
 */
#ifndef CISP_CONTROL_AWB_H
#define CISP_CONTROL_AWB_H

#include <stdbool.h>

#include <cisp/control.h>
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
/*
 * The signed distance of a grey (camera R/G, B/G) from the tuning's curve,
 * in the units of awb.transverse: positive on the green side (fluorescent
 * lights), negative on the magenta side. The temperature of the nearest
 * curve point goes to @ct.
 */
double awb_curve_tint(const struct cisp_tuning *t, const double grey[2], double *ct);
/* One frame's zones (before WB gains, shading removed) -> gains for the next frame. */
void awb_process(struct awb *awb, const struct cisp_stats *stats, struct awb_result *out);

#endif /* CISP_CONTROL_AWB_H */
