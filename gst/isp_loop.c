/* SPDX-License-Identifier: MIT */
/* cispisp's 3A from a tuning file: isp_tuning.h. */
#include "isp_tuning.h"

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

struct isp_tuning {
	struct cisp_tuning *tuning;
	struct cisp_control *loop;
	struct cisp_sensor_mode mode;
	struct cisp_control_result res;
	uint64_t sequence;
};

int isp_tuning_create(struct isp_tuning **out, const char *path, uint32_t format, unsigned width, unsigned height,
		      double fps)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	struct cisp_control_config lc = { 0 };
	struct isp_tuning *t;
	int ret;

	*out = NULL;
	if (!f || f->kind != CISP_KIND_BAYER)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	ret = cisp_tuning_load(&t->tuning, path);
	if (ret) {
		free(t);
		return ret;
	}
	/*
	 * The stream as a sensor mode: its size, depth and CFA, its frame rate as
	 * the timing, no black level of its own (the tuning's applies) and no
	 * controls, so that the exposure is fixed and the loop's gain is the ISP's.
	 */
	snprintf(t->mode.name, sizeof(t->mode.name), "stream");
	t->mode.width = width;
	t->mode.height = height;
	t->mode.format = format;
	t->mode.cfa = f->cfa;
	t->mode.bits = f->bits;
	t->mode.crop_width = width;
	t->mode.crop_height = height;
	t->mode.binning = 1;
	/* Lens shading measured on a larger array: the stream is taken to be all of it, binned. */
	{
		uint32_t aw, ah;

		cisp_tuning_lsc_array(t->tuning, &aw, &ah);
		if (aw && ah && aw % width == 0 && ah % height == 0 && aw / width == ah / height) {
			t->mode.crop_width = aw;
			t->mode.crop_height = ah;
			t->mode.binning = aw / width;
		}
	}
	t->mode.line_length = width;
	t->mode.frame_length_min = t->mode.frame_length_max = t->mode.frame_length_default = height + BLANK_LINES;
	t->mode.pixel_rate = (uint64_t)llround((double)width * (height + BLANK_LINES) * (fps > 0 ? fps : 30.0));
	t->mode.white_level = (1u << f->bits) - 1;
	lc.tuning = t->tuning;
	lc.mode = t->mode;
	ret = cisp_control_create(&t->loop, &lc);
	if (!ret)
		ret = cisp_control_start(t->loop, &t->res);
	if (ret) {
		isp_tuning_destroy(t);
		return ret;
	}
	*out = t;
	return 0;
}

void isp_tuning_destroy(struct isp_tuning *t)
{
	if (!t)
		return;
	cisp_control_destroy(t->loop);
	cisp_tuning_free(t->tuning);
	free(t);
}

int isp_tuning_request(struct isp_tuning *t, const struct isp_tuning_request *r)
{
	struct cisp_control_request req = { 0 };

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
	return cisp_control_request(t->loop, &req);
}

const struct cisp_param_state *isp_tuning_params(const struct isp_tuning *t)
{
	return t->res.params;
}

int isp_tuning_frame(struct isp_tuning *t, const struct cisp_stats *stats)
{
	const double line_ns = cisp_sensor_line_ns(&t->mode);
	struct cisp_sensor_metadata md = { 0 };

	md.sequence = t->sequence++;
	md.frame_duration_ns = (uint64_t)llround(line_ns * t->mode.frame_length_default);
	md.timestamp_ns = md.sequence * md.frame_duration_ns;
	md.exposure_ns = (uint64_t)llround(line_ns * t->mode.frame_length_default);
	md.format = t->mode.format;
	return cisp_control_process(t->loop, stats, &md, &t->res);
}
