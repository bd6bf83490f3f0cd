/* SPDX-License-Identifier: MIT */
/*
 * Spectral sensitivities consistent with another stack's colour calibration
 * (docs/calibrate.md, "Against the Raspberry Pi tuning tool").
 *
 *   cisp-bench-rpi-spectra fit TUNING.yaml START_MODEL.yaml
 *   cisp-bench-rpi-spectra compare MODEL.yaml RPI.yaml CISP.yaml
 *
 * fit: TUNING.yaml is the Raspberry Pi tool's calibration imported by
 * `cisp tuning import` (its awb.ct curve: the camera R/G, B/G of a grey per
 * colour temperature; its ccm per colour temperature). Each channel's
 * sensitivity is a sum of Gaussians (11 centres, 400 to 700 nm, 25 nm
 * wide, non-negative weights), started from START_MODEL's sensitivities and
 * refined by Nelder-Mead so that a virtual sensor with them (under Planck's
 * law below 5000 K, CIE daylight from there) reproduces the curve and, white
 * balanced and through the Pi's matrices, the ColorChecker; the objective
 * is the mean CIEDE2000 + 200 x the grey's rms log error + 3 x the rms
 * departure from the start's shape (which the calibration does not fully
 * decide). It prints the fit's residuals and, on stdout, the model's
 * spectral_sensitivity block.
 *
 * compare: the ColorChecker through MODEL's sensitivities under each light
 * CISP.yaml was calibrated under: mean / max CIEDE2000 through cisp's matrix
 * (fitted to that light's chart: a fit residual) and through the Pi's at
 * that colour temperature (interpolated in mired as AWB reads them), the
 * matrices' entries, and the grey against both curves; then under the Pi's
 * other colour temperatures, cisp's matrices interpolated there (lights
 * the calibration did not see) against the Pi's own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/iq_color.h>
#include <cisp/tuning.h>

#include "control/tuning.h"
#include "sensor/virtual/model.h"
#include "sensor/virtual/spectra.h"

#define CENTRES 11
#define PARAMS (3 * CENTRES)
#define WIDTH_NM 25.0

/* The light of a colour temperature, as cisp names it ("4000K"): Planck below 5000 K, CIE daylight from there. */
static void light(double ct, double spd[VS_BANDS])
{
	if (ct < 5000)
		vs_blackbody(ct, spd);
	else
		vs_daylight(fmin(ct, 25000), spd);
}

static void camera_of(const double p[PARAMS], struct vs_camera *cam)
{
	double top = 0;

	for (int c = 0; c < 3; c++)
		for (int i = 0; i < VS_BANDS; i++) {
			double q = 0;

			for (int k = 0; k < CENTRES; k++) {
				double d = (vs_lambda(i) - (400 + 30 * k)) / WIDTH_NM;

				q += p[c * CENTRES + k] * p[c * CENTRES + k] * exp(-0.5 * d * d);
			}
			cam->q[c][i] = q;
			if (c == 1)
				top = fmax(top, q);
		}
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < VS_BANDS; i++)
			cam->q[c][i] /= top > 0 ? top : 1;
}

/* The chart under a light through white balance and matrix @m: mean and max CIEDE2000 against its truth. */
static void chart_error(const struct vs_camera *cam, double ct, const double m[3][3], double *mean, double *max)
{
	double spd[VS_BANDS], white_rgb[3], white_xyz[3], white_y;

	light(ct, spd);
	vs_camera_rgb(cam, spd, NULL, white_rgb);
	vs_xyz(spd, NULL, white_xyz);
	white_y = white_xyz[1];
	for (int c = 0; c < 3; c++)
		white_xyz[c] /= white_y;
	*mean = *max = 0;
	for (int i = 0; i < VS_CC_PATCHES; i++) {
		double rgb[3], srgb[3] = { 0 }, xyz[3], truth[3], lab[3], ref[3], e;

		vs_camera_rgb(cam, spd, vs_colorchecker[i].r, rgb);
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				srgb[r] += m[r][c] * rgb[c] / white_rgb[c];
		cisp_iq_srgb_to_xyz(srgb, xyz);
		vs_xyz(spd, vs_colorchecker[i].r, truth);
		for (int c = 0; c < 3; c++)
			truth[c] /= white_y;
		/* The truth seen adapted to D65, as the matrix's sRGB is. */
		cisp_iq_adapt(truth, white_xyz, cisp_iq_white_d65, truth);
		cisp_iq_xyz_to_lab(xyz, cisp_iq_white_d65, lab);
		cisp_iq_xyz_to_lab(truth, cisp_iq_white_d65, ref);
		e = cisp_iq_delta_e2000(lab, ref);
		*mean += e / VS_CC_PATCHES;
		*max = fmax(*max, e);
	}
}

