/* SPDX-License-Identifier: MIT */
/*
 * The photon transfer curve: two frames of one exposure and gain (flats, or
 * darks) differ only by temporal noise, so over a small tile half the
 * variance of their difference is the noise variance at the tile's mean
 * level, free of shading and of every fixed pattern. The shading of a flat
 * spreads its tiles over a range of levels, several exposures cover the
 * rest. Per gain and channel, var = a * signal + b is fitted (weighted by
 * 1 / var^2: each tile's variance is known to the same relative precision)
 * on the tiles below the level where the curve turns over (the full well);
 * a is the shot noise (codes per electron: the conversion gain), b the read
 * noise.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

/* Tiles deviating from the line by more than this (relative) are past the turn-over. */
#define TURN_OVER 0.5

static int add_point(struct calib_noise *n, double gain, unsigned c, double raw, double var)
{
	if (n->count == n->capacity) {
		unsigned cap = n->capacity ? 2 * n->capacity : 1024;
		void *p = realloc(n->points, cap * sizeof(*n->points)), *q;

		if (!p)
			return cisp_error(-ENOMEM, "out of memory");
		n->points = p;
		q = realloc(n->raw_signal, cap * sizeof(*n->raw_signal));
		if (!q)
			return cisp_error(-ENOMEM, "out of memory");
		n->raw_signal = q;
		n->capacity = cap;
	}
	n->points[n->count] = (struct cisp_calib_ptc_point){ .gain = gain, .channel = c, .variance = var };
	n->raw_signal[n->count++] = raw;
	return 0;
}

int calib_noise_add_pair(struct calib_noise *n, const struct calib_planes *a, const struct calib_planes *b, double gain,
			 double white, double *variance)
{
	uint32_t t = a->w / 8 < 32 ? (a->w / 8 < 8 ? 8 : a->w / 8) : 32;
	size_t cap = (size_t)t * t;
	float *d = malloc(cap * sizeof(float)), *s = malloc(cap * sizeof(float)), *g = NULL;
	size_t ng = 0;
	bool clipped = false;
	int ret = 0;

	*variance = -1;
	if (d && s)
		g = malloc(((size_t)(a->w / t) * (a->h / t) * 2 + 1) * sizeof(float));
	if (!g) {
		free(d);
		free(s);
		return cisp_error(-ENOMEM, "out of memory");
	}
	for (unsigned c = 0; c < 4 && !ret; c++)
		for (uint32_t ty = 0; ty + t <= a->h && !ret; ty += t)
			for (uint32_t tx = 0; tx + t <= a->w && !ret; tx += t) {
				double md, sd, ms, ss, sum = 0, sum2 = 0, mean = 0;
				size_t k = 0, m = 0, at_white = 0;

				for (uint32_t y = ty; y < ty + t; y++)
					for (uint32_t x = tx; x < tx + t; x++) {
						float va = a->p[c][(size_t)y * a->w + x], vb = b->p[c][(size_t)y * a->w + x];

						at_white += (va >= white) + (vb >= white);
						d[k] = va - vb;
						s[k++] = (va + vb) / 2;
					}
				/* A few hot pixels read white in both frames; more than 1 % of the samples is the ADC clipping. */
				if (at_white > 2 * fmax(2, 0.01 * (double)k)) {
					clipped = true;
					continue;
				}
				/* Leave out the samples that stand out (defective pixels), in level or in difference. */
				calib_median_mad(d, k, &md, &sd);
				calib_median_mad(s, k, &ms, &ss);
				for (uint32_t y = ty; y < ty + t; y++)
					for (uint32_t x = tx; x < tx + t; x++) {
						float va = a->p[c][(size_t)y * a->w + x], vb = b->p[c][(size_t)y * a->w + x];
						double dv = va - vb, sv = (va + vb) / 2;

						if (fabs(dv - md) > 8 * sd + 1 || fabs(sv - ms) > 8 * ss + 0.05 * fabs(ms) + 1)
							continue;
						sum += dv;
						sum2 += dv * dv;
						mean += sv;
						m++;
					}
				if (m < k / 2 || m < 16)
					continue;
				sum2 = (sum2 - sum * sum / (double)m) / (double)(m - 1) / 2;
				ret = add_point(n, gain, c, mean / (double)m, sum2);
				if (c == 1 || c == 2)
					g[ng++] = (float)sum2;
			}
	if (!ret && ng)
		*variance = calib_quantile(g, ng, 0.5);
	if (!ret && clipped) {
		bool seen = false;

		for (unsigned i = 0; i < n->clip_gains && !seen; i++)
			seen = calib_same(n->clip_gain[i], gain);
		if (!seen && n->clip_gains < CISP_CALIB_MAX_TABLE)
			n->clip_gain[n->clip_gains++] = gain;
	}
	free(d);
	free(s);
	free(g);
	return ret;
}

