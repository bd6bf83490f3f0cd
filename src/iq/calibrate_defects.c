/* SPDX-License-Identifier: MIT */
/*
 * Defective pixels for the static list: in the darks, pixels whose mean
 * stands above their frames' level by more than 8 robust standard deviations
 * of all pixels' means (and 1 % of the range); in the best-exposed flats,
 * pixels whose level departs from the median of their 24 same-colour
 * neighbours (5 x 5 of their channel) by more than 8 robust standard
 * deviations of that ratio (and 10 %). The spread of the same ratio in the
 * central quarter (where the level is the flats') is the photo-response
 * non-uniformity, with the noise still in it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

#define SIGMAS 8
#define MIN_DARK 0.01
#define MIN_FLAT 0.10

struct list {
	struct cisp_calib_defect *d;
	unsigned n, cap;
};

static int push(struct list *l, uint32_t x, uint32_t y, bool hot)
{
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 256;
		void *p = realloc(l->d, cap * sizeof(*l->d));

		if (!p)
			return cisp_error(-ENOMEM, "out of memory");
		l->d = p;
		l->cap = cap;
	}
	l->d[l->n++] = (struct cisp_calib_defect){ x, y, hot };
	return 0;
}

static int cmp_defect(const void *a, const void *b)
{
	const struct cisp_calib_defect *p = a, *q = b;

	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	return p->x < q->x ? -1 : p->x > q->x;
}

/* The median of the 24 neighbours of sample (x, y) in a 5 x 5 window, cut by the plane's edges. */
static double neighbours(const float *p, uint32_t w, uint32_t h, uint32_t x, uint32_t y)
{
	float v[24];
	size_t n = 0;

	for (int dy = -2; dy <= 2; dy++)
		for (int dx = -2; dx <= 2; dx++) {
			int xx = (int)x + dx, yy = (int)y + dy;

			if ((dx || dy) && xx >= 0 && yy >= 0 && xx < (int)w && yy < (int)h)
				v[n++] = p[(size_t)yy * w + xx];
		}
	return calib_quantile(v, n, 0.5);
}

int calib_defects_solve(const struct calib_dark *d, const struct calib_flat *f, const struct calib_planes *shape,
			double white, const double black[4], struct cisp_calib_defects *out, double ratio_sigma[4],
			double central_level[4])
{
	size_t n = (size_t)shape->w * shape->h;
	struct list l = { 0 };
	float *tmp = malloc(n * sizeof(float)), *ratio = malloc(n * sizeof(float)), *level = malloc(n * sizeof(float));
	double med, sigma, range = white - (black[0] + black[1] + black[2] + black[3]) / 4;
	int ret = tmp && ratio && level ? 0 : cisp_error(-ENOMEM, "out of memory");

	memset(out, 0, sizeof(*out));
	for (int c = 0; c < 4; c++)
		ratio_sigma[c] = central_level[c] = 0;
	for (unsigned c = 0; c < 4 && !ret && d->frames; c++) {
		for (size_t i = 0; i < n; i++)
			tmp[i] = d->deviation[c][i] / (float)d->frames;
		calib_median_mad(tmp, n, &med, &sigma);
		out->threshold_dark = fmax(out->threshold_dark, fmax(SIGMAS * sigma, MIN_DARK * range));
	}
	for (unsigned c = 0; c < 4 && !ret && d->frames; c++)
		for (uint32_t y = 0; y < shape->h && !ret; y++)
			for (uint32_t x = 0; x < shape->w && !ret; x++)
				if (d->deviation[c][(size_t)y * shape->w + x] / d->frames > out->threshold_dark)
					ret = push(&l, 2 * x + shape->ox[c], 2 * y + shape->oy[c], true);
	if (f->pixel_frames && !ret) {
		double threshold, level_sum;
		size_t k;

		out->threshold_flat = MIN_FLAT;
		for (unsigned c = 0; c < 4; c++) {
			for (size_t i = 0; i < n; i++)
				level[i] = f->pixel[c][i] / (float)f->pixel_frames - (float)black[c];
			for (uint32_t y = 0; y < shape->h; y++)
				for (uint32_t x = 0; x < shape->w; x++) {
					double m = neighbours(level, shape->w, shape->h, x, y);

					ratio[(size_t)y * shape->w + x] = m > 0 ? (float)(level[(size_t)y * shape->w + x] / m) : 1.0f;
				}
			memcpy(tmp, ratio, n * sizeof(float));
			calib_median_mad(tmp, n, &med, &sigma);
			threshold = fmax(MIN_FLAT, SIGMAS * sigma);
			/* The spread in the central quarter, where the level (and so the noise) hardly changes. */
			k = 0;
			level_sum = 0;
			for (uint32_t y = shape->h / 4; y < shape->h - shape->h / 4; y++)
				for (uint32_t x = shape->w / 4; x < shape->w - shape->w / 4; x++) {
					tmp[k++] = ratio[(size_t)y * shape->w + x];
					level_sum += level[(size_t)y * shape->w + x];
				}
			calib_median_mad(tmp, k, &med, &ratio_sigma[c]);
			central_level[c] = level_sum / (double)k;
			out->threshold_flat = fmax(out->threshold_flat, threshold);
			for (uint32_t y = 0; y < shape->h && !ret; y++)
				for (uint32_t x = 0; x < shape->w && !ret; x++) {
					double r = ratio[(size_t)y * shape->w + x];

					if (fabs(r - 1) > threshold)
						ret = push(&l, 2 * x + shape->ox[c], 2 * y + shape->oy[c], r > 1);
				}
		}
	}
	free(tmp);
	free(ratio);
	free(level);
	if (ret) {
		free(l.d);
		return ret;
	}
	/* Sorted, and each pixel once (hot when either list says so). */
	qsort(l.d, l.n, sizeof(*l.d), cmp_defect);
	out->count = 0;
	for (unsigned i = 0; i < l.n; i++) {
		if (out->count && l.d[out->count - 1].x == l.d[i].x && l.d[out->count - 1].y == l.d[i].y)
			l.d[out->count - 1].hot |= l.d[i].hot;
		else
			l.d[out->count++] = l.d[i];
	}
	out->list = l.d;
	return 0;
}
