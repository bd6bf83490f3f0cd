/* SPDX-License-Identifier: MIT */
/*
 * The 3A part of the lab: the whole virtual camera (sensor, tuning file,
 * control loop, ISP device) photographs the ColorChecker frame after frame;
 * each frame's AE error, white-balance error of the developed neutral
 * patches and lens position are recorded, and the last frame's colour is
 * measured against the published chart, exposure normalised on the neutral
 * patches that did not clip in the raw frame (lab.c, "Metering").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/iq_color.h>
#include <cisp/iq_lab.h>
#include <cisp/tuning.h>

#include "core/error_internal.h"
#include "core/number.h"
#include "lab_internal.h"

#define REQUESTS 3

struct run {
	struct cisp_camera_manager *mgr;
	struct cisp_camera *cam;
	struct cisp_camera_request req[REQUESTS];
	struct cisp_image out[REQUESTS];
	struct cisp_image raw[REQUESTS];
	struct cisp_sensor_mode mode;
	struct cisp_tuning *tuning;
	struct cisp_iq_rect patch[24];
	int32_t lens_min, lens_max, focus;
};

/* Mean linear sRGB of the 24 patches of a developed frame (central half of each). */
static int measure(const struct run *r, const struct cisp_image *frame, double rgb[24][3], struct cisp_iq_image *keep)
{
	struct cisp_iq_image img;
	int ret = cisp_iq_image_from_cisp(&img, frame, CISP_TRANSFER_SRGB);

	for (int i = 0; !ret && i < 24; i++) {
		struct cisp_iq_patch_stats st;

		ret = cisp_iq_patch_stats(&img, &r->patch[i], false, &st);
		for (int c = 0; c < 3; c++)
			rgb[i][c] = st.mean[c];
	}
	if (!ret && keep)
		*keep = img;
	else
		cisp_iq_image_free(&img);
	return ret;
}

/*
 * The last frame's colour against the published chart: exposure normalised
 * on the neutral patches that did not clip in its raw frame (with every one
 * clipped, refused), white balance not.
 */
static int evaluate(const struct run *r, const struct cisp_camera_request *req, double rgb[24][3],
		    struct cisp_iq_color_result *out)
{
	const struct cisp_iq_colorchecker_patch *chart = cisp_iq_colorchecker();
	double ref[24][3], level[24][3], scale;
	bool clipped[24], use[24];
	int ret = lab_patch_levels(req->buffer[CISP_STREAM_RAW], &r->mode,
				   lab_clip_level(cisp_camera_sensor(r->cam), &r->mode, req->metadata.sensor.controls,
						  r->tuning),
				   NULL, r->patch, 24, level, clipped);

	if (ret)
		return ret;
	for (int i = 0; i < 24; i++) {
		cisp_iq_lab_to_xyz(chart[i].lab_d50, cisp_iq_white_d50, ref[i]);
		use[i] = i >= 18 && !clipped[i];
	}
	scale = lab_exposure_scale((const double(*)[3])rgb, (const double(*)[3])ref, cisp_iq_white_d50, use, 24);
	if (!(scale > 0))
		return cisp_error(-ERANGE, "3A lab: every neutral patch of the chart is clipped or black");
	for (int i = 0; i < 24; i++)
		for (int c = 0; c < 3; c++)
			rgb[i][c] *= scale;
	ret = cisp_iq_colorchecker_evaluate((const double(*)[3])rgb, NULL, out);
	out->exposure_scale = scale;
	return ret;
}

/* Angle between the mean of the neutral patches white..neutral 3.5 and grey, degrees. */
static double neutral_angle(const double rgb[24][3])
{
	double m[3] = { 0, 0, 0 }, dot, norm;

	for (int i = 18; i < 23; i++)
		for (int c = 0; c < 3; c++)
			m[c] += rgb[i][c];
	dot = (m[0] + m[1] + m[2]) / sqrt(3.0);
	norm = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
	return norm > 0 ? acos(fmin(1.0, dot / norm)) * (180.0 / 3.14159265358979323846) : 90.0;
}

/* The sensor's patches, the sampling boxes (central half), the lens range and the true focus. */
static int chart_geometry(struct run *r)
{
	struct cisp_sensor *s = cisp_camera_sensor(r->cam);
	struct cisp_sensor_control_info lens;
	struct cisp_vsensor_truth truth;
	int ret = cisp_vsensor_truth(s, &truth);

	if (!ret)
		ret = cisp_sensor_control_info(s, CISP_SENSOR_LENS_POSITION, &lens);
	for (unsigned i = 0; !ret && i < 24; i++) {
		struct cisp_vsensor_patch p;

		ret = cisp_vsensor_chart_patch(s, i, &p);
		r->patch[i] = (struct cisp_iq_rect){ p.x + p.width / 4, p.y + p.height / 4, p.width / 2, p.height / 2 };
	}
	if (ret)
		return ret;
	r->lens_min = lens.min;
	r->lens_max = lens.max;
	r->focus = truth.focus_position;
	return 0;
}

/* Frame 0: a wrong white balance and the lens at its near end; frame 1 hands everything to the loop. */
static void frame_controls(const struct run *r, unsigned n, struct cisp_control_request *c)
{
	memset(c, 0, sizeof(*c));
	if (n == 0) {
		c->mask = CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_TEMPERATURE | CISP_REQ_AF_MODE | CISP_REQ_LENS_POSITION;
		c->awb_enable = false;
		c->colour_temperature = 2800;
		c->af_mode = CISP_AF_MANUAL;
		c->lens_position = r->lens_max;
	} else if (n == 1) {
		c->mask = CISP_REQ_AWB_ENABLE | CISP_REQ_AF_MODE;
		c->awb_enable = true;
		c->af_mode = CISP_AF_CONTINUOUS;
	}
}

