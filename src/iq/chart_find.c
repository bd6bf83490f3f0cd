/* SPDX-License-Identifier: MIT */
/*
 * Finding a ColorChecker: an exhaustive search over the position and pitch
 * of a 6x4 grid on a small copy of the picture, scoring the cell centres'
 * colours against the chart's (after a least-squares gain per channel) and
 * their uniformity over most of the cell; integral images make every cell mean O(1).
 * The grid found is then refined to a fraction of a pixel on the full
 * picture from the patches' edges.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
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

/*
 * Where a patch's colour gives way to the gap, walking from @from towards
 * @to along a row (@vertical false: x varies) or a column, averaged over
 * [@a, @b) across: the first point where the distance to the patch colour
 * @m reaches half its value at @to, interpolated between samples. Half
 * contrast is where a blurred edge really lies, whatever its sharpness.
 * Returns NAN when the patch does not stand out from the gap.
 */
static double patch_edge(const struct cisp_iq_image *img, bool vertical, int from, int to, int a, int b,
			 const double m[3])
{
	int dir = to > from ? 1 : -1;
	double prev = 0, half;

	half = 0;
	for (int t = a; t < b; t++)
		for (int c = 0; c < 3; c++)
			half += fabs((vertical ? iq_sample(img, t, to, c) : iq_sample(img, to, t, c)) - m[c]);
	half /= 2 * (b - a);
	if (!(half > 0.02 * (m[0] + m[1] + m[2]) / 3 + 1e-6))
		return NAN;
	for (int s = from; s != to + dir; s += dir) {
		double d = 0;

		for (int t = a; t < b; t++)
			for (int c = 0; c < 3; c++)
				d += fabs((vertical ? iq_sample(img, t, s, c) : iq_sample(img, s, t, c)) - m[c]);
		d /= b - a;
		if (d >= half)
			return s == from ? s : s - dir + dir * (half - prev) / (d - prev);
		prev = d;
	}
	return NAN;
}

/*
 * Refines a grid (top-left corner @x0, @y0, pitch @p, full-picture pixels)
 * from the centres of the patches, each the middle of its two edges, by
 * least squares on x0 + (i + 0.5) p and y0 + (j + 0.5) p. Keeps the grid
 * when too few patches stand out or the result moves further than the
 * search's own precision could explain.
 */
static void refine_grid(const struct cisp_iq_image *img, double *x0, double *y0, double *p)
{
	/* Normal equations of (X0, Y0, P). */
	double a[3][3] = { { 0 } }, r[3] = { 0 }, sol[3];
	int nx = 0, ny = 0, W = (int)img->width, H = (int)img->height;

	for (int k = 0; k < 24; k++) {
		int i = k % 6, j = k / 6;
		double cx = *x0 + (i + 0.5) * *p, cy = *y0 + (j + 0.5) * *p, m[3] = { 0 }, n = 0, e0, e1;
		int xa = (int)lrint(cx - 0.2 * *p), xb = (int)lrint(cx + 0.2 * *p);
		int ya = (int)lrint(cy - 0.2 * *p), yb = (int)lrint(cy + 0.2 * *p);
		int lo_x = (int)lrint(*x0 + i * *p), hi_x = (int)lrint(*x0 + (i + 1) * *p);
		int lo_y = (int)lrint(*y0 + j * *p), hi_y = (int)lrint(*y0 + (j + 1) * *p);

		if (xa < 0 || ya < 0 || xb >= W || yb >= H || lo_x < 0 || lo_y < 0 || hi_x >= W || hi_y >= H ||
		    xb <= xa || yb <= ya)
			continue;
		for (int y = ya; y < yb; y++)
			for (int x = xa; x < xb; x++, n++)
				for (int c = 0; c < 3; c++)
					m[c] += iq_sample(img, x, y, c);
		for (int c = 0; c < 3; c++)
			m[c] /= n;
		/* The cell's grid lines lie in the gaps: walk from the centre out to them. */
		e0 = patch_edge(img, false, (int)lrint(cx), lo_x, ya, yb, m);
		e1 = patch_edge(img, false, (int)lrint(cx), hi_x, ya, yb, m);
		if (isfinite(e0) && isfinite(e1)) {
			double u = i + 0.5, c = (e0 + e1 + 1) / 2; /* +1: a sample's edge to its right */

			a[0][0] += 1, a[0][2] += u, a[2][2] += u * u, r[0] += c, r[2] += u * c;
			nx++;
		}
		e0 = patch_edge(img, true, (int)lrint(cy), lo_y, xa, xb, m);
		e1 = patch_edge(img, true, (int)lrint(cy), hi_y, xa, xb, m);
		if (isfinite(e0) && isfinite(e1)) {
			double v = j + 0.5, c = (e0 + e1 + 1) / 2;

			a[1][1] += 1, a[1][2] += v, a[2][2] += v * v, r[1] += c, r[2] += v * c;
			ny++;
		}
	}
	if (nx < 6 || ny < 6)
		return;
	a[2][0] = a[0][2];
	a[2][1] = a[1][2];
	/* Eliminate X0 and Y0, then solve for P. */
	{
		double d = a[2][2] - a[0][2] * a[0][2] / a[0][0] - a[1][2] * a[1][2] / a[1][1];
		double e = r[2] - a[0][2] * r[0] / a[0][0] - a[1][2] * r[1] / a[1][1];

		if (!(fabs(d) > 1e-9))
			return;
		sol[2] = e / d;
		sol[0] = (r[0] - a[0][2] * sol[2]) / a[0][0];
		sol[1] = (r[1] - a[1][2] * sol[2]) / a[1][1];
	}
	if (fabs(sol[0] - *x0) > 0.1 * *p || fabs(sol[1] - *y0) > 0.1 * *p || fabs(sol[2] - *p) > 0.03 * *p)
		return;
	*x0 = sol[0];
	*y0 = sol[1];
	*p = sol[2];
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
	bx *= f;
	by *= f;
	bp *= f;
	refine_grid(img, &bx, &by, &bp);
	f = 1;
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
