/* SPDX-License-Identifier: MIT */
/*
 * Colour from the charts: per light, the camera's grey (R/G and B/G of a
 * perfect white, from the neutral patches), the colour matrix that
 * minimises the patches' mean CIEDE2000 with white preserved
 * (cisp_iq_fit_ccm()), and how good it is on colours it did not see (each
 * patch left out of the fit in turn); then the white-balance curve through
 * the Planckian and daylight lights' greys, extended and filled in with
 * log(R/G) and log(B/G) linear in 1/T (the Wien approximation: a channel of
 * effective wavelength L sees a black body as exp(-c2 / (L T))); and, with
 * three or more lights, each one predicted from the others.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/iq_calib.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"
#include "core/matrix3.h"

#define PATCHES CISP_IQ_COLORCHECKER_PATCHES
/* The neutral patches that give the grey: white 9.5 to neutral 3.5 (black 2 is mostly noise and flare). */
#define GREY_FIRST 18
#define GREY_LAST 22
/* AWB's default transverse band, and the margin kept beyond the furthest measured light. */
#define TRANSVERSE 0.06
#define TRANSVERSE_MARGIN 1.2
/* Estimates of the white: from the greys taken as neutral, then twice from their colours through the matrix. */
#define WHITE_PASSES 3

static const struct cisp_iq_ccm_fit_options fit_options = { .preserve_white = true, .refine_de2000 = true };
static const struct cisp_iq_color_options eval_options = { .exposure = true };

void calib_patch_names(const char *names[PATCHES], bool neutral[PATCHES])
{
	for (int i = 0; i < PATCHES; i++) {
		names[i] = cisp_iq_colorchecker()[i].name;
		neutral[i] = i >= 18;
	}
}

static void apply(const double m[3][3], const double in[3], double out[3])
{
	for (int r = 0; r < 3; r++)
		out[r] = m[r][0] * in[0] + m[r][1] * in[1] + m[r][2] * in[2];
}