static int open_camera(struct run *r, const struct cisp_iq_lab *lab, const char *illuminant)
{
	char name[160], opts[200];
	struct cisp_camera_options co = { 0 };
	struct cisp_camera_config cfg;
	struct cisp_stream_config *main_stream = &cfg.stream[CISP_STREAM_MAIN];
	int ret;

	snprintf(name, sizeof(name), "virtual:%s", lab->sensor);
	/* The sensor parses lux in the "C" locale: write it so. */
	locale_t previous = cisp_c_numeric_begin();
	snprintf(opts, sizeof(opts), "scene=colorchart,illuminant=%s,lux=%g,seed=%u", illuminant,
		 lab->lux > 0 ? lab->lux : 400, lab->seed ? lab->seed : 1);
	cisp_c_numeric_end(previous);
	co.sensor_options = opts;
	co.tuning = lab->tuning;
	ret = cisp_camera_manager_create(&r->mgr, NULL);
	if (!ret)
		ret = cisp_camera_open(&r->cam, r->mgr, name, &co);
	if (!ret)
		ret = cisp_camera_default_config(r->cam, lab->mode, &cfg);
	if (ret)
		return ret;
	/* 16-bit RGB keeps the measurement out of 8-bit quantisation; the raw frame says what clipped. */
	main_stream->format = CISP_FMT_RGB48;
	ret = cisp_sensor_get_mode(cisp_camera_sensor(r->cam), lab->mode, &r->mode);
	/* The tuning's clip level; a camera without a tuning runs on defaults, clipping where the sensor does. */
	if (!ret && lab->tuning)
		ret = cisp_tuning_load(&r->tuning, lab->tuning);
	else if (!ret && cisp_tuning_find(&r->tuning, cisp_sensor_info(cisp_camera_sensor(r->cam))->model, NULL))
		r->tuning = NULL;
	cfg.stream[CISP_STREAM_RAW].format = r->mode.format;
	if (!ret)
		ret = cisp_camera_configure(r->cam, &cfg);
	for (int i = 0; !ret && i < REQUESTS; i++) {
		ret = cisp_image_alloc(&r->out[i], CISP_FMT_RGB48, main_stream->width, main_stream->height);
		if (!ret)
			ret = cisp_image_alloc(&r->raw[i], r->mode.format, r->mode.width, r->mode.height);
		r->req[i].buffer[CISP_STREAM_MAIN] = &r->out[i];
		r->req[i].buffer[CISP_STREAM_RAW] = &r->raw[i];
	}
	return ret ? ret : chart_geometry(r);
}

static void close_camera(struct run *r)
{
	cisp_camera_close(r->cam);
	cisp_camera_manager_destroy(r->mgr);
	cisp_tuning_free(r->tuning);
	for (int i = 0; i < REQUESTS; i++) {
		cisp_image_free(&r->out[i]);
		cisp_image_free(&r->raw[i]);
	}
}

int cisp_iq_lab_3a(const struct cisp_iq_lab *lab, const char *illuminant, unsigned frames, bool keep_picture,
		   struct cisp_iq_lab_3a *out)
{
	struct run *r;
	double *ae, *awb, *af, rgb[24][3];
	unsigned queued = 0, done = 0;
	int ret;

	if (frames < 8 || frames > CISP_IQ_MAX_FRAMES)
		return cisp_error(-EINVAL, "3A lab: %u frames (8..%d)", frames, CISP_IQ_MAX_FRAMES);
	memset(out, 0, sizeof(*out));
	snprintf(out->illuminant, sizeof(out->illuminant), "%s", illuminant);
	r = calloc(1, sizeof(*r));
	ae = calloc(3 * (size_t)frames, sizeof(double));
	if (!r || !ae) {
		free(r);
		free(ae);
		return cisp_error(-ENOMEM, "out of memory for the 3A lab");
	}
	awb = ae + frames;
	af = awb + frames;
	ret = open_camera(r, lab, illuminant);
	for (; !ret && queued < REQUESTS; queued++) {
		frame_controls(r, queued, &r->req[queued].controls);
		ret = cisp_camera_queue(r->cam, &r->req[queued]);
	}
	if (!ret)
		ret = cisp_camera_start(r->cam);
	while (!ret && done < frames) {
		struct cisp_camera_request *req;

		ret = cisp_camera_wait(r->cam, &req, 30ll * 1000 * 1000 * 1000);
		if (!ret && req->status)
			ret = cisp_error(req->status, "3A lab: frame %u: %s", done, req->message);
		if (!ret)
			ret = measure(r, req->buffer[CISP_STREAM_MAIN], rgb,
				      done + 1 == frames && keep_picture ? &out->picture : NULL);
		if (ret)
			break;
		ae[done] = req->metadata.control.ae_error;
		awb[done] = neutral_angle(rgb);
		af[done] = req->metadata.lens_position;
		if (++done == frames)
			ret = evaluate(r, req, rgb, &out->color);
		else if (queued < frames) {
			frame_controls(r, queued++, &req->controls);
			ret = cisp_camera_queue(r->cam, req);
		}
	}
	if (r->cam)
		cisp_camera_stop(r->cam);
	if (!ret)
		ret = cisp_iq_convergence(ae, frames, 1.0, 0.05, &out->ae);
	if (!ret)
		ret = cisp_iq_convergence(awb, frames, 0.0, 2.0, &out->awb);
	if (!ret)
		ret = cisp_iq_convergence(af, frames, r->focus, 0.02 * (r->lens_max - r->lens_min), &out->af);
	close_camera(r);
	free(r);
	free(ae);
	if (ret)
		cisp_iq_image_free(&out->picture);
	return ret;
}
