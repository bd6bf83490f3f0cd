/* SPDX-License-Identifier: MIT */
/*
 * The flat field of a chart frame's white areas (docs/calibrate.md, "A
 * chart frame instead of flats"). The white paper of a chart is the
 * brightest uniform material in it: among the unclipped uniform blocks, a
 * smooth falloff is fitted through the brighter ones and refitted through
 * those no more than a tolerance below it, the tolerance narrowing until
 * the set settles, so grey steps and colour patches fall out and the fit
 * becomes the white's envelope. The falloff is level^-1/2 = a0 + a1 x +
 * a2 y + a3 r^2 + a4 r^4 (x, y from the frame centre over the
 * half-diagonal): exact for a simple lens's 1 / (1 + k r^2)^2, with room
 * for an off-centre lens or light. What the white areas do not reach is
 * extrapolated, so the r^4 term, which can turn the falloff over beyond
 * the data, is fitted only when the whites reach 90 % of the
 * half-diagonal. An unevenly lit chart is indistinguishable from the
 * lens: the result says how far the whites reach and how well they fit.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/calibrate_chart_frame.h>

#include "calibrate_chart_blocks.h"
#include "core/error_internal.h"

#define N CISP_CALIB_LSC_GRID
/* The falloff's terms (calib_linear_solve() takes up to 6); the r^4 term only where the whites reach REACH_R4. */
#define TERMS 5
#define REACH_R4 0.9
/* Largest gain of the tuning's tables (65535 / 4096), as calibrate_shading.c. */
#define MAX_GAIN 15.99
/* The tolerance below the fit for a white block narrows to this. */
#define WHITE_TOLERANCE 0.04

/* The falloff's terms at frame pixel (@x, @y) of a @w x @h frame. */
static void terms(double x, double y, uint32_t w, uint32_t h, double t[TERMS])
{
	double d = 0.5 * sqrt((double)w * w + (double)h * h), u = (x - w / 2.0) / d, v = (y - h / 2.0) / d,
	       r2 = u * u + v * v;

	t[0] = 1;
	t[1] = u;
	t[2] = v;
	t[3] = r2;
	t[4] = r2 * r2;
}

/* The falloff of coefficients @a (a[4] = 0 without the r^4 term) at frame pixel (@x, @y). */
static double falloff_at(const double a[TERMS], double x, double y, uint32_t w, uint32_t h)
{
	double t[TERMS], v = 0;

	terms(x, y, w, h, t);
	for (int k = 0; k < TERMS; k++)
		v += a[k] * t[k];
	return v > 0 ? 1 / (v * v) : NAN;
}

/* Fit channel @c's falloff (its first @n terms) through the blocks in @set; false when the fit fails. */
static bool fit(const struct chart_blocks *bl, const bool *set, unsigned c, double black, uint32_t w, uint32_t h,
		int n, double a[6])
{
	double m[6][6] = { { 0 } }, rhs[6] = { 0 };

	a[4] = 0;
	for (size_t i = 0; i < (size_t)bl->gw * bl->gh; i++) {
		double t[TERMS], l = bl->b[i].level[c] - black, v;

		if (!set[i] || !(l > 0))
			continue;
		v = 1 / sqrt(l);
		terms(bl->b[i].x, bl->b[i].y, w, h, t);
		for (int r = 0; r < n; r++) {
			rhs[r] += t[r] * v;
			for (int k = 0; k < n; k++)
				m[r][k] += t[r] * t[k];
		}
	}
	return calib_linear_solve(m, rhs, a, n);
}

/*
 * The white blocks into @set: start from the candidates at least half as
 * bright as the brightest, then keep those no more than the tolerance
 * below the green fit, narrowing it from 25 % to 4 %, until the set stops
 * changing. Returns how many.
 */
static unsigned find_whites(const struct chart_blocks *bl, const bool *candidate, double black, uint32_t w, uint32_t h,
			    bool *set)
{
	size_t nb = (size_t)bl->gw * bl->gh;
	double top = 0, a[6], tolerance = 0.25;
	unsigned count = 0;

	for (size_t i = 0; i < nb; i++)
		if (candidate[i])
			top = fmax(top, bl->b[i].level[1] - black);
	for (size_t i = 0; i < nb; i++)
		set[i] = candidate[i] && bl->b[i].level[1] - black >= 0.5 * top;
	for (int round = 0; round < 30; round++) {
		unsigned changed = 0;

		if (!fit(bl, set, 1, black, w, h, TERMS - 1, a))
			return 0;
		count = 0;
		for (size_t i = 0; i < nb; i++) {
			double f = falloff_at(a, bl->b[i].x, bl->b[i].y, w, h);
			bool keep = candidate[i] && f > 0 && (bl->b[i].level[1] - black) / f - 1 >= -tolerance;

			changed += keep != set[i];
			set[i] = keep;
			count += keep;
		}
		if (!changed && tolerance <= WHITE_TOLERANCE)
			break;
		tolerance = fmax(WHITE_TOLERANCE, tolerance / 2);
	}
	return count;
}

