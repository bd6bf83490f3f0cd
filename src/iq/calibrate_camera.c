/* SPDX-License-Identifier: MIT */
/*
 * A lightbox session on a virtual sensor: what a tuning engineer photographs
 * to calibrate a camera, taken with the sensor's own controls and the
 * virtual scene's light. The series (docs/calibrate.md):
 *  - darks (no light): a pair at each of four analogue gains (1, 2, 4, 8,
 *    up to the sensor's limit) at 10 ms, and a pair at gain 1 at 40 ms;
 *  - flats (the "flat" scene, under the first light): at each of those
 *    gains a pair at each of nine levels, from 1 % of the range to 15 %
 *    beyond the point where it clips (the light is changed, the exposure
 *    kept: a lightbox's dimmer);
 *  - eight flats at half the range under each light (shading by colour
 *    temperature, photo-response, dead pixels);
 *  - a ColorChecker under each light, its white patch at about 75 %;
 *  - the slanted-edge chart under the first light.
 * The lens is focused on each scene as a tuning engineer would (the truth's
 * focus position), and noise, shading and defects are on.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/sensor.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"
#include "core/number.h"

#define EXPOSURE_S 0.010
#define DARK_LONG_S 0.040
#define MAX_LIGHTS 8
#define SHADING_FLATS 8

static const double flat_levels[] = { 0.01, 0.03, 0.08, 0.2, 0.4, 0.6, 0.8, 0.95, 1.15 };

struct session {
	struct cisp_calib *c;
	const struct cisp_calib_camera *cam;
	struct cisp_sensor *s;
	struct cisp_sensor_mode mode;
	struct cisp_sensor_control_info exposure, again;
	struct cisp_image raw;
	unsigned count;
};

static int open_sensor(const struct cisp_calib_camera *cam, struct cisp_sensor **s, struct cisp_sensor_mode *mode)
{
	char name[300], opts[400];
	int ret;

	snprintf(name, sizeof(name), "virtual:%s", cam->sensor);
	snprintf(opts, sizeof(opts), "seed=%u%s%s", cam->seed ? cam->seed : 1, cam->options ? "," : "",
		 cam->options ? cam->options : "");
	ret = cisp_sensor_open(s, name, opts);
	if (!ret)
		ret = cisp_sensor_set_mode(*s, cam->mode);
	if (!ret)
		ret = cisp_sensor_get_mode(*s, cam->mode, mode);
	if (ret) {
		cisp_sensor_close(*s);
		*s = NULL;
	}
	return ret;
}

int cisp_calib_virtual_setup(const struct cisp_calib_camera *cam, struct cisp_calib_setup *setup, char *model,
			     size_t size)
{
	struct cisp_sensor *s;
	struct cisp_sensor_mode mode;
	struct cisp_sensor_info info;
	struct cisp_sensor_control_info again, dgain, lens;
	int ret = open_sensor(cam, &s, &mode);

	if (ret)
		return ret;
	info = *cisp_sensor_info(s);
	ret = cisp_sensor_control_info(s, CISP_SENSOR_ANALOGUE_GAIN, &again);
	if (!ret)
		ret = cisp_sensor_control_info(s, CISP_SENSOR_DIGITAL_GAIN, &dgain);
	if (!ret)
		ret = cisp_sensor_control_info(s, CISP_SENSOR_LENS_POSITION, &lens);
	cisp_sensor_close(s);
	if (ret)
		return ret;
	if (mode.crop_x || mode.crop_y || mode.crop_width != info.array_width || mode.crop_height != info.array_height)
		return cisp_error(-EINVAL,
				  "sensor %s mode %u (%s) reads a %ux%u window of the %ux%u pixel array: calibrate in a "
				  "mode that reads all of it, so the shading tables span it",
				  cam->sensor, cam->mode, mode.name, mode.crop_width, mode.crop_height, info.array_width,
				  info.array_height);
	snprintf(model, size, "%s", info.model);
	memset(setup, 0, sizeof(*setup));
	setup->sensor = model;
	setup->bits = mode.bits;
	setup->array_width = info.array_width;
	setup->array_height = info.array_height;
	setup->max_analogue_gain = again.supported ? again.max / 256.0 : 0;
	setup->max_digital_gain = dgain.supported ? dgain.max / 256.0 : 0;
	if (lens.supported) {
		setup->lens_min = lens.min;
		setup->lens_max = lens.max;
	}
	return 0;
}

static int option(struct session *ss, const char *key, const char *fmt, double v)
{
	char text[64];
	locale_t previous = cisp_c_numeric_begin();

	snprintf(text, sizeof(text), fmt, v);
	cisp_c_numeric_end(previous);
	return cisp_sensor_set_option(ss->s, key, text);
}

/* Capture @frames frames with exposure @seconds and analogue gain @gain (the controls set while stopped). */
static int shoot(struct session *ss, double seconds, double gain, unsigned frames,
		 int (*each)(struct session *ss, double exposure_s, double gain, void *ctx), void *ctx)
{
	struct cisp_sensor_controls c = { 0 };
	struct cisp_vsensor_truth truth;
	double line_s = cisp_sensor_line_ns(&ss->mode) * 1e-9;
	int32_t lines = (int32_t)lround(seconds / line_s), fl;
	int ret = cisp_vsensor_truth(ss->s, &truth);

	if (lines < ss->exposure.min)
		lines = ss->exposure.min;
	fl = lines + (int32_t)ss->mode.exposure_margin;
	if (fl < (int32_t)ss->mode.frame_length_default)
		fl = (int32_t)ss->mode.frame_length_default;
	if (fl > (int32_t)ss->mode.frame_length_max) {
		fl = (int32_t)ss->mode.frame_length_max;
		lines = fl - (int32_t)ss->mode.exposure_margin;
	}
	cisp_sensor_controls_set(&c, CISP_SENSOR_FRAME_LENGTH, fl);
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, lines);
	cisp_sensor_controls_set(&c, CISP_SENSOR_ANALOGUE_GAIN, (int32_t)lround(gain * CISP_SENSOR_GAIN_ONE));
	cisp_sensor_controls_set(&c, CISP_SENSOR_LENS_POSITION, truth.focus_position);
	if (!ret)
		ret = cisp_sensor_set_controls(ss->s, &c);
	if (!ret)
		ret = cisp_sensor_start(ss->s);
	for (unsigned i = 0; i < frames && !ret; i++) {
		struct cisp_sensor_metadata md;

		ret = cisp_sensor_capture(ss->s, &ss->raw, &md, 0);
		if (!ret)
			ret = each(ss, md.exposure_ns * 1e-9,
				   md.controls[CISP_SENSOR_ANALOGUE_GAIN] / 256.0 * md.controls[CISP_SENSOR_DIGITAL_GAIN] / 256.0,
				   ctx);
	}
	cisp_sensor_stop(ss->s);
	return ret;
}

