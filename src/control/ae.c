/* SPDX-License-Identifier: MIT */
/*
 * Auto exposure: docs/control.md, "AE/AGC".
 */
#include <math.h>
#include <stdint.h>

#include "ae.h"
#include "flicker.h"

/* The exposure product a first stream starts with: 10 ms at x1. */
#define START_PRODUCT 10000.0

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void ae_init(struct ae *ae, const struct cisp_tuning *t)
{
	*ae = (struct ae){ .t = t, .metering = CISP_AE_METERING_CENTRE, .state = CISP_AE_SEARCHING, .error = 1.0 };
}

void ae_reset(struct ae *ae, double product)
{
	ae->decided = product;
	ae->have_frame = false;
	ae->state = CISP_AE_SEARCHING;
	ae->error = 1.0;
	ae->mean = 0;
	ae->scene = 0;
}

/* Weight of a zone centred at (u, v), both 0..1 across the frame. */
static double zone_weight(enum cisp_ae_metering metering, double u, double v, unsigned zx, unsigned zy)
{
	double du = u - 0.5, dv = v - 0.5;

	switch (metering) {
	case CISP_AE_METERING_SPOT: {
		/* The central 20% of each dimension, and at least the zones holding the centre. */
		double hx = fmax(0.1, 0.5 / zx), hy = fmax(0.1, 0.5 / zy);
		return fabs(du) <= hx && fabs(dv) <= hy ? 1.0 : 0.0;
	}
	case CISP_AE_METERING_MATRIX:
		return 1.0;
	case CISP_AE_METERING_CENTRE:
	default:
		/* Gaussian of sigma 0.3 frame: the corners count 6% of the centre. */
		return exp(-(du * du + dv * dv) / (2 * 0.3 * 0.3));
	}
}

/* A zone's luma after white balance; saturated cells, left out of its means, count as full scale (a lower bound). */
static double zone_luma(const struct cisp_stats_zone *z, const double wb[3])
{
	double luma = (54.0 * z->r * wb[0] + 183.0 * z->g * wb[1] + 19.0 * z->b * wb[2]) / (256.0 * 65535.0);
	double unsat = (double)z->count / z->total;

	return fmin(luma, 1.0) * unsat + (1.0 - unsat);
}

void ae_measure(const struct cisp_tuning *t, enum cisp_ae_metering metering, const struct cisp_stats *stats,
		const double wb[3], double isp_gain, struct ae_measure *m)
{
	unsigned zx = stats->zones_x, zy = stats->zones_y;
	double wsum = 0, lsum = 0, gsum = 0, cells = 0, saturated = 0;

	for (unsigned y = 0; y < zy; y++) {
		for (unsigned x = 0; x < zx; x++) {
			const struct cisp_stats_zone *z = &stats->zone[y * zx + x];
			if (!z->total)
				continue;
			double luma = zone_luma(z, wb);
			double green = z->g / 65535.0;
			double unsat = (double)z->count / z->total;
			green = green * unsat + (1.0 - unsat);
			double w = zone_weight(metering, (x + 0.5) / zx, (y + 0.5) / zy, zx, zy) * z->total;
			wsum += w;
			lsum += w * luma;
			gsum += green * z->total;
			cells += z->total;
			saturated += z->total - z->count;
		}
	}
	m->mean = wsum > 0 ? lsum / wsum * (isp_gain > 0 ? isp_gain : 1.0) : 0;
	m->green = cells > 0 ? gsum / cells : 0;
	m->saturated = cells > 0 ? saturated / cells : 0;

	/* The level that all but highlight_fraction of the cells stay under (upper edge of its bin). */
	double total = 0;
	for (unsigned b = 0; b < 256; b++)
		total += stats->hist[b];
	double allowed = t->ae.highlight_fraction * total, above = 0;
	unsigned b = 255;
	for (;; b--) {
		above += stats->hist[b];
		if (above > allowed || b == 0)
			break;
	}
	m->highlight = total > 0 ? (b + 1) / 256.0 : 0;
}

