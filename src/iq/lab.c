/* SPDX-License-Identifier: MIT */
/*
 * The software IQ lab: virtual sensor -> ISP backend -> metrics. The camera is
 * calibrated from the sensor's ground truth (white balance from its response
 * to a perfect white, a colour matrix fitted on the ColorChecker).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/iq_calib.h>
#include <cisp/iq_lab.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>

#include "core/error_internal.h"
#include "core/number.h"

/* ---- the software ISP as a backend ---- */

static int sw_limits(void *ctx, const struct cisp_isp_config *cfg, struct cisp_params_limits *limits)
{
	struct cisp_isp *isp;
	int ret = cisp_isp_create(&isp, cfg);

	(void)ctx;
	if (ret)
		return ret;
	cisp_isp_limits(isp, limits);
	cisp_isp_destroy(isp);
	return 0;
}

static int sw_process(void *ctx, const struct cisp_isp_config *cfg, const void *params, size_t size,
		      const struct cisp_image *in, struct cisp_image *out)
{
	struct cisp_isp *isp;
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { out, NULL };
	int ret = cisp_isp_create(&isp, cfg);

	(void)ctx;
	if (ret)
		return ret;
	ret = cisp_isp_set_params(isp, params, size);
	if (!ret)
		ret = cisp_isp_process(isp, in, outs, NULL, NULL);
	cisp_isp_destroy(isp);
	return ret;
}

static const struct cisp_iq_backend software = {
	.name = "software",
	.limits = sw_limits,
	.process = sw_process,
};

const struct cisp_iq_backend *cisp_iq_software_backend(void)
{
	return &software;
}

/* ---- shooting ---- */

/* The 99th percentile of the green samples above black, as a fraction of the range. */
static double green_p99(const struct cisp_image *raw, const struct cisp_sensor_mode *m)
{
	struct cisp_iq_image g;
	unsigned hist[1001] = { 0 };
	double need, acc = 0;

	if (cisp_iq_image_from_bayer(&g, raw, 1, m->black_level, m->white_level))
		return 0;
	for (size_t i = 0; i < (size_t)g.width * g.height; i++) {
		double v = g.data[i] < 0 ? 0 : g.data[i] > 1 ? 1 : g.data[i];

		hist[(int)lrint(v * 1000)]++;
	}
	need = 0.99 * g.width * g.height;
	cisp_iq_image_free(&g);
	for (int i = 0; i <= 1000; i++) {
		acc += hist[i];
		if (acc >= need)
			return i / 1000.0;
	}
	return 1;
}

/*
 * Open the virtual sensor on a scene and capture a frame exposed so that the
 * brightest 1 % of green reaches 80 % of the range (a few captures).
 */
static int shoot(const struct cisp_iq_lab *lab, const char *scene, const char *illuminant, const char *extra,
		 struct cisp_sensor **sensor, struct cisp_image *raw, struct cisp_sensor_mode *mode, int *exposure)
{
	char name[300], opts[300];
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_control_info ei;
	struct cisp_vsensor_truth truth;
	int ret;
	double expo;