struct add_ctx {
	enum cisp_calib_kind kind;
	const char *illuminant;
	double lux;
	const char *what;
};

static int add_frame(struct session *ss, double exposure_s, double gain, void *p)
{
	const struct add_ctx *a = p;
	char name[256];
	struct cisp_calib_capture cap = {
		.kind = a->kind, .raw = &ss->raw, .black = ss->mode.black_level, .white = ss->mode.white_level,
		.exposure_s = exposure_s, .gain = gain, .illuminant = a->illuminant, .lux = a->lux, .name = name,
	};
	int ret;

	snprintf(name, sizeof(name), "virtual:%s %s %u (%s)", ss->cam->sensor, cisp_calib_kind_name(a->kind),
		 ++ss->count, a->what);
	ret = ss->cam->save ? ss->cam->save(ss->cam->opaque, &cap) : 0;
	return ret ? ret : cisp_calib_add(ss->c, &cap);
}

/*
 * A level measure of one frame: the 99.5th percentile of green (the chart's
 * white patch, which fills about 2 % of the frame), or the median of the
 * central 60 %.
 */
struct probe_ctx {
	bool bright;
	double level;
};

static int probe_frame(struct session *ss, double exposure_s, double gain, void *p)
{
	struct probe_ctx *pc = p;
	struct calib_planes pl;
	double range = ss->mode.white_level - ss->mode.black_level;
	int ret = calib_planes_from(&pl, &ss->raw);
	uint32_t x0, x1, y0, y1;
	float *v;
	size_t n = 0;

	(void)exposure_s;
	(void)gain;
	if (ret)
		return ret;
	x0 = pc->bright ? 0 : pl.w / 5;
	x1 = pl.w - x0;
	y0 = pc->bright ? 0 : pl.h / 5;
	y1 = pl.h - y0;
	v = malloc((size_t)(x1 - x0) * (y1 - y0) * sizeof(float));
	if (!v) {
		calib_planes_free(&pl);
		return cisp_error(-ENOMEM, "out of memory");
	}
	for (uint32_t y = y0; y < y1; y++)
		for (uint32_t x = x0; x < x1; x++)
			v[n++] = pl.p[1][(size_t)y * pl.w + x];
	pc->level = ((pc->bright ? calib_quantile(v, n, 0.995) : calib_quantile(v, n, 0.5)) - ss->mode.black_level) / range;
	free(v);
	calib_planes_free(&pl);
	return 0;
}

/* The lux that puts the probe's level at @target at gain 1 (linear: the level is lux x a constant). */
static int lux_for(struct session *ss, bool bright, double target, double *lux)
{
	struct probe_ctx pc = { .bright = bright };
	int ret = option(ss, "lux", "%g", 100);

	if (!ret)
		ret = shoot(ss, EXPOSURE_S, 1, 1, probe_frame, &pc);
	if (ret)
		return ret;
	if (!(pc.level > 0.001) || pc.level > 0.9)
		return cisp_error(-EINVAL, "virtual lightbox: the probe frame's level is %.1f%% of the range at 100 lux",
				  100 * pc.level);
	*lux = 100 * target / pc.level;
	return 0;
}

