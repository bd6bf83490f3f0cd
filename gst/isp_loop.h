/* SPDX-License-Identifier: MIT */
/*
 * cispisp's 3A (docs/gstreamer.md): the camera layer's control loop
 * (include/cisp/control.h) on the ISP's own statistics. With a tuning file
 * it runs the camera algorithms as for a sensor without controls: the
 * stream's exposure is what it is, the loop has the ISP's digital gain for
 * brightness, AWB on the tuning's colour-temperature curve, and the tuning's
 * black level, colour matrices, lens shading, noise profile, denoise,
 * sharpening and tone curve for the parameters. Without one it runs the
 * grey-world configuration, which sets the white-balance gains only.
 */
#ifndef CISP_GST_ISP_LOOP_H
#define CISP_GST_ISP_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/params_state.h>
#include <cisp/stats.h>

struct isp_loop;

/* What the element's properties ask of the loop. */
struct isp_loop_request {
	bool awb;           /* false: @red and @blue gains */
	double red, blue;   /* manual white balance, gains against green */
	bool ae;            /* false: @gain */
	double ev;          /* exposure compensation, stops */
	double gain;        /* manual digital gain */
	double max_gain;    /* the largest digital gain AE applies (grey world only: a tuning has its own) */
};

/*
 * Start the loop for a @width x @height stream of Bayer @format at @fps
 * frames per second (0: 30): the camera algorithms of tuning file @path, or
 * grey world when @path is NULL. Returns 0 or a negative errno with
 * cisp_last_error() saying why.
 */
int isp_loop_create(struct isp_loop **l, const char *path, uint32_t format, unsigned width, unsigned height,
		    double fps);
void isp_loop_destroy(struct isp_loop *l);

/* Whether the loop runs the camera algorithms of a tuning file. */
bool isp_loop_has_tuning(const struct isp_loop *l);

/* Pass the properties' settings to the loop (grey world's manual gains are in isp_loop_params() at once). */
int isp_loop_request(struct isp_loop *l, const struct isp_loop_request *req);

/* The parameters for the next frame. */
const struct cisp_param_state *isp_loop_params(const struct isp_loop *l);

/* Give the loop a processed frame's statistics; isp_loop_params() then holds the next frame's. */
int isp_loop_frame(struct isp_loop *l, const struct cisp_stats *stats);

/*
 * Whether the loop has estimated white balance or exposure from a frame
 * since it started: grey world takes its first estimate whole, so cispisp
 * measures a frame before processing it.
 */
bool isp_loop_primed(const struct isp_loop *l);

#endif
