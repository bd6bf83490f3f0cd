/* SPDX-License-Identifier: MIT */
/*
 * cisp calibrate's estimators against the virtual sensor's truth: a test
 * sensor (cisp-test with black offsets per channel, dark signal and
 * photo-response non-uniformity, and more defects) photographs the whole
 * lightbox series, and each estimate is checked against the model it was
 * rendered from: black level within 0.5 codes, the noise profile within 5 %
 * at four gains, shading within 1.5 % after correction, every injected
 * defect found with no false one, DSNU, PRNU and dark current, the
 * white-balance curve and the colour matrices. Then the tuning it writes,
 * and every kind of bad capture.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/calibrate.h>
#include <cisp/control.h>
#include <cisp/error.h>
#include <cisp/output_file.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

#include "cli.h"
#include "control/awb.h"
#include "control/colour_matrix.h"
#include "control/tuning.h"
#include "core/text_file.h"
#include "test.h"

/* The test sensor's truth (its model file below). */
static const double black_offset[4] = { 0.8, -0.3, 0.4, -0.6 };
#define DSNU 1.5
#define PRNU 0.01
#define DEFECTS 2e-3
static const double corner[3] = { 0.50, 0.60, 0.62 };

/* cisp-test's model with fixed pattern noise and offsets; its path. */
static const char *model_path(void)
{
	static char path[1024];
	char src[1024], *text = NULL;
	size_t n;
	FILE *f;

	if (path[0])
		return path;
	snprintf(src, sizeof(src), "%s/data/sensors/cisp-test.yaml", CISP_SOURCE_DIR);
	if (cisp_read_text_file(src, 1 << 20, &text, &n))
		return NULL;
	snprintf(path, sizeof(path), "%s/calib-sensor.yaml", test_tmp_dir());
	f = fopen(path, "w");
	if (f) {
		/* The name stays cisp-test: a calibration names the model it was for. */
		fprintf(f, "%sblack_offset: [%g, %g, %g, %g]\ndsnu: %g\nprnu: %g\n", text, black_offset[0], black_offset[1],
			black_offset[2], black_offset[3], DSNU, PRNU);
		fclose(f);
	}
	free(text);
	return path;
}

static char camera_options[64];

static const struct cisp_calib_camera *camera(const char *illuminants)
{
	static struct cisp_calib_camera cam;

	snprintf(camera_options, sizeof(camera_options), "defect_density=%g", DEFECTS);
	cam = (struct cisp_calib_camera){ .sensor = model_path(), .illuminants = illuminants, .seed = 7,
					  .options = camera_options };
	return &cam;
}

/* One calibration of the test sensor under D65, A and F11, shared by the tests. */
static struct cisp_calib *session(const struct cisp_calib_result **res)
{
	static struct cisp_calib *c;
	static const struct cisp_calib_result *r;
	static char model[64];

	if (!c) {
		struct cisp_calib_setup setup;
		int ret = cisp_calib_virtual_setup(camera("D65,A,F11"), &setup, model, sizeof(model));

		if (!ret)
			ret = cisp_calib_create(&c, &setup);
		if (!ret)
			ret = cisp_calib_capture_virtual(c, camera("D65,A,F11"));
		if (!ret)
			ret = cisp_calib_solve(c, &r);
		if (ret) {
			test_fail(__FILE__, __LINE__, "calibration failed: %s", cisp_last_error());
			cisp_calib_destroy(c);
			c = NULL;
		}
	}
	*res = r;
	return c;
}

/* The virtual test sensor, opened as the calibration saw it. */
static struct cisp_sensor *truth_sensor(void)
{
	char name[1100], opts[128];
	struct cisp_sensor *s = NULL;

	snprintf(name, sizeof(name), "virtual:%s", model_path());
	snprintf(opts, sizeof(opts), "seed=7,defect_density=%g", DEFECTS);
	CHECK_EQ(cisp_sensor_open(&s, name, opts), 0);
	return s;
}

TEST(calibrate_black_level_and_dark_signal_against_truth)
{
	const struct cisp_calib_result *r;

	if (!session(&r))
		return;
	CHECK_EQ(r->black.frames, 10);
	for (int c = 0; c < 4; c++)
		CHECK_NEAR(r->black.level[c], 64 + black_offset[c], 0.5);
	/* 10 e/s at 0.4 codes per electron. */
	CHECK_NEAR(r->black.dark_current, 4.0, 0.4);
	CHECK_NEAR(r->black.dsnu, DSNU, 0.15 * DSNU);
	CHECK(r->black.spread < 0.5);
}

