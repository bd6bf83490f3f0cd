/* SPDX-License-Identifier: MIT */
/*
 * Finding a ColorChecker: an exhaustive search over the position and pitch
 * of a 6x4 grid on a small copy of the picture, scoring the cell centres'
 * colours against the chart's (after a least-squares gain per channel) and
 * their uniformity over most of the cell; integral images make every cell mean O(1).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/iq_color.h>

#include "core/error_internal.h"
#include "iq_internal.h"

#define WORK_MAX 480

struct integral {
	int w, h;
	double *s[4]; /* R, G, B, Y^2 summed over [0, x) x [0, y) */
};

static double box(const double *s, int w, int x0, int y0, int x1, int y1)
{
	return s[y1 * (w + 1) + x1] - s[y0 * (w + 1) + x1] - s[y1 * (w + 1) + x0] + s[y0 * (w + 1) + x0];
}

/* Linear sRGB of the reference patches. */
static void reference(double ref[24][3])
{
	const struct cisp_iq_colorchecker_patch *cc = cisp_iq_colorchecker();

	for (int i = 0; i < 24; i++) {
		double xyz[3];

		cisp_iq_lab_to_xyz(cc[i].lab_d50, cisp_iq_white_d50, xyz);
		cisp_iq_adapt(xyz, cisp_iq_white_d50, cisp_iq_white_d65, xyz);
		cisp_iq_xyz_to_srgb(xyz, ref[i]);
		for (int c = 0; c < 3; c++)
			ref[i][c] = fmax(ref[i][c], 0);
	}
}

/* The score of a grid with its top-left cell corner at (x0, y0) and pitch p (working pixels). */
static double score_grid(const struct integral *I, const double ref[24][3], double refsum, double x0, double y0,
			 double p)
{
	double m[24][3], num[3] = { 0 }, den[3] = { 0 }, g[3], res = 0, var = 0, lum = 0;

	for (int k = 0; k < 24; k++) {
		/* The central 40 % of the cell: inside the patch whatever the gap. */
		int xa = (int)lrint(x0 + (k % 6 + 0.3) * p), xb = (int)lrint(x0 + (k % 6 + 0.7) * p);
		int ya = (int)lrint(y0 + (k / 6 + 0.3) * p), yb = (int)lrint(y0 + (k / 6 + 0.7) * p);
		double n, y2, y;

		if (xb <= xa)
			xb = xa + 1;
		if (yb <= ya)
			yb = ya + 1;
		n = (double)(xb - xa) * (yb - ya);
		for (int c = 0; c < 3; c++) {
			m[k][c] = box(I->s[c], I->w, xa, ya, xb, yb) / n;
			num[c] += m[k][c] * ref[k][c];
			den[c] += m[k][c] * m[k][c];
		}
		/*
		 * Uniformity over the central 76 %: a grid off centre or of the wrong
		 * pitch takes in the gaps around the patches, which this catches.
		 */
		xa = (int)lrint(x0 + (k % 6 + 0.12) * p);
		xb = (int)lrint(x0 + (k % 6 + 0.88) * p);
		ya = (int)lrint(y0 + (k / 6 + 0.12) * p);
		yb = (int)lrint(y0 + (k / 6 + 0.88) * p);
		if (xb <= xa)
			xb = xa + 1;
		if (yb <= ya)
			yb = ya + 1;
		n = (double)(xb - xa) * (yb - ya);
		y = (IQ_KR * box(I->s[0], I->w, xa, ya, xb, yb) + IQ_KG * box(I->s[1], I->w, xa, ya, xb, yb) +
		     IQ_KB * box(I->s[2], I->w, xa, ya, xb, yb)) / n;
		y2 = box(I->s[3], I->w, xa, ya, xb, yb) / n;
		var += fmax(0, y2 - y * y);
		lum += y * y;
	}
	for (int c = 0; c < 3; c++) {
		if (!(den[c] > 0) || !(num[c] > 0))
			return INFINITY;
		g[c] = num[c] / den[c];
	}
	if (fmax(g[0], fmax(g[1], g[2])) > 8 * fmin(g[0], fmin(g[1], g[2])))
		return INFINITY; /* no plausible white balance makes these the chart */
	for (int k = 0; k < 24; k++)
		for (int c = 0; c < 3; c++) {
			double d = g[c] * m[k][c] - ref[k][c];

			res += d * d;
		}
	return res / refsum + 0.5 * (lum > 0 ? var / lum : 1);
}