double ae_face_mean(const struct cisp_stats *stats, const double wb[3], double isp_gain,
		    const struct control_faces *faces)
{
	unsigned zx = stats->zones_x, zy = stats->zones_y;
	double wsum = 0, lsum = 0;

	for (unsigned i = 0; i < faces->count && i < CONTROL_MAX_FACES; i++) {
		const struct control_face *f = &faces->face[i];
		/* The central part of the rectangle: skin, not hair or the background beside the face. */
		double x0 = f->x + f->width * (1 - AE_FACE_CORE) / 2, x1 = x0 + f->width * AE_FACE_CORE;
		double y0 = f->y + f->height * (1 - AE_FACE_CORE) / 2, y1 = y0 + f->height * AE_FACE_CORE;

		for (unsigned y = 0; y < zy; y++) {
			double oy = fmin(y1, (y + 1.0) / zy) - fmax(y0, (double)y / zy);
			if (oy <= 0)
				continue;
			for (unsigned x = 0; x < zx; x++) {
				const struct cisp_stats_zone *z = &stats->zone[y * zx + x];
				double ox = fmin(x1, (x + 1.0) / zx) - fmax(x0, (double)x / zx);
				if (ox <= 0 || !z->total)
					continue;
				/* Weighted by the share of the zone the face covers. */
				double w = ox * oy * zx * zy;
				wsum += w;
				lsum += w * zone_luma(z, wb);
			}
		}
	}
	return wsum > 0 ? lsum / wsum * (isp_gain > 0 ? isp_gain : 1.0) : -1;
}

void ae_meter_faces(struct ae_measure *m, double face_mean)
{
	if (face_mean < 0)
		return;
	/* A blend of logarithms: a bright window beside the face moves the face's exposure by its ratio^0.1 only. */
	m->mean = exp((1 - AE_FACE_WEIGHT) * log(fmax(m->mean, 1e-6)) + AE_FACE_WEIGHT * log(fmax(face_mean, 1e-6)));
	/* The face wins over highlights: a window behind it may clip. */
	m->highlight = 0;
}

double ae_process(struct ae *ae, const struct ae_measure *m, double frame_product, double min_product,
		  double max_product)
{
	const struct cisp_tuning *t = ae->t;
	double target = t->ae.target * exp2(ae->ev);

	/* The product that puts the metered mean on target, judged at the product this frame used. */
	double aim = m->mean > 1e-6 ? frame_product * target / m->mean : frame_product * 64;
	/* Highlight protection: keep the highlight level under its limit, within AE_HIGHLIGHT_MAX_STOPS. */
	if (m->highlight > 0 && m->highlight * aim / frame_product > t->ae.highlight_level) {
		double hl = frame_product * t->ae.highlight_level / m->highlight;
		aim = fmax(hl, aim * exp2(-AE_HIGHLIGHT_MAX_STOPS));
	}

	ae->mean = m->mean;
	ae->scene = frame_product > 0 ? m->mean / frame_product : 0;
	ae->error = frame_product / aim;
	ae->have_frame = true;

	double goal = clampd(aim, min_product, max_product);
	double step = log(goal / ae->decided);
	double speed = fabs(step) > log(AE_JUMP_RATIO) ? 1.0 : t->ae.speed;
	/* Inside half the tolerance the decision holds still: noise does not make it wander. */
	if (fabs(step) > log(1.0 + t->ae.tolerance / 2))
		ae->decided = clampd(ae->decided * exp(speed * step), min_product, max_product);

	/*
	 * Limited: the aim is beyond a limit and the decision there, or holding
	 * still within half the tolerance of it (a decision that came close in
	 * damped steps stops short of the limit and would search for ever).
	 */
	double tol = t->ae.tolerance, hold = 1 + tol / 2;
	if (aim > max_product * (1 + tol) && ae->decided * hold >= max_product * (1 - 1e-9))
		ae->state = CISP_AE_LIMITED;
	else if (aim < min_product * (1 - tol) && ae->decided <= min_product * hold * (1 + 1e-9))
		ae->state = CISP_AE_LIMITED;
	else
		ae->state = fabs(ae->error - 1.0) <= tol ? CISP_AE_CONVERGED : CISP_AE_SEARCHING;
	return ae->decided;
}

/* Round @v down to min + k * step within [min, max]. */
static int32_t to_step(double v, int32_t min, int32_t max, int32_t step)
{
	if (v <= min)
		return min;
	if (v >= max)
		return max;
	if (step < 1)
		step = 1;
	return min + (int32_t)floor((v - min) / step + 1e-9) * step;
}

/* The longest exposure that keeps the shortest frame: the requested frame rate. */
static double rate_exposure_max(const struct ae_limits *l)
{
	double lines = fmin((double)l->frame_length_min - l->exposure_margin, l->exposure_max);
	return lines < l->exposure_min ? l->exposure_min : lines;
}

