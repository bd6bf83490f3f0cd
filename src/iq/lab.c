/* SPDX-License-Identifier: MIT */
/*
 * The software IQ lab: virtual sensor -> ISP backend -> metrics. The camera
 * is measured as a user gets it: its tuning file and 3A loop settle on each
 * chart (statistics from the reference ISP, the ABI's), and the backend
 * develops the last frame with the loop's parameters. The ceiling mode
 * calibrates from the sensor's ground truth instead (white balance from its
 * response to a perfect white, a matrix fitted on the very patches
 * measured): what the ISP can do at best, not accuracy.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include <cisp/control.h>
#include <cisp/error.h>
#include <cisp/iq_calib.h>
#include <cisp/iq_color.h>
#include <cisp/iq_lab.h>
#include <cisp/params_state.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

#include "abi/fixed_point.h"
#include "control/tuning.h"
#include "core/error_internal.h"
#include "core/number.h"
#include "lab_internal.h"

/* The camera's loop runs at most this many frames, and stops once AE and AWB have held this many. */
#define CAMERA_MAX_FRAMES 40
#define CAMERA_SETTLED 3
/* Exposure compensations tried to bring the chart's white patch to the metering target. */
#define CAMERA_METERINGS 4

const char *cisp_iq_lab_calibration_name(enum cisp_iq_lab_calibration c)
{
	return c == CISP_IQ_LAB_CEILING ? "ceiling" : "camera";
}

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

/*
 * Metering, as a tuning engineer exposes a chart: the white patch's brightest
 * colour, at the level the camera's highlights stage sees (after its
 * lens-shading gain), at 78 % of the level where the sensor clips, accepted
 * from 74 to 82 %. That keeps it below the stage's knee, 90 % of the clip
 * level, where colours start to roll off, by three deviations of its shot
 * noise. A patch counts as clipped when more than a tenth of its samples of
 * one colour reach the knee; a hot pixel or two in a small patch do not count.
 */
#define WHITE_TARGET 0.78
#define WHITE_LOW 0.74
#define WHITE_HIGH 0.82
#define CLIP_NEAR 0.90
#define CLIP_SHARE 0.10
/* The ColorChecker's white patch (chart order, docs/iq.md). */
#define WHITE_PATCH 18

double lab_clip_level(struct cisp_sensor *s, const struct cisp_sensor_mode *m, const int32_t *controls,
		      const struct cisp_tuning *tuning)
{
	struct cisp_vsensor_truth t;
	double gain = (double)controls[CISP_SENSOR_ANALOGUE_GAIN] / CISP_SENSOR_GAIN_ONE, clip;

	if (controls[CISP_SENSOR_DIGITAL_GAIN] > 0)
		gain *= (double)controls[CISP_SENSOR_DIGITAL_GAIN] / CISP_SENSOR_GAIN_ONE;
	if (cisp_vsensor_truth(s, &t) || m->white_level <= m->black_level || gain <= 0)
		return 1;
	clip = t.full_well_e * t.gain_dn_per_e * gain / (m->white_level - m->black_level);
	/* The level the tuning's highlights stage clips at (src/control/highlights.c). */
	if (tuning && tuning->saturation > m->black_level && tuning->saturation < m->white_level)
		clip = fmin(clip, (tuning->saturation - m->black_level) / (m->white_level - m->black_level) * gain);
	return fmin(1, clip);
}

/* The lens-shading gain of @channel at pixel (@x, @y) of a @w x @h frame, bilinear between the nodes. */
static double lsc_gain(const struct cisp_lsc_params *lsc, unsigned channel, double x, double y, uint32_t w, uint32_t h)
{
	const uint16_t *g = lsc->gain + (size_t)channel * lsc->grid_w * lsc->grid_h;
	double u = fmin(fmax(x * (lsc->grid_w - 1) / fmax(w - 1, 1), 0), lsc->grid_w - 1);
	double v = fmin(fmax(y * (lsc->grid_h - 1) / fmax(h - 1, 1), 0), lsc->grid_h - 1);
	unsigned i = (unsigned)fmin(u, lsc->grid_w - 2), j = (unsigned)fmin(v, lsc->grid_h - 2);
	double fu = u - i, fv = v - j;

	return ((1 - fv) * ((1 - fu) * g[j * lsc->grid_w + i] + fu * g[j * lsc->grid_w + i + 1]) +
		fv * ((1 - fu) * g[(j + 1) * lsc->grid_w + i] + fu * g[(j + 1) * lsc->grid_w + i + 1])) /
	       4096.0;
}

