/* SPDX-License-Identifier: MIT */
/*
 * make-tuning: derive a tuning file (docs/tuning.md) for a virtual sensor
 * from its model, the way a calibration would measure a real one:
 *  - the AWB curve: camera r/g, b/g of a perfect white under Planckian
 *    (2300..4000 K) and CIE daylight (4500..7500 K) light;
 *  - a colour matrix per colour temperature, fitted on the 24 ColorChecker
 *    patches (white-preserving least squares to linear sRGB, then refined
 *    for CIEDE2000), with cisp_iq_fit_ccm();
 *  - lens shading gain tables from the model's lens shading;
 *  - the noise profile by gain from the model's noise figures;
 *  - AE, AF, flicker and denoise settings from the model's limits.
 *
 *   build/tools/make-tuning cisp-8m10 > data/tuning/cisp-8m10.yaml
 *
 * Not needed at run time; it links the virtual sensor's internals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>
#include <cisp/iq_calib.h>
#include <cisp/sensor.h>

#include "sensor/virtual/model.h"
#include "sensor/virtual/vsensor.h"

#define GRID 17

/* The lights of the AWB curve: name for vs_illuminant() and nominal colour temperature. */
static const struct light {
	const char *name;
	double ct;
} curve_lights[] = {
	{ "blackbody:2300", 2300 }, { "blackbody:2600", 2600 }, { "A", 2856 },	     { "blackbody:3200", 3200 },
	{ "blackbody:3600", 3600 }, { "blackbody:4000", 4000 }, { "daylight:4500", 4500 }, { "D50", 5003 },
	{ "D55", 5503 },	    { "daylight:6000", 6000 },  { "D65", 6504 },	     { "D75", 7504 },
};

/* The lights colour matrices are fitted under. */
static const struct light ccm_lights[] = {
	{ "blackbody:2300", 2300 }, { "A", 2856 }, { "blackbody:3600", 3600 },
	{ "D50", 5003 },	    { "D65", 6504 }, { "D75", 7504 },
};

static int fit_ccm(const struct vs_model *m, const char *light, double ccm[3][3], struct cisp_iq_ccm_fit *fit)
{
	const struct cisp_iq_ccm_fit_options fo = { .preserve_white = true, .refine_de2000 = true };
	double spd[VS_BANDS], white[3], wxyz[3], cam[VS_CC_PATCHES][3], xyz[VS_CC_PATCHES][3];
	int ret = vs_illuminant(light, spd);

	if (ret)
		return ret;
	vs_camera_rgb(&m->camera, spd, NULL, white);
	vs_xyz(spd, NULL, wxyz);
	for (int i = 0; i < VS_CC_PATCHES; i++) {
		double rgb[3], x[3];

		vs_camera_rgb(&m->camera, spd, vs_colorchecker[i].r, rgb);
		vs_xyz(spd, vs_colorchecker[i].r, x);
		for (int c = 0; c < 3; c++) {
			cam[i][c] = rgb[c] / white[c];
			xyz[i][c] = x[c] / wxyz[1];
		}
	}
	wxyz[0] /= wxyz[1];
	wxyz[2] /= wxyz[1];
	wxyz[1] = 1;
	ret = cisp_iq_fit_ccm((const double(*)[3])cam, (const double(*)[3])xyz, wxyz, VS_CC_PATCHES, &fo, fit);
	if (!ret)
		memcpy(ccm, fit->ccm, sizeof(fit->ccm));
	return ret;
}

static void print_list(const char *indent, const char *key, const double *v, unsigned n, const char *fmt)
{
	printf("%s%s: [", indent, key);
	for (unsigned i = 0; i < n; i++) {
		if (i && i % GRID == 0)
			printf("\n%s    ", indent);
		printf(fmt, v[i]);
		if (i + 1 < n)
			printf(", ");
	}
	printf("]\n");
}