void ae_split(const struct ae_limits *l, double product, double flicker_period_us, struct ae_exposure *out)
{
	double lines = product / (l->again_min / 256.0) / l->line_us;
	double at_rate = rate_exposure_max(l);
	/*
	 * The frame rate is a promise: past the longest exposure of the shortest
	 * frame, analogue gain rises first; only a product that the largest
	 * analogue gain cannot give there makes the exposure (and the frame)
	 * longer, as far as the frame duration limits allow.
	 */
	if (lines > at_rate)
		lines = fmax(at_rate, product / (l->again_max / 256.0) / l->line_us);
	if (lines > l->exposure_max)
		lines = l->exposure_max;
	if (flicker_period_us > 0) {
		/* Whole flicker periods, when the light allows one: the bands then cancel. */
		double period = flicker_period_us / l->line_us;
		if (lines >= period && period <= l->exposure_max) {
			double k = floor(lines / period + 1e-9);
			lines = floor(k * period + 0.5);
			if (lines > l->exposure_max)
				lines = floor((k - 1) * period + 0.5);
		}
	}
	out->exposure = to_step(lines, l->exposure_min, l->exposure_max, l->exposure_step);
	double exposure_us = out->exposure * l->line_us;

	double left = product / exposure_us;
	out->again = to_step(left * 256.0, l->again_min, l->again_max, l->again_step);
	left /= out->again / 256.0;

	out->dgain = 256;
	if (l->has_dgain) {
		double cap = fmin(l->dgain_max, l->max_digital_gain * 256.0);
		out->dgain = to_step(left * 256.0, l->dgain_min, (int32_t)cap, l->dgain_step);
		left /= out->dgain / 256.0;
	}
	/* The ISP's digital gain takes what the sensor cannot give; rounding remainders stay. */
	out->isp_dgain = 1.0;
	bool sensor_capped = !l->has_dgain || out->dgain * 1.0 >= fmin(l->dgain_max, l->max_digital_gain * 256.0);
	if (sensor_capped && left > 1.0)
		out->isp_dgain = fmin(left, l->max_digital_gain / (out->dgain / 256.0));
	if (out->isp_dgain < 1.0)
		out->isp_dgain = 1.0;

	int32_t fl = out->exposure + l->exposure_margin;
	out->frame_length = fl < l->frame_length_min ? l->frame_length_min : fl > l->frame_length_max ? l->frame_length_max : fl;
	out->product = exposure_us * out->again / 256.0 * out->dgain / 256.0 * out->isp_dgain;
}

double ae_min_product(const struct ae_limits *l)
{
	return l->exposure_min * l->line_us * l->again_min / 256.0 * (l->has_dgain ? l->dgain_min / 256.0 : 1.0);
}

double ae_max_product(const struct ae_limits *l)
{
	return l->exposure_max * l->line_us * l->again_max / 256.0 * l->max_digital_gain;
}

/* ---- the ae section ---- */

static const char *const ae_keys[] = { "target", "tolerance", "highlight_fraction", "highlight_level", "speed",
				       "max_exposure_us", "max_analogue_gain", "max_digital_gain", "lux_scale",
				       NULL };

/*
 * The ranges keep AE finite and converging for every EV (a target times
 * 2^-4..2^4): a target the statistics can measure and that leaves
 * headroom, a tolerance wider than a gain step of 1/256, a speed that gets
 * there in tens of frames even where highlight protection moves the aim
 * by 5% a frame.
 */
static int ae_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;

	switch (i) {
	case 0: return yaml_reader_number(r, v, k, 0.01, 0.5, &t->ae.target);
	case 1: return yaml_reader_number(r, v, k, 0.01, 0.5, &t->ae.tolerance);
	case 2: return yaml_reader_number(r, v, k, 0, 0.5, &t->ae.highlight_fraction);
	case 3: return yaml_reader_number(r, v, k, 0.1, 1, &t->ae.highlight_level);
	case 4: return yaml_reader_number(r, v, k, 0.1, 1, &t->ae.speed);
	case 5: return yaml_reader_number(r, v, k, 1, 1e7, &t->ae.max_exposure_us);
	case 6: return yaml_reader_number(r, v, k, 1, 256, &t->ae.max_analogue_gain);
	case 7: return yaml_reader_number(r, v, k, 1, 256, &t->ae.max_digital_gain);
	default: return yaml_reader_number(r, v, k, 0, 1e12, &t->ae.lux_scale);
	}
}

