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

#include "colour.h"

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

static void result_from(const struct awb *a, const double grey[2], double ct, struct awb_result *out)
{
	out->gains[0] = 1.0 / grey[0];
	out->gains[1] = 1.0;
	out->gains[2] = 1.0 / grey[1];
	out->colour_temperature = ct;
	out->state = a->state;
}

int awb_create(struct awb **awb, const struct cisp_tuning *t)
{
	struct awb *a;

	if (!t || t->awb.ct_count < 1)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->t = t;
	a->auto_mode = true;
	a->manual_ct = t->awb.default_ct;
	a->manual_gains[0] = a->manual_gains[1] = 1.0;
	awb_reset(a);
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