int cisp_calib_flat_from_chart(const struct cisp_image *raw, double black, double white, const char *illuminant,
			       struct cisp_calib_chart_flat *out)
{
	struct calib_planes pl;
	struct chart_blocks bl = { 0 };
	struct cisp_calib_shading_table *t = &out->table;
	double clip[4], fraction[4], a[4][6], range = white - black, sum2 = 0, best = 0;
	bool found[4], *candidate = NULL, *set = NULL;
	uint32_t w, h;
	size_t nb = 0, n2 = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!raw || !(range > 0))
		return cisp_error(-EINVAL, "flat from a chart: no frame, or white level %g not above black %g", white,
				  black);
	ret = calib_planes_from(&pl, raw);
	if (ret)
		return ret;
	w = raw->width;
	h = raw->height;
	chart_clip_levels(&pl, white, clip, fraction, found);
	ret = chart_blocks_of(&pl, clip, white, &bl);
	if (!ret) {
		nb = (size_t)bl.gw * bl.gh;
		candidate = calloc(nb, sizeof(bool));
		set = calloc(nb, sizeof(bool));
		if (!candidate || !set)
			ret = cisp_error(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; !ret && i < nb; i++)
		candidate[i] = bl.b[i].uniform && !bl.b[i].clipped && bl.b[i].level[1] - black >= 0.1 * range;
	if (!ret) {
		out->blocks = find_whites(&bl, candidate, black, w, h, set);
		for (size_t i = 0; i < nb; i++) {
			double u = bl.b[i].x - w / 2.0, v = bl.b[i].y - h / 2.0;

			if (set[i])
				out->radius_reached = fmax(out->radius_reached, sqrt((u * u + v * v) / ((double)w * w + (double)h * h) * 4));
		}
		out->coverage = nb ? (double)out->blocks / (double)nb : 0;
		if (out->blocks < 24 || out->radius_reached < 0.5)
			ret = cisp_error(-EINVAL,
					 "too few white areas to fit the falloff to: %u unclipped uniform white blocks reaching "
					 "%.0f%% of the half-diagonal (at least 24, reaching 50%%): is the white clipped?",
					 out->blocks, 100 * out->radius_reached);
	}
	for (unsigned c = 0; c < 4 && !ret; c++)
		if (!fit(&bl, set, c, black, w, h, out->radius_reached >= REACH_R4 ? TERMS : TERMS - 1, a[c]))
			ret = cisp_error(-EINVAL, "flat from a chart: the falloff of channel %u cannot be fitted", c);
	/* The table: each channel's nodes over its brightest. */
	for (unsigned c = 0; c < 4 && !ret; c++) {
		double level[N * N], top = 0, low = INFINITY;

		for (unsigned j = 0; j < N; j++)
			for (unsigned i = 0; i < N; i++) {
				double l = falloff_at(a[c], i * (w - 1.0) / (N - 1), j * (h - 1.0) / (N - 1), w, h);

				level[j * N + i] = l;
				top = fmax(top, l);
				/* A fit that goes through zero (NaN) counts as falling to nothing. */
				low = l > 0 ? fmin(low, l) : 0;
			}
		if (!(low > 0) || top / low > MAX_GAIN) {
			ret = cisp_error(-EINVAL,
					 "flat from a chart: the falloff fitted to channel %u falls to %.1f%% of its peak "
					 "(a table holds gains up to %g)",
					 c, 100 * fmax(low, 0) / top, MAX_GAIN);
			break;
		}
		for (unsigned i = 0; i < N * N; i++)
			t->gain[c][i] = (float)(top / level[i]);
		out->falloff[c] = t->falloff[c] = low / top;
	}
	/* How well the whites fit. */
	for (size_t i = 0; !ret && i < nb; i++)
		for (unsigned c = 0; set[i] && c < 4; c++) {
			double e = (bl.b[i].level[c] - black) / falloff_at(a[c], bl.b[i].x, bl.b[i].y, w, h) - 1;

			if (!isfinite(e))
				continue;
			sum2 += e * e;
			n2++;
			t->residual_pct = fmax(t->residual_pct, 100 * fabs(e));
		}
	if (!ret) {
		out->residual_rms_pct = n2 ? 100 * sqrt(sum2 / (double)n2) : 0;
		/* The green fit's brightest point, on a grid of 1/64 of the frame. */
		for (unsigned j = 0; j <= 64; j++)
			for (unsigned i = 0; i <= 64; i++) {
				double x = i * (w - 1.0) / 64, y = j * (h - 1.0) / 64, l = falloff_at(a[1], x, y, w, h);

				if (l > best) {
					best = l;
					out->centre[0] = x;
					out->centre[1] = y;
				}
			}
		t->level = falloff_at(a[1], w / 2.0, h / 2.0, w, h) / range;
		t->ct = 5000;
		if (illuminant && illuminant[0]) {
			snprintf(t->illuminant, sizeof(t->illuminant), "%s", illuminant);
			if (cisp_calib_illuminant_ct(illuminant, &t->ct, NULL))
				ret = cisp_error_prefix(-EINVAL, "flat from a chart");
		}
	}
	free(candidate);
	free(set);
	chart_blocks_free(&bl);
	calib_planes_free(&pl);
	return ret;
}
