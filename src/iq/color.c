/* SPDX-License-Identifier: MIT */
/*
 * CIE colorimetry and CIEDE2000. Formulas: CIE 15:2004 (CIELAB), IEC
 * 61966-2-1 (sRGB matrix), CIE 142-2001 and Sharma, Wu & Dalal 2005
 * (CIEDE2000), Lam 1985 / ICC (linear Bradford). See docs/iq.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cisp/iq_color.h>

#include "core/error_internal.h"

#define PI 3.14159265358979323846

/* White points from CIE 15:2004 (x, y of D65 0.31271, 0.32902; D50 0.34567, 0.35850). */
const double cisp_iq_white_d65[3] = { 0.95047, 1.0, 1.08883 };
const double cisp_iq_white_d50[3] = { 0.96422, 1.0, 0.82521 };

static double lab_f(double t)
{
	const double e = 216.0 / 24389.0, k = 24389.0 / 27.0;

	return t > e ? cbrt(t) : (k * t + 16.0) / 116.0;
}

static double lab_finv(double f)
{
	const double k = 24389.0 / 27.0;
	double f3 = f * f * f;

	return f3 > 216.0 / 24389.0 ? f3 : (116.0 * f - 16.0) / k;
}

void cisp_iq_xyz_to_lab(const double xyz[3], const double white[3], double lab[3])
{
	double fx = lab_f(xyz[0] / white[0]), fy = lab_f(xyz[1] / white[1]), fz = lab_f(xyz[2] / white[2]);

	lab[0] = 116.0 * fy - 16.0;
	lab[1] = 500.0 * (fx - fy);
	lab[2] = 200.0 * (fy - fz);
}

void cisp_iq_lab_to_xyz(const double lab[3], const double white[3], double xyz[3])
{
	double fy = (lab[0] + 16.0) / 116.0, fx = fy + lab[1] / 500.0, fz = fy - lab[2] / 200.0;

	xyz[0] = white[0] * lab_finv(fx);
	xyz[1] = white[1] * (lab[0] > 8.0 ? fy * fy * fy : lab[0] * 27.0 / 24389.0);
	xyz[2] = white[2] * lab_finv(fz);
}

static void mat3_apply(const double m[3][3], const double in[3], double out[3])
{
	double t[3];

	for (int i = 0; i < 3; i++)
		t[i] = m[i][0] * in[0] + m[i][1] * in[1] + m[i][2] * in[2];
	memcpy(out, t, sizeof(t));
}

/* IEC 61966-2-1 (the matrix from the primaries and the D65 white, 4 decimals as published). */
static const double srgb_to_xyz[3][3] = {
	{ 0.4124, 0.3576, 0.1805 },
	{ 0.2126, 0.7152, 0.0722 },
	{ 0.0193, 0.1192, 0.9505 },
};
static const double xyz_to_srgb[3][3] = {
	{ 3.2406, -1.5372, -0.4986 },
	{ -0.9689, 1.8758, 0.0415 },
	{ 0.0557, -0.2040, 1.0570 },
};

void cisp_iq_srgb_to_xyz(const double rgb[3], double xyz[3])
{
	mat3_apply(srgb_to_xyz, rgb, xyz);
}

void cisp_iq_xyz_to_srgb(const double xyz[3], double rgb[3])
{
	mat3_apply(xyz_to_srgb, xyz, rgb);
}

/* The linear Bradford cone response matrix and its inverse. */
static const double bradford[3][3] = {
	{ 0.8951, 0.2664, -0.1614 },
	{ -0.7502, 1.7135, 0.0367 },
	{ 0.0389, -0.0685, 1.0296 },
};
static const double bradford_inv[3][3] = {
	{ 0.9869929, -0.1470543, 0.1599627 },
	{ 0.4323053, 0.5183603, 0.0492912 },
	{ -0.0085287, 0.0400428, 0.9684867 },
};