static int ae_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_map(r, v, key, ae_keys, 0, ae_key, t);
}

static void ae_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->ae.target = 0.18;
	t->ae.tolerance = 0.04;
	t->ae.highlight_fraction = 0.02;
	t->ae.highlight_level = 0.95;
	t->ae.speed = 0.6;
	t->ae.max_exposure_us = 66666;
	t->ae.max_analogue_gain = 16;
	t->ae.max_digital_gain = 4;
	t->ae.lux_scale = 0;
}

/* ---- the algorithm ---- */

struct ae_algorithm {
	struct ae ae;
	struct ae_limits limits;
	int32_t fixed_exposure;  /* lines, for a sensor without an exposure control (its metadata's); else 0 */
	bool started;            /* a stream was started: the next starts from the latest decision */
	/* The request's values. */
	bool enabled;
	double exposure_us, analogue_gain, digital_gain;
	double frame_duration_us[2];
	double max_digital_gain; /* 0: the tuning's */
};

static int32_t clampi(double v, int32_t lo, int32_t hi)
{
	return v < lo ? lo : v > hi ? hi : (int32_t)v;
}

/* The exposure split's limits from the mode, the controls, the tuning and the requested frame durations. */
static void update_limits(struct ae_algorithm *a, const struct control_context *ctx)
{
	const struct cisp_sensor_control_info *exp = &ctx->controls[CISP_SENSOR_EXPOSURE];
	const struct cisp_sensor_control_info *fl = &ctx->controls[CISP_SENSOR_FRAME_LENGTH];
	const struct cisp_sensor_control_info *ag = &ctx->controls[CISP_SENSOR_ANALOGUE_GAIN];
	const struct cisp_sensor_control_info *dg = &ctx->controls[CISP_SENSOR_DIGITAL_GAIN];
	const struct cisp_tuning *t = ctx->tuning;
	struct ae_limits *l = &a->limits;
	double line_us = ctx->line_ns / 1000.0;
	double max_digital_gain = a->max_digital_gain > 0 ? a->max_digital_gain : t->ae.max_digital_gain;
	int32_t fl_lo = (int32_t)ctx->mode.frame_length_default, fl_hi = fl_lo;

	if (fl->supported) {
		fl_lo = a->frame_duration_us[0] > 0 ? clampi(lround(a->frame_duration_us[0] / line_us), fl->min, fl->max)
						    : clampi(ctx->mode.frame_length_default, fl->min, fl->max);
		/*
		 * The shortest frame is the nearest line count to the requested rate;
		 * without a longest duration the frame rate holds: frames never stretch.
		 */
		fl_hi = a->frame_duration_us[1] > 0 ? clampi(floor(a->frame_duration_us[1] / line_us), fl->min, fl->max)
						    : fl_lo;
		if (fl_lo > fl_hi)
			fl_lo = fl_hi;
	}
	*l = (struct ae_limits){
		.line_us = line_us,
		.exposure_min = exp->supported ? exp->min : a->fixed_exposure,
		.exposure_step = exp->supported && exp->step > 0 ? exp->step : 1,
		.exposure_margin = (int32_t)ctx->mode.exposure_margin,
		.frame_length_min = fl_lo,
		.frame_length_max = fl_hi,
		.again_min = ag->supported ? ag->min : 256,
		.again_max = ag->supported ? clampi(t->ae.max_analogue_gain * 256, ag->min, ag->max) : 256,
		.again_step = ag->supported && ag->step > 0 ? ag->step : 1,
		.has_dgain = dg->supported,
		.dgain_min = dg->supported ? dg->min : 256,
		.dgain_max = dg->supported ? dg->max : 256,
		.dgain_step = dg->supported && dg->step > 0 ? dg->step : 1,
		.max_digital_gain = max_digital_gain >= 1 ? max_digital_gain : 1,
	};
	double longest = fmin(t->ae.max_exposure_us / line_us, (double)fl_hi - l->exposure_margin);
	/* Without an exposure control the exposure is what the sensor does: AE has the gains only. */
	l->exposure_max = exp->supported ? clampi(floor(longest), exp->min, exp->max) : a->fixed_exposure;
}