/* The variance the model gives at @s codes above black, at analogue gain @gain. */
static double model_variance(struct cisp_sensor *s, double gain, double sig)
{
	double a, b;

	CHECK_EQ(cisp_vsensor_noise_model(s, (int32_t)lround(gain * 256), 256, &a, &b), 0);
	return a * sig + b;
}

TEST(calibrate_noise_profile_within_5_percent_at_four_gains)
{
	const struct cisp_calib_result *r;
	struct cisp_sensor *s;

	if (!session(&r))
		return;
	s = truth_sensor();
	CHECK_EQ(r->noise.count, 4);
	for (unsigned i = 0; i < r->noise.count && s; i++) {
		const struct cisp_calib_noise_gain *g = &r->noise.gain[i];

		CHECK_NEAR(g->gain, 1 << i, 1e-6);
		double worst = 0;

		/* At no signal, a tenth, half and most of the range below saturation. */
		for (int k = 0; k < 4; k++) {
			double sig = (k == 0 ? 0 : k == 1 ? 0.1 : k == 2 ? 0.5 : 0.8) * 800 / g->gain, want = model_variance(s, g->gain, sig);

			for (int c = 0; c < 4; c++) {
				double got = g->a[c] * sig + g->b[c];

				worst = fmax(worst, fabs(got / want - 1));
				if (fabs(got / want - 1) > 0.05)
					test_fail(__FILE__, __LINE__, "gain %g channel %d signal %g: variance %g, model %g", g->gain,
						  c, sig, got, want);
			}
		}
		printf("  gain %g: noise variance at most %.1f%% off the model's\n", g->gain, 100 * worst);
		/* 0.4 codes per electron, times the gain. */
		CHECK_NEAR(g->conversion_gain * 0.4 * g->gain, 1, 0.03);
	}
	/* Gain 1 saturates at the full well (2000 e, 800 codes); higher gains at the ADC. */
	CHECK(r->noise.gain[0].saturated);
	CHECK(r->noise.gain[0].saturation > 0.85 * 800 && r->noise.gain[0].saturation <= 800);
	CHECK(r->noise.gain[1].saturated);
	CHECK_NEAR(r->noise.gain[1].saturation, 1023 - 64, 2);
	cisp_sensor_close(s);
}

/* The largest departure from flat of the truth's shading corrected by a table, over a fine grid. */
static double shading_residual(const struct cisp_calib_shading_table *t, uint32_t w, uint32_t h)
{
	double worst = 0, cx = w / 2.0, cy = h / 2.0;

	for (unsigned ch = 0; ch < 4; ch++) {
		double k = 1 / sqrt(corner[ch == 0 ? 0 : ch == 3 ? 2 : 1]) - 1, v[33 * 25], centre = 0;

		for (int j = 0; j < 25; j++)
			for (int i = 0; i < 33; i++) {
				double x = i * (w - 1.0) / 32, y = j * (h - 1.0) / 24;
				double r2 = ((x + 0.5 - cx) * (x + 0.5 - cx) + (y + 0.5 - cy) * (y + 0.5 - cy)) / (cx * cx + cy * cy);
				double s = 1 / ((1 + k * r2) * (1 + k * r2));
				unsigned at = (unsigned)(j * 33 + i);
				/* The table's bilinear interpolation between its 17 x 17 nodes. */
				double u = x * 16 / (w - 1.0), vv = y * 16 / (h - 1.0);
				int iu = u >= 16 ? 15 : (int)u, iv = vv >= 16 ? 15 : (int)vv;
				double fu = u - iu, fv = vv - iv;
				const float *g = t->gain[ch];
				double gain = (1 - fv) * ((1 - fu) * g[iv * 17 + iu] + fu * g[iv * 17 + iu + 1]) +
					      fv * ((1 - fu) * g[(iv + 1) * 17 + iu] + fu * g[(iv + 1) * 17 + iu + 1]);

				v[at] = s * gain;
				if (i == 16 && j == 12)
					centre = v[at];
			}
		for (int i = 0; i < 33 * 25; i++)
			worst = fmax(worst, fabs(v[i] / centre - 1));
	}
	return worst;
}