int lab_patch_levels(const struct cisp_image *raw, const struct cisp_sensor_mode *m, double clip,
		     const struct cisp_lsc_params *lsc, const struct cisp_iq_rect *rects, unsigned n, double (*level)[3],
		     bool *clipped)
{
	static const unsigned channel[3] = { CISP_CH_R, CISP_CH_GR, CISP_CH_B };
	bool shading = lsc && lsc->grid_w >= 2 && lsc->grid_h >= 2 && lsc->grid_w <= CISP_LSC_MAX_GRID &&
		       lsc->grid_h <= CISP_LSC_MAX_GRID;

	for (unsigned i = 0; i < n; i++)
		clipped[i] = false;
	for (int c = 0; c < 3; c++) {
		struct cisp_iq_image plane;
		int ret = cisp_iq_image_from_bayer(&plane, raw, channel[c], m->black_level, m->white_level);

		if (ret)
			return ret;
		for (unsigned i = 0; i < n; i++) {
			int32_t x0 = rects[i].x / 2, y0 = rects[i].y / 2;
			int32_t x1 = x0 + rects[i].width / 2, y1 = y0 + rects[i].height / 2;
			/* What the highlights stage sees: the level after the lens-shading gain at the patch. */
			double gain = shading ? lsc_gain(lsc, channel[c], rects[i].x + rects[i].width / 2.0,
							 rects[i].y + rects[i].height / 2.0, m->width, m->height)
					      : 1;
			double sum = 0, count = 0, near = 0;

			for (int32_t y = y0 > 0 ? y0 : 0; y < y1 && y < (int32_t)plane.height; y++)
				for (int32_t x = x0 > 0 ? x0 : 0; x < x1 && x < (int32_t)plane.width; x++) {
					double v = plane.data[(size_t)y * plane.stride + x] * gain;

					sum += v;
					near += v >= CLIP_NEAR * clip;
					count++;
				}
			level[i][c] = count ? sum / count / clip : 0;
			if (count && near > CLIP_SHARE * count)
				clipped[i] = true;
		}
		cisp_iq_image_free(&plane);
	}
	return 0;
}

/* The central @f of a rectangle. */
static struct cisp_iq_rect shrink(int32_t x, int32_t y, int32_t w, int32_t h, double f)
{
	int32_t nw = (int32_t)(w * f), nh = (int32_t)(h * f);

	return (struct cisp_iq_rect){ x + (w - nw) / 2, y + (h - nh) / 2, nw, nh };
}

/* Where a chart patch is sampled: its central 60 %. */
static struct cisp_iq_rect patch_rect(const struct cisp_vsensor_patch *p)
{
	return shrink(p->x, p->y, p->width, p->height, 0.6);
}

/*
 * How far the white patch of a chart frame is from the metering target: the
 * factor to multiply the exposure by (1 when within the window); a clipped
 * patch says little, so the step is a full stop down.
 */
static int white_correction(struct cisp_sensor *s, const struct cisp_image *raw, const struct cisp_sensor_mode *m,
			    const int32_t *controls, const struct cisp_tuning *tuning, const struct cisp_lsc_params *lsc,
			    double *factor)
{
	struct cisp_vsensor_patch p;
	struct cisp_iq_rect r;
	double level[1][3], top;
	bool clipped;
	int ret = cisp_vsensor_chart_patch(s, WHITE_PATCH, &p);

	if (ret)
		return ret;
	r = patch_rect(&p);
	ret = lab_patch_levels(raw, m, lab_clip_level(s, m, controls, tuning), lsc, &r, 1, level, &clipped);
	if (ret)
		return ret;
	top = fmax(level[0][0], fmax(level[0][1], level[0][2]));
	*factor = clipped ? 0.5 : top >= WHITE_LOW && top <= WHITE_HIGH ? 1 : WHITE_TARGET / fmax(top, 0.01);
	return 0;
}

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
 * Open the virtual sensor on a scene and capture a frame at gain x1 (a few
 * captures): the colour chart metered on its white patch (the rule above),
 * other scenes so that the brightest 1 % of green reaches 80 % of the range.
 */