/* The controls of manual exposure: the requested values, clamped to the sensor's. */
static void manual_exposure(const struct ae_algorithm *a, const struct control_context *ctx, struct ae_exposure *e)
{
	const struct ae_limits *l = &a->limits;
	const struct cisp_sensor_control_info *exp = &ctx->controls[CISP_SENSOR_EXPOSURE];
	const struct cisp_sensor_control_info *ag = &ctx->controls[CISP_SENSOR_ANALOGUE_GAIN];
	const struct cisp_sensor_control_info *fl = &ctx->controls[CISP_SENSOR_FRAME_LENGTH];
	int32_t fl_max = fl->supported ? fl->max : l->frame_length_max;

	e->exposure = exp->supported ? clampi(lround(a->exposure_us / l->line_us), exp->min,
					      (int32_t)fmin(exp->max, (double)fl_max - l->exposure_margin))
				     : a->fixed_exposure;
	e->again = ag->supported ? clampi(lround(a->analogue_gain * 256), ag->min, ag->max) : 256;
	double dgain = a->digital_gain > 0 ? a->digital_gain : 1.0;
	e->dgain = 256;
	e->isp_dgain = 1.0;
	if (l->has_dgain)
		e->dgain = clampi(lround(dgain * 256), l->dgain_min, l->dgain_max);
	else
		e->isp_dgain = fmax(1.0, fmin(dgain, l->max_digital_gain));
	int32_t frame_length = e->exposure + l->exposure_margin;
	if (frame_length < l->frame_length_min)
		frame_length = l->frame_length_min;
	e->frame_length = frame_length;
	e->product = e->exposure * l->line_us * e->again / 256.0 * e->dgain / 256.0 * e->isp_dgain;
}

/* The next decision's controls, in the context: AE's split of @product, or the manual values. */
static void decide(struct ae_algorithm *a, struct control_context *ctx, double product)
{
	struct ae_exposure *e = &ctx->exposure;

	if (a->enabled)
		ae_split(&a->limits, product, flicker_period_us(ctx->state.flicker_hz), e);
	else
		manual_exposure(a, ctx, e);
	ctx->state.exposure_us = e->exposure * a->limits.line_us;
	ctx->state.analogue_gain = e->again / 256.0;
	ctx->state.digital_gain = e->dgain / 256.0 * e->isp_dgain;
}

static int ae_algorithm_init(void *self, const struct control_context *ctx)
{
	struct ae_algorithm *a = self;

	ae_init(&a->ae, ctx->tuning);
	a->enabled = true;
	a->exposure_us = START_PRODUCT;
	a->analogue_gain = a->digital_gain = 1;
	return 0;
}

static int ae_configure(void *self, struct control_context *ctx)
{
	struct ae_algorithm *a = self;
	const struct cisp_sensor_mode *m = &ctx->mode;

	if (!ctx->controls[CISP_SENSOR_EXPOSURE].supported)
		a->fixed_exposure = clampi((double)m->frame_length_default - m->exposure_margin, 1, INT32_MAX);
	update_limits(a, ctx);
	return 0;
}

static void ae_request(void *self, struct control_context *ctx, const struct cisp_control_request *r)
{
	struct ae_algorithm *a = self;
	uint32_t m = r->mask;

	/* Leaving auto exposure keeps the current values unless the request gives others. */
	if ((m & CISP_REQ_AE_ENABLE) && !r->ae_enable && a->enabled) {
		a->exposure_us = ctx->state.exposure_us > 0 ? ctx->state.exposure_us : START_PRODUCT;
		a->analogue_gain = ctx->state.analogue_gain > 0 ? ctx->state.analogue_gain : 1;
		a->digital_gain = ctx->state.digital_gain > 0 ? ctx->state.digital_gain : 1;
	}
	if (m & CISP_REQ_AE_ENABLE)
		a->enabled = r->ae_enable;
	if (m & CISP_REQ_EXPOSURE)
		a->exposure_us = r->exposure_us;
	if (m & CISP_REQ_ANALOGUE_GAIN)
		a->analogue_gain = r->analogue_gain;
	if (m & CISP_REQ_DIGITAL_GAIN)
		a->digital_gain = r->digital_gain;
	if (m & CISP_REQ_EV)
		a->ae.ev = r->ev;
	if (m & CISP_REQ_METERING)
		a->ae.metering = r->metering;
	if (m & CISP_REQ_FRAME_DURATION) {
		a->frame_duration_us[0] = r->frame_duration_us[0];
		a->frame_duration_us[1] = r->frame_duration_us[1];
	}
	if (m & CISP_REQ_MAX_DIGITAL_GAIN)
		a->max_digital_gain = r->max_digital_gain;
	if (m & (CISP_REQ_FRAME_DURATION | CISP_REQ_MAX_DIGITAL_GAIN))
		update_limits(a, ctx);
}

