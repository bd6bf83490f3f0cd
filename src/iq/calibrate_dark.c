/* SPDX-License-Identifier: MIT */
/*
 * Darks (the lens covered): the black level per channel, how it moves with
 * exposure (dark current) and gain, the pixels' fixed offsets (dark signal
 * non-uniformity) and, kept per pixel for calibrate_defects.c, each pixel's
 * departure from its frame's level. A dark with light in it is refused.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

/* A dark is lit when a channel lies this fraction of the range above the stated black level, ... */
#define LIGHT_LEVEL 0.02
/* ... or one of its 8 x 6 regions lies this fraction of the range above the darkest, ... */
#define LIGHT_SPREAD 0.01
/* ... or more than this fraction of its samples stand out (a lamp in view; hot pixels are far fewer). */
#define LIT_FRACTION 0.005
#define REGIONS_X 8
#define REGIONS_Y 6

/* The group of darks of this exposure and gain (a new one when there is room), or NULL. */
static struct calib_dark_group *group_of(struct calib_dark *d, double exposure_s, double gain)
{
	for (unsigned i = 0; i < d->groups; i++)
		if (calib_same(d->group[i].exposure_s, exposure_s) && calib_same(d->group[i].gain, gain))
			return &d->group[i];
	if (d->groups == CISP_CALIB_MAX_TABLE)
		return NULL;
	d->group[d->groups] = (struct calib_dark_group){ .exposure_s = exposure_s, .gain = gain };
	return &d->group[d->groups++];
}

/* The median of each region of a channel plane, brightest less darkest; @tmp holds a plane. */
static double region_spread(const float *p, uint32_t w, uint32_t h, float *tmp, unsigned *where_x, unsigned *where_y)
{
	double lo = INFINITY, hi = -INFINITY;

	for (unsigned j = 0; j < REGIONS_Y; j++)
		for (unsigned i = 0; i < REGIONS_X; i++) {
			uint32_t x0 = i * w / REGIONS_X, x1 = (i + 1) * w / REGIONS_X;
			uint32_t y0 = j * h / REGIONS_Y, y1 = (j + 1) * h / REGIONS_Y;
			size_t n = 0;
			double m;

			for (uint32_t y = y0; y < y1; y++)
				for (uint32_t x = x0; x < x1; x++)
					tmp[n++] = p[(size_t)y * w + x];
			m = calib_quantile(tmp, n, 0.5);
			lo = fmin(lo, m);
			if (m > hi) {
				hi = m;
				*where_x = i;
				*where_y = j;
			}
		}
	return hi - lo;
}

int calib_dark_add(struct calib_dark *d, const struct calib_planes *pl, const struct cisp_calib_capture *cap)
{
	size_t n = (size_t)pl->w * pl->h;
	double range = cap->white - (cap->black >= 0 ? cap->black : 0), median[4], sigma[4], mean[4];
	float *tmp = malloc(n * sizeof(float));
	struct calib_dark_group *g;
	int ret = 0;

	if (!tmp)
		return cisp_error(-ENOMEM, "out of memory");
	for (unsigned c = 0; c < 4 && !ret; c++) {
		unsigned rx = 0, ry = 0;
		double spread;

		memcpy(tmp, pl->p[c], n * sizeof(float));
		calib_median_mad(tmp, n, &median[c], &sigma[c]);
		if (cap->black >= 0 && median[c] - cap->black > LIGHT_LEVEL * range)
			ret = cisp_error(-EINVAL,
					 "dark %s has light in it: channel %u is %.1f codes above the stated black level %g "
					 "(%.1f%% of the range; a dark may be %.0f%%)",
					 cap->name, c, median[c] - cap->black, cap->black,
					 100 * (median[c] - cap->black) / range, 100 * LIGHT_LEVEL);
		if (!ret) {
			/* Samples above the median by 10 robust deviations and 1 % of the range. */
			double lim = median[c] + fmax(10 * sigma[c], LIGHT_SPREAD * range);
			size_t lit = 0;

			for (size_t i = 0; i < n; i++)
				lit += pl->p[c][i] > lim;
			if (lit > LIT_FRACTION * n)
				ret = cisp_error(-EINVAL,
						 "dark %s has light in it: %.1f%% of channel %u stands %.1f codes or more above "
						 "its level (a dark may have %.1f%%: hot pixels)",
						 cap->name, 100.0 * lit / n, c, lim - median[c], 100 * LIT_FRACTION);
		}
		spread = ret ? 0 : region_spread(pl->p[c], pl->w, pl->h, tmp, &rx, &ry);
		if (!ret && spread > LIGHT_SPREAD * range)
			ret = cisp_error(-EINVAL,
					 "dark %s has light in it: a region of channel %u (%u of %u across, %u of %u down) "
					 "is %.1f codes above the darkest (%.1f%% of the range; a dark may be %.0f%%)",
					 cap->name, c, rx + 1, REGIONS_X, ry + 1, REGIONS_Y, spread, 100 * spread / range,
					 100 * LIGHT_SPREAD);
	}
	free(tmp);
	if (ret)
		return ret;
	g = group_of(d, cap->exposure_s, cap->gain > 0 ? cap->gain : 1);
	if (!g)
		return cisp_error(-EINVAL, "dark %s: more than %d exposures and gains of darks", cap->name,
				  CISP_CALIB_MAX_TABLE);
	for (unsigned c = 0; c < 4 && !d->deviation[c]; c++)
		if (!(d->deviation[c] = calloc(n, sizeof(float))))
			return cisp_error(-ENOMEM, "out of memory");
	for (unsigned c = 0; c < 4; c++) {
		/* The mean without the pixels that stand out (hot ones): within 6 sigma of the median. */
		double lim = fmax(6 * sigma[c], 2), s = 0;
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			float v = pl->p[c][i];

			d->deviation[c][i] += (float)(v - median[c]);
			if (fabs(v - median[c]) <= lim) {
				s += v;
				k++;
			}
		}
		mean[c] = k ? s / (double)k : median[c];
		g->sum[c] += mean[c];
	}
	if (!d->frames)
		d->frame_sigma = (sigma[0] + sigma[1] + sigma[2] + sigma[3]) / 4;
	g->frames++;
	d->frames++;
	return 0;
}