/* Weighted least squares of var = a s + b over the points of one gain and channel with signal below @top. */
static bool fit_line(const struct cisp_calib_ptc_point *p, unsigned count, double gain, unsigned c, double top,
		     double *a, double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, det;

	for (unsigned i = 0; i < count; i++) {
		double w;

		if (!calib_same(p[i].gain, gain) || p[i].channel != c || p[i].signal > top || !(p[i].variance > 0))
			continue;
		w = 1 / (p[i].variance * p[i].variance);
		sw += w;
		sx += w * p[i].signal;
		sy += w * p[i].variance;
		sxx += w * p[i].signal * p[i].signal;
		sxy += w * p[i].signal * p[i].variance;
	}
	det = sw * sxx - sx * sx;
	if (!(det > 1e-12 * sw * sxx))
		return false;
	*a = (sw * sxy - sx * sy) / det;
	*b = (sy - *a * sx) / sw;
	return true;
}

static int cmp_gain(const void *x, const void *y)
{
	const struct cisp_calib_noise_gain *p = x, *q = y;

	return p->gain < q->gain ? -1 : p->gain > q->gain;
}

int calib_noise_solve(struct calib_noise *n, const double black[4], double white, struct cisp_calib_noise *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < n->count; i++)
		n->points[i].signal = n->raw_signal[i] - black[n->points[i].channel];
	out->points = n->points;
	out->num_points = n->count;
	for (unsigned i = 0; i < n->count; i++) {
		struct cisp_calib_noise_gain *g;
		double gain = n->points[i].gain, sa = 0, sb = 0, rms = 0;
		unsigned used = 0;
		bool seen = false;

		for (unsigned k = 0; k < out->count && !seen; k++)
			seen = calib_same(out->gain[k].gain, gain);
		if (seen)
			continue;
		if (out->count == CISP_CALIB_MAX_TABLE)
			return cisp_error(-EINVAL, "pairs at more than %d gains", CISP_CALIB_MAX_TABLE);
		g = &out->gain[out->count];
		memset(g, 0, sizeof(*g));
		g->gain = gain;
		for (unsigned c = 0; c < 4; c++) {
			double top = 0, sat = 0, a, b;
			bool turned = false;

			for (unsigned k = 0; k < n->count; k++)
				if (calib_same(n->points[k].gain, gain) && n->points[k].channel == c)
					top = fmax(top, n->points[k].signal);
			/*
			 * A first line through the lower 60 % of the levels, then the
			 * saturation: the highest tile still on it, if tiles above it
			 * fall below it (the turn-over); the line is refitted up to there.
			 */
			if (!fit_line(n->points, n->count, gain, c, 0.6 * top, &a, &b) &&
			    !fit_line(n->points, n->count, gain, c, top, &a, &b))
				return cisp_error(-EINVAL,
						  "pairs at gain %g: too few levels in channel %u for a photon transfer "
						  "curve (use flats at several exposures)",
						  gain, c);
			for (unsigned k = 0; k < n->count; k++) {
				const struct cisp_calib_ptc_point *p = &n->points[k];

				if (!calib_same(p->gain, gain) || p->channel != c)
					continue;
				if (p->variance >= (1 - TURN_OVER) * (a * p->signal + b))
					sat = fmax(sat, p->signal);
			}
			for (unsigned k = 0; k < n->count; k++) {
				const struct cisp_calib_ptc_point *p = &n->points[k];

				turned |= calib_same(p->gain, gain) && p->channel == c && p->signal > sat &&
					  p->variance < (1 - TURN_OVER) * (a * p->signal + b);
			}
			if (turned && !fit_line(n->points, n->count, gain, c, 0.9 * sat, &a, &b))
				return cisp_error(-EINVAL, "pairs at gain %g: too few levels below saturation", gain);
			g->a[c] = a;
			g->b[c] = b;
			/* The lowest channel that turned over saturates first; one that never did only reached its top. */
			if (turned)
				g->saturation = g->saturated ? fmin(g->saturation, sat) : sat;
			else if (!g->saturated)
				g->saturation = fmax(g->saturation, sat);
			g->saturated |= turned;
			sa += a / 4;
			sb += b / 4;
			for (unsigned k = 0; k < n->count; k++) {
				const struct cisp_calib_ptc_point *p = &n->points[k];
				double e;

				if (!calib_same(p->gain, gain) || p->channel != c || p->signal > (turned ? 0.9 * sat : top))
					continue;
				e = p->variance / (a * p->signal + b) - 1;
				rms += e * e;
				used++;
			}
		}
		/* A pair that reached the white level: the ADC clips, at or before the full well. */
		for (unsigned k = 0; k < n->clip_gains; k++)
			if (calib_same(n->clip_gain[k], gain)) {
				g->saturation = white - (black[0] + black[1] + black[2] + black[3]) / 4;
				g->saturated = true;
			}
		g->points = used;
		g->fit_rms = used ? sqrt(rms / used) : 0;
		if (sa > 0) {
			g->conversion_gain = 1 / sa;
			g->read_noise_e = sqrt(fmax(sb, 0)) / sa;
			g->full_well_e = g->saturation / sa;
		}
		g->dynamic_range_db = sb > 0 ? 20 * log10(g->saturation / sqrt(sb)) : 0;
		out->count++;
	}
	qsort(out->gain, out->count, sizeof(out->gain[0]), cmp_gain);
	return 0;
}

void calib_noise_free(struct calib_noise *n)
{
	free(n->points);
	free(n->raw_signal);
	n->points = NULL;
	n->raw_signal = NULL;
	n->count = n->capacity = 0;
}
