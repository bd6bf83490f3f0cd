/* SPDX-License-Identifier: MIT */
/*
 * Auto exposure: docs/control.md, "AE/AGC".
 */
#include <math.h>

#include "ae.h"

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
			double luma = (54.0 * z->r * wb[0] + 183.0 * z->g * wb[1] + 19.0 * z->b * wb[2]) / (256.0 * 65535.0);
			double green = z->g / 65535.0;
			/* Saturated cells are left out of the means: count them as full scale (a lower bound). */
			double unsat = (double)z->count / z->total;
			luma = fmin(luma, 1.0) * unsat + (1.0 - unsat);
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

	double tol = t->ae.tolerance;
	if (aim > max_product * (1 + tol) && ae->decided >= max_product * (1 - 1e-9))
		ae->state = CISP_AE_LIMITED;
	else if (aim < min_product * (1 - tol) && ae->decided <= min_product * (1 + 1e-9))
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

void ae_split(const struct ae_limits *l, double product, double flicker_period_us, struct ae_exposure *out)
{
	double lines = product / (l->again_min / 256.0) / l->line_us;
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
