/* SPDX-License-Identifier: MIT */
/*
 * Illuminants and spectral sums of the virtual sensor. Every spectrum is
 * sampled at 380..730 nm every 10 nm; sums are plain sums over those samples
 * (the 10 nm step is a common factor that cancels in every ratio used).
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error_internal.h"
#include "core/matrix3.h"
#include "core/number.h"
#include "spectra.h"

/* Second radiation constant, m K (CODATA 2018). */
#define C2_NOW 1.438776877e-2
/* The value the CIE D-series nominal temperatures were defined with. */
#define C2_1931 1.4380e-2

static void scale_to_560(double spd[VS_BANDS])
{
	double k = 100.0 / spd[18]; /* band 18 is 560 nm */

	for (int i = 0; i < VS_BANDS; i++)
		spd[i] *= k;
}

void vs_blackbody(double kelvin, double spd[VS_BANDS])
{
	for (int i = 0; i < VS_BANDS; i++) {
		double l = vs_lambda(i) * 1e-9;

		spd[i] = 1.0 / (pow(l, 5) * expm1(C2_NOW / (l * kelvin)));
	}
	scale_to_560(spd);
}

/* CIE illuminant A: Planck's law with c2 = 1.435e-2 m K at 2848 K (CIE 15:2004, eq. 2.1). */
static void illuminant_a(double spd[VS_BANDS])
{
	for (int i = 0; i < VS_BANDS; i++) {
		double l = vs_lambda(i);

		spd[i] = 100.0 * pow(560.0 / l, 5) * expm1(1.435e7 / (2848.0 * 560.0)) / expm1(1.435e7 / (2848.0 * l));
	}
}

/* CIE daylight from S0, S1, S2 (CIE 15:2004, section 3.1). */
void vs_daylight(double kelvin, double spd[VS_BANDS])
{
	double t = kelvin, x, y, m, m1, m2;

	if (t <= 7000)
		x = -4.6070e9 / (t * t * t) + 2.9678e6 / (t * t) + 0.09911e3 / t + 0.244063;
	else
		x = -2.0064e9 / (t * t * t) + 1.9018e6 / (t * t) + 0.24748e3 / t + 0.237040;
	y = -3.000 * x * x + 2.870 * x - 0.275;
	m = 0.0241 + 0.2562 * x - 0.7341 * y;
	m1 = (-1.3515 - 1.7703 * x + 5.9114 * y) / m;
	m2 = (0.0300 - 31.4424 * x + 30.0717 * y) / m;
	for (int i = 0; i < VS_BANDS; i++)
		spd[i] = vs_daylight_s[i][0] + m1 * vs_daylight_s[i][1] + m2 * vs_daylight_s[i][2];
	scale_to_560(spd);
}

/*
 * A 5 nm table to 10 nm bands: each band is the triangle-weighted mean of
 * the samples at lambda - 5, lambda, lambda + 5 (1/4, 1/2, 1/4), so the
 * narrow lines of fluorescent lamps at 5 nm samples keep their energy.
 */
static void from_5nm(const double t[81], double spd[VS_BANDS])
{
	for (int i = 0; i < VS_BANDS; i++) {
		int j = 2 * i;
		double sum = 0.5 * t[j] + 0.25 * t[j + 1], w = 0.75;

		if (j > 0) {
			sum += 0.25 * t[j - 1];
			w += 0.25;
		}
		spd[i] = sum / w;
	}
	scale_to_560(spd);
}

/*
 * A phosphor-converted white LED (a model, not a published table): an InGaN
 * blue line at 450 nm (sigma 11 nm) plus a broad phosphor band at 575 nm
 * (sigma 75 nm). CCT about 4800 K, within 0.001 duv of the Planckian locus.
 */
static void led(double spd[VS_BANDS])
{
	for (int i = 0; i < VS_BANDS; i++) {
		double l = vs_lambda(i);

		spd[i] = exp(-0.5 * pow((l - 450) / 11, 2)) + exp(-0.5 * pow((l - 575) / 75, 2));
	}
	scale_to_560(spd);
}