	memset(raw, 0, sizeof(*raw));
	snprintf(name, sizeof(name), "virtual:%s", lab->sensor);
	/* The sensor parses lux in the "C" locale: write it so. */
	locale_t previous = cisp_c_numeric_begin();
	snprintf(opts, sizeof(opts), "scene=%s,illuminant=%s,lux=%g,seed=%u,%s", scene, illuminant,
		 lab->lux > 0 ? lab->lux : 400, lab->seed ? lab->seed : 1, extra ? extra : "shading=off");
	cisp_c_numeric_end(previous);
	ret = cisp_sensor_open(&s, name, opts);
	if (!ret)
		ret = cisp_sensor_set_mode(s, lab->mode);
	if (!ret)
		ret = cisp_sensor_get_mode(s, lab->mode, mode);
	if (!ret)
		ret = cisp_image_alloc(raw, mode->format, mode->width, mode->height);
	if (!ret)
		ret = cisp_sensor_control_info(s, CISP_SENSOR_EXPOSURE, &ei);
	if (ret) {
		cisp_sensor_close(s);
		cisp_image_free(raw);
		return ret;
	}
	/* Focus perfectly (the lab measures the ISP, not the autofocus). */
	if (!ret)
		ret = cisp_vsensor_truth(s, &truth);
	if (ret) {
		cisp_sensor_close(s);
		cisp_image_free(raw);
		return ret;
	}
	expo = ei.def;
	for (int it = 0; it < 5; it++) {
		struct cisp_sensor_controls c = { 0 };
		double level;
		int32_t lines = (int32_t)lrint(expo), fl;

		if (lines < ei.min)
			lines = ei.min;
		fl = lines + (int32_t)mode->exposure_margin;
		if (fl < (int32_t)mode->frame_length_default)
			fl = (int32_t)mode->frame_length_default;
		if (fl > (int32_t)mode->frame_length_max) {
			fl = (int32_t)mode->frame_length_max;
			lines = fl - (int32_t)mode->exposure_margin;
		}
		cisp_sensor_controls_set(&c, CISP_SENSOR_FRAME_LENGTH, fl);
		cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, lines);
		cisp_sensor_controls_set(&c, CISP_SENSOR_ANALOGUE_GAIN, CISP_SENSOR_GAIN_ONE);
		cisp_sensor_controls_set(&c, CISP_SENSOR_LENS_POSITION, truth.focus_position);
		ret = cisp_sensor_set_controls(s, &c);
		if (!ret)
			ret = cisp_sensor_start(s);
		if (!ret)
			ret = cisp_sensor_capture(s, raw, NULL, 0);
		cisp_sensor_stop(s);
		if (ret)
			break;
		*exposure = lines;
		level = green_p99(raw, mode);
		if (level > 0.76 && level < 0.84)
			break;
		/* Clipped frames say little: step down hard. */
		expo = lines * (level >= 0.999 ? 0.3 : 0.8 / fmax(level, 0.01));
	}
	if (ret) {
		cisp_sensor_close(s);
		cisp_image_free(raw);
		return ret;
	}
	*sensor = s;
	return 0;
}

/* Develop a raw frame with the lab's pipeline: BLC, DPC, WB, demosaic, CCM, linear output. */
static int develop(const struct cisp_iq_lab *lab, const struct cisp_image *raw, const struct cisp_sensor_mode *m,
		   const double wb[3], const double ccm[3][3], const struct cisp_lsc_params *lsc,
		   struct cisp_iq_image *out)
{
	const struct cisp_iq_backend *be = lab->backend ? lab->backend : &software;
	struct cisp_isp_config cfg = { .input_format = m->format, .width = m->width, .height = m->height };
	struct cisp_param_state *st = calloc(1, sizeof(*st));
	struct cisp_image rgb = { 0 };
	void *buf = NULL;
	size_t size;
	unsigned shift = 16 - m->bits;
	int ret;

	if (!st)
		return cisp_error(-ENOMEM, "out of memory for a parameter state");
	cfg.output[0] = (struct cisp_output_config){ CISP_FMT_RGB48, m->width, m->height };
	cisp_param_state_init(st);
	for (int c = 0; c < 4; c++)
		st->blc.black[c] = (uint16_t)(m->black_level << shift);
	st->blc.white = (uint16_t)(m->white_level << shift);
	st->dpc.threshold = 4096;
	st->wb.gain[CISP_CH_R] = (uint16_t)fmin(lrint(wb[0] * 4096), 65535);
	st->wb.gain[CISP_CH_GR] = st->wb.gain[CISP_CH_GB] = (uint16_t)fmin(lrint(wb[1] * 4096), 65535);
	st->wb.gain[CISP_CH_B] = (uint16_t)fmin(lrint(wb[2] * 4096), 65535);
	st->demosaic.algorithm = (uint16_t)lab->demosaic;
	ret = cisp_iq_ccm_to_params(ccm, &st->ccm);
	st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_WB) |
		       CISP_BLOCK_BIT(CISP_BLOCK_CCM);
	st->enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) |
			 CISP_BLOCK_BIT(CISP_BLOCK_LUT3D) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) |
			 CISP_BLOCK_BIT(CISP_BLOCK_BNR));
	if (lsc) {
		st->lsc = *lsc;
		st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	}
	if (!ret)
		ret = cisp_params_encode(st, ~0u, NULL, 0, &size);
	if (!ret && !(buf = malloc(size)))
		ret = cisp_error(-ENOMEM, "out of memory for a params buffer");
	if (!ret)
		ret = cisp_params_encode(st, ~0u, buf, size, &size);
	if (!ret)
		ret = cisp_image_alloc(&rgb, CISP_FMT_RGB48, m->width, m->height);
	if (!ret)
		ret = be->process(be->ctx, &cfg, buf, size, raw, &rgb);
	if (ret)
		ret = cisp_error_prefix(ret, "ISP backend %s", be->name);
	if (!ret)
		ret = cisp_iq_image_from_cisp(out, &rgb, CISP_TRANSFER_LINEAR);
	cisp_image_free(&rgb);
	free(buf);
	free(st);
	return ret;
}

