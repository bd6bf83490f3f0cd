/* SPDX-License-Identifier: MIT */
/* Colour correction matrix fitting: constrained least squares, then an optional CIEDE2000 refinement. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/iq_calib.h>
#include <cisp/iq_color.h>

#include "abi/fixed_point.h"
#include "core/error_internal.h"
#include "core/matrix3.h"
#include "plane_fit.h"

/* Invert a 3x3 matrix; return false when it is (nearly) singular. */
static bool inv3(const double a[3][3], double out[3][3])
{
	double scale = 0;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			scale = fmax(scale, fabs(a[i][j]));
	return scale > 0 && fabs(matrix3_invert(a, out)) >= 1e-12 * scale * scale * scale;
}

struct fit_data {
	const double (*camera)[3];
	double ref_lab[CISP_IQ_MAX_PATCHES][3];
	const double *weights;
	unsigned count;
	bool preserve_white;
};

/* Lab (D50) of a linear sRGB colour, as cisp_iq_color_evaluate() computes it. */
static void srgb_lab(const double rgb[3], double lab[3])
{
	double xyz[3];

	cisp_iq_srgb_to_xyz(rgb, xyz);
	cisp_iq_adapt(xyz, cisp_iq_white_d65, cisp_iq_white_d50, xyz);
	cisp_iq_xyz_to_lab(xyz, cisp_iq_white_d50, lab);
}

/* The parameters: 6 (two free coefficients per row, the diagonal from the row sum) or 9. */
static void params_to_ccm(const struct fit_data *d, const double *p, double m[3][3])
{
	if (d->preserve_white) {
		for (int i = 0, k = 0; i < 3; i++) {
			double s = 0;

			for (int j = 0; j < 3; j++)
				if (j != i) {
					m[i][j] = p[k++];
					s += m[i][j];
				}
			m[i][i] = 1 - s;
		}
	} else {
		for (int i = 0; i < 9; i++)
			m[i / 3][i % 3] = p[i];
	}
}

