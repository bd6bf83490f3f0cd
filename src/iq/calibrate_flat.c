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
#include "plane_fit.h"

/* A block departing this much from the median of its neighbours is not flat. */
#define NOT_FLAT 0.03
/*
 * ... and by more than this many times the blocks' noise; checked where a
 * block is at least CHECK_LEVEL of the range and below CHECK_TOP of the
 * channel's brightest block (a flat that saturates is flat at the top, and
 * bends where it starts to).
 */
#define NOISE_SIGMAS 8
#define CHECK_LEVEL 0.02
#define CHECK_TOP 0.85
/*
 * A flat with more of its samples clipped is refused (one that clips in part
 * serves the noise curve): at the white level, or piled up within 0.5 % of
 * the range below the channel's top (a sensor that saturates below white).
 */
#define MAX_CLIPPED 0.9
#define PILE_UP 0.005
/* Flats for shading: centre level within this range (fraction of the range), few samples clipped. */
#define SHADING_MIN 0.15
#define SHADING_MAX 0.9
#define SHADING_CLIPPED 0.001

/*
 * What block (i, j) should be from its surroundings: a least-squares plane
 * through the blocks of the 5 x 5 window around it (cut by the edges),
 * evaluated at its centre, so the shading's slope, steepest in the corners,
 * is not taken for a departure.
 */
static double neighbours_level(const double *m, unsigned gw, unsigned gh, unsigned i, unsigned j)
{
	struct plane_fit fit = { 0 };

	for (int dj = -2; dj <= 2; dj++)
		for (int di = -2; di <= 2; di++) {
			int x = (int)i + di, y = (int)j + dj;

			if ((!di && !dj) || x < 0 || y < 0 || x >= (int)gw || y >= (int)gh)
				continue;
			plane_fit_add(&fit, di, dj, m[y * gw + x]);
		}
	return plane_fit_at_origin(&fit);
}

/*
 * The noise of a block mean of channel @c: the pixel noise from the
 * differences of neighbouring samples below @below (robust: a scene's edges
 * are few of them; samples that clipped alike would say no noise), over the
 * root of the samples a block holds. -1: out of memory.
 */
static double block_noise(const struct calib_planes *pl, unsigned c, const struct calib_blocks *b, double below)
{
	size_t n = (size_t)(pl->w - 1) * pl->h, k = 0;
	float *d = malloc(n * sizeof(float));
	double med, sigma;

	if (!d)
		return -1;
	for (uint32_t y = 0; y < pl->h; y++)
		for (uint32_t x = 0; x + 1 < pl->w; x++) {
			float a = pl->p[c][(size_t)y * pl->w + x], v = pl->p[c][(size_t)y * pl->w + x + 1];

			if (a < below && v < below)
				d[k++] = v - a;
		}
	calib_median_mad(d, k, &med, &sigma);
	free(d);
	return sigma / M_SQRT2 / sqrt((double)pl->w * pl->h / ((double)b->gw * b->gh));
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
	for (unsigned c = 0; c < 4; c++) {
		float *tmp = malloc(n * sizeof(float));
		double top, piled;
		size_t k = 0;

		if (!tmp)
			return cisp_error(-ENOMEM, "out of memory");
		memcpy(tmp, pl->p[c], n * sizeof(float));
		top = calib_quantile(tmp, n, 0.999);
		free(tmp);
		for (size_t i = 0; i < n; i++)
			k += pl->p[c][i] >= top - PILE_UP * range;
		piled = (double)k / (double)n;
		if (piled > MAX_CLIPPED && top > black_guess + 0.1 * range)
			return cisp_error(-EINVAL,
					  "flat %s is clipped: %.0f%% of channel %u's samples pile up at %.0f codes (the "
					  "sensor saturates there)",
					  cap->name, 100 * piled, c, top);
	}
	ret = calib_blocks_of(pl, &b);
	if (ret)
		return ret;
	for (unsigned c = 0; c < 4 && !ret; c++) {
		const double *m = b.mean + (size_t)c * b.gw * b.gh;
		size_t nb = (size_t)b.gw * b.gh;
		double sigma, top = 0;

		for (size_t i = 0; i < nb; i++)
			top = fmax(top, m[i] - black_guess);
		sigma = block_noise(pl, c, &b, black_guess + CHECK_TOP * top);
		if (sigma < 0) {
			ret = cisp_error(-ENOMEM, "out of memory");
			break;
		}
		/* The outermost blocks are left out: their surroundings lie on one side, where the falloff bends most. */
		for (unsigned j = 1; j + 1 < b.gh && !ret; j++)
			for (unsigned i = 1; i + 1 < b.gw && !ret; i++) {
				double nm = neighbours_level(m, b.gw, b.gh, i, j) - black_guess, v = m[j * b.gw + i] - black_guess;
				double x, y;

				if (nm < CHECK_LEVEL * range || v > CHECK_TOP * top || nm > CHECK_TOP * top ||
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
		if (calib_same(f->group[i].exposure_s, cap->exposure_s) && calib_same(f->group[i].gain, cap->gain > 0 ? cap->gain : 1) &&
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
	     (calib_same(g->gain, f->group[f->pixel_group].gain) &&
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