/* The central @f of a rectangle. */
static struct cisp_iq_rect shrink(int32_t x, int32_t y, int32_t w, int32_t h, double f)
{
	int32_t nw = (int32_t)(w * f), nh = (int32_t)(h * f);

	return (struct cisp_iq_rect){ x + (w - nw) / 2, y + (h - nh) / 2, nw, nh };
}

int cisp_iq_lab_color(const struct cisp_iq_lab *lab, const char *illuminant, bool keep_picture,
		      struct cisp_iq_lab_color *out)
{
	struct cisp_sensor *s = NULL;
	struct cisp_image raw;
	struct cisp_sensor_mode m;
	struct cisp_vsensor_patch p[CISP_IQ_COLORCHECKER_PATCHES];
	double cam[CISP_IQ_COLORCHECKER_PATCHES][3], xyz[CISP_IQ_COLORCHECKER_PATCHES][3];
	double meas[CISP_IQ_COLORCHECKER_PATCHES][3], levels[6];
	const char *names[CISP_IQ_COLORCHECKER_PATCHES];
	bool neutral[CISP_IQ_COLORCHECKER_PATCHES];
	struct cisp_iq_rect rects[CISP_IQ_COLORCHECKER_PATCHES];
	const struct cisp_iq_ccm_fit_options fo = { .preserve_white = true, .refine_de2000 = true };
	const struct cisp_iq_color_options co = { .exposure = true };
	struct cisp_iq_ccm_fit fit;
	struct cisp_iq_image img = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(out->illuminant, sizeof(out->illuminant), "%s", illuminant);
	ret = shoot(lab, "colorchart", illuminant, NULL, &s, &raw, &m, &out->exposure);
	if (ret)
		return ret;
	for (unsigned i = 0; i < CISP_IQ_COLORCHECKER_PATCHES && !ret; i++)
		ret = cisp_vsensor_chart_patch(s, i, &p[i]);
	cisp_sensor_close(s);
	if (ret)
		goto out;
	/* Calibration from the ground truth: WB makes a perfect white neutral, then the matrix. */
	for (int c = 0; c < 3; c++)
		out->wb_gain[c] = p[0].white_camera[1] / p[0].white_camera[c];
	for (unsigned i = 0; i < CISP_IQ_COLORCHECKER_PATCHES; i++) {
		for (int c = 0; c < 3; c++) {
			cam[i][c] = p[i].camera[c] * out->wb_gain[c];
			xyz[i][c] = p[i].xyz[c];
		}
		names[i] = p[i].name;
		neutral[i] = i >= 18;
		rects[i] = shrink(p[i].x, p[i].y, p[i].width, p[i].height, 0.6);
	}
	ret = cisp_iq_fit_ccm((const double(*)[3])cam, (const double(*)[3])xyz, p[0].white_xyz,
			      CISP_IQ_COLORCHECKER_PATCHES, &fo, &fit);
	if (ret)
		goto out;
	memcpy(out->ccm, fit.ccm, sizeof(out->ccm));
	ret = develop(lab, &raw, &m, out->wb_gain, out->ccm, NULL, &img);
	if (ret)
		goto out;
	for (unsigned i = 0; i < CISP_IQ_COLORCHECKER_PATCHES && !ret; i++) {
		struct cisp_iq_patch_stats st;

		ret = cisp_iq_patch_stats(&img, &rects[i], false, &st);
		for (int c = 0; c < 3; c++)
			meas[i][c] = st.mean[c];
	}
	if (!ret)
		ret = cisp_iq_color_evaluate((const double(*)[3])meas, (const double(*)[3])xyz, p[0].white_xyz, names,
					     neutral, CISP_IQ_COLORCHECKER_PATCHES, &co, &out->color);
	for (int i = 0; i < 6; i++)
		levels[i] = xyz[18 + i][1];
	if (!ret)
		ret = cisp_iq_noise(&img, &rects[18], levels, 6, true, &out->noise);
	if (!ret && keep_picture) {
		out->picture = img;
		img.data = NULL;
	}
out:
	cisp_iq_image_free(&img);
	cisp_image_free(&raw);
	return ret;
}