int cisp_iq_find_colorchecker(const struct cisp_iq_image *img, double corners[4][2], double *score)
{
	struct integral I = { 0 };
	double ref[24][3], refsum = 0, best = INFINITY, bx = 0, by = 0, bp = 0, f;
	int step, ret;

	ret = iq_image_check(img, "chart picture");
	if (ret)
		return ret;
	if (img->channels != 3)
		return cisp_error(-EINVAL, "finding a ColorChecker needs an RGB picture");
	if (img->width < 48 || img->height < 32)
		return cisp_error(-EINVAL, "picture %ux%u is too small to hold a ColorChecker", img->width, img->height);
	reference(ref);
	for (int k = 0; k < 24; k++)
		for (int c = 0; c < 3; c++)
			refsum += ref[k][c] * ref[k][c];
	/* A working copy at most WORK_MAX wide, box-averaged, with integral images. */
	step = (int)((img->width + WORK_MAX - 1) / WORK_MAX);
	I.w = (int)img->width / step;
	I.h = (int)img->height / step;
	f = step;
	for (int c = 0; c < 4; c++) {
		I.s[c] = calloc((size_t)(I.w + 1) * (I.h + 1), sizeof(double));
		if (!I.s[c])
			ret = cisp_error(-ENOMEM, "out of memory for finding the chart");
	}
	for (int y = 0; !ret && y < I.h; y++)
		for (int x = 0; x < I.w; x++) {
			double v[3] = { 0, 0, 0 }, yy;

			for (int dy = 0; dy < step; dy++)
				for (int dx = 0; dx < step; dx++)
					for (int c = 0; c < 3; c++)
						v[c] += iq_sample(img, x * step + dx, y * step + dy, c);
			for (int c = 0; c < 3; c++)
				v[c] /= step * step;
			yy = IQ_KR * v[0] + IQ_KG * v[1] + IQ_KB * v[2];
			for (int c = 0; c < 4; c++) {
				double *s = I.s[c];
				double val = c < 3 ? v[c] : yy * yy;

				s[(y + 1) * (I.w + 1) + x + 1] = val + s[y * (I.w + 1) + x + 1] + s[(y + 1) * (I.w + 1) + x] -
								 s[y * (I.w + 1) + x];
			}
		}
	/* Coarse: pitches from 1/28 of the height to the largest that fits, positions every 1/8 pitch. */
	for (double p = I.h / 28.0; !ret && 6 * p <= I.w && 4 * p <= I.h; p *= 1.04) {
		double st = fmax(1, p / 8);

		for (double y0 = 0; y0 + 4 * p <= I.h; y0 += st)
			for (double x0 = 0; x0 + 6 * p <= I.w; x0 += st) {
				double sc = score_grid(&I, ref, refsum, x0, y0, p);

				if (sc < best) {
					best = sc;
					bx = x0;
					by = y0;
					bp = p;
				}
			}
	}
	/* Fine: a local search in quarter-pixel and half-percent steps. */
	for (int it = 0; !ret && it < 3 && bp > 0; it++) {
		double cx = bx, cy = by, cp = bp, d = bp / 16 / (it + 1);

		for (int k = -4; k <= 4; k++)
			for (int j = -4; j <= 4; j++)
				for (int i = -4; i <= 4; i++) {
					double p = cp * (1 + 0.005 * k), x0 = cx + i * d, y0 = cy + j * d, sc;

					if (x0 < 0 || y0 < 0 || x0 + 6 * p > I.w || y0 + 4 * p > I.h)
						continue;
					sc = score_grid(&I, ref, refsum, x0, y0, p);
					if (sc < best) {
						best = sc;
						bx = x0;
						by = y0;
						bp = p;
					}
				}
	}
	for (int c = 0; c < 4; c++)
		free(I.s[c]);
	if (ret)
		return ret;
	if (score)
		*score = best;
	if (!(best <= 0.25))
		return cisp_error(-ENOENT, "no ColorChecker found (best match %.2f; give --corners)", best);
	corners[0][0] = bx * f;
	corners[0][1] = by * f;
	corners[1][0] = (bx + 6 * bp) * f;
	corners[1][1] = by * f;
	corners[2][0] = (bx + 6 * bp) * f;
	corners[2][1] = (by + 4 * bp) * f;
	corners[3][0] = bx * f;
	corners[3][1] = (by + 4 * bp) * f;
	return 0;
}
