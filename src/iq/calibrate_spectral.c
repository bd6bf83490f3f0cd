/* SPDX-License-Identifier: MIT */
/*
 * The camera's spectral sensitivities from its charts, and colour matrices
 * for lights it was not calibrated under (docs/calibrate.md, "Colour").
 *
 * A chart's patch i under light E gives, per channel c, a response
 * proportional to sum over bands of S_c(l) E(l) R_i(l): the patches'
 * reflectances R_i and the light's spectrum E are published, so the
 * responses of two or three charts are linear in the sensitivities S_c
 * once each chart's exposure (one factor, the same for the three channels)
 * is known. With 24 patches the problem is not determined band by band:
 * S_c is the least-squares fit (relative errors) plus a penalty on its
 * second differences, i.e. the smoothest sensitivities that explain the
 * patches, and the exposures are refitted in turn.
 *
 * The penalty's strength (and whether sensitivities beat the measured
 * matrices interpolated by colour temperature at all) is chosen by leaving
 * each calibration light out in turn: sensitivities from the others, a
 * matrix synthesised for the light left out, its chart's error through it.
 * Lights held out of the calibration play no part in that choice.
 *
 * With the chosen sensitivities, a matrix is synthesised for each of a set
 * of standard lights: the patches' predicted responses, white-balanced by
 * the predicted grey, fitted to their spectral truth (minimising ΔE00 with
 * white preserved, as for a measured chart). Lights off the Planckian locus
 * are placed where AWB would find them: their predicted grey (corrected by
 * the calibration lights' measured-over-predicted greys) projected on the
 * white-balance curve gives a colour temperature and a signed distance (the
 * tuning's tint).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cisp/iq_calib.h>

#include "calibrate_internal.h"
#include "control/tuning.h"
#include "core/error_internal.h"

#define PATCHES CISP_IQ_COLORCHECKER_PATCHES
#define BANDS VS_BANDS
/* Alternations of the sensitivities and the charts' exposures. */
#define ALTERNATIONS 12
/* A patch's error weighs relative to its level, with this floor (fraction of white) for the darkest. */
#define LEVEL_FLOOR 0.02
/* Synthesised lights within this of a calibration light (relative colour temperature) give way to its chart. */
#define SAME_CT 0.01

/* The penalties tried (on the second differences, relative to the data's weight), weakest first. */
static const double penalties[] = { 1e-4, 1e-3, 1e-2, 1e-1, 1 };
#define PENALTIES (sizeof(penalties) / sizeof(penalties[0]))
_Static_assert(CALIB_SPECTRAL_CANDIDATES == 1 + 2 * PENALTIES, "a candidate per penalty, with and without correction");

/* The standard lights matrices are synthesised for: Planckian and daylight, then fluorescent and LED. */
static const char *const standard_lights[] = { "blackbody:2300", "A", "blackbody:3200", "blackbody:3600",
					       "blackbody:4000", "blackbody:4500", "D50", "D55", "D65", "D75",
					       "F2", "F11", "LED" };

static const struct cisp_iq_ccm_fit_options fit_options = { .preserve_white = true, .refine_de2000 = true };
static const struct cisp_iq_color_options eval_options = { .exposure = true };

/* Solve the symmetric positive definite @n x @n system @a x = @b by Cholesky (@a is overwritten). */
static int cholesky_solve(double *a, double *b, unsigned n)
{
	for (unsigned j = 0; j < n; j++) {
		double d = a[j * n + j];

		for (unsigned k = 0; k < j; k++)
			d -= a[j * n + k] * a[j * n + k];
		if (!(d > 0))
			return -EDOM;
		a[j * n + j] = sqrt(d);
		for (unsigned i = j + 1; i < n; i++) {
			double s = a[i * n + j];

			for (unsigned k = 0; k < j; k++)
				s -= a[i * n + k] * a[j * n + k];
			a[i * n + j] = s / a[j * n + j];
		}
	}
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < i; k++)
			b[i] -= a[i * n + k] * b[k];
		b[i] /= a[i * n + i];
	}
	for (unsigned i = n; i-- > 0;) {
		for (unsigned k = i + 1; k < n; k++)
			b[i] -= a[k * n + i] * b[k];
		b[i] /= a[i * n + i];
	}
	return 0;
}