void calib_dark_add_pair(struct calib_dark *d, double exposure_s, double gain, double variance)
{
	struct calib_dark_group *g = group_of(d, exposure_s, gain);

	if (g) {
		g->temporal_sum += variance;
		g->pairs++;
	}
}

static int cmp_group(const void *a, const void *b)
{
	const struct cisp_calib_dark_group *p = a, *q = b;

	if (p->gain != q->gain)
		return p->gain < q->gain ? -1 : 1;
	return p->exposure_s < q->exposure_s ? -1 : p->exposure_s > q->exposure_s;
}

int calib_dark_solve(const struct calib_dark *d, const struct calib_planes *shape, struct cisp_calib_black *out)
{
	size_t n = (size_t)shape->w * shape->h;
	double temporal = 0, sx = 0, sy[4] = { 0 }, sxx = 0, sxy[4] = { 0 }, k = 0, g0, sigma_map, med;
	unsigned pairs = 0;
	float *map;

	memset(out, 0, sizeof(*out));
	if (!d->frames)
		return -ENODATA;
	out->frames = d->frames;
	out->groups = d->groups;
	for (unsigned i = 0; i < d->groups; i++) {
		const struct calib_dark_group *g = &d->group[i];
		struct cisp_calib_dark_group *o = &out->group[i];

		o->exposure_s = g->exposure_s;
		o->gain = g->gain;
		o->frames = g->frames;
		for (int c = 0; c < 4; c++)
			o->level[c] = g->sum[c] / g->frames;
		o->temporal = g->pairs ? sqrt(g->temporal_sum / g->pairs) : 0;
		temporal += g->temporal_sum;
		pairs += g->pairs;
	}
	qsort(out->group, out->groups, sizeof(out->group[0]), cmp_group);
	/* The lowest gain: level = black + dark current x exposure, by least squares over its groups. */
	g0 = out->group[0].gain;
	for (unsigned i = 0; i < out->groups && calib_same(out->group[i].gain, g0); i++) {
		const struct cisp_calib_dark_group *g = &out->group[i];

		sx += g->frames * g->exposure_s;
		sxx += g->frames * g->exposure_s * g->exposure_s;
		for (int c = 0; c < 4; c++) {
			sy[c] += g->frames * g->level[c];
			sxy[c] += g->frames * g->exposure_s * g->level[c];
		}
		k += g->frames;
	}
	for (int c = 0; c < 4; c++) {
		double det = k * sxx - sx * sx, slope = 0;

		/* One exposure (or none known): no dark current, the level is the black level. */
		if (det > 1e-12 * k * sxx)
			slope = (k * sxy[c] - sx * sy[c]) / det;
		out->level[c] = (sy[c] - slope * sx) / k;
		out->dark_current += slope / 4;
	}
	for (unsigned i = 0; i < out->groups; i++)
		for (int c = 0; c < 4; c++) {
			const struct cisp_calib_dark_group *g = &out->group[i];
			double dc = out->dark_current * g->exposure_s * g->gain / g0;

			out->spread = fmax(out->spread, fabs(g->level[c] - dc - out->level[c]));
		}
	/*
	 * DSNU: the spread of the pixels' mean departures, less what the
	 * temporal noise leaves in a mean of this many darks. Without a pair
	 * the temporal noise is unknown and DSNU is not given.
	 */
	if (!pairs)
		return 0;
	map = malloc(n * sizeof(float));
	if (!map)
		return cisp_error(-ENOMEM, "out of memory");
	out->dsnu = 0;
	for (int c = 0; c < 4; c++) {
		for (size_t i = 0; i < n; i++)
			map[i] = d->deviation[c][i] / (float)d->frames;
		calib_median_mad(map, n, &med, &sigma_map);
		out->dsnu += fmax(0, sigma_map * sigma_map - temporal / pairs / d->frames) / 4;
	}
	out->dsnu = sqrt(out->dsnu);
	free(map);
	return 0;
}

void calib_dark_free(struct calib_dark *d)
{
	for (int c = 0; c < 4; c++) {
		free(d->deviation[c]);
		d->deviation[c] = NULL;
	}
}