TEST(calibrate_shading_leaves_under_1_5_percent_and_prnu_against_truth)
{
	const struct cisp_calib_result *r;

	if (!session(&r))
		return;
	/* One table per light; the model's shading is the same under every light. */
	CHECK_EQ(r->shading.count, 3);
	for (unsigned i = 0; i < r->shading.count; i++) {
		double res = shading_residual(&r->shading.table[i], r->width, r->height);

		if (res > 0.015)
			test_fail(__FILE__, __LINE__, "table %s: %.2f%% left after correction", r->shading.table[i].illuminant,
				  100 * res);
		printf("  table %s: %.2f%% of the truth's shading left after correction\n", r->shading.table[i].illuminant,
		       100 * res);
		CHECK(r->shading.table[i].residual_pct < 1.5);
		CHECK_NEAR(r->shading.table[i].falloff[0], corner[0], 0.05);
	}
	CHECK_NEAR(r->shading.prnu, PRNU, 0.25 * PRNU);
}

TEST(calibrate_finds_injected_defects_without_false_ones)
{
	const struct cisp_calib_result *r;
	struct cisp_sensor *s;
	struct cisp_vsensor_defect *truth;
	int n;
	unsigned found = 0, false_ones = 0;

	if (!session(&r))
		return;
	s = truth_sensor();
	n = s ? cisp_vsensor_defects(s, NULL, 0) : 0;
	truth = calloc((size_t)n + 1, sizeof(*truth));
	CHECK(n > 100);
	if (truth && n > 0)
		cisp_vsensor_defects(s, truth, (unsigned)n);
	/* Both lists sorted by row then column. */
	for (unsigned i = 0, j = 0; i < r->defects.count; i++) {
		const struct cisp_calib_defect *d = &r->defects.list[i];

		while (j < (unsigned)n && (truth[j].y < d->y || (truth[j].y == d->y && truth[j].x < d->x)))
			j++;
		if (j < (unsigned)n && truth[j].x == d->x && truth[j].y == d->y) {
			found++;
			CHECK_EQ(d->hot, truth[j].hot);
		} else {
			false_ones++;
		}
	}
	if (found < 0.99 * n || false_ones > 0.001 * r->defects.count)
		test_fail(__FILE__, __LINE__, "%u of %d defects found, %u false", found, n, false_ones);
	printf("  %u of %d injected defects found, %u false (of %u pixels)\n", found, n, false_ones,
	       r->width * r->height);
	free(truth);
	cisp_sensor_close(s);
}

/* The distance of a grey (R/G, B/G) from the white-balance curve's polyline. */
static double curve_distance(const struct cisp_calib_colour *col, const double q[2])
{
	double best = INFINITY;

	for (unsigned i = 0; i + 1 < col->curve_count; i++) {
		const struct cisp_calib_ct_point *a = &col->curve[i], *b = &col->curve[i + 1];
		double dx = b->r_over_g - a->r_over_g, dy = b->b_over_g - a->b_over_g;
		double f = ((q[0] - a->r_over_g) * dx + (q[1] - a->b_over_g) * dy) / (dx * dx + dy * dy);

		f = f < 0 ? 0 : f > 1 ? 1 : f;
		best = fmin(best, hypot(q[0] - a->r_over_g - f * dx, q[1] - a->b_over_g - f * dy));
	}
	return best;
}

TEST(calibrate_colour_against_truth)
{
	const struct cisp_calib_result *r;
	struct cisp_sensor *s;
	static const char *const lights[] = { "A", "F11", "D65" };

	if (!session(&r))
		return;
	s = truth_sensor();
	CHECK_EQ(r->colour.count, 3);
	for (unsigned i = 0; i < r->colour.count && s; i++) {
		const struct cisp_calib_chart *ch = &r->colour.chart[i];
		struct cisp_vsensor_patch p;
		char opt[32];

		/* Rising colour temperature: A (2856 K), F11 (4000 K), D65 (6504 K). */
		CHECK(!strcmp(ch->illuminant, lights[i]));
		snprintf(opt, sizeof(opt), "%s", lights[i]);
		CHECK_EQ(cisp_sensor_set_option(s, "illuminant", opt), 0);
		CHECK_EQ(cisp_vsensor_chart_patch(s, 0, &p), 0);
		/* The grey from the chart's neutral patches, against the camera's true response to white (1 %). */
		CHECK_NEAR(ch->grey[0] / (p.white_camera[0] / p.white_camera[1]), 1, 0.015);
		CHECK_NEAR(ch->grey[1] / (p.white_camera[2] / p.white_camera[1]), 1, 0.015);
		/* The matrix: a residual near the truth-fitted matrix's (0.8..1.0), and no worse on patches left out. */
		CHECK(ch->fit.mean_de00 < 1.6);
		CHECK(ch->loo_mean_de00 < 1.8);
		CHECK(ch->loo_mean_de00 >= ch->fit.mean_de00);
	}
	CHECK(!r->colour.chart[1].on_locus);
	/* The curve passes through the Planckian and daylight greys; F11 lies off it. */
	CHECK(curve_distance(&r->colour, r->colour.chart[0].grey) < 1e-3);
	CHECK(curve_distance(&r->colour, r->colour.chart[2].grey) < 1e-3);
	CHECK(curve_distance(&r->colour, r->colour.chart[1].grey) > 0.01);
	/* Each light predicted from the other two, as the camera would render it. */
	for (unsigned i = 0; i < r->colour.count; i++)
		CHECK(r->colour.held_out[i].color.mean_de00 < 3);
	cisp_sensor_close(s);
}

