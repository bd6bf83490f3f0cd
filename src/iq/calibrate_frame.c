/* SPDX-License-Identifier: MIT */
/*
 * What every estimator of the calibration works on: a Bayer frame split into
 * its four channel planes (in the frame's codes), grids of block means over
 * them, and robust statistics (median and median absolute deviation), which
 * defective pixels cannot move.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"

int calib_planes_from(struct calib_planes *pl, const struct cisp_image *raw)
{
	const struct cisp_format_info *fi = cisp_format_info(raw->format);
	int ret = 0;

	memset(pl, 0, sizeof(*pl));
	if (!fi || fi->kind != CISP_KIND_BAYER || fi->packed)
		return cisp_error(-EINVAL, "format %s: calibration takes unpacked Bayer frames",
				  cisp_format_name(raw->format));
	if (raw->width < 32 || raw->height < 32)
		return cisp_error(-EINVAL, "a %ux%u frame is too small to calibrate from (at least 32x32)", raw->width,
				  raw->height);
	for (unsigned c = 0; c < 4 && !ret; c++) {
		struct cisp_iq_image img;

		for (unsigned y = 0; y < 2; y++)
			for (unsigned x = 0; x < 2; x++)
				if (cisp_cfa_channel(fi->cfa, x, y) == (enum cisp_channel)c) {
					pl->ox[c] = x;
					pl->oy[c] = y;
				}
		/* Black 0 and white 1: the samples as they are, in the frame's codes. */
		ret = cisp_iq_image_from_bayer(&img, raw, c, 0, 1);
		pl->p[c] = img.data;
		pl->w = img.width;
		pl->h = img.height;
	}
	if (ret)
		calib_planes_free(pl);
	return ret;
}

void calib_planes_free(struct calib_planes *pl)
{
	for (int c = 0; c < 4; c++) {
		free(pl->p[c]);
		pl->p[c] = NULL;
	}
}

/* The k-th smallest of @n values (0-based), by Wirth's selection; @v is reordered. */
static float select_kth(float *v, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;

	while (lo < hi) {
		float pivot = v[kk];
		ptrdiff_t i = lo, j = hi;

		do {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i <= j) {
				float t = v[i];

				v[i++] = v[j];
				v[j--] = t;
			}
		} while (i <= j);
		if (j < kk)
			lo = i;
		if (kk < i)
			hi = j;
	}
	return v[kk];
}

double calib_quantile(float *v, size_t n, double q)
{
	size_t k;

	if (!n)
		return 0;
	k = (size_t)fmin(fmax(q * (double)(n - 1) + 0.5, 0), (double)(n - 1));
	return select_kth(v, n, k);
}

void calib_median_mad(float *v, size_t n, double *median, double *sigma)
{
	double m;

	if (!n) {
		*median = *sigma = 0;
		return;
	}
	m = calib_quantile(v, n, 0.5);
	for (size_t i = 0; i < n; i++)
		v[i] = fabsf(v[i] - (float)m);
	*median = m;
	/* 1.4826: the MAD of a normal distribution is 0.6745 standard deviations. */
	*sigma = 1.4826 * calib_quantile(v, n, 0.5);
}

void calib_blocks_size(uint32_t w, uint32_t h, unsigned *gw, unsigned *gh)
{
	/* Blocks of at least 4 x 4 samples: enough for the median to see past a defective pixel. */
	unsigned n = w / 4 < 64 ? w / 4 : 64;

	*gw = n ? n : 1;
	*gh = (unsigned)lround((double)*gw * h / w);
	if (*gh < 1)
		*gh = 1;
	if (*gh > h / 4)
		*gh = h / 4 ? h / 4 : 1;
}

int calib_blocks_of(const struct calib_planes *pl, struct calib_blocks *b)
{
	float *tmp;

	calib_blocks_size(pl->w, pl->h, &b->gw, &b->gh);
	b->mean = calloc(4 * (size_t)b->gw * b->gh, sizeof(double));
	/* A block holds at most (w / gw + 1) x (h / gh + 1) samples. */
	tmp = malloc(((size_t)pl->w / b->gw + 1) * ((size_t)pl->h / b->gh + 1) * sizeof(float));
	if (!b->mean || !tmp) {
		free(tmp);
		calib_blocks_free(b);
		return cisp_error(-ENOMEM, "out of memory for block means");
	}
	for (unsigned c = 0; c < 4; c++) {
		double *m = b->mean + (size_t)c * b->gw * b->gh;

		for (unsigned j = 0; j < b->gh; j++) {
			uint32_t y0 = (uint32_t)((uint64_t)j * pl->h / b->gh), y1 = (uint32_t)((uint64_t)(j + 1) * pl->h / b->gh);

			for (unsigned i = 0; i < b->gw; i++) {
				uint32_t x0 = (uint32_t)((uint64_t)i * pl->w / b->gw);
				uint32_t x1 = (uint32_t)((uint64_t)(i + 1) * pl->w / b->gw);
				double s = 0, med, sigma, lim;
				size_t n = 0, k = 0;

				for (uint32_t y = y0; y < y1; y++)
					for (uint32_t x = x0; x < x1; x++)
						tmp[n++] = pl->p[c][(size_t)y * pl->w + x];
				calib_median_mad(tmp, n, &med, &sigma);
				lim = fmax(fmax(5 * sigma, 0.02 * fabs(med)), 1);
				for (uint32_t y = y0; y < y1; y++)
					for (uint32_t x = x0; x < x1; x++) {
						float v = pl->p[c][(size_t)y * pl->w + x];

						if (fabs(v - med) <= lim) {
							s += v;
							k++;
						}
					}
				m[j * b->gw + i] = k ? s / (double)k : med;
			}
		}
	}
	free(tmp);
	return 0;
}

void calib_blocks_free(struct calib_blocks *b)
{
	free(b->mean);
	b->mean = NULL;
}

void calib_block_centre(const struct calib_planes *pl, const struct calib_blocks *b, unsigned c, unsigned i,
			unsigned j, double *x, double *y)
{
	/* Sample s of the plane is frame pixel 2 s + offset; a block's centre is the mean of its samples'. */
	uint64_t x0 = (uint64_t)i * pl->w / b->gw, x1 = (uint64_t)(i + 1) * pl->w / b->gw;
	uint64_t y0 = (uint64_t)j * pl->h / b->gh, y1 = (uint64_t)(j + 1) * pl->h / b->gh;
	double sx = (double)(x0 + x1 - 1) / 2, sy = (double)(y0 + y1 - 1) / 2;

	*x = 2 * sx + pl->ox[c];
	*y = 2 * sy + pl->oy[c];
}