int cisp_iq_lab_sharpness(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
			  struct cisp_iq_lab_sharpness *out)
{
	struct cisp_sensor *s = NULL;
	struct cisp_image raw;
	struct cisp_sensor_mode m;
	struct cisp_iq_image img = { 0 };
	int exposure, ret;
	double w, h, half, len, thick;
	struct cisp_iq_rect roi[CISP_IQ_LAB_EDGES];

	memset(out, 0, sizeof(*out));
	ret = shoot(lab, "resolution", color->illuminant, NULL, &s, &raw, &m, &exposure);
	if (ret)
		return ret;
	cisp_sensor_close(s);
	ret = develop(lab, &raw, &m, color->wb_gain, color->ccm, NULL, &img);
	cisp_image_free(&raw);
	if (ret)
		return ret;
	/*
	 * The chart: dark squares of side 0.2 frame heights, turned 5 degrees,
	 * centred at the frame centre and 0.3 frame widths / heights around it.
	 * Regions straddle the middle half of an edge.
	 */
	w = m.width;
	h = m.height;
	half = 0.1 * h;
	len = 0.1 * h;
	thick = fmax(24, fmin(0.06 * h, 96));
	roi[0] = (struct cisp_iq_rect){ (int32_t)lrint(w / 2 + half - thick / 2), (int32_t)lrint(h / 2 - len / 2),
					(int32_t)thick, (int32_t)len };
	roi[1] = (struct cisp_iq_rect){ (int32_t)lrint(w / 2 - len / 2), (int32_t)lrint(h / 2 - half - thick / 2),
					(int32_t)len, (int32_t)thick };
	roi[2] = (struct cisp_iq_rect){ (int32_t)lrint(0.8 * w - half - thick / 2), (int32_t)lrint(0.8 * h - len / 2),
					(int32_t)thick, (int32_t)len };
	snprintf(out->label[0], sizeof(out->label[0]), "centre, vertical edge");
	snprintf(out->label[1], sizeof(out->label[1]), "centre, horizontal edge");
	snprintf(out->label[2], sizeof(out->label[2]), "corner (80%%), vertical edge");
	for (int i = 0; i < CISP_IQ_LAB_EDGES && !ret; i++) {
		ret = cisp_iq_sfr(&img, &roi[i], -1, &out->sfr[i]);
		if (ret)
			ret = cisp_error_prefix(ret, "%s", out->label[i]);
	}
	if (!ret && keep_picture) {
		out->picture = img;
		img.data = NULL;
	}
	cisp_iq_image_free(&img);
	return ret;
}

/* Shoot @scene and develop it with the calibration of @color (optionally with LSC). */
static int shoot_and_develop(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, const char *scene,
			     const char *extra, const struct cisp_lsc_params *lsc, struct cisp_iq_image *img,
			     struct cisp_sensor_mode *m, struct cisp_image *keep_raw)
{
	struct cisp_sensor *s = NULL;
	struct cisp_image raw;
	int exposure, ret = shoot(lab, scene, color->illuminant, extra, &s, &raw, m, &exposure);

	if (ret)
		return ret;
	cisp_sensor_close(s);
	ret = img ? develop(lab, &raw, m, color->wb_gain, color->ccm, lsc, img) : 0;
	if (keep_raw && !ret)
		*keep_raw = raw;
	else
		cisp_image_free(&raw);
	return ret;
}

int cisp_iq_lab_steps(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
		      struct cisp_iq_lab_steps *out)
{
	struct cisp_iq_image img = { 0 };
	struct cisp_sensor_mode m;
	struct cisp_iq_rect rects[CISP_IQ_LAB_STEPS];
	double levels[CISP_IQ_LAB_STEPS];
	int ret;

	struct cisp_image raw = { 0 };
	struct cisp_iq_image green = { 0 };
	struct cisp_iq_rect half[CISP_IQ_LAB_STEPS];

