/* SPDX-License-Identifier: MIT */
/* Checking a camera configuration and a request's buffers against it. */
#include <errno.h>
#include <stdio.h>

#include <cisp/format.h>

#include "camera_internal.h"
#include "core/error_internal.h"

static bool processed_format(uint32_t f)
{
	return f == CISP_FMT_NV12 || f == CISP_FMT_I420 || f == CISP_FMT_RGB888 || f == CISP_FMT_RGB48 ||
	       f == CISP_FMT_XBGR32;
}

/* The raw formats the sensor can capture in for @mode. */
static bool raw_format_ok(const struct cisp_sensor_mode *mode, uint32_t f)
{
	return f == mode->format || (f && f == cisp_bayer_format(mode->cfa, mode->bits, true)) ||
	       f == cisp_bayer_format(mode->cfa, 16, false);
}

static int check_processed(const char *name, const struct cisp_stream_config *s, const struct cisp_sensor_mode *mode)
{
	bool yuv = s->format == CISP_FMT_NV12 || s->format == CISP_FMT_I420;

	if (!processed_format(s->format))
		return cisp_error(-EINVAL, "%s stream: format %s is not NV12, I420, RGB888, RGB48 or XBGR32", name,
				  cisp_format_name(s->format));
	if (s->width < 16 || s->height < 16 || s->width > CISP_MAX_DIMENSION || s->height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "%s stream: size %ux%u is outside 16x16..%ux%u", name, s->width, s->height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (yuv && (s->width % 2 || s->height % 2))
		return cisp_error(-EINVAL, "%s stream: %s needs an even size, not %ux%u", name,
				  cisp_format_name(s->format), s->width, s->height);
	if (!s->crop_width && !s->crop_height) {
		if (s->crop_x || s->crop_y)
			return cisp_error(-EINVAL, "%s stream: a crop offset without a crop size", name);
		return 0;
	}
	if (s->crop_width < 2 || s->crop_height < 2 || s->crop_x % 2 || s->crop_y % 2 || s->crop_width % 2 ||
	    s->crop_height % 2)
		return cisp_error(-EINVAL, "%s stream: crop %ux%u at (%u, %u) must have an even offset and size of at least 2x2",
				  name, s->crop_width, s->crop_height, s->crop_x, s->crop_y);
	if ((uint64_t)s->crop_x + s->crop_width > mode->width || (uint64_t)s->crop_y + s->crop_height > mode->height)
		return cisp_error(-EINVAL, "%s stream: crop %ux%u at (%u, %u) is outside the %ux%u frame of mode '%s'",
				  name, s->crop_width, s->crop_height, s->crop_x, s->crop_y, mode->width, mode->height,
				  mode->name);
	return 0;
}

void camera_isp_config(const struct cisp_camera_config *config, const struct cisp_sensor_mode *mode,
		       struct cisp_isp_config *isp)
{
	const uint32_t raw = config->stream[CISP_STREAM_RAW].format;

	*isp = (struct cisp_isp_config){ raw ? raw : mode->format, mode->width, mode->height, { { 0 } }, NULL };
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++) {
		const struct cisp_stream_config *s = &config->stream[o];

		isp->output[o] = (struct cisp_output_config){ s->format, s->width, s->height };
	}
}

int camera_config_check(struct cisp_camera *cam, const struct cisp_camera_config *config, struct cisp_sensor_mode *mode)
{
	const struct cisp_stream_config *main = &config->stream[CISP_STREAM_MAIN];
	const struct cisp_stream_config *preview = &config->stream[CISP_STREAM_PREVIEW];
	const struct cisp_stream_config *raw = &config->stream[CISP_STREAM_RAW];
	struct cisp_isp_config isp;
	int r;

	if (cisp_sensor_get_mode(cam->sensor, config->mode, mode))
		return cisp_error(-ERANGE, "camera %s has no mode %u (it has %u)", cam->name, config->mode,
				  cisp_sensor_info(cam->sensor)->num_modes);
	if (!main->format)
		return cisp_error(-EINVAL, "the main stream is required (its format is 0)");
	r = check_processed("main", main, mode);
	if (r)
		return r;
	if (preview->format) {
		r = check_processed("preview", preview, mode);
		if (r)
			return r;
		if (preview->width > main->width || preview->height > main->height)
			return cisp_error(-EINVAL, "preview stream: %ux%u is larger than the main stream's %ux%u",
					  preview->width, preview->height, main->width, main->height);
	} else if (preview->width || preview->height || preview->crop_width) {
		return cisp_error(-EINVAL, "preview stream: a size without a format");
	}
	if (raw->format) {
		if (!raw_format_ok(mode, raw->format))
			return cisp_error(-EINVAL, "raw stream: format %s is not mode '%s''s %s, its packed form or %s",
					  cisp_format_name(raw->format), mode->name, cisp_format_name(mode->format),
					  cisp_format_name(cisp_bayer_format(mode->cfa, 16, false)));
		if ((raw->width || raw->height) && (raw->width != mode->width || raw->height != mode->height))
			return cisp_error(-EINVAL, "raw stream: size %ux%u is not mode '%s''s %ux%u", raw->width,
					  raw->height, mode->name, mode->width, mode->height);
		if (raw->crop_x || raw->crop_y || raw->crop_width || raw->crop_height)
			return cisp_error(-EINVAL, "raw stream: the raw frame cannot be cropped");
	} else if (raw->width || raw->height) {
		return cisp_error(-EINVAL, "raw stream: a size without a format");
	}
	/* What only the ISP knows (a packed format's width multiple, say): refused here, before anything changes. */
	camera_isp_config(config, mode, &isp);
	r = cisp_isp_check_config(&isp);
	if (r)
		return cisp_error_prefix(r, "camera %s: mode '%s'", cam->name, mode->name);
	return camera_eis_check(cam, config, mode);
}

int camera_request_check(const struct cisp_camera *cam, const struct cisp_camera_request *req)
{
	unsigned wanted = 0;

	for (unsigned s = 0; s < CISP_STREAM_COUNT; s++) {
		const struct cisp_stream_config *sc = &cam->config.stream[s];
		const struct cisp_image *img = req->buffer[s];
		uint32_t w = s == CISP_STREAM_RAW ? cam->mode.width : sc->width;
		uint32_t h = s == CISP_STREAM_RAW ? cam->mode.height : sc->height;
		char what[32];
		int r;

		if (!img)
			continue;
		if (!sc->format)
			return cisp_error(-EINVAL, "request has a %s buffer but the %s stream is off",
					  cisp_camera_stream_name(s), cisp_camera_stream_name(s));
		snprintf(what, sizeof(what), "request's %s buffer", cisp_camera_stream_name(s));
		r = cisp_image_check(img, what);
		if (r)
			return r;
		if (img->format != sc->format || img->width != w || img->height != h)
			return cisp_error(-EINVAL, "request's %s buffer is %ux%u %s but the stream is %ux%u %s",
					  cisp_camera_stream_name(s), img->width, img->height,
					  cisp_format_name(img->format), w, h, cisp_format_name(sc->format));
		wanted++;
	}
	if (!wanted)
		return cisp_error(-EINVAL, "request has no buffer");
	return camera_burst_check(cam, req);
}
