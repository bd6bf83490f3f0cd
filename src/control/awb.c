/* SPDX-License-Identifier: MIT */
/*
 * Automatic white balance: grey world restricted to the zones that could be
 * grey, i.e. whose colour lies near the sensor's colour-temperature curve
 * (the camera colour of a grey under Planckian and daylight illuminants, from
 * the tuning), pulled towards that curve, and damped over time.
 *
 * Colours live in the chromaticity plane (r/g, b/g) of camera RGB before the
 * white-balance gains. The estimate for one frame:
 *  1. every zone with enough unsaturated, not too dark cells gives a point;
 *     its distance to the curve (max_curve_distance) decides whether it may
 *     be grey; its weight is 1 within the transverse band and falls off
 *     beyond, and grows steeply with its brightness (white patch: light
 *     surfaces are more often neutral than dark, saturated ones);
 *  2. the candidates' weighted grey world (sums of R, G, B) is a first
 *     estimate; the candidates are then weighted again by their distance to
 *     that estimate, which keeps the neutral surfaces of a scene and drops
 *     coloured ones that happen to lie near the curve (a scene dominated by
 *     one colour pulls the first estimate, not the second);
 *  3. the estimate moves towards its projection on the curve by
 *     prior_weight of its distance beyond the transverse band: lights are
 *     close to the curve (fluorescent and LED ones a little off it),
 *     surfaces are not;
 *  4. with too few candidates, the previous decision stays (or the default
 *     colour temperature at the start).
 * The decision moves by `speed` of the way to each frame's estimate.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "awb.h"
#include "block.h"
#include "core/error_internal.h"

/* A zone counts when this fraction of its cells is unsaturated. */
#define MIN_UNSATURATED 0.5
/* ... and its green mean is at least this (16-bit units): darker zones are mostly noise. */
#define MIN_GREEN 256.0
/* Zone weights grow with green to this power on top of the colour sums' own weighting. */
#define BRIGHTNESS_POWER 4
/* Candidate weight needed (in zones' worth of cells) to trust a frame's estimate. */
#define MIN_CANDIDATES 1.0
/* The second pass keeps zones within max_curve_distance times this of the first estimate. */
#define SECOND_PASS_RADIUS 1.0
/*
 * Distance (r/g, b/g) left between the decision and the frame's estimate below
 * which AWB becomes converged, and above which it searches again: the gap
 * keeps frame-to-frame noise in the statistics from flipping the state.
 */
#define CONVERGED_ENTER 0.004
#define CONVERGED_LEAVE 0.012

struct awb {
	const struct cisp_tuning *t;
	bool auto_mode, use_gains, started;
	double manual_ct, manual_gains[2];
	double cur[2];    /* current decision: (r/g, b/g) of grey */
	double cur_ct;
	enum cisp_awb_state state;
};

/* ---- the awb section ---- */

static const char *const ct_keys[] = { "ct", "r_over_g", "b_over_g", NULL };

static int ct_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct tuning_ct_point *c = ctx;

	switch (i) {
	case 0: return yaml_reader_number(r, v, k, 1000, 20000, &c->ct);
	/* Greys from 1/16 to 16 times green: gains the WB block holds (Q4.12, below 16). */
	case 1: return yaml_reader_number(r, v, k, 0.0625, 16, &c->r_over_g);
	default: return yaml_reader_number(r, v, k, 0.0625, 16, &c->b_over_g);
	}
}

static int ct_item(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *item)
{
	struct cisp_tuning *t = ctx;
	int ret = yaml_reader_map(r, item, k, ct_keys, 7, ct_key, &t->awb.ct[i]);

	return ret ? ret : tuning_sorted(r, item, k, "ct", i ? t->awb.ct[i - 1].ct : 0, t->awb.ct[i].ct, i);
}

static const char *const awb_keys[] = { "ct", "prior_weight", "max_curve_distance", "speed", "default_ct",
					"transverse", NULL };