static int shoot(const struct cisp_iq_lab *lab, const char *scene, const char *illuminant, const char *extra,
		 struct cisp_sensor **sensor, struct cisp_image *raw, struct cisp_sensor_mode *mode, int *exposure)
{
	char name[300], opts[300];
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_control_info ei;
	struct cisp_vsensor_truth truth;
	bool chart = !strcmp(scene, "colorchart");
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
		struct cisp_sensor_metadata md;
		double level, factor;
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
			ret = cisp_sensor_capture(s, raw, &md, 0);
		cisp_sensor_stop(s);
		if (ret)
			break;
		*exposure = lines;
		if (chart) {
			ret = white_correction(s, raw, mode, md.controls, NULL, NULL, &factor);
			if (ret || factor == 1)
				break;
			expo = lines * factor;
			continue;
		}
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
	st->wb.gain[CISP_CH_R] = abi_fixed_u16(wb[0], 4096);
	st->wb.gain[CISP_CH_GR] = st->wb.gain[CISP_CH_GB] = abi_fixed_u16(wb[1], 4096);
	st->wb.gain[CISP_CH_B] = abi_fixed_u16(wb[2], 4096);
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

/* ---- the camera: its tuning and 3A loop ---- */

void camera_shot_free(struct camera_shot *c)
{
	cisp_sensor_close(c->s);
	cisp_image_free(&c->raw);
	cisp_tuning_free(c->tuning);
	free(c->state);
	memset(c, 0, sizeof(*c));
}

static int apply_params(struct cisp_isp *isp, const struct cisp_control_result *res)
{
	size_t size;
	void *buf;
	int ret = cisp_params_encode(res->params, res->params_changed, NULL, 0, &size);

	if (ret)
		return ret;
	buf = malloc(size);
	if (!buf)
		return cisp_error(-ENOMEM, "out of memory for a params buffer");
	ret = cisp_params_encode(res->params, res->params_changed, buf, size, &size);
	if (!ret)
		ret = cisp_isp_set_params(isp, buf, size);
	free(buf);
	return ret;
}

/* The lens-shading gains a camera's parameters apply, or NULL when LSC is off. */
static const struct cisp_lsc_params *camera_lsc(const struct cisp_param_state *st)
{
	return st->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LSC) ? &st->lsc : NULL;
}

/*
 * The camera on a scene: the control loop of its tuning drives the sensor
 * (AE, AWB; the lens focused on the chart, as the lab measures the ISP and
 * not the autofocus) until AE and AWB have settled, at most
 * CAMERA_MAX_FRAMES frames; the last frame and its parameters. On the colour
 * chart the settled frame is metered on the white patch (the rule above) and,
 * when it is above the window, the loop settles again with an exposure
 * compensation that brings it down there, at most CAMERA_METERINGS times:
 * what a tuning engineer dials in so that the camera's AE does not clip the
 * chart's white.
 */