/* The light reaching the camera from each patch (and a perfect white, index PATCHES), band by band. */
static int patch_light(const char *light, double out[PATCHES + 1][BANDS])
{
	double spd[BANDS];
	bool on_locus;
	int ret = calib_light_spectrum(light, spd, &on_locus);

	for (int i = 0; !ret && i <= PATCHES; i++)
		for (int b = 0; b < BANDS; b++)
			out[i][b] = spd[b] * (i < PATCHES ? vs_colorchecker[i].r[b] : 1);
	return ret;
}

static double dot(const double *a, const double *b)
{
	double s = 0;

	for (int i = 0; i < BANDS; i++)
		s += a[i] * b[i];
	return s;
}

/* A chart's responses as the fit sees them: per patch and channel, relative to the camera's green of a perfect white. */
static void chart_responses(const struct cisp_calib_chart *ch, double out[PATCHES][3])
{
	const double g[3] = { ch->grey[0], 1, ch->grey[1] };

	for (int i = 0; i < PATCHES; i++)
		for (int c = 0; c < 3; c++)
			out[i][c] = ch->camera[i][c] * g[c];
}

/*
 * Fit sensitivities @s to the charts @use[] of @charts (@n of them) with
 * second-difference penalty @penalty; the relative rms error of the fit
 * goes to @rms. Return 0 or -EDOM when the system is singular.
 */
static int fit_sensitivities(const struct cisp_calib_chart *const *use, unsigned n, double penalty, double s[3][BANDS],
			     double *rms)
{
	double (*light)[PATCHES + 1][BANDS] = malloc(n * sizeof(*light));
	double resp[CISP_CALIB_MAX_TABLE][PATCHES][3], exposure[CISP_CALIB_MAX_TABLE];
	int ret = light ? 0 : -ENOMEM;

	for (unsigned j = 0; j < n && !ret; j++) {
		double y[BANDS];

		ret = patch_light(use[j]->illuminant, light[j]);
		chart_responses(use[j], resp[j]);
		/* A first guess: green as sensitive as the eye's Y, which sees the white at 1. */
		for (int b = 0; b < BANDS; b++)
			y[b] = vs_cie1931[b][1];
		exposure[j] = 1 / dot(light[j][PATCHES], y);
	}
	for (int pass = 0; pass < ALTERNATIONS && !ret; pass++) {
		double err = 0, weight = 0;

		/* The sensitivities, channel by channel, with the exposures held. */
		for (int c = 0; c < 3; c++) {
			double a[BANDS * BANDS] = { 0 }, b[BANDS] = { 0 }, trace = 0;

			for (unsigned j = 0; j < n; j++)
				for (int i = 0; i < PATCHES; i++) {
					double w = 1 / pow(resp[j][i][c] + LEVEL_FLOOR, 2), x[BANDS];

					for (int k = 0; k < BANDS; k++)
						x[k] = exposure[j] * light[j][i][k];
					for (int k = 0; k < BANDS; k++) {
						b[k] += w * x[k] * resp[j][i][c];
						for (int l = 0; l < BANDS; l++)
							a[k * BANDS + l] += w * x[k] * x[l];
					}
				}
			for (int k = 0; k < BANDS; k++)
				trace += a[k * BANDS + k];
			/* The penalty on (s[k-1] - 2 s[k] + s[k+1])^2, scaled to the data; a trace of ridge keeps it definite. */
			for (int k = 1; k + 1 < BANDS; k++) {
				const int idx[3] = { k - 1, k, k + 1 };
				const double d[3] = { 1, -2, 1 };

				for (int p = 0; p < 3; p++)
					for (int q = 0; q < 3; q++)
						a[idx[p] * BANDS + idx[q]] += penalty * trace / BANDS * d[p] * d[q];
			}
			for (int k = 0; k < BANDS; k++)
				a[k * BANDS + k] += 1e-9 * trace / BANDS;
			ret = cholesky_solve(a, b, BANDS);
			if (ret)
				break;
			memcpy(s[c], b, sizeof(b));
		}
		if (ret)
			break;
		/* Each chart's exposure with the sensitivities held (the first chart's fixes the scale). */
		for (unsigned j = 1; j < n; j++) {
			double num = 0, den = 0;

			for (int i = 0; i < PATCHES; i++)
				for (int c = 0; c < 3; c++) {
					double w = 1 / pow(resp[j][i][c] + LEVEL_FLOOR, 2), p = dot(s[c], light[j][i]);

					num += w * p * resp[j][i][c];
					den += w * p * p;
				}
			if (den > 0 && num > 0)
				exposure[j] = num / den;
		}
		for (unsigned j = 0; j < n; j++)
			for (int i = 0; i < PATCHES; i++)
				for (int c = 0; c < 3; c++) {
					double e = (exposure[j] * dot(s[c], light[j][i]) - resp[j][i][c]) /
						   (resp[j][i][c] + LEVEL_FLOOR);

					err += e * e;
					weight += 1;
				}
		*rms = sqrt(err / weight);
	}
	free(light);
	return ret;
}