static void grey(const struct vs_camera *cam, double ct, double g[2])
{
	double spd[VS_BANDS], rgb[3];

	light(ct, spd);
	vs_camera_rgb(cam, spd, NULL, rgb);
	g[0] = rgb[0] / rgb[1];
	g[1] = rgb[2] / rgb[1];
}

/* The start model's sensitivities: the fit is pulled towards their shape where the calibration does not decide. */
static struct vs_camera start_camera;

/* The curve's rms error (log ratio), the matrices' mean CIEDE2000, and the objective that weighs them. */
static double objective(const double p[PARAMS], const struct cisp_tuning *t, double *curve_rms, double *de_mean,
			double *de_max)
{
	struct vs_camera cam;
	double sum = 0, de = 0, worst = 0;

	camera_of(p, &cam);
	for (unsigned i = 0; i < t->awb.ct_count; i++) {
		double g[2], er, eb;

		grey(&cam, t->awb.ct[i].ct, g);
		er = log(g[0] / t->awb.ct[i].r_over_g);
		eb = log(g[1] / t->awb.ct[i].b_over_g);
		sum += (er * er + eb * eb) / 2;
	}
	for (unsigned i = 0; i < t->ccm_count; i++) {
		double mean, max;

		chart_error(&cam, t->ccm[i].ct, t->ccm[i].m, &mean, &max);
		de += mean / t->ccm_count;
		worst = fmax(worst, max);
	}
	*curve_rms = t->awb.ct_count ? sqrt(sum / t->awb.ct_count) : 0;
	*de_mean = de;
	*de_max = worst;
	/* The rms departure from the start's shape, as a fraction of the peak. */
	sum = 0;
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < VS_BANDS; i++)
			sum += (cam.q[c][i] - start_camera.q[c][i]) * (cam.q[c][i] - start_camera.q[c][i]) / (3 * VS_BANDS);
	/* A 1 % error of the grey weighs as 2 units of CIEDE2000, a 33 % rms change of shape as 1. */
	return de + 200 * *curve_rms + 3 * sqrt(sum);
}

static double cost(const double p[PARAMS], const struct cisp_tuning *t)
{
	double a, b, c;

	return objective(p, t, &a, &b, &c);
}

/* Nelder-Mead from @p with steps @step, @iterations at most; @p receives the best. */
static void nelder_mead(double p[PARAMS], double step, unsigned iterations, const struct cisp_tuning *t)
{
	double s[PARAMS + 1][PARAMS], f[PARAMS + 1];

	for (int i = 0; i <= PARAMS; i++) {
		memcpy(s[i], p, sizeof(s[i]));
		if (i)
			s[i][i - 1] += step * (fabs(p[i - 1]) > 0.05 ? p[i - 1] : 0.3);
		f[i] = cost(s[i], t);
	}
	for (unsigned it = 0; it < iterations; it++) {
		int hi = 0, lo = 0, nh = 0;
		double centre[PARAMS] = { 0 }, xr[PARAMS], fr;

		for (int i = 0; i <= PARAMS; i++) {
			if (f[i] > f[hi])
				hi = i;
			if (f[i] < f[lo])
				lo = i;
		}
		nh = lo;
		for (int i = 0; i <= PARAMS; i++)
			if (i != hi && f[i] > f[nh])
				nh = i;
		for (int i = 0; i <= PARAMS; i++)
			for (int k = 0; i != hi && k < PARAMS; k++)
				centre[k] += s[i][k] / PARAMS;
		for (int k = 0; k < PARAMS; k++)
			xr[k] = centre[k] + (centre[k] - s[hi][k]);
		fr = cost(xr, t);
		if (fr < f[lo]) {
			double xe[PARAMS], fe;

			for (int k = 0; k < PARAMS; k++)
				xe[k] = centre[k] + 2 * (centre[k] - s[hi][k]);
			fe = cost(xe, t);
			memcpy(s[hi], fe < fr ? xe : xr, sizeof(s[hi]));
			f[hi] = fmin(fe, fr);
		} else if (fr < f[nh]) {
			memcpy(s[hi], xr, sizeof(s[hi]));
			f[hi] = fr;
		} else {
			double xc[PARAMS], fc;

			for (int k = 0; k < PARAMS; k++)
				xc[k] = centre[k] + 0.5 * (s[hi][k] - centre[k]);
			fc = cost(xc, t);
			if (fc < f[hi]) {
				memcpy(s[hi], xc, sizeof(s[hi]));
				f[hi] = fc;
			} else {
				for (int i = 0; i <= PARAMS; i++) {
					if (i == lo)
						continue;
					for (int k = 0; k < PARAMS; k++)
						s[i][k] = s[lo][k] + 0.5 * (s[i][k] - s[lo][k]);
					f[i] = cost(s[i], t);
				}
			}
		}
	}
	for (int i = 0; i <= PARAMS; i++)
		if (f[i] < cost(p, t))
			memcpy(p, s[i], sizeof(s[i]));
}