int camera_shoot(const struct cisp_iq_lab *lab, const char *scene, const char *illuminant, const char *extra,
		 struct camera_shot *out)
{
	char name[300], opts[300];
	struct cisp_control_config cfg = { 0 };
	struct cisp_control *c = NULL;
	struct cisp_control_result res;
	struct cisp_isp *isp = NULL;
	struct cisp_vsensor_truth truth;
	struct cisp_stats *stats = malloc(sizeof(*stats));
	unsigned settled = 0, limit = CAMERA_MAX_FRAMES, meterings = 0;
	bool chart = !strcmp(scene, "colorchart");
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(name, sizeof(name), "virtual:%s", lab->sensor);
	locale_t previous = cisp_c_numeric_begin();
	snprintf(opts, sizeof(opts), "scene=%s,illuminant=%s,lux=%g,seed=%u%s%s", scene, illuminant,
		 lab->lux > 0 ? lab->lux : 400, lab->seed ? lab->seed : 1, extra ? "," : "", extra ? extra : "");
	cisp_c_numeric_end(previous);
	out->state = malloc(sizeof(*out->state));
	ret = stats && out->state ? cisp_sensor_open(&out->s, name, opts) : cisp_error(-ENOMEM, "out of memory");
	if (!ret)
		ret = cisp_sensor_set_mode(out->s, lab->mode);
	if (!ret)
		ret = cisp_sensor_get_mode(out->s, lab->mode, &out->mode);
	if (!ret)
		ret = lab->tuning ? cisp_tuning_load(&out->tuning, lab->tuning)
				  : cisp_tuning_find(&out->tuning, cisp_sensor_info(out->s)->model, NULL);
	if (!ret)
		ret = cisp_vsensor_truth(out->s, &truth);
	cfg.tuning = out->tuning;
	cfg.mode = out->mode;
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS && !ret; i++)
		ret = cisp_sensor_control_info(out->s, (enum cisp_sensor_control)i, &cfg.controls[i]);
	if (!ret)
		ret = cisp_control_create(&c, &cfg);
	if (!ret)
		ret = cisp_control_request(c, &(struct cisp_control_request){ .mask = CISP_REQ_AF_MODE | CISP_REQ_LENS_POSITION,
									      .af_mode = CISP_AF_MANUAL,
									      .lens_position = truth.focus_position });
	if (!ret) {
		struct cisp_isp_config ic = { .input_format = out->mode.format, .width = out->mode.width,
					      .height = out->mode.height };

		ic.output[0] = (struct cisp_output_config){ CISP_FMT_RGB48, out->mode.width, out->mode.height };
		ret = cisp_isp_create(&isp, &ic);
	}
	if (!ret)
		ret = cisp_image_alloc(&out->raw, out->mode.format, out->mode.width, out->mode.height);
	if (!ret)
		ret = cisp_control_start(c, &res);
	if (!ret)
		ret = cisp_sensor_set_controls(out->s, &res.sensor);
	if (!ret)
		ret = apply_params(isp, &res);
	if (!ret)
		ret = cisp_sensor_start(out->s);
	for (unsigned n = 0; !ret && n < limit && settled < CAMERA_SETTLED; n++) {
		struct cisp_sensor_metadata md;
		double factor = 1;

		ret = cisp_sensor_capture(out->s, &out->raw, &md, 0);
		if (ret)
			break;
		*out->state = *cisp_isp_params(isp);
		out->exposure = md.controls[CISP_SENSOR_EXPOSURE];
		out->clip = lab_clip_level(out->s, &out->mode, md.controls, out->tuning);
		out->frames = n + 1;
		ret = cisp_isp_statistics(isp, &out->raw, NULL, stats, NULL);
		if (!ret)
			ret = cisp_control_process(c, stats, &md, &res);
		if (!ret && res.sensor.mask) {
			ret = cisp_sensor_queue_controls(out->s, res.sensor_sequence, &res.sensor);
			if (ret == -EAGAIN)
				ret = cisp_sensor_set_controls(out->s, &res.sensor);
		}
		if (!ret && res.params_changed)
			ret = apply_params(isp, &res);
		settled = (res.state.ae_state == CISP_AE_CONVERGED || res.state.ae_state == CISP_AE_LIMITED) &&
					  res.state.awb_state == CISP_AWB_CONVERGED
				  ? settled + 1
				  : 0;
		/* Only ever down: below the window the camera's AE keeps its choice (more light would be more gain). */
		if (!ret && chart && settled == CAMERA_SETTLED && meterings < CAMERA_METERINGS)
			ret = white_correction(out->s, &out->raw, &out->mode, md.controls, out->tuning, camera_lsc(out->state),
					       &factor);
		factor = fmin(factor, 1);
		if (!ret && factor != 1) {
			out->ev = fmin(4, fmax(-4, out->ev + log2(factor)));
			ret = cisp_control_request(c, &(struct cisp_control_request){ .mask = CISP_REQ_EV, .ev = out->ev });
			meterings++;
			settled = 0;
			limit = n + 1 + CAMERA_MAX_FRAMES;
		}
	}
	if (out->s)
		cisp_sensor_stop(out->s);
	cisp_control_destroy(c);
	cisp_isp_destroy(isp);
	free(stats);
	if (ret)
		camera_shot_free(out);
	return ret;
}