static int series(struct session *ss)
{
	char lights[256], *save = NULL, *light[MAX_LIGHTS];
	double gains[4], max_gain = ss->again.max / 256.0, flat_lux;
	unsigned ngains = 0, nlights = 0;
	int ret;

	snprintf(lights, sizeof(lights), "%s", ss->cam->illuminants && *ss->cam->illuminants ? ss->cam->illuminants
											      : "D65");
	for (char *l = strtok_r(lights, ",", &save); l && nlights < MAX_LIGHTS; l = strtok_r(NULL, ",", &save))
		light[nlights++] = l;
	for (double g = 1; g <= max_gain + 1e-9 && ngains < 4; g *= 2)
		gains[ngains++] = g;
	/* Darks. */
	ret = option(ss, "lux", "%g", 0);
	for (unsigned i = 0; i < ngains && !ret; i++)
		ret = shoot(ss, EXPOSURE_S, gains[i], 2, add_frame,
			    &(struct add_ctx){ CISP_CALIB_DARK, NULL, 0, "no light" });
	if (!ret)
		ret = shoot(ss, DARK_LONG_S, 1, 2, add_frame, &(struct add_ctx){ CISP_CALIB_DARK, NULL, 0, "no light" });
	/* Flats: pairs at every level and gain under the first light, then eight at half the range under each light. */
	if (!ret)
		ret = cisp_sensor_set_option(ss->s, "scene", "flat");
	if (!ret)
		ret = cisp_sensor_set_option(ss->s, "illuminant", light[0]);
	if (!ret)
		ret = lux_for(ss, false, 1, &flat_lux);
	for (unsigned i = 0; i < ngains && !ret; i++)
		for (size_t k = 0; k < sizeof(flat_levels) / sizeof(flat_levels[0]) && !ret; k++) {
			char what[64];

			snprintf(what, sizeof(what), "%s, %.0f%% level", light[0], 100 * flat_levels[k]);
			ret = option(ss, "lux", "%.6g", flat_lux * flat_levels[k] / gains[i]);
			if (!ret)
				ret = shoot(ss, EXPOSURE_S, gains[i], 2, add_frame,
					    &(struct add_ctx){ CISP_CALIB_FLAT, light[0], 0, what });
		}
	for (unsigned l = 0; l < nlights && !ret; l++) {
		double lux;

		ret = cisp_sensor_set_option(ss->s, "illuminant", light[l]);
		if (!ret)
			ret = lux_for(ss, false, 0.5, &lux);
		if (!ret)
			ret = option(ss, "lux", "%.6g", lux);
		if (!ret)
			ret = shoot(ss, EXPOSURE_S, 1, SHADING_FLATS, add_frame,
				    &(struct add_ctx){ CISP_CALIB_FLAT, light[l], 0, light[l] });
	}
	/* Charts, the white patch at about 75 %. */
	if (!ret)
		ret = cisp_sensor_set_option(ss->s, "scene", "colorchart");
	for (unsigned l = 0; l < nlights && !ret; l++) {
		double lux;

		ret = cisp_sensor_set_option(ss->s, "illuminant", light[l]);
		if (!ret)
			ret = lux_for(ss, true, 0.75, &lux);
		if (!ret)
			ret = option(ss, "lux", "%.6g", lux);
		if (!ret)
			ret = shoot(ss, EXPOSURE_S, 1, 1, add_frame, &(struct add_ctx){ CISP_CALIB_CHART, light[l], lux, light[l] });
	}
	/* The slanted edge. */
	if (!ret)
		ret = cisp_sensor_set_option(ss->s, "scene", "resolution");
	if (!ret)
		ret = cisp_sensor_set_option(ss->s, "illuminant", light[0]);
	if (!ret) {
		double lux;

		ret = lux_for(ss, true, 0.7, &lux);
		if (!ret)
			ret = option(ss, "lux", "%.6g", lux);
		if (!ret)
			ret = shoot(ss, EXPOSURE_S, 1, 1, add_frame, &(struct add_ctx){ CISP_CALIB_EDGE, light[0], 0, light[0] });
	}
	return ret;
}

int cisp_calib_capture_virtual(struct cisp_calib *c, const struct cisp_calib_camera *cam)
{
	struct session ss = { .c = c, .cam = cam };
	int ret = open_sensor(cam, &ss.s, &ss.mode);

	if (!ret)
		ret = cisp_sensor_control_info(ss.s, CISP_SENSOR_EXPOSURE, &ss.exposure);
	if (!ret)
		ret = cisp_sensor_control_info(ss.s, CISP_SENSOR_ANALOGUE_GAIN, &ss.again);
	if (!ret)
		ret = cisp_image_alloc(&ss.raw, ss.mode.format, ss.mode.width, ss.mode.height);
	if (!ret)
		ret = series(&ss);
	cisp_image_free(&ss.raw);
	cisp_sensor_close(ss.s);
	return ret;
}