void cisp_iq_adapt(const double xyz[3], const double from[3], const double to[3], double out[3])
{
	double cf[3], ct[3], c[3];

	if (from[0] == to[0] && from[1] == to[1] && from[2] == to[2]) {
		memmove(out, xyz, 3 * sizeof(double));
		return;
	}
	mat3_apply(bradford, from, cf);
	mat3_apply(bradford, to, ct);
	mat3_apply(bradford, xyz, c);
	for (int i = 0; i < 3; i++)
		c[i] *= cf[i] != 0 ? ct[i] / cf[i] : 1.0;
	mat3_apply(bradford_inv, c, out);
}

static double deg(double rad)
{
	return rad * 180.0 / PI;
}

static double rad(double d)
{
	return d * PI / 180.0;
}

/* Hue angle in degrees 0..360; 0 for a zero vector (as Sharma et al. specify). */
static double hue_deg(double a, double b)
{
	double h;

	if (a == 0 && b == 0)
		return 0;
	h = deg(atan2(b, a));
	return h < 0 ? h + 360.0 : h;
}

double cisp_iq_delta_e2000(const double lab1[3], const double lab2[3])
{
	double c1 = hypot(lab1[1], lab1[2]), c2 = hypot(lab2[1], lab2[2]);
	double cbar = (c1 + c2) / 2, cbar7 = pow(cbar, 7);
	double g = 0.5 * (1 - sqrt(cbar7 / (cbar7 + pow(25.0, 7))));
	double a1 = (1 + g) * lab1[1], a2 = (1 + g) * lab2[1];
	double cp1 = hypot(a1, lab1[2]), cp2 = hypot(a2, lab2[2]);
	double hp1 = hue_deg(a1, lab1[2]), hp2 = hue_deg(a2, lab2[2]);
	double dl = lab2[0] - lab1[0], dc = cp2 - cp1, dh = 0, hbar;
	double lbar, cpbar, t, dtheta, rc, sl, sc, sh, rt, cpbar7, l50;

	/* Hue difference: zero if either chroma is zero, else the short way round. */
	if (cp1 * cp2 != 0) {
		dh = hp2 - hp1;
		if (dh > 180)
			dh -= 360;
		else if (dh < -180)
			dh += 360;
	}
	double dhh = 2 * sqrt(cp1 * cp2) * sin(rad(dh / 2));

	lbar = (lab1[0] + lab2[0]) / 2;
	cpbar = (cp1 + cp2) / 2;
	if (cp1 * cp2 == 0)
		hbar = hp1 + hp2;
	else if (fabs(hp1 - hp2) <= 180)
		hbar = (hp1 + hp2) / 2;
	else if (hp1 + hp2 < 360)
		hbar = (hp1 + hp2 + 360) / 2;
	else
		hbar = (hp1 + hp2 - 360) / 2;
	t = 1 - 0.17 * cos(rad(hbar - 30)) + 0.24 * cos(rad(2 * hbar)) + 0.32 * cos(rad(3 * hbar + 6)) -
	    0.20 * cos(rad(4 * hbar - 63));
	dtheta = 30 * exp(-((hbar - 275) / 25) * ((hbar - 275) / 25));
	cpbar7 = pow(cpbar, 7);
	rc = 2 * sqrt(cpbar7 / (cpbar7 + pow(25.0, 7)));
	l50 = (lbar - 50) * (lbar - 50);
	sl = 1 + 0.015 * l50 / sqrt(20 + l50);
	sc = 1 + 0.045 * cpbar;
	sh = 1 + 0.015 * cpbar * t;
	rt = -sin(rad(2 * dtheta)) * rc;
	return sqrt((dl / sl) * (dl / sl) + (dc / sc) * (dc / sc) + (dhh / sh) * (dhh / sh) +
		    rt * (dc / sc) * (dhh / sh));
}

