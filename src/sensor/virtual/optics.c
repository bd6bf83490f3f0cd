/* SPDX-License-Identifier: MIT */
/*
 * Optics of the virtual sensor: lens shading (relative illumination falling
 * off towards the corners, differently per colour) and lens blur (a Gaussian
 * point spread function whose width grows with defocus).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vsensor.h"

void vs_shading_k(const double corner[3], double k[3])
{
	/* 1 / (1 + k)^2 = corner at r = 1. */
	for (int c = 0; c < 3; c++)
		k[c] = 1.0 / sqrt(corner[c]) - 1.0;
}

/* Reflect @i into [0, n) about the edges, repeating the edge sample (..., 1, 0, 0, 1, ...). */
static long reflect(long i, long n)
{
	long p = 2 * n;

	i %= p;
	if (i < 0)
		i += p;
	return i < n ? i : p - 1 - i;
}

/*
 * One box pass: weights 1 on [-r, r] and alpha at +-(r + 1). Its variance,
 * (r(r+1)(2r+1)/3 + 2 alpha (r+1)^2) / (2r + 1 + 2 alpha), equals @v.
 */
static void box_params(double v, long *r, double *alpha)
{
	long rr = (long)floor((sqrt(1 + 12 * v) - 1) / 2);
	double a = (2 * rr + 1) * (3 * v - rr * (rr + 1)) / (6 * ((rr + 1) * (rr + 1) - v));

	*r = rr;
	*alpha = a < 0 ? 0 : a > 1 ? 1 : a;
}

static void box_row(const float *src, float *dst, long w, long r, double alpha, float *ext)
{
	double norm = 1.0 / (2 * r + 1 + 2 * alpha), acc = 0;
	long pad = r + 1;

	for (long i = -pad; i < 0; i++)
		ext[i + pad] = src[reflect(i, w)];
	memcpy(ext + pad, src, (size_t)w * sizeof(*ext));
	for (long i = w; i < w + pad; i++)
		ext[i + pad] = src[reflect(i, w)];
	for (long i = -r; i <= r; i++)
		acc += ext[i + pad];
	for (long x = 0; x < w; x++) {
		dst[x] = (float)((acc + alpha * ((double)ext[x - r - 1 + pad] + ext[x + r + 1 + pad])) * norm);
		acc += (double)ext[x + r + 1 + pad] - ext[x - r + pad];
	}
}

/* Running sums in double: a bright lamp leaving the window must not leave rounding residue in the dark. */
static void box_columns(const float *src, float *dst, long w, long h, long r, double alpha, double *acc)
{
	double norm = 1.0 / (2 * r + 1 + 2 * alpha);

	for (long x = 0; x < w; x++)
		acc[x] = 0;
	for (long j = -r; j <= r; j++) {
		const float *row = src + reflect(j, h) * w;

		for (long x = 0; x < w; x++)
			acc[x] += row[x];
	}
	for (long y = 0; y < h; y++) {
		const float *lo = src + reflect(y - r - 1, h) * w, *hi = src + reflect(y + r + 1, h) * w;
		const float *out_old = src + reflect(y - r, h) * w;
		float *out = dst + y * w;

		for (long x = 0; x < w; x++) {
			out[x] = (float)((acc[x] + alpha * ((double)lo[x] + hi[x])) * norm);
			acc[x] += (double)hi[x] - out_old[x];
		}
	}
}

void vs_blur(float *plane, uint32_t w, uint32_t h, double sigma, float *tmp)
{
	long r;
	double alpha;
	float *ext;
	double *acc;

	if (sigma <= 0)
		return;
	box_params(sigma * sigma / 3, &r, &alpha);
	ext = malloc(((size_t)w + 2 * (size_t)r + 2) * sizeof(*ext));
	acc = malloc((size_t)w * sizeof(*acc));
	if (!ext || !acc) {
		/* Out of memory: leave the plane sharp rather than fail a frame. */
		free(ext);
		free(acc);
		return;
	}
	for (uint32_t y = 0; y < h; y++) {
		float *row = plane + (size_t)y * w;

		for (int pass = 0; pass < 3; pass++)
			box_row(row, row, w, r, alpha, ext);
	}
	box_columns(plane, tmp, w, h, r, alpha, acc);
	box_columns(tmp, plane, w, h, r, alpha, acc);
	box_columns(plane, tmp, w, h, r, alpha, acc);
	memcpy(plane, tmp, (size_t)w * h * sizeof(*plane));
	free(ext);
	free(acc);
}