static int awb_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct cisp_tuning *t = ctx;

	switch (i) {
	case 0: return yaml_reader_list(r, v, k, TUNING_MAX_CT, &t->awb.ct_count, ct_item, t);
	case 1: return yaml_reader_number(r, v, k, 0, 1, &t->awb.prior_weight);
	case 2: return yaml_reader_number(r, v, k, 0.01, 4, &t->awb.max_curve_distance);
	case 3: return yaml_reader_number(r, v, k, 0.05, 1, &t->awb.speed);
	case 4: return yaml_reader_number(r, v, k, 1000, 20000, &t->awb.default_ct);
	default: return yaml_reader_number(r, v, k, 0, 4, &t->awb.transverse);
	}
}

static int awb_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	int ret = yaml_reader_map(r, v, key, awb_keys, 1, awb_key, t);

	if (!ret && t->awb.default_ct == 0)
		t->awb.default_ct = t->awb.ct[t->awb.ct_count / 2].ct;
	return ret;
}

/*
 * A typical sensor's grey under Planckian and daylight light (the virtual
 * sensors' curve, rounded): close enough for grey world to start from, the
 * CT-curve prior is weak and the search radius wide for a sensor nobody has
 * measured.
 */
static const struct tuning_ct_point generic_curve[] = {
	{ 2300, 1.245, 0.251 }, { 2856, 1.026, 0.332 }, { 3600, 0.862, 0.431 }, { 4500, 0.736, 0.516 },
	{ 5000, 0.694, 0.564 }, { 6500, 0.615, 0.677 }, { 7500, 0.584, 0.734 },
};

static void awb_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	t->awb.prior_weight = 0.5;
	t->awb.max_curve_distance = 0.08;
	t->awb.transverse = 0.06;
	t->awb.speed = 0.25;
	t->awb.default_ct = 0; /* the parser takes the curve's middle point */
	if (!uncalibrated)
		return;
	t->awb.ct_count = sizeof(generic_curve) / sizeof(generic_curve[0]);
	memcpy(t->awb.ct, generic_curve, sizeof(generic_curve));
	t->awb.prior_weight = 0.3;
	t->awb.max_curve_distance = 0.2;
	t->awb.default_ct = 5000;
}

/* The curve point at @ct (linear in mired between points, clamped at the ends). */
static void curve_at(const struct cisp_tuning *t, double ct, double p[2])
{
	const struct tuning_ct_point *c = t->awb.ct;
	unsigned n = t->awb.ct_count, i;
	double f;

	if (ct <= c[0].ct || n == 1) {
		p[0] = c[0].r_over_g;
		p[1] = c[0].b_over_g;
		return;
	}
	if (ct >= c[n - 1].ct) {
		p[0] = c[n - 1].r_over_g;
		p[1] = c[n - 1].b_over_g;
		return;
	}
	for (i = 1; i < n - 1 && c[i].ct < ct; i++)
		;
	f = (1e6 / c[i - 1].ct - 1e6 / ct) / (1e6 / c[i - 1].ct - 1e6 / c[i].ct);
	p[0] = c[i - 1].r_over_g + f * (c[i].r_over_g - c[i - 1].r_over_g);
	p[1] = c[i - 1].b_over_g + f * (c[i].b_over_g - c[i - 1].b_over_g);
}

/*
 * The point of the curve nearest @q: its position in @p, its colour
 * temperature in @ct (mired-linear along each segment). Returns the distance.
 */
static double curve_project(const struct cisp_tuning *t, const double q[2], double p[2], double *ct)
{
	const struct tuning_ct_point *c = t->awb.ct;
	double best = INFINITY;

	if (t->awb.ct_count == 1) {
		p[0] = c[0].r_over_g;
		p[1] = c[0].b_over_g;
		*ct = c[0].ct;
		return hypot(q[0] - p[0], q[1] - p[1]);
	}
	for (unsigned i = 0; i + 1 < t->awb.ct_count; i++) {
		double dx = c[i + 1].r_over_g - c[i].r_over_g, dy = c[i + 1].b_over_g - c[i].b_over_g;
		double len2 = dx * dx + dy * dy, f = 0, x, y, d;

		if (len2 > 0)
			f = ((q[0] - c[i].r_over_g) * dx + (q[1] - c[i].b_over_g) * dy) / len2;
		f = f < 0 ? 0 : f > 1 ? 1 : f;
		x = c[i].r_over_g + f * dx;
		y = c[i].b_over_g + f * dy;
		d = hypot(q[0] - x, q[1] - y);
		if (d < best) {
			double m0 = 1e6 / c[i].ct, m1 = 1e6 / c[i + 1].ct;

			best = d;
			p[0] = x;
			p[1] = y;
			*ct = 1e6 / (m0 + f * (m1 - m0));
		}
	}
	return best;
}