double cisp_iq_delta_e76(const double lab1[3], const double lab2[3])
{
	double d0 = lab1[0] - lab2[0], d1 = lab1[1] - lab2[1], d2 = lab1[2] - lab2[2];

	return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

double cisp_iq_angular_error(const double a[3], const double b[3])
{
	double na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
	double nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
	double c;

	if (na == 0 || nb == 0)
		return 0;
	c = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (na * nb);
	return deg(acos(c > 1 ? 1 : c < -1 ? -1 : c));
}

static void to_srgb_display(const double xyz_d65[3], double out[3])
{
	double rgb[3];

	cisp_iq_xyz_to_srgb(xyz_d65, rgb);
	for (int i = 0; i < 3; i++) {
		double v = rgb[i] < 0 ? 0 : rgb[i] > 1 ? 1 : rgb[i];

		out[i] = cisp_iq_encode(CISP_TRANSFER_SRGB, v);
	}
}

int cisp_iq_color_evaluate(const double (*measured)[3], const double (*reference)[3], const double ref_white[3],
			   const char *const *names, const bool *neutral, unsigned count,
			   const struct cisp_iq_color_options *opt, struct cisp_iq_color_result *res)
{
	static const struct cisp_iq_color_options none;
	double meas[CISP_IQ_MAX_PATCHES][3], ref[CISP_IQ_MAX_PATCHES][3], ref65[CISP_IQ_MAX_PATCHES][3];
	double grey_m[3] = { 0 }, grey_r[3] = { 0 }, grey_m_rgb[3] = { 0 }, grey_r_rgb[3] = { 0 };
	unsigned n_neutral = 0, n_chroma = 0;
	double sum = 0, sum_chroma = 0, sum76 = 0;

	memset(res, 0, sizeof(*res));
	if (!opt)
		opt = &none;
	if (count == 0 || count > CISP_IQ_MAX_PATCHES)
		return cisp_error(-EINVAL, "%u patches; a colour evaluation takes 1..%d", count, CISP_IQ_MAX_PATCHES);
	if (!(ref_white[1] > 0) || !(ref_white[0] > 0) || !(ref_white[2] > 0))
		return cisp_error(-EINVAL, "reference white (%g, %g, %g) is not a colour", ref_white[0],
				  ref_white[1], ref_white[2]);
	for (unsigned i = 0; i < count; i++) {
		double xyz[3], rgb[3];

		for (int c = 0; c < 3; c++)
			if (!isfinite(measured[i][c]) || !isfinite(reference[i][c]))
				return cisp_error(-EINVAL, "patch %u: a colour value is not a finite number", i);
		/* Both sides go to D50 (the CIELAB white of published chart values). */
		cisp_iq_srgb_to_xyz(measured[i], xyz);
		cisp_iq_adapt(xyz, cisp_iq_white_d65, cisp_iq_white_d50, meas[i]);
		cisp_iq_adapt(reference[i], ref_white, cisp_iq_white_d50, ref[i]);
		cisp_iq_adapt(reference[i], ref_white, cisp_iq_white_d65, ref65[i]);
		if (neutral && neutral[i]) {
			cisp_iq_xyz_to_srgb(ref65[i], rgb);
			for (int c = 0; c < 3; c++) {
				grey_m[c] += meas[i][c];
				grey_r[c] += ref[i][c];
				grey_m_rgb[c] += measured[i][c];
				grey_r_rgb[c] += rgb[c];
			}
			n_neutral++;
		}
	}
	res->exposure_scale = 1.0;
	if (n_neutral)
		res->wb_error_deg = cisp_iq_angular_error(grey_m_rgb, grey_r_rgb);
	if (n_neutral && opt->white && grey_m[1] > 0 && grey_r[1] > 0) {
		double wm[3], wr[3];

		for (int c = 0; c < 3; c++) {
			wm[c] = grey_m[c] / grey_m[1];
			wr[c] = grey_r[c] / grey_r[1];
		}
		for (unsigned i = 0; i < count; i++)
			cisp_iq_adapt(meas[i], wm, wr, meas[i]);
	}
	if (n_neutral && opt->exposure) {
		double num = 0, den = 0;

		for (unsigned i = 0; i < count; i++)
			if (neutral[i]) {
				num += meas[i][1] * ref[i][1];
				den += meas[i][1] * meas[i][1];
			}
		if (den > 0) {
			res->exposure_scale = num / den;
			for (unsigned i = 0; i < count; i++)
				for (int c = 0; c < 3; c++)
					meas[i][c] *= res->exposure_scale;
		}
	}
	res->count = count;
	for (unsigned i = 0; i < count; i++) {
		struct cisp_iq_color_patch *p = &res->patch[i];
		double m65[3];

		if (names && names[i])
			snprintf(p->name, sizeof(p->name), "%s", names[i]);
		else
			snprintf(p->name, sizeof(p->name), "patch %u", i + 1);
		p->neutral = neutral && neutral[i];
		cisp_iq_xyz_to_lab(ref[i], cisp_iq_white_d50, p->ref_lab);
		cisp_iq_xyz_to_lab(meas[i], cisp_iq_white_d50, p->lab);
		p->de00 = cisp_iq_delta_e2000(p->ref_lab, p->lab);
		p->de76 = cisp_iq_delta_e76(p->ref_lab, p->lab);
		to_srgb_display(ref65[i], p->ref_srgb);
		cisp_iq_adapt(meas[i], cisp_iq_white_d50, cisp_iq_white_d65, m65);
		to_srgb_display(m65, p->srgb);
		sum += p->de00;
		sum76 += p->de76;
		if (!p->neutral) {
			sum_chroma += p->de00;
			n_chroma++;
		}
		if (p->de00 > res->max_de00) {
			res->max_de00 = p->de00;
			res->max_patch = i;
		}
	}
	res->mean_de00 = sum / count;
	res->mean_de76 = sum76 / count;
	res->mean_de00_chromatic = n_chroma ? sum_chroma / n_chroma : 0;
	return 0;
}

void cisp_iq_chart_patches(const double corners[4][2], unsigned cols, unsigned rows, double fraction,
			   struct cisp_iq_rect *rects)
{
	if (fraction < 0.1)
		fraction = 0.1;
	if (fraction > 1)
		fraction = 1;
	for (unsigned j = 0; j < rows; j++)
		for (unsigned i = 0; i < cols; i++) {
			/* Bilinear map of the unit square to the corners: exact for an affine view, close for mild perspective. */
			double p[4][2];
			double u0 = (i + 0.5 - fraction / 2) / cols, u1 = (i + 0.5 + fraction / 2) / cols;
			double v0 = (j + 0.5 - fraction / 2) / rows, v1 = (j + 0.5 + fraction / 2) / rows;
			double uv[4][2] = { { u0, v0 }, { u1, v0 }, { u1, v1 }, { u0, v1 } };
			double xs[4], ys[4], xl, xr, yt, yb;

			for (int k = 0; k < 4; k++) {
				double u = uv[k][0], v = uv[k][1];

				for (int c = 0; c < 2; c++)
					p[k][c] = (1 - u) * (1 - v) * corners[0][c] + u * (1 - v) * corners[1][c] +
						  u * v * corners[2][c] + (1 - u) * v * corners[3][c];
				xs[k] = p[k][0];
				ys[k] = p[k][1];
			}
			/* The largest axis-aligned box inside the mapped quadrilateral's inner bounds. */
			xl = fmax(xs[0], xs[3]);
			xr = fmin(xs[1], xs[2]);
			yt = fmax(ys[0], ys[1]);
			yb = fmin(ys[2], ys[3]);
			if (xr < xl) {
				double m = (xl + xr) / 2;
				xl = xr = m;
			}
			if (yb < yt) {
				double m = (yt + yb) / 2;
				yt = yb = m;
			}
			rects[j * cols + i] = (struct cisp_iq_rect){
				.x = (int32_t)ceil(xl - 1e-6), .y = (int32_t)ceil(yt - 1e-6),
				.width = (int32_t)floor(xr + 1e-6) - (int32_t)ceil(xl - 1e-6),
				.height = (int32_t)floor(yb + 1e-6) - (int32_t)ceil(yt - 1e-6),
			};
		}
}