static void ccm_to_params(const struct fit_data *d, const double m[3][3], double *p)
{
	for (int i = 0, k = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			if (!d->preserve_white)
				p[k++] = m[i][j];
			else if (j != i)
				p[k++] = m[i][j];
}

static double cost(const struct fit_data *d, const double *p, double *max_de)
{
	double m[3][3], sum = 0, wsum = 0;

	params_to_ccm(d, p, m);
	if (max_de)
		*max_de = 0;
	for (unsigned i = 0; i < d->count; i++) {
		double rgb[3], lab[3], de, w = d->weights ? d->weights[i] : 1.0;

		for (int r = 0; r < 3; r++)
			rgb[r] = m[r][0] * d->camera[i][0] + m[r][1] * d->camera[i][1] + m[r][2] * d->camera[i][2];
		srgb_lab(rgb, lab);
		de = cisp_iq_delta_e2000(lab, d->ref_lab[i]);
		sum += w * de;
		wsum += w;
		if (max_de && de > *max_de)
			*max_de = de;
	}
	return wsum > 0 ? sum / wsum : 0;
}

/* Nelder-Mead simplex minimisation of cost() in @n dimensions, from @x (updated in place). */
static void nelder_mead(const struct fit_data *d, double *x, int n)
{
	double s[10][9], f[10], c[9], xr[9], xe[9];

	for (int i = 0; i <= n; i++) {
		memcpy(s[i], x, n * sizeof(double));
		if (i)
			s[i][i - 1] += 0.05;
		f[i] = cost(d, s[i], NULL);
	}
	for (int iter = 0; iter < 4000; iter++) {
		int lo = 0, hi = 0, nh = 0;
		double fr;

		for (int i = 1; i <= n; i++) {
			if (f[i] < f[lo])
				lo = i;
			if (f[i] > f[hi])
				hi = i;
		}
		nh = lo;
		for (int i = 0; i <= n; i++)
			if (i != hi && f[i] > f[nh])
				nh = i;
		if (f[hi] - f[lo] < 1e-10)
			break;
		for (int j = 0; j < n; j++) {
			c[j] = 0;
			for (int i = 0; i <= n; i++)
				if (i != hi)
					c[j] += s[i][j] / n;
		}
		for (int j = 0; j < n; j++)
			xr[j] = c[j] + (c[j] - s[hi][j]);
		fr = cost(d, xr, NULL);
		if (fr < f[lo]) {
			double fe;

			for (int j = 0; j < n; j++)
				xe[j] = c[j] + 2 * (c[j] - s[hi][j]);
			fe = cost(d, xe, NULL);
			if (fe < fr) {
				memcpy(s[hi], xe, n * sizeof(double));
				f[hi] = fe;
			} else {
				memcpy(s[hi], xr, n * sizeof(double));
				f[hi] = fr;
			}
		} else if (fr < f[nh]) {
			memcpy(s[hi], xr, n * sizeof(double));
			f[hi] = fr;
		} else {
			double fc;

			for (int j = 0; j < n; j++)
				xr[j] = c[j] + 0.5 * (s[hi][j] - c[j]);
			fc = cost(d, xr, NULL);
			if (fc < f[hi]) {
				memcpy(s[hi], xr, n * sizeof(double));
				f[hi] = fc;
			} else {
				for (int i = 0; i <= n; i++)
					if (i != lo) {
						for (int j = 0; j < n; j++)
							s[i][j] = s[lo][j] + 0.5 * (s[i][j] - s[lo][j]);
						f[i] = cost(d, s[i], NULL);
					}
			}
		}
	}
	for (int i = 1; i <= n; i++)
		if (f[i] < f[0]) {
			f[0] = f[i];
			memcpy(s[0], s[i], n * sizeof(double));
		}
	memcpy(x, s[0], n * sizeof(double));
}

int cisp_iq_fit_ccm(const double (*camera)[3], const double (*target)[3], const double white[3], unsigned count,
		    const struct cisp_iq_ccm_fit_options *opt, struct cisp_iq_ccm_fit *fit)
{
	static const struct cisp_iq_ccm_fit_options defaults = { .preserve_white = true };
	struct fit_data d = { .camera = camera, .count = count };
	double a[3][3] = { { 0 } }, ainv[3][3], b[3][3] = { { 0 } }, p[9];

	memset(fit, 0, sizeof(*fit));
	if (!opt)
		opt = &defaults;
	if (count < 3 || count > CISP_IQ_MAX_PATCHES)
		return cisp_error(-EINVAL, "%u patches; a matrix fit takes 3..%d", count, CISP_IQ_MAX_PATCHES);
	if (!(white[0] > 0 && white[1] > 0 && white[2] > 0))
		return cisp_error(-EINVAL, "white (%g, %g, %g) is not a colour", white[0], white[1], white[2]);
	d.weights = opt->weights;
	d.preserve_white = opt->preserve_white;
	/* Normal equations: A = sum w c c^T, B[r] = sum w t_r c, with t the linear sRGB target. */
	for (unsigned i = 0; i < count; i++) {
		double xyz65[3], t[3], xyz50[3], w = opt->weights ? opt->weights[i] : 1.0;

		for (int c = 0; c < 3; c++)
			if (!isfinite(camera[i][c]) || !isfinite(target[i][c]))
				return cisp_error(-EINVAL, "patch %u: a value is not a finite number", i);
		if (!(w >= 0))
			return cisp_error(-EINVAL, "patch %u: weight %g is negative", i, w);
		cisp_iq_adapt(target[i], white, cisp_iq_white_d65, xyz65);
		cisp_iq_xyz_to_srgb(xyz65, t);
		cisp_iq_adapt(target[i], white, cisp_iq_white_d50, xyz50);
		cisp_iq_xyz_to_lab(xyz50, cisp_iq_white_d50, d.ref_lab[i]);
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) {
				a[r][c] += w * camera[i][r] * camera[i][c];
				b[r][c] += w * t[r] * camera[i][c];
			}
	}
	if (!inv3(a, ainv))
		return cisp_error(-EINVAL, "the %u patches do not determine a matrix (their camera colours are not independent)",
				  count);
	for (int r = 0; r < 3; r++) {
		double m[3], u[3], one_m = 0, one_u = 0;

		for (int j = 0; j < 3; j++) {
			m[j] = ainv[j][0] * b[r][0] + ainv[j][1] * b[r][1] + ainv[j][2] * b[r][2];
			u[j] = ainv[j][0] + ainv[j][1] + ainv[j][2];
			one_m += m[j];
			one_u += u[j];
		}
		/* Lagrange correction onto the plane m . (1,1,1) = 1. */
		if (opt->preserve_white)
			for (int j = 0; j < 3; j++)
				m[j] += u[j] * (1 - one_m) / one_u;
		for (int j = 0; j < 3; j++)
			fit->ccm[r][j] = m[j];
	}
	ccm_to_params(&d, fit->ccm, p);
	if (opt->refine_de2000)
		nelder_mead(&d, p, opt->preserve_white ? 6 : 9);
	params_to_ccm(&d, p, fit->ccm);
	fit->mean_de00 = cost(&d, p, &fit->max_de00);
	return 0;
}