/* Linear light from an output: the inverse of the tone block (its transfer, then its curve) when it was on. */
static int linearise(const struct cisp_image *rgb, const struct cisp_param_state *st, struct cisp_iq_image *out)
{
	bool tone = st->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE);
	const uint16_t *curve = st->tone.curve;
	int ret = cisp_iq_image_from_cisp(out, rgb, tone ? (enum cisp_transfer)st->tone.transfer : CISP_TRANSFER_LINEAR);

	for (size_t i = 0; !ret && tone && i < (size_t)out->height * out->stride; i++) {
		/* The curve rises from node to node (input i * 256): find the segment holding the value. */
		double y = fmin(fmax(out->data[i], 0), 1) * 65535;
		unsigned lo = 0, hi = CISP_TONE_POINTS - 1;

		while (hi - lo > 1) {
			unsigned mid = (lo + hi) / 2;

			if (curve[mid] <= y)
				lo = mid;
			else
				hi = mid;
		}
		out->data[i] = (float)((lo + (curve[hi] > curve[lo] ? fmin(fmax((y - curve[lo]) / (curve[hi] - curve[lo]), 0), 1)
								     : 0)) * 256 / 65536);
	}
	return ret;
}

int develop_camera(const struct cisp_iq_lab *lab, const struct camera_shot *shot, const struct cisp_param_state *state,
		   bool encoded, struct cisp_iq_image *out)
{
	const struct cisp_iq_backend *be = lab->backend ? lab->backend : &software;
	const struct cisp_sensor_mode *m = &shot->mode;
	struct cisp_isp_config cfg = { .input_format = m->format, .width = m->width, .height = m->height };
	struct cisp_image rgb = { 0 };
	void *buf = NULL;
	size_t size;
	int ret;

	cfg.output[0] = (struct cisp_output_config){ CISP_FMT_RGB48, m->width, m->height };
	ret = cisp_params_encode(state, ~0u, NULL, 0, &size);
	if (!ret && !(buf = malloc(size)))
		ret = cisp_error(-ENOMEM, "out of memory for a params buffer");
	if (!ret)
		ret = cisp_params_encode(state, ~0u, buf, size, &size);
	if (!ret)
		ret = cisp_image_alloc(&rgb, CISP_FMT_RGB48, m->width, m->height);
	if (!ret)
		ret = be->process(be->ctx, &cfg, buf, size, &shot->raw, &rgb);
	if (ret)
		ret = cisp_error_prefix(ret, "ISP backend %s", be->name);
	if (!ret)
		ret = encoded ? cisp_iq_image_from_cisp(out, &rgb, CISP_TRANSFER_LINEAR) : linearise(&rgb, state, out);
	cisp_image_free(&rgb);
	free(buf);
	return ret;
}

/* Whether the tuning was calibrated on a chart under @illuminant (its provenance says so). */
static bool calibrated_under(const struct cisp_tuning *t, const char *illuminant)
{
	for (unsigned i = 0; t && i < t->provenance.chart_count; i++)
		if (!strcasecmp(t->provenance.chart[i].illuminant, illuminant))
			return true;
	return false;
}

/* The chart's truth from the sensor: patches, their XYZ, names and sampling boxes (the central 60 %). */
static int chart_truth(struct cisp_sensor *s, struct cisp_vsensor_patch *p, double (*xyz)[3], const char **names,
		       bool *neutral, struct cisp_iq_rect *rects)
{
	int ret = 0;

	for (unsigned i = 0; i < CISP_IQ_COLORCHECKER_PATCHES && !ret; i++) {
		ret = cisp_vsensor_chart_patch(s, i, &p[i]);
		for (int c = 0; c < 3; c++)
			xyz[i][c] = p[i].xyz[c];
		names[i] = p[i].name;
		neutral[i] = i >= 18;
		rects[i] = patch_rect(&p[i]);
	}
	return ret;
}