/* ---- the tuning a calibration writes ---- */

/* The tuning of the shared session, written and read back. */
static struct cisp_tuning *written_tuning(void)
{
	const struct cisp_calib_result *r;
	struct cisp_calib *c = session(&r);
	struct cisp_output_file *out = NULL;
	struct cisp_tuning *t = NULL;
	char path[1024];

	if (!c)
		return NULL;
	snprintf(path, sizeof(path), "%s/calib-written.yaml", test_tmp_dir());
	CHECK_EQ(cisp_output_file_create(&out, path, CISP_OUTPUT_REPLACE), 0);
	CHECK_EQ(cisp_output_file_finish(out, cisp_calib_write_tuning(
							    c, NULL,
							    &(struct cisp_calib_provenance){ .tool = "test", .command = "test run",
											      .date = "2025-01-01T00:00:00Z" },
							    out)),
		 0);
	CHECK_EQ(cisp_tuning_load(&t, path), 0);
	return t;
}

TEST(calibrate_tuning_runs_the_loop_with_static_defects)
{
	struct cisp_tuning *t = written_tuning();
	struct cisp_sensor *s = truth_sensor();
	struct cisp_control_config cfg = { 0 };
	struct cisp_control *loop = NULL;
	struct cisp_control_result res;
	int n = s ? cisp_vsensor_defects(s, NULL, 0) : 0;

	if (!t || !s)
		goto out;
	/* Without a base tuning, local tone mapping comes on at the calibration's setting. */
	CHECK(t->ltm.strength == 0.5 && t->ltm.boost == 3 && t->ltm.cut == 1 && t->ltm.range == 1.5);
	/* The measured clip level: the full well (800 codes above black in truth) below the white level 1023. */
	if (!(t->saturation > 64 + 0.95 * 800 && t->saturation <= 64 + 800))
		test_fail(__FILE__, __LINE__, "saturation %g, the full well at 864", t->saturation);
	/* The binned mode: each defective site marks its binned pixel. */
	CHECK_EQ(cisp_sensor_set_mode(s, 1), 0);
	CHECK_EQ(cisp_sensor_get_mode(s, 1, &cfg.mode), 0);
	for (int i = 0; i < CISP_SENSOR_NUM_CONTROLS; i++)
		cisp_sensor_control_info(s, (enum cisp_sensor_control)i, &cfg.controls[i]);
	cfg.tuning = t;
	CHECK_EQ(cisp_control_create(&loop, &cfg), 0);
	if (!loop)
		goto out;
	CHECK_EQ(cisp_control_start(loop, &res), 0);
	CHECK(res.params->enabled & CISP_BLOCK_BIT(CISP_BLOCK_DPC));
	/* The highlights stage clips there: (saturation - black) / (white - black) of full scale. */
	CHECK_NEAR(res.params->highlights.white, 65535 * (t->saturation - t->black_level[1]) / (1023 - t->black_level[1]), 1);
	/* The binned mode's own defects (fewer: two sites can share a pixel), every one in the static list. */
	{
		int m = cisp_vsensor_defects(s, NULL, 0);
		struct cisp_vsensor_defect *d = calloc((size_t)m + 1, sizeof(*d));
		int listed = 0;

		CHECK(m > 0 && m <= n);
		if (d)
			cisp_vsensor_defects(s, d, (unsigned)m);
		for (int i = 0; d && i < m; i++)
			for (unsigned k = 0; k < res.params->dpc.count; k++)
				if (res.params->dpc.pixels[k].x == d[i].x && res.params->dpc.pixels[k].y == d[i].y) {
					listed++;
					break;
				}
		CHECK(listed >= 0.99 * m);
		CHECK(res.params->dpc.count <= (unsigned)m + 1);
		free(d);
	}
	cisp_control_destroy(loop);
out:
	cisp_sensor_close(s);
	cisp_tuning_free(t);
}

