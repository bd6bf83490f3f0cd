/* SPDX-License-Identifier: MIT */
/*
 * cispisp with a tuning file (docs/gstreamer.md): the camera layer's 3A loop
 * (include/cisp/control.h) runs on the ISP's statistics as for a sensor
 * without controls. The stream's exposure is what it is; the loop has the
 * ISP's digital gain for brightness, AWB on the tuning's colour-temperature
 * curve, and the tuning's black level, colour matrices, lens shading, noise
 * profile, denoise, sharpening and tone curve for the parameters.
 */
#ifndef CISP_GST_ISP_TUNING_H
#define CISP_GST_ISP_TUNING_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/params_state.h>
#include <cisp/stats.h>

struct isp_tuning;

/* What the element's properties ask of the loop. */
struct isp_tuning_request {
	bool awb;           /* false: @red and @blue gains */
	double red, blue;   /* manual white balance, gains against green */
	bool ae;            /* false: @gain */
	double ev;          /* exposure compensation, stops */
	double gain;        /* manual digital gain */
};

/*
 * Load tuning file @path and start the loop for a @width x @height stream of
 * Bayer @format at @fps frames per second (0: 30). Returns 0 or a negative
 * errno with cisp_last_error() saying why.
 */
int isp_tuning_create(struct isp_tuning **t, const char *path, uint32_t format, unsigned width, unsigned height,
		      double fps);
void isp_tuning_destroy(struct isp_tuning *t);

/* Pass the properties' settings to the loop. */
int isp_tuning_request(struct isp_tuning *t, const struct isp_tuning_request *req);

/* The parameters for the next frame. */
const struct cisp_param_state *isp_tuning_params(const struct isp_tuning *t);

/* Give the loop a processed frame's statistics; isp_tuning_params() then holds the next frame's. */
int isp_tuning_frame(struct isp_tuning *t, const struct cisp_stats *stats);

#endif