/* The patches' predicted responses under @light, white-balanced, and the predicted grey (R/G, B/G). */
static int predict(const double s[3][BANDS], const char *light, double cam[PATCHES][3], double grey[2])
{
	double l[PATCHES + 1][BANDS], white[3];
	int ret = patch_light(light, l);

	if (ret)
		return ret;
	for (int c = 0; c < 3; c++)
		white[c] = dot(s[c], l[PATCHES]);
	if (!(white[0] > 0 && white[1] > 0 && white[2] > 0))
		return cisp_error(-EDOM, "the estimated sensitivities see no white under %s", light);
	for (int i = 0; i < PATCHES; i++)
		for (int c = 0; c < 3; c++)
			cam[i][c] = dot(s[c], l[i]) / white[c];
	grey[0] = white[0] / white[1];
	grey[1] = white[2] / white[1];
	return 0;
}

/* The matrix for @light synthesised from sensitivities @s. */
static int synthesise(const double s[3][BANDS], const char *light, double m[3][3], double grey[2])
{
	double cam[PATCHES][3], xyz[PATCHES][3], wxyz[3];
	struct cisp_iq_ccm_fit fit;
	int ret = predict(s, light, cam, grey);

	if (!ret)
		ret = calib_chart_reference(light, xyz, wxyz);
	if (!ret)
		ret = cisp_iq_fit_ccm((const double(*)[3])cam, (const double(*)[3])xyz, wxyz, PATCHES, &fit_options, &fit);
	if (!ret)
		memcpy(m, fit.ccm, sizeof(fit.ccm));
	return ret;
}

/*
 * The matrix synthesised for @light corrected by what the sensitivities
 * miss at the measured charts @ref (@n, rising colour temperature): their
 * own matrices less those synthesised for their lights, interpolated at
 * @ct (linear in mired, clamped at the ends), added.
 */
static int synthesise_corrected(const double s[3][BANDS], const char *light, double ct,
				const struct cisp_calib_chart *const *ref, unsigned n, double m[3][3], double grey[2])
{
	struct cisp_calib_chart *diff;
	const struct cisp_calib_chart *d[CISP_CALIB_MAX_TABLE];
	double g[2], c[3][3];
	int ret = synthesise(s, light, m, grey);

	if (ret || !n)
		return ret;
	diff = calloc(n, sizeof(*diff));
	if (!diff)
		return -ENOMEM;
	for (unsigned j = 0; j < n && !ret; j++) {
		ret = synthesise(s, ref[j]->illuminant, diff[j].ccm, g);
		diff[j].ct = ref[j]->ct;
		for (int r = 0; r < 3; r++)
			for (int k = 0; k < 3; k++)
				diff[j].ccm[r][k] = ref[j]->ccm[r][k] - diff[j].ccm[r][k];
		d[j] = &diff[j];
	}
	if (!ret)
		calib_ccm_at(d, n, ct, c);
	free(diff);
	if (ret)
		return ret;
	for (int r = 0; r < 3; r++)
		for (int k = 0; k < 3; k++)
			m[r][k] += c[r][k];
	return 0;
}