static int fit(const char *tuning_path, const char *model_path)
{
	struct cisp_tuning *t = NULL;
	struct vs_model m;
	double p[PARAMS], rms, de, worst;

	if (cisp_tuning_load(&t, tuning_path) || vs_model_load(model_path, &m)) {
		fprintf(stderr, "rpi-spectra: %s\n", cisp_last_error());
		cisp_tuning_free(t);
		return 1;
	}
	/* Start: each centre's weight the square root of the start model's sensitivity there. */
	for (int c = 0; c < 3; c++)
		for (int k = 0; k < CENTRES; k++)
			p[c * CENTRES + k] = sqrt(fmax(m.camera.q[c][(30 * k + 20) / 10], 0.01) * 0.5);
	start_camera = m.camera;
	vs_model_free(&m);
	objective(p, t, &rms, &de, &worst);
	fprintf(stderr, "start: grey %.2f%% rms off the curve (%u points); chart through the Pi's %u matrices %.2f mean, "
			"%.2f max CIEDE2000\n",
		100 * rms, t->awb.ct_count, t->ccm_count, de, worst);
	for (int round = 0; round < 8; round++)
		nelder_mead(p, round < 4 ? 0.3 : 0.1, 6000, t);
	objective(p, t, &rms, &de, &worst);
	fprintf(stderr, "fitted: grey %.2f%% rms off the curve; chart through the Pi's matrices %.2f mean, %.2f max "
			"CIEDE2000 (the mean over the matrices of each one's mean)\n",
		100 * rms, de, worst);
	{
		struct vs_camera cam;
		static const char *const names[] = { "r", "g", "b" };

		camera_of(p, &cam);
		for (unsigned i = 0; i < t->awb.ct_count; i++) {
			double g[2];

			grey(&cam, t->awb.ct[i].ct, g);
			fprintf(stderr, "  %5.0f K: R/G %.4f (Pi %.4f), B/G %.4f (Pi %.4f)\n", t->awb.ct[i].ct, g[0],
				t->awb.ct[i].r_over_g, g[1], t->awb.ct[i].b_over_g);
		}
		for (unsigned i = 0; i < t->ccm_count; i++) {
			double mean, max;

			chart_error(&cam, t->ccm[i].ct, t->ccm[i].m, &mean, &max);
			fprintf(stderr, "  %5.0f K: the Pi's matrix gives %.2f mean, %.2f max CIEDE2000\n", t->ccm[i].ct, mean,
				max);
		}
		printf("spectral_sensitivity:\n");
		for (int c = 0; c < 3; c++) {
			printf("  %s: [", names[c]);
			for (int i = 0; i < VS_BANDS; i++)
				printf("%s%.4f", i ? (i % 12 ? ", " : ",\n      ") : "", cam.q[c][i]);
			printf("]\n");
		}
	}
	cisp_tuning_free(t);
	return 0;
}

/* The colour matrix of a tuning at @ct: linear in mired between the two nearest, clamped. */
static void ccm_at(const struct cisp_tuning *t, double ct, double m[3][3])
{
	unsigned i = 0;
	double f;

	while (i + 1 < t->ccm_count && t->ccm[i + 1].ct < ct)
		i++;
	if (t->ccm_count == 1 || ct <= t->ccm[0].ct) {
		memcpy(m, t->ccm[0].m, sizeof(t->ccm[0].m));
		return;
	}
	if (i + 1 >= t->ccm_count) {
		memcpy(m, t->ccm[t->ccm_count - 1].m, sizeof(t->ccm[0].m));
		return;
	}
	f = (1e6 / ct - 1e6 / t->ccm[i].ct) / (1e6 / t->ccm[i + 1].ct - 1e6 / t->ccm[i].ct);
	for (int r = 0; r < 3; r++)
		for (int c = 0; c < 3; c++)
			m[r][c] = (1 - f) * t->ccm[i].m[r][c] + f * t->ccm[i + 1].m[r][c];
}

