/* SPDX-License-Identifier: MIT */
/*
 * Slanted-edge SFR after the ISO 12233 method: per-row edge centroids, a line
 * fit, a 4x oversampled ESF, its windowed derivative and a DFT. docs/iq.md
 * gives every step.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/iq_sfr.h>

#include "core/error_internal.h"
#include "iq_internal.h"

#define PI 3.14159265358979323846
#define OVERSAMPLE 4

/* Hamming window of length @n centred at @centre, evaluated at @x (0 outside the window). */
static double hamming(double x, double centre, double n)
{
	double t = (x - centre) / n;

	if (t < -0.5 || t > 0.5)
		return 0;
	return 0.54 + 0.46 * cos(2 * PI * t);
}

/*
 * Edge location in each row: centroid of the windowed central difference.
 * @centre[y] < 0 means "window centred on the row"; else centred there.
 * Return false when a row has no edge.
 */
static bool row_centroids(const double *a, int rows, int cols, const double *centre, double *loc)
{
	for (int y = 0; y < rows; y++) {
		const double *r = a + (size_t)y * cols;
		double sw = 0, sxw = 0;
		double c = centre ? centre[y] : (cols - 1) / 2.0;

		for (int x = 1; x < cols - 1; x++) {
			double d = (r[x + 1] - r[x - 1]) * hamming(x, c, cols);

			sw += d;
			sxw += x * d;
		}
		if (sw == 0)
			return false;
		loc[y] = sxw / sw;
	}
	return true;
}

/* Least-squares line loc = p0 + p1 * y. */
static void fit_line(const double *loc, int rows, double *p0, double *p1)
{
	double sy = 0, sl = 0, syy = 0, syl = 0, n = rows, den;

	for (int y = 0; y < rows; y++) {
		sy += y;
		sl += loc[y];
		syy += (double)y * y;
		syl += y * loc[y];
	}
	den = n * syy - sy * sy;
	*p1 = den != 0 ? (n * syl - sy * sl) / den : 0;
	*p0 = (sl - *p1 * sy) / n;
}

/* |DFT| of the windowed LSF at @f cycles per pixel, relative to DC, with the filter corrections. */
static double mtf_at(const double *lsf, int nb, double spacing, double f)
{
	double re = 0, im = 0, dc = 0, w, corr = 1;

	for (int k = 0; k < nb; k++) {
		double ph = 2 * PI * f * spacing * k;

		re += lsf[k] * cos(ph);
		im -= lsf[k] * sin(ph);
		dc += lsf[k];
	}
	if (dc == 0)
		return 0;
	/* The central difference over +-1 bin has gain sin(w)/w; the bins average over one bin: sinc. */
	w = 2 * PI * f * spacing;
	if (w > 1e-9) {
		corr = (sin(w) / w) * (sin(w / 2) / (w / 2));
		if (corr < 0.1)
			corr = 0.1;
	}
	return sqrt(re * re + im * im) / fabs(dc) / corr;
}

int cisp_iq_sfr(const struct cisp_iq_image *img, const struct cisp_iq_rect *roi, int channel,
		struct cisp_iq_sfr_result *res)
{
	int rows, cols, ret, nb, used, first;
	double *a = NULL, *loc = NULL, *centre = NULL, *esf = NULL, *lsf = NULL, *cnt = NULL;
	double gx = 0, gy = 0, p0, p1, spacing, lo, hi, mx, mn, tail;
	bool transpose;