/* Chart @ch's measured patches (white-balanced by its own grey) through matrix @m, against its truth. */
int calib_chart_through(const struct cisp_calib_chart *ch, const double m[3][3], struct cisp_iq_color_result *out)
{
	double xyz[PATCHES][3], wxyz[3], rgb[PATCHES][3];
	const char *names[PATCHES];
	bool neutral[PATCHES];
	int ret = calib_chart_reference(ch->illuminant, xyz, wxyz);

	calib_patch_names(names, neutral);
	for (int i = 0; i < PATCHES; i++)
		for (int r = 0; r < 3; r++)
			rgb[i][r] = m[r][0] * ch->camera[i][0] + m[r][1] * ch->camera[i][1] + m[r][2] * ch->camera[i][2];
	if (!ret)
		ret = cisp_iq_color_evaluate((const double(*)[3])rgb, (const double(*)[3])xyz, wxyz, names, neutral, PATCHES,
					     &eval_options, out);
	return ret;
}

/*
 * Leave each chart out in turn: candidate 0 predicts it with the others'
 * matrices interpolated at its colour temperature (as the tables did before
 * sensitivities), candidate k > 0 synthesises its matrix from the others'
 * sensitivities with penalty k - 1.
 */
static int leave_one_out(const struct cisp_calib_chart *const *charts, unsigned n, struct calib_spectral *out)
{
	int ret = 0;

	for (unsigned k = 0; k < CALIB_SPECTRAL_CANDIDATES && !ret; k++) {
		struct calib_spectral_candidate *cand = &out->candidate[k];

		cand->penalty = k ? penalties[(k - 1) % PENALTIES] : 0;
		cand->corrected = k > PENALTIES;
		for (unsigned j = 0; j < n && !ret; j++) {
			const struct cisp_calib_chart *others[CISP_CALIB_MAX_TABLE];
			struct cisp_iq_color_result res;
			double s[3][BANDS], m[3][3], grey[2], rms;
			unsigned no = 0;

			for (unsigned i = 0; i < n; i++)
				if (i != j)
					others[no++] = charts[i];
			if (!k) {
				calib_ccm_at(others, no, charts[j]->ct, m);
			} else {
				ret = fit_sensitivities(others, no, cand->penalty, s, &rms);
				if (!ret)
					ret = synthesise_corrected((const double(*)[BANDS])s, charts[j]->illuminant, charts[j]->ct,
								   others, cand->corrected ? no : 0, m, grey);
				if (ret == -EDOM) {
					/* A candidate that cannot be solved is not chosen. */
					cand->mean_de00 = cand->max_de00 = INFINITY;
					ret = 0;
					break;
				}
			}
			if (!ret)
				ret = calib_chart_through(charts[j], (const double(*)[3])m, &res);
			if (!ret) {
				cand->mean_de00 += res.mean_de00 / n;
				cand->max_de00 = fmax(cand->max_de00, res.max_de00);
			}
		}
	}
	return ret;
}

/* log(measured / predicted) grey at @ct from the calibration charts (linear in mired, clamped at the ends). */
static void grey_correction(const struct cisp_calib_chart *const *on, const double (*log_ratio)[2], unsigned n,
			    double ct, double out[2])
{
	unsigned i = 1;
	double f;

	if (n == 1 || ct <= on[0]->ct || ct >= on[n - 1]->ct) {
		unsigned e = n == 1 || ct <= on[0]->ct ? 0 : n - 1;

		out[0] = log_ratio[e][0];
		out[1] = log_ratio[e][1];
		return;
	}
	while (i < n - 1 && on[i]->ct < ct)
		i++;
	f = (1e6 / on[i - 1]->ct - 1e6 / ct) / (1e6 / on[i - 1]->ct - 1e6 / on[i]->ct);
	for (int c = 0; c < 2; c++)
		out[c] = log_ratio[i - 1][c] + f * (log_ratio[i][c] - log_ratio[i - 1][c]);
}