/* The grey of a tuning's curve at @ct: linear in mired between points, clamped. */
static void curve_at(const struct cisp_tuning *t, double ct, double g[2])
{
	unsigned i = 0;
	double f;

	while (i + 1 < t->awb.ct_count && t->awb.ct[i + 1].ct < ct)
		i++;
	if (ct <= t->awb.ct[0].ct || i + 1 >= t->awb.ct_count) {
		const struct tuning_ct_point *p = &t->awb.ct[ct <= t->awb.ct[0].ct ? 0 : t->awb.ct_count - 1];

		g[0] = p->r_over_g;
		g[1] = p->b_over_g;
		return;
	}
	f = (1e6 / ct - 1e6 / t->awb.ct[i].ct) / (1e6 / t->awb.ct[i + 1].ct - 1e6 / t->awb.ct[i].ct);
	g[0] = (1 - f) * t->awb.ct[i].r_over_g + f * t->awb.ct[i + 1].r_over_g;
	g[1] = (1 - f) * t->awb.ct[i].b_over_g + f * t->awb.ct[i + 1].b_over_g;
}

static int compare(const char *model_path, const char *rpi_path, const char *cisp_path)
{
	struct cisp_tuning *rpi = NULL, *cal = NULL;
	struct vs_model m;

	if (vs_model_load(model_path, &m)) {
		fprintf(stderr, "rpi-spectra: %s\n", cisp_last_error());
		return 1;
	}
	if (cisp_tuning_load(&rpi, rpi_path) || cisp_tuning_load(&cal, cisp_path)) {
		fprintf(stderr, "rpi-spectra: %s\n", cisp_last_error());
		cisp_tuning_free(rpi);
		vs_model_free(&m);
		return 1;
	}
	printf("%-7s | %-27s | %-27s | %-26s | %s\n", "light", "ΔE00 mean/max, cisp matrix", "ΔE00 mean/max, Pi matrix",
	       "matrix entries: largest |Δ|", "grey R/G, B/G: true / cisp curve / Pi curve");
	for (unsigned i = 0; i < cal->ccm_count; i++) {
		double ct = cal->ccm[i].ct, pm[3][3], a[2], b[2], diff = 0, g[2], gc[2], gp[2];

		ccm_at(rpi, ct, pm);
		chart_error(&m.camera, ct, cal->ccm[i].m, &a[0], &a[1]);
		chart_error(&m.camera, ct, pm, &b[0], &b[1]);
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				diff = fmax(diff, fabs(cal->ccm[i].m[r][c] - pm[r][c]));
		grey(&m.camera, ct, g);
		curve_at(cal, ct, gc);
		curve_at(rpi, ct, gp);
		printf("%5.0f K | %12.2f / %-12.2f | %12.2f / %-12.2f | %26.3f | %.4f, %.4f / %.4f, %.4f / %.4f, %.4f\n", ct,
		       a[0], a[1], b[0], b[1], diff, g[0], g[1], gc[0], gc[1], gp[0], gp[1]);
		printf("        cisp [%.3f %.3f %.3f; %.3f %.3f %.3f; %.3f %.3f %.3f]\n", cal->ccm[i].m[0][0],
		       cal->ccm[i].m[0][1], cal->ccm[i].m[0][2], cal->ccm[i].m[1][0], cal->ccm[i].m[1][1],
		       cal->ccm[i].m[1][2], cal->ccm[i].m[2][0], cal->ccm[i].m[2][1], cal->ccm[i].m[2][2]);
		printf("        Pi   [%.3f %.3f %.3f; %.3f %.3f %.3f; %.3f %.3f %.3f]\n", pm[0][0], pm[0][1], pm[0][2],
		       pm[1][0], pm[1][1], pm[1][2], pm[2][0], pm[2][1], pm[2][2]);
	}
	/* At the Pi's other colour temperatures: cisp's matrices interpolated there (lights it did not see). */
	printf("%-7s | %-27s | %-27s\n", "light", "ΔE00 mean/max, cisp interp.", "ΔE00 mean/max, Pi matrix");
	for (unsigned i = 0; i < rpi->ccm_count; i++) {
		double ct = rpi->ccm[i].ct, cm[3][3], a[2], b[2];
		bool calibrated = false;

		for (unsigned k = 0; k < cal->ccm_count; k++)
			calibrated |= fabs(cal->ccm[k].ct - ct) < 50;
		if (calibrated)
			continue;
		ccm_at(cal, ct, cm);
		chart_error(&m.camera, ct, cm, &a[0], &a[1]);
		chart_error(&m.camera, ct, rpi->ccm[i].m, &b[0], &b[1]);
		printf("%5.0f K | %12.2f / %-12.2f | %12.2f / %-12.2f\n", ct, a[0], a[1], b[0], b[1]);
	}
	cisp_tuning_free(rpi);
	cisp_tuning_free(cal);
	vs_model_free(&m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "fit"))
		return fit(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "compare"))
		return compare(argv[2], argv[3], argv[4]);
	fprintf(stderr, "usage: %s fit TUNING.yaml START_MODEL.yaml\n"
			"       %s compare MODEL.yaml RPI.yaml CISP.yaml\n",
		argv[0], argv[0]);
	return 2;
}