double lab_exposure_scale(const double (*rgb)[3], const double (*xyz)[3], const double white[3], const bool *use,
			  unsigned n)
{
	double num = 0, den = 0;

	for (unsigned i = 0; i < n; i++) {
		/* Both Y at D50, as cisp_iq_color_evaluate() compares them. */
		double mx[3], m50[3], r50[3];

		if (!use[i])
			continue;
		cisp_iq_srgb_to_xyz(rgb[i], mx);
		cisp_iq_adapt(mx, cisp_iq_white_d65, cisp_iq_white_d50, m50);
		cisp_iq_adapt(xyz[i], white, cisp_iq_white_d50, r50);
		num += m50[1] * r50[1];
		den += m50[1] * m50[1];
	}
	return den > 0 ? num / den : 0;
}

/*
 * Measure the developed chart: colour against the truth, and the neutral
 * row's noise. Exposure is normalised as cisp_iq_color_evaluate() does (one
 * factor, least squares on the neutral patches' Y), on the neutral patches
 * that did not clip in @raw (@clip: the clip level, of the range above
 * black) only: a clipped white comes out neutral at the clip level and
 * would lift every other patch.
 */
static int measure_chart(const struct cisp_iq_image *img, const struct cisp_image *raw, const struct cisp_sensor_mode *m,
			 double clip, const struct cisp_lsc_params *lsc, const struct cisp_vsensor_patch *p, const double (*xyz)[3], const char **names,
			 const bool *neutral, const struct cisp_iq_rect *rects, struct cisp_iq_lab_color *out)
{
	double meas[CISP_IQ_COLORCHECKER_PATCHES][3], levels[6], raw_level[CISP_IQ_COLORCHECKER_PATCHES][3], scale;
	bool clipped[CISP_IQ_COLORCHECKER_PATCHES], use[CISP_IQ_COLORCHECKER_PATCHES];
	int ret = lab_patch_levels(raw, m, clip, lsc, rects, CISP_IQ_COLORCHECKER_PATCHES, raw_level, clipped);

	for (unsigned i = 0; i < CISP_IQ_COLORCHECKER_PATCHES && !ret; i++) {
		struct cisp_iq_patch_stats st;

		ret = cisp_iq_patch_stats(img, &rects[i], false, &st);
		for (int c = 0; c < 3; c++)
			meas[i][c] = st.mean[c];
		use[i] = neutral[i] && !clipped[i];
	}
	if (ret)
		return ret;
	scale = lab_exposure_scale((const double(*)[3])meas, xyz, p[0].white_xyz, use, CISP_IQ_COLORCHECKER_PATCHES);
	if (!(scale > 0))
		return cisp_error(-ERANGE, "colour chart: every neutral patch is clipped or black; expose it lower");
	for (unsigned i = 0; i < CISP_IQ_COLORCHECKER_PATCHES; i++)
		for (int c = 0; c < 3; c++)
			meas[i][c] *= scale;
	ret = cisp_iq_color_evaluate((const double(*)[3])meas, xyz, p[0].white_xyz, names, neutral,
				     CISP_IQ_COLORCHECKER_PATCHES, &(const struct cisp_iq_color_options){ 0 }, &out->color);
	out->color.exposure_scale = scale;
	for (int i = 0; i < 6; i++)
		levels[i] = xyz[18 + i][1];
	if (!ret)
		ret = cisp_iq_noise(img, &rects[18], levels, 6, true, &out->noise);
	return ret;
}

/* The camera: its loop settles on the chart, the backend develops the frame with the loop's parameters. */
static int color_camera(const struct cisp_iq_lab *lab, const char *illuminant, struct cisp_iq_lab_color *out,
			struct cisp_iq_image *img)
{
	struct camera_shot shot;
	struct cisp_vsensor_patch p[CISP_IQ_COLORCHECKER_PATCHES];
	double xyz[CISP_IQ_COLORCHECKER_PATCHES][3];
	const char *names[CISP_IQ_COLORCHECKER_PATCHES];
	bool neutral[CISP_IQ_COLORCHECKER_PATCHES];
	struct cisp_iq_rect rects[CISP_IQ_COLORCHECKER_PATCHES];
	int ret = camera_shoot(lab, "colorchart", illuminant, NULL, &shot);