/*
 * Colour under a light the calibration never saw (F2; the session had D65,
 * A and F11): the sensor's true patch responses, white-balanced by its true
 * grey, through the tuning's matrix where AWB would place that grey (its
 * temperature and tint on the curve), against the patches' truth. The
 * matrices synthesised from the estimated sensitivities must beat the
 * on-curve matrix at the same temperature (what the tables gave before
 * lights off the curve had entries).
 */
TEST(calibrate_colour_off_the_curve_against_truth)
{
	struct cisp_tuning *t = written_tuning();
	struct cisp_sensor *s = truth_sensor();
	double cam[24][3], xyz[24][3], white[3], grey[2], ct, tint, m[2][3][3];
	struct cisp_iq_color_result res[2];
	const char *names[24];
	bool neutral[24], off_curve = false;
	struct cisp_vsensor_patch p;

	if (!t || !s)
		goto out;
	CHECK_EQ(cisp_sensor_set_option(s, "illuminant", "F2"), 0);
	for (int i = 0; i < 24; i++) {
		CHECK_EQ(cisp_vsensor_chart_patch(s, i, &p), 0);
		names[i] = p.name;
		neutral[i] = i >= 18;
		for (int c = 0; c < 3; c++) {
			cam[i][c] = p.camera[c] / p.white_camera[c];
			xyz[i][c] = p.xyz[c];
			white[c] = p.white_xyz[c];
		}
	}
	grey[0] = p.white_camera[0] / p.white_camera[1];
	grey[1] = p.white_camera[2] / p.white_camera[1];
	tint = awb_curve_tint(t, grey, &ct);
	/* F2 is a green light, about 0.05 off the curve near 4000 K. */
	CHECK(tint > 0.03 && tint < 0.08);
	CHECK(ct > 3600 && ct < 4400);
	for (unsigned i = 0; i < t->ccm_count; i++)
		off_curve |= t->ccm[i].tint > 0.03;
	CHECK(off_curve);
	colour_matrix_at(t, ct, tint, m[0]);
	colour_matrix_at(t, ct, 0, m[1]);
	for (int k = 0; k < 2; k++) {
		double rgb[24][3];

		for (int i = 0; i < 24; i++)
			for (int r = 0; r < 3; r++)
				rgb[i][r] = m[k][r][0] * cam[i][0] + m[k][r][1] * cam[i][1] + m[k][r][2] * cam[i][2];
		CHECK_EQ(cisp_iq_color_evaluate((const double(*)[3])rgb, (const double(*)[3])xyz, white, names, neutral,
						24, &(struct cisp_iq_color_options){ .exposure = true }, &res[k]),
			 0);
	}
	CHECK(res[0].mean_de00 < 1.5);
	CHECK(res[0].max_de00 < 4);
	CHECK(res[0].mean_de00 < res[1].mean_de00 - 0.2);
	printf("F2 through the tuning: mean %.2f max %.2f; on-curve matrix alone: mean %.2f max %.2f\n",
	       res[0].mean_de00, res[0].max_de00, res[1].mean_de00, res[1].max_de00);
out:
	cisp_sensor_close(s);
	cisp_tuning_free(t);
}

/* A minimal tuning with @extra appended. */
static int parse_with(const char *extra)
{
	char text[4096];
	struct cisp_tuning *t = NULL;
	int ret;

	snprintf(text, sizeof(text),
		 "version: 1\nsensor: s\nawb: {ct: [{ct: 5000, r_over_g: 0.5, b_over_g: 0.5}]}\n"
		 "ccm: [{ct: 5000, matrix: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}]\n"
		 "noise: [{gain: 1, a: [1, 1, 1, 1], b: [1, 1, 1, 1]}]\n%s",
		 extra);
	ret = cisp_tuning_parse(&t, text, strlen(text), "t.yaml");
	cisp_tuning_free(t);
	return ret;
}