static void ae_start(void *self, struct control_context *ctx)
{
	struct ae_algorithm *a = self;
	double product = a->started ? a->ae.decided : START_PRODUCT;

	product = fmin(fmax(product, ae_min_product(&a->limits)), ae_max_product(&a->limits));
	ae_reset(&a->ae, product);
	a->ae.state = a->enabled ? CISP_AE_SEARCHING : CISP_AE_MANUAL;
	decide(a, ctx, product);
	a->started = true;
	ctx->state.ae_state = a->ae.state;
	ctx->state.ae_error = 1.0;
}

static void ae_algorithm_process(void *self, struct control_context *ctx)
{
	struct ae_algorithm *a = self;
	const struct cisp_tuning *t = ctx->tuning;
	const struct cisp_sensor_metadata *md = ctx->md;
	const struct cisp_sensor_control_info *c = ctx->controls;

	/* A sensor without an exposure control: its exposure is whatever the metadata says. */
	if (!c[CISP_SENSOR_EXPOSURE].supported && md->exposure_ns > 0) {
		int32_t lines = clampi(lround(md->exposure_ns / ctx->line_ns), 1, INT32_MAX);
		if (lines != a->fixed_exposure) {
			a->fixed_exposure = lines;
			update_limits(a, ctx);
		}
	}

	/* The exposure product this frame used: its metadata, and the ISP's gain the loop gave it. */
	int32_t lines = c[CISP_SENSOR_EXPOSURE].supported ? md->controls[CISP_SENSOR_EXPOSURE] : a->fixed_exposure;
	double exposure_us = md->exposure_ns > 0 ? md->exposure_ns / 1000.0 : lines * a->limits.line_us;
	double again = c[CISP_SENSOR_ANALOGUE_GAIN].supported ? md->controls[CISP_SENSOR_ANALOGUE_GAIN] / 256.0 : 1.0;
	double dgain = c[CISP_SENSOR_DIGITAL_GAIN].supported ? md->controls[CISP_SENSOR_DIGITAL_GAIN] / 256.0 : 1.0;
	double isp_dgain = ctx->frame_isp_dgain;
	double frame_product = fmax(exposure_us * again * dgain * isp_dgain, 1e-3);

	struct ae_measure m;
	const double wb[3] = { ctx->state.colour_gains[0], 1.0, ctx->state.colour_gains[1] };
	ae_measure(t, a->ae.metering, ctx->stats, wb, isp_dgain, &m);
	if (ctx->faces.count)
		ae_meter_faces(&m, ae_face_mean(ctx->stats, wb, isp_dgain, &ctx->faces));

	double product = a->ae.decided;
	if (a->enabled) {
		product = ae_process(&a->ae, &m, frame_product, ae_min_product(&a->limits), ae_max_product(&a->limits));
	} else {
		a->ae.state = CISP_AE_MANUAL;
		a->ae.error = m.mean / (t->ae.target * exp2(a->ae.ev));
		a->ae.scene = m.mean / frame_product;
	}
	decide(a, ctx, product);
	if (!a->enabled)
		a->ae.decided = ctx->exposure.product; /* auto resumes from the manual exposure */

	ctx->green = m.green;
	ctx->scene = a->ae.scene;
	ctx->state.ae_state = a->ae.state;
	ctx->state.ae_error = a->ae.error;
	/* Mean green at the statistics tap (16-bit units) against the sensor's share of the product. */
	ctx->state.lux = t->ae.lux_scale * m.green * 65535.0 / (frame_product / isp_dgain * 1e-6);
}

const struct control_algorithm ae_algorithm = {
	.section = "ae",
	.size = sizeof(struct ae_algorithm),
	.requests = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN | CISP_REQ_DIGITAL_GAIN |
		    CISP_REQ_EV | CISP_REQ_METERING | CISP_REQ_FRAME_DURATION | CISP_REQ_MAX_DIGITAL_GAIN,
	.parse = ae_parse,
	.defaults = ae_defaults,
	.init = ae_algorithm_init,
	.configure = ae_configure,
	.request = ae_request,
	.start = ae_start,
	.process = ae_algorithm_process,
};