/* One chart: the camera's patches after black and shading, its grey, its matrix, its residuals. */
static int solve_chart(const struct calib_chart_shot *s, const double black[4], double white,
		       const struct cisp_calib_shading *shading, uint32_t width, uint32_t height,
		       struct cisp_calib_chart *out)
{
	double xyz[PATCHES][3], wxyz[3], cam[PATCHES][3], k[3] = { 0 }, u[PATCHES][3], rgb[PATCHES][3], range;
	double weights[PATCHES], de_sum = 0;
	const char *names[PATCHES];
	bool neutral[PATCHES];
	const struct cisp_calib_shading_table *t = NULL;
	struct cisp_iq_ccm_fit fit;
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", s->name);
	snprintf(out->illuminant, sizeof(out->illuminant), "%s", s->illuminant);
	memcpy(out->corners, s->corners, sizeof(out->corners));
	ret = cisp_calib_illuminant_ct(s->illuminant, &out->ct, &out->on_locus);
	if (!ret)
		ret = calib_chart_reference(s->illuminant, xyz, wxyz);
	if (ret)
		return ret;
	/* The shading table nearest in colour temperature. */
	for (unsigned i = 0; i < shading->count; i++)
		if (!t || fabs(1e6 / shading->table[i].ct - 1e6 / out->ct) < fabs(1e6 / t->ct - 1e6 / out->ct))
			t = &shading->table[i];
	range = white - (black[1] + black[2]) / 2;
	for (int i = 0; i < PATCHES; i++) {
		double v[4];

		for (unsigned c = 0; c < 4; c++) {
			v[c] = (s->patch[i][c] - black[c]) / range;
			if (t)
				v[c] *= calib_shading_gain(t, width, height, c, s->centre[i][0], s->centre[i][1]);
		}
		cam[i][0] = v[0];
		cam[i][1] = (v[1] + v[2]) / 2;
		cam[i][2] = v[3];
	}
	/*
	 * The camera's response to a perfect white, per channel: first the
	 * neutral patches against their Y, as if they were neutral; then, since
	 * they are not quite (the chart's greys are a little warm), each grey's
	 * own colour as the fitted matrix says the camera sees it (its linear
	 * sRGB taken back through the matrix), and the fit again.
	 */
	for (int i = GREY_FIRST; i <= GREY_LAST; i++)
		for (int c = 0; c < 3; c++)
			u[i][c] = xyz[i][1];
	for (int pass = 0; pass < WHITE_PASSES && !ret; pass++) {
		double num[3] = { 0 }, den[3] = { 0 }, inv[3][3];

		for (int i = GREY_FIRST; i <= GREY_LAST; i++)
			for (int c = 0; c < 3; c++) {
				num[c] += cam[i][c] * u[i][c];
				den[c] += u[i][c] * u[i][c];
			}
		for (int c = 0; c < 3; c++) {
			k[c] = num[c] / den[c];
			if (!(k[c] > 0))
				return cisp_error(-EINVAL, "chart %s: its neutral patches have no signal in channel %d", s->name,
						  c);
		}
		for (int i = 0; i < PATCHES; i++)
			for (int c = 0; c < 3; c++)
				out->camera[i][c] = cam[i][c] / k[c];
		ret = cisp_iq_fit_ccm((const double(*)[3])out->camera, (const double(*)[3])xyz, wxyz, PATCHES,
				      &fit_options, &fit);
		if (ret)
			return cisp_error_prefix(ret, "chart %s", s->name);
		if (!(fabs(matrix3_invert(fit.ccm, inv)) >= 1e-12))
			break;
		for (int i = GREY_FIRST; i <= GREY_LAST; i++) {
			double xyz65[3], srgb[3];

			cisp_iq_adapt(xyz[i], wxyz, cisp_iq_white_d65, xyz65);
			cisp_iq_xyz_to_srgb(xyz65, srgb);
			apply(inv, srgb, u[i]);
			/* A grey is a grey within a few percent: more is the matrix, not the chart. */
			for (int c = 0; c < 3; c++)
				u[i][c] = fmin(fmax(u[i][c], 0.95 * xyz[i][1]), 1.05 * xyz[i][1]);
		}
	}
	out->grey[0] = k[0] / k[1];
	out->grey[1] = k[2] / k[1];
	out->white_level = s->white_level;
	memcpy(out->ccm, fit.ccm, sizeof(out->ccm));
	calib_patch_names(names, neutral);
	for (int i = 0; i < PATCHES; i++)
		apply(out->ccm, out->camera[i], rgb[i]);
	ret = cisp_iq_color_evaluate((const double(*)[3])rgb, (const double(*)[3])xyz, wxyz, names, neutral, PATCHES,
				     &eval_options, &out->fit);
	if (!ret)
		ret = cisp_iq_color_evaluate((const double(*)[3])out->camera, (const double(*)[3])xyz, wxyz, names,
					     neutral, PATCHES, &eval_options, &out->raw);
	/* Each patch left out of the fit in turn: its error is the error on a colour the matrix never saw. */
	for (int i = 0; i < PATCHES && !ret; i++) {
		struct cisp_iq_ccm_fit_options o = fit_options;
		struct cisp_iq_color_result one;
		double p[1][3];

		for (int j = 0; j < PATCHES; j++)
			weights[j] = j != i;
		o.weights = weights;
		ret = cisp_iq_fit_ccm((const double(*)[3])out->camera, (const double(*)[3])xyz, wxyz, PATCHES, &o, &fit);
		if (ret)
			break;
		apply(fit.ccm, out->camera[i], p[0]);
		/* Exposure as the full evaluation found it: one patch cannot set its own. */
		for (int c = 0; c < 3; c++)
			p[0][c] *= out->fit.exposure_scale;
		ret = cisp_iq_color_evaluate((const double(*)[3])p, (const double(*)[3])&xyz[i], wxyz, &names[i], NULL, 1,
					     NULL, &one);
		de_sum += one.mean_de00;
		out->loo_max_de00 = fmax(out->loo_max_de00, one.mean_de00);
	}
	out->loo_mean_de00 = de_sum / PATCHES;
	/* The lux reference: AE's lux = lux_scale x mean green (16-bit units) / (exposure s x gain). */
	if (!ret && s->lux > 0 && s->exposure_s > 0) {
		double g16 = s->green_mean / range * 65535;

		if (g16 > 0)
			out->lux_scale = s->lux * s->exposure_s * s->gain / g16;
	}
	return ret;
}

void calib_curve_at(const struct cisp_calib_ct_point *c, unsigned n, double ct, double grey[2])
{
	unsigned i;
	double f;

	if (n == 1 || ct <= c[0].ct) {
		grey[0] = c[0].r_over_g;
		grey[1] = c[0].b_over_g;
		return;
	}
	if (ct >= c[n - 1].ct) {
		grey[0] = c[n - 1].r_over_g;
		grey[1] = c[n - 1].b_over_g;
		return;
	}
	for (i = 1; i < n - 1 && c[i].ct < ct; i++)
		;
	f = (1e6 / c[i - 1].ct - 1e6 / ct) / (1e6 / c[i - 1].ct - 1e6 / c[i].ct);
	grey[0] = c[i - 1].r_over_g + f * (c[i].r_over_g - c[i - 1].r_over_g);
	grey[1] = c[i - 1].b_over_g + f * (c[i].b_over_g - c[i - 1].b_over_g);
}