TEST(calibrate_tuning_keys_refuse_bad_values)
{
	CHECK_EQ(parse_with("defect_pixels: [[3, 1], [5, 1], [0, 2]]\n"), 0);
	CHECK_ERR(parse_with("defect_pixels: [[5, 1], [3, 1]]\n"), -EINVAL, "defect_pixels[1]: [3, 1] must come after");
	CHECK_ERR(parse_with("defect_pixels: [[3, 1], [3, 1]]\n"), -EINVAL, "must come after the previous pixel");
	CHECK_ERR(parse_with("defect_pixels: [[70000, 1]]\n"), -EINVAL, "is outside 0..65535");
	CHECK_ERR(parse_with("defect_pixels: [[1.5, 1]]\n"), -EINVAL, "whole numbers");
	CHECK_ERR(parse_with("defect_pixels: [[1, 2, 3]]\n"), -EINVAL, "must have 2 numbers");
	CHECK_ERR(parse_with("defect_pixels: []\n"), -EINVAL, "at least one entry");
	CHECK_EQ(parse_with("provenance:\n  tool: \"cisp calibrate 0.1\"\n  date: \"2025-01-01\"\n  inputs:\n"
			    "    - {kind: dark, file: \"/data/d1.dng\", exposure_s: 0.01, gain: 1}\n"
			    "  charts: [{illuminant: D65, ct: 6504, fit_mean_de00: 0.8}]\n"
			    "  fits: {black_spread: 0.1, defects: 3}\n"),
		 0);
	CHECK_ERR(parse_with("provenance: {date: x}\n"), -EINVAL, "provenance.tool: missing");
	CHECK_ERR(parse_with("provenance: {tool: x, colour: y}\n"), -EINVAL, "provenance.colour: unknown key");
	CHECK_ERR(parse_with("provenance: {tool: \"a\\x01b\"}\n"), -EINVAL, "control character");
	CHECK_ERR(parse_with("provenance: {tool: x, inputs: [{kind: photo, file: f}]}\n"), -EINVAL,
		  "'photo' is not dark, flat, chart or edge");
	CHECK_ERR(parse_with("provenance: {tool: x, charts: [{illuminant: D65, ct: 100}]}\n"), -EINVAL,
		  "provenance.charts[0].ct: 100 is outside 1000..25000");
	CHECK_EQ(parse_with("provenance:\n  tool: x\n  fits: {colour_method: 2, sensitivity_fit_rms: 0.01}\n"
			    "  colour_methods:\n    - {method: interpolated, loo_mean_de00: 3.5, loo_max_de00: 13}\n"
			    "    - {method: corrected sensitivities, penalty: 0.01, loo_mean_de00: 1.1}\n"),
		 0);
	CHECK_ERR(parse_with("provenance: {tool: x, colour_methods: [{method: guessed}]}\n"), -EINVAL,
		  "provenance.colour_methods[0].method: 'guessed' is not interpolated, sensitivities or corrected");
	CHECK_ERR(parse_with("provenance: {tool: x, colour_methods: [{penalty: 1}]}\n"), -EINVAL,
		  "provenance.colour_methods[0].method: missing");
	CHECK_ERR(parse_with("provenance: {tool: x, colour_methods: [{method: sensitivities, penalty: -1}]}\n"), -EINVAL,
		  "provenance.colour_methods[0].penalty: -1 is outside 0..1000000");
	CHECK_ERR(parse_with("provenance: {tool: x, fits: {colour_method: 1.5}}\n"), -EINVAL,
		  "provenance.fits.colour_method: must be a whole number");
}

/* ---- bad captures ---- */

/* One frame of the test sensor (mode @mode) with @options and exposure @lines. */
static int frame(struct cisp_image *img, unsigned mode, const char *options, int32_t lines)
{
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode m;
	struct cisp_sensor_controls c = { 0 };
	int ret = cisp_sensor_open(&s, "virtual:cisp-test", options);

	if (!ret)
		ret = cisp_sensor_set_mode(s, mode);
	if (!ret)
		ret = cisp_sensor_get_mode(s, mode, &m);
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, lines);
	if (!ret)
		ret = cisp_sensor_set_controls(s, &c);
	if (!ret)
		ret = cisp_image_alloc(img, m.format, m.width, m.height);
	if (!ret)
		ret = cisp_sensor_start(s);
	if (!ret)
		ret = cisp_sensor_capture(s, img, NULL, 0);
	cisp_sensor_close(s);
	return ret;
}

/* Add one capture of kind @kind from a frame of @options to session @c; the result of cisp_calib_add(). */
static int add(struct cisp_calib *c, enum cisp_calib_kind kind, unsigned mode, const char *options, int32_t lines,
	       const char *illuminant)
{
	struct cisp_image img = { 0 };
	int ret = frame(&img, mode, options, lines);
	struct cisp_calib_capture cap = { .kind = kind, .raw = &img, .black = 64, .white = 1023, .exposure_s = 0.01,
					  .gain = 1, .illuminant = illuminant, .name = options };

	if (ret) {
		test_fail(__FILE__, __LINE__, "capture %s: %s", options, cisp_last_error());
		return ret;
	}
	ret = cisp_calib_add(c, &cap);
	cisp_image_free(&img);
	return ret;
}