int cisp_iq_ccm_to_params(const double ccm[3][3], struct cisp_ccm_params *p)
{
	memset(p, 0, sizeof(*p));
	p->header.type = CISP_BLOCK_CCM;
	p->header.size = sizeof(*p);
	for (int i = 0; i < 3; i++) {
		long q[3];
		double row = ccm[i][0] + ccm[i][1] + ccm[i][2];

		if (abi_fixed_ccm_row(ccm[i], i, fabs(row - 1) < 1e-3, q)) {
			for (int j = 0; j < 3; j++)
				if (!(q[j] >= -32768 && q[j] <= 32767) || !isfinite(ccm[i][j]))
					return cisp_error(-ERANGE, "CCM coefficient [%d][%d] = %g does not fit Q3.12", i, j,
							  ccm[i][j]);
			return cisp_error(-ERANGE, "CCM row %d: the magnitudes add up to %ld, over 32767", i,
					  labs(q[0]) + labs(q[1]) + labs(q[2]));
		}
		for (int j = 0; j < 3; j++)
			p->coeff[3 * i + j] = (int16_t)q[j];
	}
	return 0;
}

int cisp_iq_fit_lsc(const struct cisp_image *raw, double black, double white, unsigned gw, unsigned gh,
		    struct cisp_lsc_params *p)
{
	memset(p, 0, sizeof(*p));
	if (gw < 2 || gh < 2 || gw > CISP_LSC_MAX_GRID || gh > CISP_LSC_MAX_GRID)
		return cisp_error(-EINVAL, "LSC grid %ux%u is outside 2x2..%dx%d", gw, gh, CISP_LSC_MAX_GRID,
				  CISP_LSC_MAX_GRID);
	p->header.type = CISP_BLOCK_LSC;
	p->header.size = (uint32_t)(16 + ((8 * gw * gh + 7) & ~7u));
	p->grid_w = (uint16_t)gw;
	p->grid_h = (uint16_t)gh;
	for (unsigned c = 0; c < 4; c++) {
		struct cisp_iq_image plane;
		double mean[CISP_LSC_MAX_GRID * CISP_LSC_MAX_GRID], top = 0;
		int ret = cisp_iq_image_from_bayer(&plane, raw, c, black, white), ox = 0, oy = 0;

		if (ret)
			return cisp_error_prefix(ret, "flat field");
		/* Where the channel's samples sit in the 2x2 pattern. */
		for (int k = 0; k < 4; k++)
			if (cisp_cfa_channel(cisp_format_info(raw->format)->cfa, k & 1, k >> 1) == (enum cisp_channel)c) {
				ox = k & 1;
				oy = k >> 1;
			}
		for (unsigned j = 0; j < gh; j++)
			for (unsigned i = 0; i < gw; i++) {
				/* Node (i, j) sits at input pixel (i (W-1) / (gw-1), j (H-1) / (gh-1)); in the half-size plane: */
				double cx = (i * (raw->width - 1.0) / (gw - 1) - ox) / 2;
				double cy = (j * (raw->height - 1.0) / (gh - 1) - oy) / 2;
				double hx = plane.width / (2.0 * (gw - 1)), hy = plane.height / (2.0 * (gh - 1)), s;
				int x0 = (int)fmax(0, floor(cx - hx)), x1 = (int)fmin(plane.width - 1, ceil(cx + hx));
				int y0 = (int)fmax(0, floor(cy - hy)), y1 = (int)fmin(plane.height - 1, ceil(cy + hy));
				struct plane_fit fit = { 0 };

				/*
				 * A least-squares plane over the window, evaluated at the node: the mean for
				 * windows centred on their node, and no pull towards the centre for the
				 * windows that the frame's edges cut in half.
				 */
				for (int y = y0; y <= y1; y++)
					for (int x = x0; x <= x1; x++)
						plane_fit_add(&fit, x - cx, y - cy, plane.data[(size_t)y * plane.stride + x]);
				s = plane_fit_at_origin(&fit);
				mean[j * gw + i] = s;
				top = fmax(top, s);
			}
		cisp_iq_image_free(&plane);
		for (unsigned k = 0; k < gw * gh; k++) {
			double g = mean[k] > 0 ? top / mean[k] : INFINITY;

			if (!(g * 4096 <= 65535))
				return cisp_error(-EINVAL, "flat field: channel %u node %u needs a gain of %.1f (over 16); is "
							   "it lit?", c, k, g);
			p->gain[c * gw * gh + k] = abi_fixed_u16(g, 4096);
		}
	}
	return 0;
}