	memset(out, 0, sizeof(*out));
	ret = shoot_and_develop(lab, color, "steps", "shading=off,defects=off", NULL, &img, &m, &raw);
	if (ret)
		return ret;
	/* The chart's layout (docs/iq.md): the ColorChecker's 6 x 4 grid, step k reflects 0.9 * 2^(-k/2). */
	for (int k = 0; k < CISP_IQ_LAB_STEPS; k++) {
		double h = m.height, aspect = (double)m.width / m.height, side = 0.8 / 5.25, gap, u0, v0, l, t;

		if (7.75 * side > 0.92 * aspect)
			side = 0.92 * aspect / 7.75;
		gap = side / 4;
		u0 = (aspect - (6 * side + 7 * gap)) / 2;
		v0 = (1 - (4 * side + 5 * gap)) / 2;
		l = u0 + gap + (k % 6) * (side + gap);
		t = v0 + gap + (k / 6) * (side + gap);
		rects[k] = shrink((int32_t)ceil(l * h), (int32_t)ceil(t * h), (int32_t)floor(side * h) - 1,
				  (int32_t)floor(side * h) - 1, 0.6);
		levels[k] = pow(2.0, -0.5 * k);
	}
	ret = cisp_iq_noise(&img, rects, levels, CISP_IQ_LAB_STEPS, true, &out->noise);
	/* The sensor's own range: the raw green samples, signed (nothing clamps them at black). */
	if (!ret)
		ret = cisp_iq_image_from_bayer(&green, &raw, CISP_CH_GR, m.black_level, m.white_level);
	for (int k = 0; k < CISP_IQ_LAB_STEPS; k++)
		half[k] = (struct cisp_iq_rect){ rects[k].x / 2, rects[k].y / 2, rects[k].width / 2, rects[k].height / 2 };
	if (!ret)
		ret = cisp_iq_noise(&green, half, levels, CISP_IQ_LAB_STEPS, true, &out->raw_noise);
	cisp_iq_image_free(&green);
	cisp_image_free(&raw);
	if (!ret && keep_picture) {
		out->picture = img;
		img.data = NULL;
	}
	cisp_iq_image_free(&img);
	return ret;
}

int cisp_iq_lab_star(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
		     struct cisp_iq_lab_star *out)
{
	struct cisp_iq_image img = { 0 };
	struct cisp_sensor_mode m;
	int ret, half;

	memset(out, 0, sizeof(*out));
	ret = shoot_and_develop(lab, color, "star", NULL, NULL, &img, &m, NULL);
	if (ret)
		return ret;
	/* The square inscribed in the star (radius 0.45 frame heights, centred). */
	half = (int)(0.45 * m.height / sqrt(2.0)) - 2;
	ret = cisp_iq_false_color(&img, &(struct cisp_iq_rect){ (int32_t)m.width / 2 - half,
								 (int32_t)m.height / 2 - half, 2 * half, 2 * half },
				  &out->false_color);
	if (!ret && keep_picture) {
		out->picture = img;
		img.data = NULL;
	}
	cisp_iq_image_free(&img);
	return ret;
}

int cisp_iq_lab_flat(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
		     struct cisp_iq_lab_flat *out)
{
	struct cisp_iq_image img = { 0 };
	struct cisp_sensor_mode m;
	struct cisp_image clean = { 0 };
	struct cisp_lsc_params *lsc = calloc(1, sizeof(*lsc));
	int ret;

	memset(out, 0, sizeof(*out));
	if (!lsc)
		return cisp_error(-ENOMEM, "out of memory");
	/* Calibrate on a noiseless flat field, then measure a normal one before and after correction. */
	ret = shoot_and_develop(lab, color, "flat", "shading=on,noise=off,defects=off", NULL, NULL, &m, &clean);
	if (!ret)
		ret = cisp_iq_fit_lsc(&clean, m.black_level, m.white_level, 17, 13, lsc);
	cisp_image_free(&clean);
	if (!ret)
		ret = shoot_and_develop(lab, color, "flat", "shading=on", NULL, &img, &m, NULL);
	if (!ret)
		ret = cisp_iq_shading(&img, 9, &out->before);
	cisp_iq_image_free(&img);
	if (!ret)
		ret = shoot_and_develop(lab, color, "flat", "shading=on", lsc, &img, &m, NULL);
	if (!ret)
		ret = cisp_iq_shading(&img, 9, &out->after);
	if (!ret && keep_picture) {
		out->picture = img;
		img.data = NULL;
	}
	cisp_iq_image_free(&img);
	free(lsc);
	return ret;
}