TEST(calibrate_refuses_bad_captures)
{
	struct cisp_calib *c = NULL;
	const struct cisp_calib_result *r;
	struct cisp_output_file *out = NULL;
	char path[1024];

	CHECK_ERR(cisp_calib_create(&c, &(struct cisp_calib_setup){ .sensor = "a/b" }), -EINVAL, "not a plain name");
	CHECK_EQ(cisp_calib_create(&c, &(struct cisp_calib_setup){ .sensor = "cisp-test" }), 0);
	if (!c)
		return;
	CHECK_ERR(cisp_calib_solve(c, &r), -ENODATA, "no captures");
	/* Darks with light in them: a bright frame, and a dim one with a lit region. */
	CHECK_ERR(add(c, CISP_CALIB_DARK, 0, "scene=flat,lux=100", 90, NULL), -EINVAL, "has light in it");
	CHECK_ERR(add(c, CISP_CALIB_DARK, 0, "scene=hdr,lux=2", 90, NULL), -EINVAL, "has light in it");
	CHECK_EQ(add(c, CISP_CALIB_DARK, 0, "lux=0", 90, NULL), 0);
	/* Another mode's frame: refused. */
	CHECK_ERR(add(c, CISP_CALIB_DARK, 1, "lux=0", 90, NULL), -EINVAL, "must come from one sensor mode");
	/* A flat with a chart in it; one clipped almost everywhere. */
	CHECK_ERR(add(c, CISP_CALIB_FLAT, 0, "scene=colorchart,lux=400", 90, NULL), -EINVAL, "is not flat");
	CHECK_ERR(add(c, CISP_CALIB_FLAT, 0, "scene=flat,lux=100000,noise=off", 200, NULL), -EINVAL, "is clipped");
	CHECK_EQ(add(c, CISP_CALIB_FLAT, 0, "scene=flat,lux=500", 90, "D65"), 0);
	/* Charts: none in view, clipped, too dark, no light or an unknown one. */
	CHECK_ERR(add(c, CISP_CALIB_CHART, 0, "scene=flat,lux=500", 90, "D65"), -EINVAL, "no ColorChecker found");
	CHECK_ERR(add(c, CISP_CALIB_CHART, 0, "scene=colorchart,lux=3000", 200, "D65"), -EINVAL, "is clipped");
	CHECK_ERR(add(c, CISP_CALIB_CHART, 0, "scene=colorchart,lux=60", 90, "D65"), -EINVAL, "is underexposed");
	CHECK_ERR(add(c, CISP_CALIB_CHART, 0, "scene=colorchart,lux=700", 90, NULL), -EINVAL, "its light is not given");
	CHECK_ERR(add(c, CISP_CALIB_CHART, 0, "scene=colorchart,lux=700", 90, "Z99"), -EINVAL, "unknown light 'Z99'");
	/* An edge that is not there. */
	CHECK_ERR(add(c, CISP_CALIB_EDGE, 0, "scene=flat,lux=500", 90, NULL), -EINVAL, "no measurable slanted edge");
	/* What was refused left nothing behind: one dark and one flat, no chart, no edge. */
	CHECK_EQ(cisp_calib_solve(c, &r), 0);
	CHECK_EQ(r->black.frames, 1);
	CHECK_EQ(r->colour.count, 0);
	CHECK(!r->sharpness.valid);
	/* Without a chart or a base tuning there is no colour to write: an error, and the file is not made. */
	snprintf(path, sizeof(path), "%s/calib-refused.yaml", test_tmp_dir());
	remove(path);
	CHECK_EQ(cisp_output_file_create(&out, path, 0), 0);
	CHECK_ERR(cisp_output_file_finish(out, cisp_calib_write_tuning(c, NULL, &(struct cisp_calib_provenance){ 0 }, out)),
		  -EINVAL, "need a ColorChecker");
	CHECK(access(path, F_OK) != 0);
	cisp_calib_destroy(c);
}

/* ---- cisp calibrate ---- */