	if (ret)
		return ret;
	ret = chart_truth(shot.s, p, xyz, names, neutral, rects);
	out->exposure = shot.exposure;
	out->frames = shot.frames;
	out->fit = !shot.tuning->provenance.present	       ? CISP_IQ_LAB_FIT_UNKNOWN
		   : calibrated_under(shot.tuning, illuminant) ? CISP_IQ_LAB_FITTED
							       : CISP_IQ_LAB_HELD_OUT;
	for (int c = 0; c < 3; c++)
		out->wb_gain[c] = shot.state->wb.gain[c == 2 ? CISP_CH_B : c == 1 ? CISP_CH_GR : CISP_CH_R] / 4096.0;
	for (int i = 0; i < 9; i++)
		out->ccm[i / 3][i % 3] = shot.state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM) ? shot.state->ccm.coeff[i] / 4096.0
											 : i % 4 == 0;
	if (!ret)
		ret = develop_camera(lab, &shot, shot.state, false, img);
	if (!ret)
		ret = measure_chart(img, &shot.raw, &shot.mode, shot.clip, camera_lsc(shot.state), p,
				    (const double(*)[3])xyz, names, neutral, rects, out);
	camera_shot_free(&shot);
	return ret;
}

/* The ceiling: white balance and a matrix from the sensor's true responses of these patches. */
static int color_ceiling(const struct cisp_iq_lab *lab, const char *illuminant, struct cisp_iq_lab_color *out,
			 struct cisp_iq_image *img)
{
	struct cisp_sensor *s = NULL;
	struct cisp_image raw;
	struct cisp_sensor_mode m;
	struct cisp_vsensor_patch p[CISP_IQ_COLORCHECKER_PATCHES];
	double cam[CISP_IQ_COLORCHECKER_PATCHES][3], xyz[CISP_IQ_COLORCHECKER_PATCHES][3];
	const char *names[CISP_IQ_COLORCHECKER_PATCHES];
	bool neutral[CISP_IQ_COLORCHECKER_PATCHES];
	struct cisp_iq_rect rects[CISP_IQ_COLORCHECKER_PATCHES];
	const struct cisp_iq_ccm_fit_options fo = { .preserve_white = true, .refine_de2000 = true };
	struct cisp_iq_ccm_fit fit;
	double clip;
	int ret = shoot(lab, "colorchart", illuminant, NULL, &s, &raw, &m, &out->exposure);

	if (ret)
		return ret;
	ret = chart_truth(s, p, xyz, names, neutral, rects);
	clip = lab_clip_level(s, &m, (const int32_t[CISP_SENSOR_NUM_CONTROLS]){
					    [CISP_SENSOR_ANALOGUE_GAIN] = CISP_SENSOR_GAIN_ONE },
			      NULL);
	cisp_sensor_close(s);
	out->fit = CISP_IQ_LAB_FITTED;
	if (ret)
		goto out;
	/* Calibration from the ground truth: WB makes a perfect white neutral, then the matrix. */
	for (int c = 0; c < 3; c++)
		out->wb_gain[c] = p[0].white_camera[1] / p[0].white_camera[c];
	for (unsigned i = 0; i < CISP_IQ_COLORCHECKER_PATCHES; i++)
		for (int c = 0; c < 3; c++)
			cam[i][c] = p[i].camera[c] * out->wb_gain[c];
	ret = cisp_iq_fit_ccm((const double(*)[3])cam, (const double(*)[3])xyz, p[0].white_xyz,
			      CISP_IQ_COLORCHECKER_PATCHES, &fo, &fit);
	if (ret)
		goto out;
	memcpy(out->ccm, fit.ccm, sizeof(out->ccm));
	ret = develop(lab, &raw, &m, out->wb_gain, out->ccm, NULL, img);
	if (!ret)
		ret = measure_chart(img, &raw, &m, clip, NULL, p, (const double(*)[3])xyz, names, neutral, rects, out);
out:
	cisp_image_free(&raw);
	return ret;
}