/* The signed distance of @grey from the curve (positive: the green side, as the tuning's tint). */
static double signed_distance(const struct cisp_calib_colour *col, const double grey[2], double *ct)
{
	const struct cisp_calib_ct_point *c = col->curve;
	unsigned n = col->curve_count;
	double d = calib_curve_project(c, n, grey, ct), p[2];
	double dir[2] = { c[n - 1].r_over_g - c[0].r_over_g, c[n - 1].b_over_g - c[0].b_over_g };

	calib_curve_at(c, n, *ct, p);
	return dir[0] * (grey[1] - p[1]) - dir[1] * (grey[0] - p[0]) >= 0 ? d : -d;
}

/*
 * A lamp whose grey AWB cannot tell from a Planckian light's (within
 * TUNING_NEAR_CURVE of the curve, as the tuning writes it) gets no entry: at
 * runtime it is taken for a light of the curve, and the curve's table is
 * for Planckian and daylight lights only.
 */
static bool off_curve_but_near(bool on_locus, double tint)
{
	return !on_locus && fabs(round(tint * 1e4) / 1e4) <= TUNING_NEAR_CURVE;
}

static int cmp_light(const void *a, const void *b)
{
	const struct calib_light_matrix *p = a, *q = b;

	return p->ct < q->ct ? -1 : p->ct > q->ct;
}

int calib_spectral_solve(const struct cisp_calib_colour *col, struct calib_spectral *out)
{
	const struct cisp_calib_chart *all[CISP_CALIB_MAX_TABLE], *on[CISP_CALIB_MAX_TABLE];
	double log_ratio[CISP_CALIB_MAX_TABLE][2];
	unsigned n = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < col->count; i++) {
		all[i] = &col->chart[i];
		if (col->chart[i].on_locus)
			on[n++] = &col->chart[i];
	}
	/* Leaving one out needs two lights on the curve (one to interpolate from); with one, its matrix is all there is. */
	if (n < 2)
		return 0;
	ret = leave_one_out(all, col->count, out);
	if (ret)
		return ret;
	for (unsigned k = 1; k < CALIB_SPECTRAL_CANDIDATES; k++)
		if (out->candidate[k].mean_de00 < out->candidate[out->chosen].mean_de00)
			out->chosen = k;
	if (!out->chosen)
		return 0;
	ret = fit_sensitivities(all, col->count, out->candidate[out->chosen].penalty, out->sensitivity, &out->fit_rms);
	if (ret == -EDOM)
		return cisp_error(ret, "the charts do not determine the camera's sensitivities");
	for (unsigned j = 0; j < n && !ret; j++) {
		double cam[PATCHES][3], grey[2];

		ret = predict((const double(*)[BANDS])out->sensitivity, on[j]->illuminant, cam, grey);
		log_ratio[j][0] = log(on[j]->grey[0] / grey[0]);
		log_ratio[j][1] = log(on[j]->grey[1] / grey[1]);
	}
	/* The measured charts' own matrices (those off the curve where their grey lies), then the standard lights. */
	for (unsigned i = 0; i < col->count && !ret; i++) {
		const struct cisp_calib_chart *ch = &col->chart[i];
		struct calib_light_matrix *e = &out->light[out->count];

		memset(e, 0, sizeof(*e));
		snprintf(e->light, sizeof(e->light), "%s", ch->illuminant);
		e->ct = ch->ct;
		if (!ch->on_locus)
			e->tint = signed_distance(col, ch->grey, &e->ct);
		e->measured = true;
		memcpy(e->m, ch->ccm, sizeof(e->m));
		out->count += !off_curve_but_near(ch->on_locus, e->tint);
	}
	for (size_t k = 0; k < sizeof(standard_lights) / sizeof(standard_lights[0]) && !ret; k++) {
		struct calib_light_matrix *e = &out->light[out->count];
		double nominal, grey[2], corr[2];
		bool locus, near = false;

		if (out->count == CISP_CALIB_MAX_TABLE)
			break;
		ret = cisp_calib_illuminant_ct(standard_lights[k], &nominal, &locus);
		for (unsigned i = 0; i < col->count && !ret; i++)
			near |= !strcasecmp(col->chart[i].illuminant, standard_lights[k]) ||
				(locus && col->chart[i].on_locus && fabs(col->chart[i].ct / nominal - 1) < SAME_CT);
		if (ret || near)
			continue;
		memset(e, 0, sizeof(*e));
		snprintf(e->light, sizeof(e->light), "%s", standard_lights[k]);
		e->ct = nominal;
		/* The uncorrected synthesis also predicts the grey, which places the light (the correction needs its place). */
		ret = synthesise((const double(*)[BANDS])out->sensitivity, standard_lights[k], e->m, grey);
		if (!ret && !locus) {
			/* Where AWB finds it: the grey as the charts would have measured it, against the curve. */
			grey_correction(on, (const double(*)[2])log_ratio, n, nominal, corr);
			grey[0] *= exp(corr[0]);
			grey[1] *= exp(corr[1]);
			e->tint = signed_distance(col, grey, &e->ct);
		}
		if (!ret && out->candidate[out->chosen].corrected)
			ret = synthesise_corrected((const double(*)[BANDS])out->sensitivity, standard_lights[k], e->ct, all,
						   col->count, e->m, grey);
		if (ret)
			break;
		out->count += !off_curve_but_near(locus, e->tint);
	}
	if (ret)
		return ret;
	qsort(out->light, out->count, sizeof(out->light[0]), cmp_light);
	/* Each calibration chart through the matrix synthesised for its light: what the sensitivities miss. */
	for (unsigned j = 0; j < col->count && !ret; j++) {
		double m[3][3], grey[2];

		ret = synthesise((const double(*)[BANDS])out->sensitivity, all[j]->illuminant, m, grey);
		if (!ret)
			ret = calib_chart_through(all[j], (const double(*)[3])m, &out->chart_fit[j]);
	}
	return ret;
}