int vs_illuminant(const char *name, double spd[VS_BANDS])
{
	static const struct {
		const char *name;
		double nominal;
	} dseries[] = { { "D50", 5000 }, { "D55", 5500 }, { "D75", 7500 } };
	char *end;
	double k;

	if (!strcasecmp(name, "D65")) {
		memcpy(spd, vs_d65, sizeof(vs_d65));
		return 0;
	}
	for (size_t i = 0; i < sizeof(dseries) / sizeof(dseries[0]); i++) {
		if (!strcasecmp(name, dseries[i].name)) {
			vs_daylight(dseries[i].nominal * C2_NOW / C2_1931, spd);
			return 0;
		}
	}
	if (!strcasecmp(name, "A")) {
		illuminant_a(spd);
		return 0;
	}
	if (!strcasecmp(name, "F2")) {
		from_5nm(vs_f2_5nm, spd);
		return 0;
	}
	if (!strcasecmp(name, "F11")) {
		from_5nm(vs_f11_5nm, spd);
		return 0;
	}
	if (!strcasecmp(name, "LED")) {
		led(spd);
		return 0;
	}
	if (!strncasecmp(name, "daylight:", 9)) {
		k = cisp_strtod(name + 9, &end);
		if (end == name + 9 || *end || !(k >= 4000 && k <= 25000))
			return cisp_error(-EINVAL, "illuminant '%s': daylight needs a temperature of 4000..25000 K",
					  name);
		vs_daylight(k, spd);
		return 0;
	}
	if (!strncasecmp(name, "blackbody:", 10)) {
		k = cisp_strtod(name + 10, &end);
		if (end == name + 10 || *end || !(k >= 1000 && k <= 20000))
			return cisp_error(-EINVAL, "illuminant '%s': blackbody needs a temperature of 1000..20000 K",
					  name);
		vs_blackbody(k, spd);
		return 0;
	}
	return cisp_error(-EINVAL,
			  "unknown illuminant '%s' (D65, D50, D55, D75, A, F2, F11, LED, daylight:K, blackbody:K)",
			  name);
}

void vs_xyz(const double spd[VS_BANDS], const double *refl, double xyz[3])
{
	xyz[0] = xyz[1] = xyz[2] = 0;
	for (int i = 0; i < VS_BANDS; i++) {
		double e = spd[i] * (refl ? refl[i] : 1.0);

		for (int c = 0; c < 3; c++)
			xyz[c] += e * vs_cie1931[i][c];
	}
}

void vs_camera_rgb(const struct vs_camera *cam, const double spd[VS_BANDS], const double *refl, double rgb[3])
{
	rgb[0] = rgb[1] = rgb[2] = 0;
	for (int i = 0; i < VS_BANDS; i++) {
		/* Power to photons: a photon carries h c / lambda. */
		double e = spd[i] * (refl ? refl[i] : 1.0) * vs_lambda(i);

		for (int c = 0; c < 3; c++)
			rgb[c] += e * cam->q[c][i];
	}
}

double vs_luminance(const double spd[VS_BANDS])
{
	double y = 0;

	for (int i = 0; i < VS_BANDS; i++)
		y += spd[i] * vs_cie1931[i][1];
	return y;
}

/* ---- sRGB primaries as smooth spectra ---- */

static double basis[3][VS_BANDS];
static pthread_once_t basis_once = PTHREAD_ONCE_INIT;

/* Linear sRGB of a reflectance under D65, scaled so a perfect white is (1, 1, 1). */
static void srgb_of(const double *refl, double rgb[3])
{
	static const double m[3][3] = { { 3.2404542, -1.5371385, -0.4985314 },
					{ -0.9692660, 1.8760108, 0.0415560 },
					{ 0.0556434, -0.2040259, 1.0572252 } };
	double xyz[3], white[3];

	vs_xyz(vs_d65, refl, xyz);
	vs_xyz(vs_d65, NULL, white);
	for (int c = 0; c < 3; c++) {
		double v = 0, w = 0;

		for (int k = 0; k < 3; k++) {
			v += m[c][k] * xyz[k];
			w += m[c][k] * white[k];
		}
		rgb[c] = v / w;
	}
}

/*
 * Three smooth bands that add up to 1 at every wavelength (blue below
 * 490 nm, red above 585 nm, logistic edges 12 nm wide), then mixed by the
 * inverse of their sRGB colours so each mix is one sRGB primary. Because the
 * bands sum to 1, the three primaries sum to a flat reflectance of 1.
 */
static void make_basis(void)
{
	double band[3][VS_BANDS], a[3][3], inv[3][3];

	for (int i = 0; i < VS_BANDS; i++) {
		double l = vs_lambda(i);

		band[0][i] = 1.0 / (1.0 + exp(-(l - 585.0) / 12.0));
		band[2][i] = 1.0 - 1.0 / (1.0 + exp(-(l - 490.0) / 12.0));
		band[1][i] = 1.0 - band[0][i] - band[2][i];
	}
	for (int k = 0; k < 3; k++) {
		double rgb[3];

		srgb_of(band[k], rgb);
		for (int c = 0; c < 3; c++)
			a[c][k] = rgb[c];
	}
	matrix3_invert(a, inv); /* the three band colours are independent */
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < VS_BANDS; i++)
			basis[j][i] = inv[0][j] * band[0][i] + inv[1][j] * band[1][i] + inv[2][j] * band[2][i];
}

const double (*vs_srgb_basis(void))[VS_BANDS]
{
	pthread_once(&basis_once, make_basis);
	return (const double(*)[VS_BANDS])basis;
}

int vs_patch_index(const char *name)
{
	for (int i = 0; i < VS_CC_PATCHES; i++)
		if (!strcasecmp(vs_colorchecker[i].name, name))
			return i;
	return -1;
}