int cisp_iq_lab_color(const struct cisp_iq_lab *lab, const char *illuminant, bool keep_picture,
		      struct cisp_iq_lab_color *out)
{
	struct cisp_iq_image img = { 0 };
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(out->illuminant, sizeof(out->illuminant), "%s", illuminant);
	ret = lab->calibration == CISP_IQ_LAB_CEILING ? color_ceiling(lab, illuminant, out, &img)
						      : color_camera(lab, illuminant, out, &img);
	if (!ret && keep_picture) {
		out->picture = img;
		img.data = NULL;
	}
	cisp_iq_image_free(&img);
	return ret;
}

/*
 * Shoot @scene under @color's light and develop it: in the ceiling with
 * @color's white balance and matrix (and @lsc when given; @extra: sensor
 * options), in the camera mode as the camera's settled loop leaves it, with
 * its lens-shading correction off when @camera_lsc is false. @keep_raw
 * (or NULL) receives the raw frame.
 */
static int shoot_and_develop(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, const char *scene,
			     const char *extra, const struct cisp_lsc_params *lsc, bool camera_lsc,
			     struct cisp_iq_image *img, struct cisp_sensor_mode *m, struct cisp_image *keep_raw)
{
	struct cisp_sensor *s = NULL;
	struct cisp_image raw;
	int exposure, ret;

	if (lab->calibration != CISP_IQ_LAB_CEILING) {
		struct camera_shot shot;

		ret = camera_shoot(lab, scene, color->illuminant, NULL, &shot);
		if (ret)
			return ret;
		*m = shot.mode;
		if (!camera_lsc)
			shot.state->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_LSC);
		ret = img ? develop_camera(lab, &shot, shot.state, false, img) : 0;
		if (keep_raw && !ret) {
			*keep_raw = shot.raw;
			memset(&shot.raw, 0, sizeof(shot.raw));
		}
		camera_shot_free(&shot);
		return ret;
	}
	ret = shoot(lab, scene, color->illuminant, extra, &s, &raw, m, &exposure);
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

int cisp_iq_lab_sharpness(const struct cisp_iq_lab *lab, const struct cisp_iq_lab_color *color, bool keep_picture,
			  struct cisp_iq_lab_sharpness *out)
{
	struct cisp_sensor_mode m;
	struct cisp_iq_image img = { 0 };
	int ret;
	double w, h, half, len, thick;
	struct cisp_iq_rect roi[CISP_IQ_LAB_EDGES];

	memset(out, 0, sizeof(*out));
	ret = shoot_and_develop(lab, color, "resolution", NULL, NULL, true, &img, &m, NULL);
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
	ret = shoot_and_develop(lab, color, "steps", "shading=off,defects=off", NULL, true, &img, &m, &raw);
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
	ret = shoot_and_develop(lab, color, "star", NULL, NULL, true, &img, &m, NULL);
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
	struct cisp_lsc_params *lsc = NULL;
	bool camera = lab->calibration != CISP_IQ_LAB_CEILING;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	/* The ceiling calibrates on a noiseless flat field; the camera has its tuning's tables. */
	if (!camera) {
		lsc = calloc(1, sizeof(*lsc));
		ret = lsc ? shoot_and_develop(lab, color, "flat", "shading=on,noise=off,defects=off", NULL, true, NULL, &m,
					      &clean)
			  : cisp_error(-ENOMEM, "out of memory");
		if (!ret)
			ret = cisp_iq_fit_lsc(&clean, m.black_level, m.white_level, 17, 13, lsc);
		cisp_image_free(&clean);
	}
	if (!ret)
		ret = shoot_and_develop(lab, color, "flat", "shading=on", NULL, false, &img, &m, NULL);
	if (!ret)
		ret = cisp_iq_shading(&img, 9, &out->before);
	cisp_iq_image_free(&img);
	if (!ret)
		ret = shoot_and_develop(lab, color, "flat", "shading=on", lsc, true, &img, &m, NULL);
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