double awb_curve_tint(const struct cisp_tuning *t, const double grey[2], double *ct)
{
	const struct tuning_ct_point *c = t->awb.ct;
	double p[2], d = curve_project(t, grey, p, ct);
	/* The way of rising temperature, to less red and more blue; a green light lies on its left. */
	double dir[2] = { c[t->awb.ct_count - 1].r_over_g - c[0].r_over_g, c[t->awb.ct_count - 1].b_over_g - c[0].b_over_g };

	return dir[0] * (grey[1] - p[1]) - dir[1] * (grey[0] - p[0]) >= 0 ? d : -d;
}

static void result_from(const struct awb *a, const double grey[2], double ct, struct awb_result *out)
{
	out->gains[0] = 1.0 / grey[0];
	out->gains[1] = 1.0;
	out->gains[2] = 1.0 / grey[1];
	out->colour_temperature = ct;
	out->state = a->state;
}

static int awb_init(struct awb *a, const struct cisp_tuning *t)
{
	if (t->awb.ct_count < 1)
		return cisp_error(-EINVAL, "control: tuning '%s' has no AWB curve (awb.ct)", t->name);
	a->t = t;
	a->auto_mode = true;
	a->manual_ct = t->awb.default_ct;
	a->manual_gains[0] = a->manual_gains[1] = 1.0;
	awb_reset(a);
	return 0;
}

int awb_create(struct awb **awb, const struct cisp_tuning *t)
{
	struct awb *a;
	int ret;

	if (!t)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	ret = awb_init(a, t);
	if (ret) {
		free(a);
		return ret;
	}
	*awb = a;
	return 0;
}

void awb_destroy(struct awb *awb)
{
	free(awb);
}

void awb_reset(struct awb *a)
{
	a->started = false;
	a->cur_ct = a->t->awb.default_ct;
	curve_at(a->t, a->cur_ct, a->cur);
	a->state = a->auto_mode ? CISP_AWB_SEARCHING : CISP_AWB_MANUAL;
}

/* The grey of the manual setting, and its colour temperature. */
static void manual_grey(const struct awb *a, double grey[2], double *ct)
{
	if (a->use_gains) {
		grey[0] = 1.0 / a->manual_gains[0];
		grey[1] = 1.0 / a->manual_gains[1];
		curve_project(a->t, grey, (double[2]){ 0, 0 }, ct);
	} else {
		curve_at(a->t, a->manual_ct, grey);
		*ct = a->manual_ct;
	}
}

void awb_set_manual(struct awb *a, bool enable_auto, bool use_gains, double ct, const double gains[2])
{
	bool was_auto = a->auto_mode;

	a->auto_mode = enable_auto;
	if (!enable_auto) {
		a->use_gains = use_gains;
		if (use_gains && gains && gains[0] > 0 && gains[1] > 0) {
			a->manual_gains[0] = gains[0];
			a->manual_gains[1] = gains[1];
		} else if (ct > 0) {
			a->manual_ct = ct;
			a->use_gains = false;
		}
		a->state = CISP_AWB_MANUAL;
		/* Auto resumes from the manual setting, not from a stale estimate. */
		manual_grey(a, a->cur, &a->cur_ct);
	} else if (!was_auto) {
		a->state = CISP_AWB_SEARCHING;
	}
}

void awb_current(const struct awb *a, struct awb_result *out)
{
	if (!a->auto_mode) {
		double grey[2], ct;

		manual_grey(a, grey, &ct);
		result_from(a, grey, ct, out);
		return;
	}
	result_from(a, a->cur, a->cur_ct, out);
}