/* The lightbox series saved as DNGs, then calibrated from those files: the same tuning. */
TEST(calibrate_cli_camera_and_files_agree)
{
	struct cisp_tuning *a = NULL, *b = NULL;

	CHECK_EQ(cli_sh("rm -rf cal-caps cal-a.yaml cal-b.yaml cal.html cal.json"), 0);
	CHECK_EQ(cli_run("calibrate --camera cisp-test --illuminants D65,A --save-captures cal-caps -o cal-a.yaml "
			 "--report cal.html --json cal.json"),
		 0);
	CHECK(strstr(cli_output, "calibrated cisp-test: wrote cal-a.yaml") != NULL);
	CHECK(cli_count_entries(cli_tmp("cal-caps")) > 90);
	CHECK(cli_size("cal.html") > 10000 && cli_size("cal.json") > 1000);
	CHECK_EQ(cli_sh("\"$CISP\" calibrate --dark cal-caps/*-dark.dng --flat $(ls cal-caps/*-flat-D65.dng | sed s/$/@D65/) "
			"$(ls cal-caps/*-flat-A.dng | sed s/$/@A/) "
			"--chart $(ls cal-caps/*-chart-D65.dng)@D65 $(ls cal-caps/*-chart-A.dng)@A "
			"--edge cal-caps/*-edge-*.dng -o cal-b.yaml"),
		 0);
	CHECK_EQ(cisp_tuning_load(&a, cli_tmp("cal-a.yaml")), 0);
	CHECK_EQ(cisp_tuning_load(&b, cli_tmp("cal-b.yaml")), 0);
	if (a && b) {
		/* The same captures, the same lights: the same numbers (the DNGs hold the mosaic and its levels). */
		for (int c = 0; c < 4; c++)
			CHECK_NEAR(a->black_level[c], b->black_level[c], 1e-6);
		CHECK_EQ(a->noise_count, b->noise_count);
		for (unsigned i = 0; i < a->noise_count && i < b->noise_count; i++)
			CHECK_NEAR(a->noise[i].a[1] / b->noise[i].a[1], 1, 1e-3);
		CHECK_EQ(a->ccm_count, b->ccm_count);
		for (int i = 0; i < 9; i++)
			CHECK_NEAR(a->ccm[0].m[i / 3][i % 3], b->ccm[0].m[i / 3][i % 3], 1e-3);
		CHECK_EQ(a->defect_count, b->defect_count);
		CHECK_NEAR(a->awb.ct[2].r_over_g, b->awb.ct[2].r_over_g, 1e-3);
		CHECK(a->saturation > 0);
		CHECK_EQ(a->saturation, b->saturation);
	}
	cisp_tuning_free(a);
	cisp_tuning_free(b);
}

TEST(calibrate_cli_bad_capture_writes_nothing)
{
	CHECK_EQ(cli_sh("rm -rf cal-bad.yaml cal-bad-caps && mkdir cal-bad-caps"), 0);
	/* A lit frame given as a dark: exit 1, a message naming it, no tuning. */
	CHECK_EQ(cli_sh("\"$CISP\" calibrate --camera cisp-test --illuminants D65 --save-captures cal-bad-caps "
			"-o cal-bad.yaml >/dev/null && rm cal-bad.yaml"),
		 0);
	CHECK_EQ(cli_sh("\"$CISP\" calibrate --dark $(ls cal-bad-caps/*-flat-*.dng | tail -1) --chart "
			"$(ls cal-bad-caps/*-chart-D65.dng)@D65 -o cal-bad.yaml"),
		 1);
	CHECK(strstr(cli_output, "has light in it") != NULL);
	CHECK(!cli_exists("cal-bad.yaml"));
	/* A chart's light is required, and a dark takes none. */
	CHECK_EQ(cli_sh("\"$CISP\" calibrate --chart $(ls cal-bad-caps/*-chart-D65.dng) -o cal-bad.yaml"), 1);
	CHECK(strstr(cli_output, "its light is not given") != NULL);
	CHECK_EQ(cli_run("calibrate --dark x.dng@D65 -o cal-bad.yaml"), 2);
	CHECK(!cli_exists("cal-bad.yaml"));
	/* An existing tuning is replaced only with --force. */
	cli_write("cal-bad.yaml", "keep", 4);
	CHECK_EQ(cli_sh("\"$CISP\" calibrate --dark $(ls cal-bad-caps/*-dark.dng | head -2) -o cal-bad.yaml"), 1);
	CHECK(strstr(cli_output, "exists (use --force") != NULL);
	CHECK_EQ(cli_size("cal-bad.yaml"), 4);
	/* Usage errors. */
	CHECK_EQ(cli_run("calibrate --camera cisp-test"), 2);
	CHECK_EQ(cli_run("calibrate -o x.yaml"), 2);
	CHECK_EQ(cli_run("calibrate somefile -o x.yaml"), 2);
	CHECK_EQ(cli_run("calibrate --camera cisp-test --dark d.dng -o x.yaml"), 2);
}