unsigned calib_spectral_matrices(const struct calib_spectral *sp, struct cisp_tuning *t)
{
	unsigned n = 0;

	for (unsigned i = 0; sp->chosen && i < sp->count && n < TUNING_MAX_CT; i++) {
		struct tuning_ccm e = { .ct = fmin(fmax(round(sp->light[i].ct), 1000), 20000),
					.tint = round(fmin(fmax(sp->light[i].tint, -TUNING_MAX_TINT), TUNING_MAX_TINT) * 1e4) /
						1e4 };
		bool taken = false;

		/* One entry per temperature and tint, as the tuning wants (the first serves). */
		for (unsigned k = 0; k < n; k++)
			taken |= t->ccm[k].ct == e.ct && t->ccm[k].tint == e.tint;
		if (taken)
			continue;
		memcpy(e.m, sp->light[i].m, sizeof(e.m));
		t->ccm[n++] = e;
	}
	return n;
}

void calib_spectral_provenance(FILE *f, const struct calib_spectral *sp)
{
	static const char *const names[] = { "interpolated", "sensitivities", "corrected sensitivities" };

	if (!sp->candidate[0].mean_de00) {
		fprintf(f, "}\n");
		return;
	}
	fprintf(f, ", colour_method: %u", sp->chosen);
	if (sp->chosen)
		fprintf(f, ", sensitivity_fit_rms: %.4f", fmin(sp->fit_rms, 100));
	fprintf(f, "}\n  colour_methods:\n");
	for (unsigned k = 0; k < CALIB_SPECTRAL_CANDIDATES; k++) {
		const struct calib_spectral_candidate *c = &sp->candidate[k];

		fprintf(f, "    - {method: %s", names[!k ? 0 : c->corrected ? 2 : 1]);
		if (k)
			fprintf(f, ", penalty: %g", c->penalty);
		fprintf(f, ", loo_mean_de00: %.3f, loo_max_de00: %.3f}\n", fmin(c->mean_de00, 100), fmin(c->max_de00, 100));
	}
}