	memset(res, 0, sizeof(*res));
	ret = iq_image_check(img, "SFR image");
	if (ret)
		return ret;
	ret = cisp_iq_rect_check(img, roi, 16, "edge region");
	if (ret)
		return ret;
	if (channel < -1 || channel > 2 || (channel >= 0 && img->channels == 1 && channel != 0))
		return cisp_error(-EINVAL, "channel %d does not exist in a %u-channel image", channel, img->channels);
	/* An edge that runs more left-right than top-bottom is transposed so it runs top to bottom. */
	for (int y = 0; y < roi->height - 1; y++)
		for (int x = 0; x < roi->width - 1; x++) {
			double v = iq_sample(img, roi->x + x, roi->y + y, channel);

			gx += fabs(iq_sample(img, roi->x + x + 1, roi->y + y, channel) - v);
			gy += fabs(iq_sample(img, roi->x + x, roi->y + y + 1, channel) - v);
		}
	transpose = gy > gx;
	rows = transpose ? roi->width : roi->height;
	cols = transpose ? roi->height : roi->width;
	res->vertical = !transpose;
	nb = OVERSAMPLE * cols;
	a = calloc((size_t)rows * cols, sizeof(double));
	loc = calloc(rows, sizeof(double));
	centre = calloc(rows, sizeof(double));
	esf = calloc(nb, sizeof(double));
	cnt = calloc(nb, sizeof(double));
	lsf = calloc(nb, sizeof(double));
	if (!a || !loc || !centre || !esf || !cnt || !lsf) {
		ret = cisp_error(-ENOMEM, "out of memory for the edge analysis");
		goto out;
	}
	for (int y = 0; y < rows; y++)
		for (int x = 0; x < cols; x++)
			a[(size_t)y * cols + x] = transpose ? iq_sample(img, roi->x + y, roi->y + x, channel)
							    : iq_sample(img, roi->x + x, roi->y + y, channel);
	/* Two passes: a window on the region's centre, then on the first fit's line. */
	if (!row_centroids(a, rows, cols, NULL, loc)) {
		ret = cisp_error(-EINVAL, "edge region (%d,%d) %dx%d: no edge found (a row is flat)", roi->x, roi->y,
				 roi->width, roi->height);
		goto out;
	}
	fit_line(loc, rows, &p0, &p1);
	for (int y = 0; y < rows; y++)
		centre[y] = p0 + p1 * y;
	if (!row_centroids(a, rows, cols, centre, loc)) {
		ret = cisp_error(-EINVAL, "edge region (%d,%d) %dx%d: no edge found", roi->x, roi->y, roi->width,
				 roi->height);
		goto out;
	}
	fit_line(loc, rows, &p0, &p1);
	res->angle_deg = atan(p1) * 180 / PI;
	/* Use a whole number of phase cycles: rows over which the edge moves an integer number of pixels. */
	if (fabs(p1) * rows < 1) {
		ret = cisp_error(-EINVAL,
				 "edge region (%d,%d) %dx%d: the edge is %.2f degrees off the pixel grid and moves %.2f "
				 "pixels across the region; it needs at least 1 (slant it 2..20 degrees)",
				 roi->x, roi->y, roi->width, roi->height, fabs(res->angle_deg), fabs(p1) * rows);
		goto out;
	}
	if (p0 < 2 || p0 > cols - 3 || p0 + p1 * (rows - 1) < 2 || p0 + p1 * (rows - 1) > cols - 3) {
		ret = cisp_error(-EINVAL, "edge region (%d,%d) %dx%d: the edge leaves the region; centre it",
				 roi->x, roi->y, roi->width, roi->height);
		goto out;
	}
	used = (int)lround(floor(fabs(p1) * rows) / fabs(p1));
	if (used > rows)
		used = rows;
	first = (rows - used) / 2;
	/* The 4x oversampled ESF: bin k holds horizontal distances [(k - nb/2) / 4, (k - nb/2 + 1) / 4). */
	for (int y = first; y < first + used; y++)
		for (int x = 0; x < cols; x++) {
			int k = (int)floor(OVERSAMPLE * (x - (p0 + p1 * y))) + nb / 2;

			if (k >= 0 && k < nb) {
				esf[k] += a[(size_t)y * cols + x];
				cnt[k] += 1;
			}
		}
	for (int k = 0; k < nb; k++)
		if (cnt[k] > 0)
			esf[k] /= cnt[k];
	/* Empty bins (at the ends, or with too few rows) take the nearest filled neighbour. */
	for (int k = 0, last = -1; k < nb; k++) {
		if (cnt[k] > 0) {
			if (last < 0)
				for (int j = 0; j < k; j++)
					esf[j] = esf[k];
			else
				for (int j = last + 1; j < k; j++)
					esf[j] = esf[last] + (esf[k] - esf[last]) * (j - last) / (k - last);
			last = k;
		} else if (k == nb - 1 && last >= 0) {
			for (int j = last + 1; j < nb; j++)
				esf[j] = esf[last];
		}
	}
	/* Levels from the outer eighths of the profile; a bright-to-dark edge is flipped to dark-to-bright. */
	tail = 0;
	lo = hi = 0;
	for (int k = 0; k < nb / 8; k++) {
		lo += esf[k];
		hi += esf[nb - 1 - k];
		tail += 1;
	}
	lo /= tail;
	hi /= tail;
	if (fabs(hi - lo) < 1e-6 * (fabs(hi) + fabs(lo) + 1e-12) || hi == lo) {
		ret = cisp_error(-EINVAL, "edge region (%d,%d) %dx%d: the two sides have the same level", roi->x,
				 roi->y, roi->width, roi->height);
		goto out;
	}
	if (hi < lo) {
		for (int k = 0; k < nb / 2; k++) {
			double t = esf[k];

			esf[k] = esf[nb - 1 - k];
			esf[nb - 1 - k] = t;
		}
		double t = lo;
		lo = hi;
		hi = t;
	}
	res->low = lo;
	res->high = hi;
	/* LSF by central difference, windowed around its centroid. */
	{
		double s = 0, sk = 0, m;

		for (int k = 1; k < nb - 1; k++)
			lsf[k] = (esf[k + 1] - esf[k - 1]) / 2;
		lsf[0] = lsf[1];
		lsf[nb - 1] = lsf[nb - 2];
		for (int k = 0; k < nb; k++) {
			s += lsf[k];
			sk += k * lsf[k];
		}
		m = s != 0 ? sk / s : nb / 2.0;
		for (int k = 0; k < nb; k++)
			lsf[k] *= hamming(k, m, nb);
	}
	spacing = cos(atan(p1)) / OVERSAMPLE; /* pixels across the edge per bin */
	for (int i = 0; i < CISP_IQ_SFR_POINTS; i++)
		res->mtf[i] = mtf_at(lsf, nb, spacing, i / 100.0);
	res->mtf_nyq2 = res->mtf[25];
	res->mtf_nyq = res->mtf[50];
	res->mtf50 = 1.0;
	for (int i = 1; i < CISP_IQ_SFR_POINTS; i++)
		if (res->mtf[i] < 0.5) {
			double f0 = (i - 1) / 100.0, f1 = i / 100.0;

			for (int it = 0; it < 30; it++) {
				double fm = (f0 + f1) / 2;

				if (mtf_at(lsf, nb, spacing, fm) < 0.5)
					f1 = fm;
				else
					f0 = fm;
			}
			res->mtf50 = (f0 + f1) / 2;
			break;
		}
	/* Overshoot, undershoot and the 10-90 % rise on the normalised profile. */
	mx = -INFINITY;
	mn = INFINITY;
	for (int k = 0; k < nb; k++) {
		esf[k] = (esf[k] - lo) / (hi - lo);
		mx = fmax(mx, esf[k]);
		mn = fmin(mn, esf[k]);
	}
	res->overshoot_pct = fmax(0, mx - 1) * 100;
	res->undershoot_pct = fmax(0, -mn) * 100;
	{
		/* Crossings nearest the LSF centre, searched outwards from the 50 % point. */
		int k50 = -1;
		double x10 = 0, x50 = 0, x90 = 0;

		for (int k = 1; k < nb; k++)
			if (esf[k - 1] < 0.5 && esf[k] >= 0.5 && (k50 < 0 || fabs(k - nb / 2.0) < fabs(k50 - nb / 2.0)))
				k50 = k;
		if (k50 < 0)
			k50 = nb / 2;
		x50 = k50 - 1 + (0.5 - esf[k50 - 1]) / (esf[k50] - esf[k50 - 1] + 1e-300);
		x10 = 0;
		for (int k = k50; k > 0; k--)
			if (esf[k - 1] < 0.1 && esf[k] >= 0.1) {
				x10 = k - 1 + (0.1 - esf[k - 1]) / (esf[k] - esf[k - 1]);
				break;
			}
		x90 = nb - 1;
		for (int k = k50; k < nb; k++)
			if (esf[k - 1] < 0.9 && esf[k] >= 0.9) {
				x90 = k - 1 + (0.9 - esf[k - 1]) / (esf[k] - esf[k - 1]);
				break;
			}
		res->rise_10_90 = (x90 - x10) * spacing;
		for (int i = 0; i < CISP_IQ_ESF_POINTS; i++) {
			double kx = x50 + (i - (CISP_IQ_ESF_POINTS - 1) / 2) * 0.25 / spacing;
			int k0 = (int)floor(kx);
			double t = kx - k0;

			if (k0 < 0)
				res->esf[i] = esf[0];
			else if (k0 >= nb - 1)
				res->esf[i] = esf[nb - 1];
			else
				res->esf[i] = esf[k0] + t * (esf[k0 + 1] - esf[k0]);
		}
	}
	ret = 0;
out:
	free(a);
	free(loc);
	free(centre);
	free(esf);
	free(cnt);
	free(lsf);
	return ret;
}

double cisp_iq_sfr_at(const struct cisp_iq_sfr_result *res, double freq)
{
	double x = freq * 100;
	int i;

	if (!(x > 0))
		return res->mtf[0];
	if (x >= CISP_IQ_SFR_POINTS - 1)
		return res->mtf[CISP_IQ_SFR_POINTS - 1];
	i = (int)x;
	return res->mtf[i] + (x - i) * (res->mtf[i + 1] - res->mtf[i]);
}