double calib_curve_project(const struct cisp_calib_ct_point *c, unsigned n, const double q[2], double *ct)
{
	double best = INFINITY;

	*ct = c[0].ct;
	if (n == 1)
		return hypot(q[0] - c[0].r_over_g, q[1] - c[0].b_over_g);
	for (unsigned i = 0; i + 1 < n; i++) {
		double dx = c[i + 1].r_over_g - c[i].r_over_g, dy = c[i + 1].b_over_g - c[i].b_over_g;
		double len2 = dx * dx + dy * dy, f = 0, d;

		if (len2 > 0)
			f = ((q[0] - c[i].r_over_g) * dx + (q[1] - c[i].b_over_g) * dy) / len2;
		f = f < 0 ? 0 : f > 1 ? 1 : f;
		d = hypot(q[0] - c[i].r_over_g - f * dx, q[1] - c[i].b_over_g - f * dy);
		if (d < best) {
			best = d;
			*ct = 1e6 / (1e6 / c[i].ct + f * (1e6 / c[i + 1].ct - 1e6 / c[i].ct));
		}
	}
	return best;
}

void calib_ccm_at(const struct cisp_calib_chart *const *c, unsigned n, double ct, double m[3][3])
{
	unsigned i;
	double f;

	if (n == 1 || ct <= c[0]->ct) {
		memcpy(m, c[0]->ccm, sizeof(c[0]->ccm));
		return;
	}
	if (ct >= c[n - 1]->ct) {
		memcpy(m, c[n - 1]->ccm, sizeof(c[0]->ccm));
		return;
	}
	for (i = 1; i < n - 1 && c[i]->ct < ct; i++)
		;
	f = (1e6 / c[i - 1]->ct - 1e6 / ct) / (1e6 / c[i - 1]->ct - 1e6 / c[i]->ct);
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++)
			m[r][k] = c[i - 1]->ccm[r][k] + f * (c[i]->ccm[r][k] - c[i - 1]->ccm[r][k]);
}

/* log(R/G), log(B/G) at @mired from points (m, lr, lb), rising in mired: linear between, the end slopes beyond. */
static void log_grey_at(const double *m, const double *lr, const double *lb, unsigned n, double mired, double out[2])
{
	/* d log(R/G) / d mired and d log(B/G) / d mired of a typical sensor (the uncalibrated curve, 2856 to 6500 K). */
	static const double typical[2] = { 0.5117 / (350.14 - 153.85), -0.7127 / (350.14 - 153.85) };
	unsigned i = 0;

	if (n == 1) {
		out[0] = lr[0] + typical[0] * (mired - m[0]);
		out[1] = lb[0] + typical[1] * (mired - m[0]);
		return;
	}
	while (i + 2 < n && mired > m[i + 1])
		i++;
	out[0] = lr[i] + (lr[i + 1] - lr[i]) / (m[i + 1] - m[i]) * (mired - m[i]);
	out[1] = lb[i] + (lb[i + 1] - lb[i]) / (m[i + 1] - m[i]) * (mired - m[i]);
}

/*
 * The white-balance curve through the greys of the on-locus charts @on
 * (@n of them, rising colour temperature): log-linear in mired between them,
 * extended with the end segments' slopes, sampled at the measured lights
 * and at a standard set of temperatures from 2300 K to 7504 K (those a
 * light within 1 % of stands for dropped), enough points for AWB's
 * straight segments to follow the curve. One light alone takes the slopes
 * of a typical sensor.
 */
static unsigned make_curve(const struct cisp_calib_chart *const *on, unsigned n, struct cisp_calib_ct_point *out)
{
	static const double standard[] = { 2300, 2600, 2856, 3200, 3600, 4000, 4500, 5003, 5503, 6000, 6504, 7504 };
	double m[CISP_CALIB_MAX_TABLE], lr[CISP_CALIB_MAX_TABLE], lb[CISP_CALIB_MAX_TABLE];
	unsigned count = 0;

	if (!n)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		/* Rising temperature is falling mired. */
		m[i] = 1e6 / on[n - 1 - i]->ct;
		lr[i] = log(on[n - 1 - i]->grey[0]);
		lb[i] = log(on[n - 1 - i]->grey[1]);
	}
	/* The measured lights (two within 0.5 % of each other: the first). */
	for (unsigned i = 0; i < n; i++)
		if (!count || on[i]->ct > 1.005 * out[count - 1].ct)
			out[count++] = (struct cisp_calib_ct_point){ on[i]->ct, on[i]->grey[0], on[i]->grey[1], true };
	for (size_t k = 0; k < sizeof(standard) / sizeof(standard[0]) && count < CISP_CALIB_MAX_TABLE; k++) {
		bool near = false;
		double g[2];

		for (unsigned i = 0; i < n; i++)
			near |= fabs(standard[k] / on[i]->ct - 1) < 0.01;
		if (near)
			continue;
		log_grey_at(m, lr, lb, n, 1e6 / standard[k], g);
		out[count++] = (struct cisp_calib_ct_point){ standard[k], exp(g[0]), exp(g[1]), false };
	}
	/* Rising colour temperature, as the tuning wants it. */
	for (unsigned i = 1; i < count; i++)
		for (unsigned k = i; k > 0 && out[k].ct < out[k - 1].ct; k--) {
			struct cisp_calib_ct_point t = out[k];

			out[k] = out[k - 1];
			out[k - 1] = t;
		}
	return count;
}

