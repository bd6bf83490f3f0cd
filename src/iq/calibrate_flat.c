/* SPDX-License-Identifier: MIT */
/*
 * Flats (an evenly lit diffuser filling the view): gathered by exposure,
 * gain and light as block means, from which calibrate_shading.c fits the
 * lens-shading tables; the pixels of the best-exposed group are kept for the
 * defects and the photo-response non-uniformity (calibrate_defects.c). A
 * flat with something in it (a block that departs from its neighbours) or
 * clipped over most of the frame is refused.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

/* A block departing this much from the median of its neighbours is not flat. */
#define NOT_FLAT 0.03
/*
 * ... and by more than this many times the blocks' noise; checked on flats
 * whose centre lies between these fractions of the range (brighter ones may
 * clip, and serve only the noise curve), where a block is at least the first.
 */
#define NOISE_SIGMAS 8
#define CHECK_LEVEL 0.02
#define CHECK_MAX 0.7
/* A flat with more of its samples at the white level is refused (one that clips in part serves the noise curve). */
#define MAX_CLIPPED 0.9
/* Flats for shading: centre level within this range (fraction of the range), few samples clipped. */
#define SHADING_MIN 0.15
#define SHADING_MAX 0.9
#define SHADING_CLIPPED 0.001

static bool same(double a, double b)
{
	return fabs(a - b) <= 1e-3 * fmax(fabs(a), fabs(b));
}

/*
 * What block (i, j) should be from its surroundings: a least-squares plane
 * through the blocks of the 5 x 5 window around it (cut by the edges),
 * evaluated at its centre, so the shading's slope, steepest in the corners,
 * is not taken for a departure.
 */
static double neighbours_level(const double *m, unsigned gw, unsigned gh, unsigned i, unsigned j)
{
	double s1 = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, sv = 0, sxv = 0, syv = 0, det;

	for (int dj = -2; dj <= 2; dj++)
		for (int di = -2; di <= 2; di++) {
			int x = (int)i + di, y = (int)j + dj;
			double v;

			if ((!di && !dj) || x < 0 || y < 0 || x >= (int)gw || y >= (int)gh)
				continue;
			v = m[y * gw + x];
			s1++;
			sx += di;
			sy += dj;
			sxx += di * di;
			syy += dj * dj;
			sxy += di * dj;
			sv += v;
			sxv += di * v;
			syv += dj * v;
		}
	/* Solve for the plane a + b x + c y by Cramer's rule; the value at the centre is a. */
	det = s1 * (sxx * syy - sxy * sxy) - sx * (sx * syy - sxy * sy) + sy * (sx * sxy - sxx * sy);
	if (fabs(det) < 1e-9)
		return s1 ? sv / s1 : 0;
	return (sv * (sxx * syy - sxy * sxy) - sx * (sxv * syy - sxy * syv) + sy * (sxv * sxy - sxx * syv)) / det;
}

bool calib_same_level(double a, double b)
{
	return fabs(a - b) <= 0.05 * fmax(a, b) + 0.002;
}

double calib_centre_level(const struct calib_planes *pl, double black, double range)
{
	uint32_t x0 = pl->w * 9 / 20, x1 = pl->w * 11 / 20, y0 = pl->h * 9 / 20, y1 = pl->h * 11 / 20;
	double s = 0;
	size_t n = 0;

	for (uint32_t y = y0; y <= y1; y++)
		for (uint32_t x = x0; x <= x1; x++) {
			s += pl->p[1][(size_t)y * pl->w + x] + pl->p[2][(size_t)y * pl->w + x];
			n += 2;
		}
	return (s / (double)n - black) / range;
}