int main(int argc, char **argv)
{
	struct vs_model m;
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode mode;
	char path[512];
	double k[3], full_scale;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: make-tuning <virtual sensor model>  (e.g. cisp-8m10)\n");
		return 2;
	}
	ret = vs_model_find(argv[1], path, sizeof(path));
	if (!ret)
		ret = vs_model_load(path, &m);
	if (!ret) {
		char name[128];

		snprintf(name, sizeof(name), "virtual:%s", argv[1]);
		ret = cisp_sensor_open(&s, name, NULL);
	}
	if (!ret)
		ret = cisp_sensor_get_mode(s, 0, &mode);
	if (ret) {
		fprintf(stderr, "make-tuning: %s\n", cisp_last_error());
		return 1;
	}
	/* Codes above black to 16-bit units after black-level correction. */
	full_scale = 65535.0 / (mode.white_level - mode.black_level);

	printf("# Tuning of the virtual sensor %s, derived from its model (data/sensors/%s.yaml)\n", m.name, m.name);
	printf("# by tools/make_tuning.c:  build/tools/make-tuning %s > data/tuning/%s.yaml\n", m.name, m.name);
	printf("# Schema: docs/tuning.md.\n");
	printf("version: 1\nsensor: %s\n", m.name);
	printf("black_level: [%g, %g, %g, %g]\n", m.black_level, m.black_level, m.black_level, m.black_level);

	/* AE: lux from the green mean, taking the scene's mean reflectance as 18%. */
	printf("ae:\n  target: 0.18\n  tolerance: 0.04\n  highlight_fraction: 0.02\n  highlight_level: 0.95\n");
	printf("  speed: 0.6\n  max_exposure_us: 66666\n  max_analogue_gain: %g\n  max_digital_gain: %g\n",
	       m.again_max / 256.0, fmin(m.dgain_max / 256.0, 4.0));
	printf("  lux_scale: %.6g\n", 1.0 / (0.18 * m.sensitivity * m.conversion_gain * full_scale));

	printf("awb:\n  prior_weight: 0.5\n  max_curve_distance: 0.08\n  transverse: 0.06\n");
	printf("  speed: 0.25\n  default_ct: 5000\n  ct:\n");
	for (size_t i = 0; i < sizeof(curve_lights) / sizeof(curve_lights[0]); i++) {
		double spd[VS_BANDS], rgb[3];

		vs_illuminant(curve_lights[i].name, spd);
		vs_camera_rgb(&m.camera, spd, NULL, rgb);
		printf("    - {ct: %g, r_over_g: %.4f, b_over_g: %.4f}  # %s\n", curve_lights[i].ct, rgb[0] / rgb[1],
		       rgb[2] / rgb[1], curve_lights[i].name);
	}

	printf("af:\n  position_range: [%d, %d]\n  coarse_steps: 16\n  fine_steps: 8\n", m.lens_min, m.lens_max);
	printf("  scene_change: 0.15\n  min_contrast: 1.15\n");
	printf("flicker:\n  detect_threshold: 0.02\n");

	printf("ccm:\n");
	for (size_t i = 0; i < sizeof(ccm_lights) / sizeof(ccm_lights[0]); i++) {
		struct cisp_iq_ccm_fit fit;
		double c[3][3];

		if (fit_ccm(&m, ccm_lights[i].name, c, &fit)) {
			fprintf(stderr, "make-tuning: %s\n", cisp_last_error());
			return 1;
		}
		printf("  - ct: %g  # %s: mean CIEDE2000 %.2f, max %.2f\n    matrix:\n", ccm_lights[i].ct,
		       ccm_lights[i].name, fit.mean_de00, fit.max_de00);
		for (int r = 0; r < 3; r++)
			printf("      - [%.4f, %.4f, %.4f]\n", c[r][0], c[r][1], c[r][2]);
	}

	/* Shading is the same under every light in the model: one table. */
	vs_shading_k(m.shading_corner, k);
	printf("lens_shading:\n  array: [%u, %u]\n  tables:\n    - ct: 5000\n", m.array_width, m.array_height);
	for (int ch = 0; ch < 4; ch++) {
		static const char *const names[4] = { "r", "gr", "gb", "b" };
		double g[GRID * GRID], cx = m.array_width / 2.0, cy = m.array_height / 2.0;
		double kc = k[ch == 0 ? 0 : ch == 3 ? 2 : 1];

		for (int j = 0; j < GRID; j++) {
			for (int i = 0; i < GRID; i++) {
				double x = i * (m.array_width - 1.0) / (GRID - 1) + 0.5 - cx;
				double y = j * (m.array_height - 1.0) / (GRID - 1) + 0.5 - cy;
				double t = 1 + kc * (x * x + y * y) / (cx * cx + cy * cy);

				g[j * GRID + i] = t * t;
			}
		}
		print_list("      ", names[ch], g, GRID * GRID, "%.4f");
	}

	/* Noise by total gain: analogue first, then digital. */
	printf("noise:\n");
	for (double gain = 1; gain <= (m.again_max / 256.0) * (m.dgain_max / 256.0) + 1e-9; gain *= 2) {
		double ga = fmin(gain, m.again_max / 256.0), gd = gain / ga, a, b;

		cisp_vsensor_noise_model(s, (int32_t)lround(ga * 256), (int32_t)lround(gd * 256), &a, &b);
		a *= full_scale;
		b *= full_scale * full_scale;
		printf("  - {gain: %g, a: [%.2f, %.2f, %.2f, %.2f], b: [%.0f, %.0f, %.0f, %.0f]}\n", gain, a, a, a, a, b,
		       b, b, b);
	}
	printf("denoise:\n");
	printf("  - {gain: 1, bnr: 0.75, cnr: 2.5, sharpen: 1.0, coring: 256}\n");
	printf("  - {gain: 4, bnr: 0.875, cnr: 3.0, sharpen: 0.85, coring: 384}\n");
	printf("  - {gain: 16, bnr: 1.0, cnr: 3.5, sharpen: 0.6, coring: 768}\n");
	printf("  - {gain: 64, bnr: 1.25, cnr: 4.0, sharpen: 0.4, coring: 1536}\n");
	printf("gamma: 0\n");
	cisp_sensor_close(s);
	vs_model_free(&m);
	return 0;
}
