/* SPDX-License-Identifier: MIT */
/* cispisp's 3A loop: isp_loop.h. */
#include "isp_loop.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/control.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

/* Lines of vertical blanking the made-up mode gives a frame. */
#define BLANK_LINES 16

struct isp_loop {
	struct cisp_tuning *tuning; /* NULL: grey world */
	struct cisp_control *loop;
	struct cisp_sensor_mode mode;
	struct cisp_control_result res;
	uint64_t sequence;          /* frames given to the loop since it started */
	bool primed;
	bool estimating;            /* the latest request has automatic white balance or exposure */
};

int isp_loop_create(struct isp_loop **out, const char *path, uint32_t format, unsigned width, unsigned height,
		    double fps)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	struct cisp_control_config lc = { 0 };
	struct isp_loop *l;
	int ret;

	*out = NULL;
	if (!f || f->kind != CISP_KIND_BAYER)
		return -EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	if (path && (ret = cisp_tuning_open(&l->tuning, path))) {
		free(l);
		return ret;
	}
	/*
	 * The stream as a sensor mode: its size, depth and CFA, its frame rate as
	 * the timing, no black level of its own (the tuning's applies) and no
	 * controls, so that the exposure is fixed and the loop's gain is the ISP's.
	 */
	snprintf(l->mode.name, sizeof(l->mode.name), "stream");
	l->mode.width = width;
	l->mode.height = height;
	l->mode.format = format;
	l->mode.cfa = f->cfa;
	l->mode.bits = f->bits;
	l->mode.crop_width = width;
	l->mode.crop_height = height;
	l->mode.binning = 1;
	/* Lens shading measured on a larger array: the stream is taken to be all of it, binned. */
	if (l->tuning) {
		uint32_t aw, ah;

		cisp_tuning_lsc_array(l->tuning, &aw, &ah);
		if (aw && ah && aw % width == 0 && ah % height == 0 && aw / width == ah / height) {
			l->mode.crop_width = aw;
			l->mode.crop_height = ah;
			l->mode.binning = aw / width;
		}
	}
	l->mode.line_length = width;
	l->mode.frame_length_min = l->mode.frame_length_max = l->mode.frame_length_default = height + BLANK_LINES;
	l->mode.pixel_rate = (uint64_t)llround((double)width * (height + BLANK_LINES) * (fps > 0 ? fps : 30.0));
	l->mode.white_level = (1u << f->bits) - 1;
	lc.tuning = l->tuning;
	lc.mode = l->mode;
	lc.algorithms = l->tuning ? CISP_CONTROL_CAMERA : CISP_CONTROL_GREY_WORLD;
	ret = cisp_control_create(&l->loop, &lc);
	if (!ret)
		ret = cisp_control_start(l->loop, &l->res);
	if (ret) {
		isp_loop_destroy(l);
		return ret;
	}
	*out = l;
	return 0;
}

void isp_loop_destroy(struct isp_loop *l)
{
	if (!l)
		return;
	cisp_control_destroy(l->loop);
	cisp_tuning_free(l->tuning);
	free(l);
}

bool isp_loop_has_tuning(const struct isp_loop *l)
{
	return l->tuning != NULL;
}

int isp_loop_request(struct isp_loop *l, const struct isp_loop_request *r)
{
	struct cisp_control_request req = { 0 };
	int ret;

	req.mask = CISP_REQ_AE_ENABLE | CISP_REQ_EV | CISP_REQ_AWB_ENABLE;
	req.ae_enable = r->ae;
	req.ev = r->ev;
	req.awb_enable = r->awb;
	if (!r->ae) {
		req.mask |= CISP_REQ_DIGITAL_GAIN;
		req.digital_gain = r->gain;
	}
	if (!r->awb) {
		req.mask |= CISP_REQ_COLOUR_GAINS;
		req.colour_gains[0] = r->red;
		req.colour_gains[1] = r->blue;
	}
	if (!l->tuning) {
		req.mask |= CISP_REQ_MAX_DIGITAL_GAIN;
		req.max_digital_gain = r->max_gain;
	}
	ret = cisp_control_request(l->loop, &req);
	if (!ret)
		l->estimating = r->awb || r->ae;
	return ret;
}

const struct cisp_param_state *isp_loop_params(const struct isp_loop *l)
{
	return l->res.params;
}

int isp_loop_frame(struct isp_loop *l, const struct cisp_stats *stats)
{
	const double line_ns = cisp_sensor_line_ns(&l->mode);
	struct cisp_sensor_metadata md = { 0 };
	int ret;

	md.sequence = l->sequence++;
	md.frame_duration_ns = (uint64_t)llround(line_ns * l->mode.frame_length_default);
	md.timestamp_ns = md.sequence * md.frame_duration_ns;
	md.exposure_ns = (uint64_t)llround(line_ns * l->mode.frame_length_default);
	md.format = l->mode.format;
	ret = cisp_control_process(l->loop, stats, &md, &l->res);
	if (!ret && l->estimating)
		l->primed = true;
	return ret;
}

bool isp_loop_primed(const struct isp_loop *l)
{
	return l->primed;
}