/* A zone's chromaticity, or false when it cannot be used. */
static bool zone_point(const struct cisp_stats_zone *z, double q[2])
{
	if (!z->total || z->count < MIN_UNSATURATED * z->total || z->g < MIN_GREEN || !z->r || !z->b)
		return false;
	q[0] = (double)z->r / z->g;
	q[1] = (double)z->b / z->g;
	return true;
}

/* Weight that falls smoothly from 1 at distance 0 to 0 at @radius. */
static double falloff(double d, double radius)
{
	double x = d / radius;

	return x >= 1 ? 0 : (1 - x * x) * (1 - x * x);
}

/*
 * Weight of a zone at distance @d from the curve: 1 within the transverse
 * band (where lights off the curve put their greys), falling to 0 at
 * max_curve_distance.
 */
static double curve_falloff(const struct cisp_tuning *t, double d)
{
	double band = fmin(t->awb.transverse, 0.5 * t->awb.max_curve_distance);

	if (d <= band)
		return 1;
	return falloff(d - band, t->awb.max_curve_distance - band);
}

/*
 * This frame's estimate of grey, or false when too few zones could be grey.
 * @centre: NULL for the first pass (weights by distance to the curve), else
 * the first pass's estimate (weights also by distance to it).
 */
static bool grey_world(const struct awb *a, const struct cisp_stats *s, const double *centre, double est[2])
{
	const struct cisp_tuning *t = a->t;
	double sum[3] = { 0, 0, 0 }, wsum = 0, cells = 0, radius = t->awb.max_curve_distance;
	unsigned nz = (unsigned)s->zones_x * s->zones_y;

	for (unsigned i = 0; i < nz; i++) {
		const struct cisp_stats_zone *z = &s->zone[i];
		double q[2], p[2], ct, w;

		if (!zone_point(z, q))
			continue;
		w = curve_falloff(t, curve_project(t, q, p, &ct));
		if (centre)
			w *= falloff(hypot(q[0] - centre[0], q[1] - centre[1]), radius * SECOND_PASS_RADIUS);
		if (w <= 0)
			continue;
		/*
		 * Sums of colour, weighted steeply by brightness: bright zones count
		 * much more (whites and light greys are the surfaces grey world
		 * needs; saturated colours are darker), a step towards white patch.
		 */
		w *= (double)z->count * z->g * pow(z->g / 65535.0, BRIGHTNESS_POWER);
		sum[0] += w * z->r;
		sum[1] += w * z->g;
		sum[2] += w * z->b;
		wsum += w;
		cells += (double)z->count;
	}
	cells /= (double)s->width * s->height / 4 / (nz ? nz : 1);
	if (wsum <= 0 || cells < MIN_CANDIDATES || sum[1] <= 0)
		return false;
	est[0] = sum[0] / sum[1];
	est[1] = sum[2] / sum[1];
	return true;
}

void awb_process(struct awb *a, const struct cisp_stats *s, struct awb_result *out)
{
	const struct cisp_tuning *t = a->t;
	double est[2], first[2], p[2], ct, dist, step, speed;

	if (!a->auto_mode) {
		awb_current(a, out);
		return;
	}
	if (!s || !(s->valid & CISP_STATS_ZONES) || !grey_world(a, s, NULL, first)) {
		/* Nothing that could be grey: keep the decision. */
		awb_current(a, out);
		return;
	}
	if (!grey_world(a, s, first, est)) {
		est[0] = first[0];
		est[1] = first[1];
	}
	/* The prior pulls only what lies beyond the transverse band: lights off the curve stay. */
	dist = curve_project(t, est, p, &ct);
	if (dist > t->awb.transverse) {
		double pull = t->awb.prior_weight * (dist - t->awb.transverse) / dist;

		for (int c = 0; c < 2; c++)
			est[c] += pull * (p[c] - est[c]);
	}

	/* The first estimate after a reset is taken whole; later ones are damped. */
	speed = a->started ? t->awb.speed : 1.0;
	step = 0;
	for (int c = 0; c < 2; c++) {
		double d = speed * (est[c] - a->cur[c]);

		a->cur[c] += d;
		step = fmax(step, fabs(est[c] - a->cur[c]));
	}
	curve_project(t, a->cur, p, &a->cur_ct);
	a->started = true;
	if (step < CONVERGED_ENTER)
		a->state = CISP_AWB_CONVERGED;
	else if (step > CONVERGED_LEAVE || a->state != CISP_AWB_CONVERGED)
		a->state = CISP_AWB_SEARCHING;
	result_from(a, a->cur, a->cur_ct, out);
}