int calib_flat_add(struct calib_flat *f, const struct calib_planes *pl, const struct cisp_calib_capture *cap,
		   double black_guess)
{
	const char *light = cap->illuminant ? cap->illuminant : "";
	double range = cap->white - black_guess, level = calib_centre_level(pl, black_guess, range), clipped = 0;
	size_t n = (size_t)pl->w * pl->h;
	struct calib_blocks b;
	struct calib_flat_group *g = NULL;
	int ret;

	for (unsigned c = 0; c < 4; c++) {
		size_t k = 0;

		/* A sample at the white level with a neighbour there too: clipping, not a hot pixel. */
		for (uint32_t y = 0; y < pl->h; y++)
			for (uint32_t x = 0; x < pl->w; x++) {
				const float *p = pl->p[c] + (size_t)y * pl->w + x;

				k += p[0] >= cap->white && ((x > 0 && p[-1] >= cap->white) || (x + 1 < pl->w && p[1] >= cap->white) ||
							    (y > 0 && p[-(ptrdiff_t)pl->w] >= cap->white) ||
							    (y + 1 < pl->h && p[pl->w] >= cap->white));
			}
		clipped = fmax(clipped, (double)k / (double)n);
	}
	if (clipped > MAX_CLIPPED)
		return cisp_error(-EINVAL, "flat %s is clipped: %.0f%% of its samples are at the white level %g",
				  cap->name, 100 * clipped, cap->white);
	ret = calib_blocks_of(pl, &b);
	if (ret)
		return ret;
	for (unsigned c = 0; c < 4 && !ret && level <= CHECK_MAX; c++) {
		const double *m = b.mean + (size_t)c * b.gw * b.gh;
		size_t nb = (size_t)b.gw * b.gh, k = 0;
		float *dev = malloc(nb * sizeof(float));
		double med, sigma;

		if (!dev) {
			ret = cisp_error(-ENOMEM, "out of memory");
			break;
		}
		/* The blocks' noise: the robust spread of their departures from their neighbours. */
		for (unsigned j = 0; j < b.gh; j++)
			for (unsigned i = 0; i < b.gw; i++)
				dev[k++] = (float)(m[j * b.gw + i] - neighbours_level(m, b.gw, b.gh, i, j));
		calib_median_mad(dev, nb, &med, &sigma);
		free(dev);
		for (unsigned j = 0; j < b.gh && !ret; j++)
			for (unsigned i = 0; i < b.gw && !ret; i++) {
				double nm = neighbours_level(m, b.gw, b.gh, i, j) - black_guess, v = m[j * b.gw + i] - black_guess;
				double x, y;

				if (nm < CHECK_LEVEL * range || m[j * b.gw + i] >= cap->white - 0.01 * range ||
				    fabs(v - nm) <= fmax(NOT_FLAT * nm, NOISE_SIGMAS * sigma))
					continue;
				calib_block_centre(pl, &b, c, i, j, &x, &y);
				ret = cisp_error(-EINVAL,
						 "flat %s is not flat: near pixel (%.0f, %.0f) channel %u departs %.1f%% from its "
						 "surroundings (a flat may depart %.0f%%: is something in view, or the light "
						 "uneven?)",
						 cap->name, x, y, c, 100 * (v - nm) / nm, 100 * NOT_FLAT);
			}
	}
	/* A group: one exposure, gain and light, and one level (a lightbox's dimmer changes the level alone). */
	for (unsigned i = 0; i < f->groups && !ret && !g; i++)
		if (same(f->group[i].exposure_s, cap->exposure_s) && same(f->group[i].gain, cap->gain > 0 ? cap->gain : 1) &&
		    !strcmp(f->group[i].illuminant, light) && calib_same_level(f->group[i].level, level))
			g = &f->group[i];
	if (!ret && !g) {
		if (f->groups == sizeof(f->group) / sizeof(f->group[0]))
			ret = cisp_error(-EINVAL, "flat %s: more than %zu exposures, gains and lights of flats", cap->name,
					 sizeof(f->group) / sizeof(f->group[0]));
		else {
			g = &f->group[f->groups++];
			memset(g, 0, sizeof(*g));
			g->exposure_s = cap->exposure_s;
			g->gain = cap->gain > 0 ? cap->gain : 1;
			snprintf(g->illuminant, sizeof(g->illuminant), "%s", light);
			g->level = level;
		}
	}
	if (ret) {
		calib_blocks_free(&b);
		return ret;
	}
	if (!g->sum.mean) {
		g->sum = b;
	} else {
		for (size_t i = 0; i < 4 * (size_t)b.gw * b.gh; i++)
			g->sum.mean[i] += b.mean[i];
		calib_blocks_free(&b);
	}
	g->clipped = fmax(g->clipped, clipped);
	g->frames++;
	/*
	 * The pixels of one group are kept, the least noisy: the lowest gain,
	 * and at that gain the level nearest mid-range (a group that comes
	 * later and does better takes the place of an earlier one).
	 */
	if (g->frames == 1 && clipped <= SHADING_CLIPPED && level >= SHADING_MIN && level <= SHADING_MAX &&
	    (f->pixel_group < 0 || g->gain < f->group[f->pixel_group].gain / 1.001 ||
	     (same(g->gain, f->group[f->pixel_group].gain) &&
	      fabs(level - 0.5) < fabs(f->group[f->pixel_group].level - 0.5)))) {
		f->pixel_group = (int)(g - f->group);
		f->pixel_frames = 0;
		for (unsigned c = 0; c < 4; c++) {
			if (!f->pixel[c] && !(f->pixel[c] = malloc(n * sizeof(float))))
				return cisp_error(-ENOMEM, "out of memory");
			memset(f->pixel[c], 0, n * sizeof(float));
		}
	}
	if (f->pixel_group == (int)(g - f->group)) {
		for (unsigned c = 0; c < 4; c++)
			for (size_t i = 0; i < n; i++)
				f->pixel[c][i] += pl->p[c][i];
		f->pixel_frames++;
	}
	return 0;
}

int calib_flat_best_group(const struct calib_flat *f, const char *illuminant, double saturation)
{
	int best = -1;

	for (unsigned i = 0; i < f->groups; i++) {
		const struct calib_flat_group *g = &f->group[i];

		if ((illuminant && strcmp(g->illuminant, illuminant)) || g->clipped > SHADING_CLIPPED ||
		    g->level < SHADING_MIN || g->level > SHADING_MAX || g->level > 0.9 * saturation)
			continue;
		if (best < 0 || fabs(g->level - 0.5) < fabs(f->group[best].level - 0.5) - 0.02 ||
		    (fabs(g->level - f->group[best].level) <= 0.02 && g->frames > f->group[best].frames))
			best = (int)i;
	}
	return best;
}

void calib_flat_free(struct calib_flat *f)
{
	for (unsigned i = 0; i < f->groups; i++)
		calib_blocks_free(&f->group[i].sum);
	for (unsigned c = 0; c < 4; c++) {
		free(f->pixel[c]);
		f->pixel[c] = NULL;
	}
}