static int cmp_chart(const void *a, const void *b)
{
	const struct cisp_calib_chart *p = a, *q = b;

	return p->ct < q->ct ? -1 : p->ct > q->ct;
}

/* The curve of the on-locus charts of @charts but @skip (-1: none); 0 points when none is on the locus. */
static unsigned curve_of(const struct cisp_calib_chart *charts, unsigned count, int skip,
			 struct cisp_calib_ct_point *curve)
{
	const struct cisp_calib_chart *on[CISP_CALIB_MAX_TABLE];
	unsigned n = 0;

	for (unsigned i = 0; i < count; i++)
		if (charts[i].on_locus && (int)i != skip)
			on[n++] = &charts[i];
	return n ? make_curve(on, n, curve) : 0;
}

int calib_colour_solve(const struct calib_chart_shot *shots, unsigned count, const double black[4], double white,
		       const struct cisp_calib_shading *shading, uint32_t width, uint32_t height,
		       struct cisp_calib_colour *out)
{
	double lux = 0;
	unsigned nlux = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (count > CISP_CALIB_MAX_TABLE)
		return cisp_error(-EINVAL, "%u charts: at most %d", count, CISP_CALIB_MAX_TABLE);
	for (unsigned i = 0; i < count && !ret; i++)
		ret = solve_chart(&shots[i], black, white, shading, width, height, &out->chart[i]);
	if (ret)
		return ret;
	out->count = count;
	qsort(out->chart, count, sizeof(out->chart[0]), cmp_chart);
	for (unsigned i = 0; i < count; i++)
		if (out->chart[i].lux_scale > 0) {
			lux += out->chart[i].lux_scale;
			nlux++;
		}
	out->lux_scale = nlux ? lux / nlux : 0;
	out->curve_count = curve_of(out->chart, count, -1, out->curve);
	if (!out->curve_count)
		return cisp_error(-EINVAL,
				  "no chart under a Planckian or daylight light (A, D50, D65, 4000K, ...): the "
				  "white-balance curve cannot be drawn from fluorescent or LED light alone");
	/* Lights off the curve (fluorescent, LED) widen the band AWB accepts without pulling. */
	out->transverse = TRANSVERSE;
	for (unsigned i = 0; i < count; i++) {
		double ct, d = calib_curve_project(out->curve, out->curve_count, out->chart[i].grey, &ct);

		out->transverse = fmax(out->transverse, TRANSVERSE_MARGIN * d);
	}
	/* Each chart predicted by the others: their curve finds its temperature, their matrices its colour. */
	for (unsigned k = 0; count >= 3 && k < count && !ret; k++) {
		struct cisp_calib_held_out *h = &out->held_out[k];
		struct cisp_calib_ct_point curve[CISP_CALIB_MAX_TABLE];
		const struct cisp_calib_chart *others[CISP_CALIB_MAX_TABLE];
		double xyz[PATCHES][3], wxyz[3], rgb[PATCHES][3], m[3][3];
		const char *names[PATCHES];
		bool neutral[PATCHES];
		unsigned n = 0, nc = curve_of(out->chart, count, (int)k, curve);

		memcpy(h->illuminant, out->chart[k].illuminant, sizeof(h->illuminant));
		if (!nc) {
			h->ct = 0;
			continue;
		}
		for (unsigned i = 0; i < count; i++)
			if (i != k)
				others[n++] = &out->chart[i];
		h->curve_distance = calib_curve_project(curve, nc, out->chart[k].grey, &h->ct);
		calib_ccm_at(others, n, h->ct, m);
		calib_patch_names(names, neutral);
		for (int i = 0; i < PATCHES; i++)
			apply(m, out->chart[k].camera[i], rgb[i]);
		ret = calib_chart_reference(out->chart[k].illuminant, xyz, wxyz);
		if (!ret)
			ret = cisp_iq_color_evaluate((const double(*)[3])rgb, (const double(*)[3])xyz, wxyz, names, neutral,
						     PATCHES, &eval_options, &h->color);
	}
	return ret;
}