/* ---- the algorithm ---- */

/* Publish a decision in the loop's report. */
static void publish(struct control_context *ctx, const struct awb_result *res)
{
	ctx->state.awb_state = res->state;
	ctx->state.colour_temperature = res->colour_temperature;
	ctx->state.colour_gains[0] = res->gains[0] / res->gains[1];
	ctx->state.colour_gains[1] = res->gains[2] / res->gains[1];
}

/* The algorithm's state: the AWB, and the value of every AWB request field. */
struct awb_algorithm {
	struct awb awb;
	bool enable;      /* awb_enable */
	bool use_gains;   /* colour gains (not a temperature) were asked for last */
	double ct;        /* colour_temperature */
	double gains[2];  /* colour_gains */
};

static int awb_algorithm_init(void *self, const struct control_context *ctx)
{
	struct awb_algorithm *a = self;

	a->enable = true;
	a->ct = ctx->tuning->awb.default_ct;
	a->gains[0] = a->gains[1] = 1;
	return awb_init(&a->awb, ctx->tuning);
}

static void awb_request(void *self, struct control_context *ctx, const struct cisp_control_request *r)
{
	struct awb_algorithm *a = self;

	(void)ctx;
	if (r->mask & CISP_REQ_AWB_ENABLE)
		a->enable = r->awb_enable;
	if (r->mask & CISP_REQ_COLOUR_TEMPERATURE) {
		a->ct = r->colour_temperature;
		a->use_gains = false;
	}
	if (r->mask & CISP_REQ_COLOUR_GAINS) {
		a->gains[0] = r->colour_gains[0];
		a->gains[1] = r->colour_gains[1];
		a->use_gains = true;
	}
	awb_set_manual(&a->awb, a->enable, a->use_gains, a->ct, a->gains);
}

static void awb_start(void *self, struct control_context *ctx)
{
	struct awb_algorithm *a = self;
	struct awb_result res;

	awb_reset(&a->awb);
	awb_current(&a->awb, &res);
	publish(ctx, &res);
}

static void awb_algorithm_process(void *self, struct control_context *ctx)
{
	struct awb_algorithm *a = self;
	struct awb_result res;

	awb_process(&a->awb, ctx->stats, &res);
	publish(ctx, &res);
}

/* The WB block: AWB's gains, with the ISP's share of the digital gain. */
static uint32_t awb_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	double dgain = ctx->isp_dgain > 0 ? ctx->isp_dgain : 1.0;
	struct cisp_wb_params wb;

	(void)self;
	memset(&wb, 0, sizeof(wb));
	wb.header = ps->wb.header;
	wb.gain[CISP_CH_R] = abi_fixed_u16(ctx->state.colour_gains[0] * dgain, 4096);
	wb.gain[CISP_CH_GR] = wb.gain[CISP_CH_GB] = abi_fixed_u16(dgain, 4096);
	wb.gain[CISP_CH_B] = abi_fixed_u16(ctx->state.colour_gains[1] * dgain, 4096);
	return control_write_block(&ps->wb, &wb, sizeof(wb), CISP_BLOCK_WB) |
	       control_enable_block(ps, CISP_BLOCK_WB, true);
}

const struct control_algorithm awb_algorithm = {
	.section = "awb",
	.required = true,
	.size = sizeof(struct awb_algorithm),
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_WB),
	.requests = CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_TEMPERATURE | CISP_REQ_COLOUR_GAINS,
	.parse = awb_parse,
	.defaults = awb_defaults,
	.init = awb_algorithm_init,
	.request = awb_request,
	.start = awb_start,
	.process = awb_algorithm_process,
	.prepare = awb_prepare,
};
