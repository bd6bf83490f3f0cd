/* SPDX-License-Identifier: MIT */
/*
 * The software IQ lab on the small test sensor: the camera as a user gets it
 * (its tuning and 3A loop) and the ISP's ceiling (calibrated from the
 * truth); colour, noise, sharpness, and cisp iq.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cisp/camera.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/iq.h>
#include <cisp/iq_lab.h>
#include <cisp/dng.h>
#include <cisp/raster.h>
#include <cisp/raw_frame.h>
#include <cisp/sensor.h>

#include "core/matrix3.h"
#include "sanitizer.h"
#include "test.h"

/* The camera: cisp-test with its shipped tuning (calibrated under six lights, not F11 nor F2). */
static const struct cisp_iq_lab test_lab = { .sensor = "cisp-test", .lux = 400, .seed = 3, .demosaic = 1 };
/* The ISP's ceiling: the arithmetic with a calibration from the truth, linear output, no sharpening. */
static const struct cisp_iq_lab ceiling_lab = { .sensor = "cisp-test", .lux = 400, .seed = 3, .demosaic = 1,
						.calibration = CISP_IQ_LAB_CEILING };

TEST(iq_lab_colour_under_three_illuminants)
{
	const char *const ill[] = { "D65", "A", "F11" };

	for (int i = 0; i < 3; i++) {
		struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));

		CHECK_EQ(cisp_iq_lab_color(&ceiling_lab, ill[i], i == 0, c), 0);
		/* The ceiling fits on the patches it measures: never accuracy. */
		CHECK_EQ(c->fit, CISP_IQ_LAB_FITTED);
		/* The bar: mean dE00 <= 3 (goal 2) with a calibrated matrix. */
		if (!(c->color.mean_de00 <= 2))
			test_fail(__FILE__, __LINE__, "%s: mean dE00 %.2f over 2", ill[i], c->color.mean_de00);
		CHECK(c->color.wb_error_deg < 1.0);
		CHECK_EQ(c->color.count, 24);
		/* White balance: a perfect white's camera response is neutral after the gains. */
		CHECK_NEAR(c->wb_gain[1], 1, 1e-12);
		CHECK(c->wb_gain[0] > 0.3 && c->wb_gain[2] > 0.3);
		/* Tungsten is poor in blue: blue needs more gain than red. */
		if (i == 1)
			CHECK(c->wb_gain[2] > 1.5 * c->wb_gain[0]);
		for (int r = 0; r < 3; r++)
			CHECK_NEAR(c->ccm[r][0] + c->ccm[r][1] + c->ccm[r][2], 1, 1e-9);
		/* SNR falls with the patch's level along the neutral row. */
		CHECK_EQ(c->noise.count, 6);
		CHECK(c->noise.step[0].snr_y > c->noise.step[5].snr_y);
		CHECK(c->noise.step[5].snr_y > 3);
		if (i == 0) {
			CHECK_EQ(c->picture.width, 320);
			CHECK_EQ(c->picture.height, 240);
		}
		cisp_iq_image_free(&c->picture);
		free(c);
	}
}

/* The camera as a user gets it: AWB's white balance and the tuning's matrices; a held-out light is accuracy. */
TEST(iq_lab_camera_colour_fitted_and_held_out)
{
	const char *const ill[] = { "D65", "F11" };

	for (int i = 0; i < 2; i++) {
		struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));

		CHECK_EQ(cisp_iq_lab_color(&test_lab, ill[i], false, c), 0);
		/* D65 is one of the tuning's lights (its provenance says so), F11 is not. */
		CHECK_EQ(c->fit, i == 0 ? CISP_IQ_LAB_FITTED : CISP_IQ_LAB_HELD_OUT);
		CHECK(c->frames >= 3 && c->frames <= 40);
		/* White balance found by AWB, within a couple of degrees; colour as docs/calibrate.md reports. */
		CHECK(c->color.wb_error_deg < 2);
		if (!(c->color.mean_de00 <= 2.5))
			test_fail(__FILE__, __LINE__, "%s: mean dE00 %.2f through the camera", ill[i], c->color.mean_de00);
		for (int r = 0; r < 3; r++)
			CHECK_NEAR(c->ccm[r][0] + c->ccm[r][1] + c->ccm[r][2], 1, 1e-3);
		free(c);
	}
}

/*
 * A chart too bright for the shortest exposure: the white and the light greys
 * clip in the raw, so exposure is normalised on the greys that did not (their
 * lightness right, the clipped ones far too dark); with every grey clipped
 * the lab refuses.
 */
TEST(iq_lab_colour_normalises_on_unclipped_greys)
{
	for (int ceiling = 0; ceiling < 2; ceiling++) {
		struct cisp_iq_lab lab = ceiling ? ceiling_lab : test_lab;
		struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
		const struct cisp_iq_color_patch *p = c->color.patch;

		lab.lux = 100000;
		CHECK_EQ(cisp_iq_lab_color(&lab, "D65", false, c), 0);
		/* White, neutral 8 and 6.5 clip (with neutral 5 in the ceiling's longer exposure); neutral 3.5 does not. */
		for (int i = 18; i < 21; i++)
			CHECK(p[i].lab[0] < p[i].ref_lab[0] - 8);
		CHECK_NEAR(p[22].lab[0], p[22].ref_lab[0], 0.5);
		CHECK(p[22].de00 < 1.5);
		lab.lux = 1e6;
		CHECK_ERR(cisp_iq_lab_color(&lab, "D65", false, c), -ERANGE, "every neutral patch is clipped");
		free(c);
	}
}

TEST(iq_lab_sharpness_and_focus)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_iq_lab_sharpness *s = calloc(1, sizeof(*s)), *cam = calloc(1, sizeof(*cam));

	CHECK_EQ(cisp_iq_lab_color(&ceiling_lab, "D65", false, c), 0);
	CHECK_EQ(cisp_iq_lab_sharpness(&ceiling_lab, c, false, s), 0);
	for (int i = 0; i < CISP_IQ_LAB_EDGES; i++) {
		/* Focused lens (PSF sigma 0.5 px) and a full pixel aperture: MTF50 near 0.33 c/p. */
		CHECK(s->sfr[i].mtf50 > 0.25 && s->sfr[i].mtf50 < 0.45);
		CHECK_NEAR(fabs(s->sfr[i].angle_deg), 5, 0.3);
	}
	CHECK(s->sfr[0].vertical && !s->sfr[1].vertical);
	/* The camera sharpens (its tuning's strength, from the calibrated edge): a higher MTF50. */
	CHECK_EQ(cisp_iq_lab_sharpness(&test_lab, c, false, cam), 0);
	CHECK(cam->sfr[0].mtf50 > s->sfr[0].mtf50);
	free(s);
	free(cam);
	free(c);
}

TEST(iq_lab_rejects_unknown_sensor)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_iq_lab bad = test_lab;

	bad.sensor = "no-such-sensor";
	CHECK(cisp_iq_lab_color(&bad, "D65", false, c) < 0);
	CHECK(strstr(cisp_last_error(), "no-such-sensor") != NULL);
	CHECK_ERR(cisp_iq_lab_color(&test_lab, "Z99", false, c), -EINVAL, "Z99");
	free(c);
}

TEST(iq_cli_runs_the_suite)
{
	char cmd[2048], json[512];
	FILE *f;
	int st;

	snprintf(json, sizeof(json), "%s/cli-iq.json", test_tmp_dir());
	snprintf(cmd, sizeof(cmd),
		 "%s/tools/cisp iq --sensor cisp-test --illuminant D65,A --max-de00 3 --json %s --html %s/cli-iq.html "
		 ">%s/cli-iq.out 2>&1",
		 CISP_BUILD_DIR, json, test_tmp_dir(), test_tmp_dir());
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(json, "r");
	CHECK(f != NULL);
	if (f) {
		char buf[1 << 16];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = 0;
		fclose(f);
		/* Each figure says what produced it: A and D65 are lights the shipped tuning was calibrated under. */
		CHECK(strstr(buf, "\"label\": \"ColorChecker, A (camera, a light the tuning was calibrated under: a fit, "
				  "not accuracy)\"") != NULL);
		CHECK(strstr(buf, "\"cisp version\"") && strstr(buf, "\"command\"") && strstr(buf, "\"date\""));
		CHECK(strstr(buf, "\"passed\": true") != NULL);
		CHECK(strstr(buf, "\"mtf50\"") != NULL);
	}
	/* A bar no camera meets: exit 1 and a FAIL line. */
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --sensor cisp-test --illuminant D65 --max-de00 0.01 >/dev/null 2>&1",
		 CISP_BUILD_DIR);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --chart edge x.png >/dev/null 2>&1", CISP_BUILD_DIR);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	/* A bad option value is a usage error, not a silent success. */
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --3a-frames 5 >/dev/null 2>&1", CISP_BUILD_DIR);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}

TEST(iq_lab_grey_steps_star_and_flat)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_iq_lab_steps *st = calloc(1, sizeof(*st));
	struct cisp_iq_lab_star *star = calloc(1, sizeof(*star));
	struct cisp_iq_lab_flat *flat = calloc(1, sizeof(*flat));

	CHECK_EQ(cisp_iq_lab_color(&ceiling_lab, "D65", false, c), 0);
	CHECK_EQ(cisp_iq_lab_steps(&ceiling_lab, c, false, st), 0);
	CHECK_EQ(st->noise.count, CISP_IQ_LAB_STEPS);
	/* The raw means follow the chart: half a stop per step (the bright steps, where noise is small). */
	for (int k = 1; k < 10; k++)
		CHECK_NEAR(st->raw_noise.step[k].stats.mean_y / st->raw_noise.step[k - 1].stats.mean_y, M_SQRT1_2, 0.03);
	CHECK(!st->raw_noise.step[0].clipped);
	/* Shot noise: SNR falls by about a quarter stop (1.5 dB) per half-stop step at the top. */
	CHECK_NEAR(20 * log10(st->raw_noise.step[0].snr_y / st->raw_noise.step[4].snr_y), 6, 2);
	CHECK(st->raw_noise.dr[0].ev > st->raw_noise.dr[1].ev + 2);
	CHECK(st->raw_noise.dr[1].ev > 3 && st->raw_noise.dr[1].ev < 7);
	/* The output clamps at black: the darkest steps read as clipped there, not in the raw data. */
	CHECK(st->noise.step[CISP_IQ_LAB_STEPS - 1].clipped);
	CHECK(!st->raw_noise.step[CISP_IQ_LAB_STEPS - 1].clipped);

	CHECK_EQ(cisp_iq_lab_star(&ceiling_lab, c, false, star), 0);
	/* Some false colour near the centre, where the star passes Nyquist; bounded on average. */
	CHECK(star->false_color.max_chroma > 5);
	CHECK(star->false_color.mean_chroma < 10);

	CHECK_EQ(cisp_iq_lab_flat(&ceiling_lab, c, false, flat), 0);
	/* The test lens keeps 50..62 % in the corners; the calibrated LSC flattens it. */
	CHECK(flat->before.luma_min < 0.8);
	CHECK(flat->before.color_max_pct > 10);
	CHECK(flat->after.luma_min > 0.95);
	CHECK(flat->after.color_max_pct < 5);
	/* The camera's own correction, its tuning's tables calibrated from flats, does as well. */
	memset(flat, 0, sizeof(*flat));
	CHECK_EQ(cisp_iq_lab_flat(&test_lab, c, false, flat), 0);
	CHECK(flat->before.luma_min < 0.8);
	CHECK(flat->after.luma_min > 0.95);
	CHECK(flat->after.color_max_pct < 5);
	free(c);
	free(st);
	free(star);
	free(flat);
}

TEST(iq_fit_lsc_on_a_synthetic_falloff)
{
	struct cisp_image raw;
	struct cisp_lsc_params p;
	const int w = 64, h = 48;

	/* 12-bit RGGB, black 256: each channel falls off as 1 - k_c r^2 (r = 1 in the corners). */
	CHECK_EQ(cisp_image_alloc(&raw, CISP_FMT_SRGGB12, w, h), 0);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int c = (y & 1) * 2 + (x & 1);
			double k = c == 0 ? 0.5 : c == 3 ? 0.4 : 0.3;
			double dx = (x - (w - 1) / 2.0) / ((w - 1) / 2.0), dy = (y - (h - 1) / 2.0) / ((h - 1) / 2.0);
			double r2 = (dx * dx + dy * dy) / 2;
			unsigned v = 256 + (unsigned)lrint(3000 * (1 - k * r2));

			raw.plane[0].data[y * raw.plane[0].stride + 2 * x] = (uint8_t)(v & 255);
			raw.plane[0].data[y * raw.plane[0].stride + 2 * x + 1] = (uint8_t)(v >> 8);
		}
	CHECK_EQ(cisp_iq_fit_lsc(&raw, 256, 4095, 5, 5, &p), 0);
	CHECK_EQ(p.header.type, CISP_BLOCK_LSC);
	CHECK_EQ(p.grid_w, 5);
	CHECK_EQ(p.header.size, 16 + 8 * 25);
	/* The centre node is the brightest (gain 1); a corner node needs 1 / (1 - k) (to the plane fit over its half window). */
	for (int c = 0; c < 4; c++) {
		double k = c == 0 ? 0.5 : c == 3 ? 0.4 : 0.3;

		CHECK_NEAR(p.gain[c * 25 + 12] / 4096.0, 1.0, 0.01);
		CHECK_NEAR(p.gain[c * 25 + 0] / 4096.0, 1 / (1 - k), 0.04 / (1 - k));
		CHECK(p.gain[c * 25 + 0] > p.gain[c * 25 + 2]);
	}
	CHECK_ERR(cisp_iq_fit_lsc(&raw, 256, 4095, 1, 5, &p), -EINVAL, "grid");
	memset(raw.plane[0].data, 0, raw.plane[0].stride * h);
	CHECK_ERR(cisp_iq_fit_lsc(&raw, 256, 4095, 5, 5, &p), -EINVAL, "gain");
	cisp_image_free(&raw);
}

/* The charts render as documented: every chart opens, the dead leaves have many grey levels at every scale. */
TEST(iq_lab_chart_scenes)
{
	const char *const scenes[] = { "star", "steps", "flat", "deadleaves" };

	for (int i = 0; i < 4; i++) {
		struct cisp_sensor *s;
		struct cisp_sensor_mode m;
		struct cisp_image raw;
		struct cisp_iq_image g;
		char opts[128];
		double sum = 0, sq = 0, n, sd;

		snprintf(opts, sizeof(opts), "scene=%s,noise=off,shading=off,defects=off", scenes[i]);
		CHECK_EQ(cisp_sensor_open(&s, "virtual:cisp-test", opts), 0);
		CHECK_EQ(cisp_sensor_get_mode(s, 0, &m), 0);
		CHECK_EQ(cisp_image_alloc(&raw, m.format, m.width, m.height), 0);
		CHECK_EQ(cisp_sensor_start(s), 0);
		CHECK_EQ(cisp_sensor_capture(s, &raw, NULL, 0), 0);
		CHECK_EQ(cisp_iq_image_from_bayer(&g, &raw, CISP_CH_GR, m.black_level, m.white_level), 0);
		n = (double)g.width * g.height;
		for (size_t k = 0; k < (size_t)n; k++) {
			sum += g.data[k];
			sq += (double)g.data[k] * g.data[k];
		}
		sd = sqrt(fmax(0, sq / n - (sum / n) * (sum / n)));
		/* A flat field without shading or noise is flat; the others are mostly edges and texture. */
		if (i == 2)
			CHECK(sd < 0.002 * (sum / n));
		else
			CHECK(sd > 0.2 * (sum / n));
		cisp_iq_image_free(&g);
		cisp_image_free(&raw);
		cisp_sensor_close(s);
	}
}

/* The chart finder on a virtual photograph lands on the truth's patches. */
TEST(iq_find_colorchecker_in_a_virtual_photo)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_sensor *s;
	struct cisp_iq_rect rects[24];
	double corners[4][2], score;

	CHECK_EQ(cisp_iq_lab_color(&test_lab, "A", true, c), 0);
	CHECK_EQ(cisp_iq_find_colorchecker(&c->picture, corners, &score), 0);
	CHECK(score < 0.1);
	cisp_iq_chart_patches((const double(*)[2])corners, 6, 4, 0.5, rects);
	CHECK_EQ(cisp_sensor_open(&s, "virtual:cisp-test", "scene=colorchart"), 0);
	for (unsigned i = 0; i < 24; i++) {
		struct cisp_vsensor_patch p;

		CHECK_EQ(cisp_vsensor_chart_patch(s, i, &p), 0);
		CHECK_NEAR(rects[i].x + rects[i].width / 2.0, p.x + p.width / 2.0, 0.1 * p.width);
		CHECK_NEAR(rects[i].y + rects[i].height / 2.0, p.y + p.height / 2.0, 0.1 * p.height);
	}
	cisp_sensor_close(s);
	cisp_iq_image_free(&c->picture);
	free(c);
}

/* cisp iq on a photograph: a developed virtual shot saved as an sRGB PNG, the chart found automatically. */
TEST(iq_cli_chart_photo)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_raster r;
	char png[512], cmd[2048], out[512];
	FILE *f;
	int st;

	CHECK_EQ(cisp_iq_lab_color(&test_lab, "D65", true, c), 0);
	snprintf(png, sizeof(png), "%s/chart-photo.png", test_tmp_dir());
	snprintf(out, sizeof(out), "%s/chart-photo.out", test_tmp_dir());
	/* 1.1x brighter than the lab's frame, as a camera's exposure might be. */
	CHECK_EQ(cisp_iq_image_to_raster(&r, &c->picture, CISP_TRANSFER_SRGB, 1.1), 0);
	CHECK_EQ(cisp_raster_write(png, &r), 0);
	cisp_raster_free(&r);
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --chart colorchecker --json %s.json '%s' >'%s' 2>&1", CISP_BUILD_DIR,
		 png, png, out);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(out, "r");
	if (f) {
		char buf[4096];
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		double de = 99;
		char *p;

		buf[n] = 0;
		fclose(f);
		CHECK(strstr(buf, "ColorChecker found at") != NULL);
		/*
		 * Against the published chart values (not this sensor's spectra, and
		 * through 8-bit sRGB) the rendering is still close.
		 */
		p = strstr(buf, "mean dE00");
		CHECK(p && sscanf(p, "mean dE00 %lf", &de) == 1);
		CHECK(de < 3);
	} else {
		test_fail(__FILE__, __LINE__, "no output from %s", cmd);
	}
	cisp_iq_image_free(&c->picture);
	free(c);
}

/*
 * cisp iq on a camera raw file: a virtual shot of the chart saved as a DNG
 * carrying the lab's calibration as its colour matrix and white balance
 * measures as the lab's own development does.
 */
TEST(iq_cli_chart_dng)
{
	struct cisp_iq_lab_color *c = calloc(1, sizeof(*c));
	struct cisp_raw_frame frame = { 0 };
	struct cisp_sensor_mode mode;
	struct cisp_sensor_controls ctl = { 0 };
	struct cisp_sensor *s = NULL;
	double cam_to_xyz[3][3] = { { 0 } }, xyz_to_cam[3][3], de = 99;
	char dng[512], cmd[2048], out[512], buf[4096];
	FILE *f;
	int st;

	CHECK_EQ(cisp_iq_lab_color(&ceiling_lab, "D65", false, c), 0);
	CHECK_EQ(cisp_sensor_open(&s, "virtual:cisp-test", "scene=colorchart,illuminant=D65,lux=400,seed=3,shading=off"), 0);
	CHECK_EQ(cisp_sensor_get_mode(s, 0, &mode), 0);
	cisp_sensor_controls_set(&ctl, CISP_SENSOR_EXPOSURE, c->exposure);
	CHECK_EQ(cisp_sensor_set_controls(s, &ctl), 0);
	CHECK_EQ(cisp_image_alloc(&frame.image, mode.format, mode.width, mode.height), 0);
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_EQ(cisp_sensor_capture(s, &frame.image, NULL, 0), 0);
	cisp_sensor_close(s);
	for (int i = 0; i < 4; i++)
		frame.black[i] = (uint16_t)mode.black_level;
	frame.white = (uint16_t)mode.white_level;
	/* Camera RGB -> XYZ (D65) through the lab's white balance and matrix to linear sRGB. */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 3; k++) {
				static const double srgb_to_xyz[3][3] = { { 0.4124, 0.3576, 0.1805 },
									  { 0.2126, 0.7152, 0.0722 },
									  { 0.0193, 0.1192, 0.9505 } };

				cam_to_xyz[i][j] += srgb_to_xyz[i][k] * c->ccm[k][j] * c->wb_gain[j];
			}
	matrix3_invert((const double(*)[3])cam_to_xyz, xyz_to_cam);
	frame.has_matrix = true;
	frame.has_wb = true;
	for (int i = 0; i < 9; i++)
		frame.xyz_to_cam[i] = (float)xyz_to_cam[i / 3][i % 3];
	for (int i = 0; i < 3; i++)
		frame.wb_gains[i] = (float)(c->wb_gain[i] / c->wb_gain[1]);
	snprintf(frame.make, sizeof(frame.make), "cisp");
	snprintf(frame.model, sizeof(frame.model), "cisp-test");
	snprintf(dng, sizeof(dng), "%s/chart-shot.dng", test_tmp_dir());
	snprintf(out, sizeof(out), "%s/chart-shot.out", test_tmp_dir());
	CHECK_EQ(cisp_dng_write(dng, &frame), 0);
	cisp_raw_frame_free(&frame);
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --chart colorchecker '%s' >'%s' 2>&1", CISP_BUILD_DIR, dng, out);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(out, "r");
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		char *p;

		buf[n] = 0;
		fclose(f);
		CHECK(strstr(buf, "ColorChecker found at") != NULL);
		p = strstr(buf, "mean dE00");
		CHECK(p && sscanf(p, "mean dE00 %lf", &de) == 1);
		/* The same development as the lab's (demosaic aside): the same accuracy. */
		CHECK_NEAR(de, c->color.mean_de00, 0.5);
		printf("    DNG through cisp iq: mean dE00 %.3f, the lab: %.3f\n", de, c->color.mean_de00);
	} else {
		test_fail(__FILE__, __LINE__, "no output from %s", cmd);
	}
	/* A truncated raw file: a clear error, exit status 1. */
	CHECK_EQ(truncate(dng, 1000), 0);
	snprintf(cmd, sizeof(cmd), "%s/tools/cisp iq --chart colorchecker '%s' >'%s' 2>&1", CISP_BUILD_DIR, dng, out);
	st = system(cmd);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	free(c);
}

/* The whole camera on the chart: every loop converges and the tuning's colour holds up. */
TEST(iq_lab_3a_converges)
{
	struct cisp_iq_lab_3a *a = calloc(1, sizeof(*a));

	CHECK_EQ(cisp_iq_lab_3a(&test_lab, "D65", 40, true, a), 0);
	CHECK_EQ(a->ae.count, 40);
	CHECK(a->ae.converged);
	CHECK(a->ae.frames <= 8);
	CHECK(a->awb.converged);
	CHECK(a->awb.final_error < 2);
	/* Frame 0 is balanced for 2800 K: far off under D65. */
	CHECK(a->awb.value[0] > 5);
	CHECK(a->af.converged);
	CHECK(a->color.mean_de00 < 3);
	CHECK_EQ(a->picture.width, 320);
	cisp_iq_image_free(&a->picture);
	CHECK_ERR(cisp_iq_lab_3a(&test_lab, "D65", 4, false, a), -EINVAL, "frames");
	CHECK(cisp_iq_lab_3a(&test_lab, "no-such-light", 8, false, a) < 0);
	free(a);
}

/*
 * The mean colour of the chart's white patch (central half) in an RGB48
 * frame the camera developed, values as output (sRGB): @sensor in @mode under
 * tungsten at @lux, 20 ms at gain x1, white balance fixed at 2856 K (blue's
 * gain about 2.7, red's about 1). @tuning: a tuning file, or NULL for the
 * sensor's shipped one.
 */
static void overexposed_white(const char *sensor, unsigned mode, double lux, const char *tuning, double rgb[3])
{
	char name[64], opts[128];
	struct cisp_camera_manager *mgr = NULL;
	struct cisp_camera *cam = NULL;
	struct cisp_camera_config cfg;
	struct cisp_camera_request req = { 0 }, *back;
	struct cisp_image out = { 0 };
	struct cisp_vsensor_patch p;
	struct cisp_iq_image img = { 0 };
	struct cisp_iq_patch_stats st;
	const struct cisp_camera_options co = { .sensor_options = opts, .tuning = tuning };

	rgb[0] = rgb[1] = rgb[2] = -1;
	snprintf(opts, sizeof(opts), "scene=colorchart,illuminant=A,lux=%.0f,seed=3", lux);
	snprintf(name, sizeof(name), "virtual:%s", sensor);
	CHECK_EQ(cisp_camera_manager_create(&mgr, NULL), 0);
	if (mgr)
		CHECK_EQ(cisp_camera_open(&cam, mgr, name, &co), 0);
	if (!cam) {
		cisp_camera_manager_destroy(mgr);
		return;
	}
	CHECK_EQ(cisp_camera_default_config(cam, mode, &cfg), 0);
	cfg.stream[CISP_STREAM_MAIN].format = CISP_FMT_RGB48;
	CHECK_EQ(cisp_camera_configure(cam, &cfg), 0);
	CHECK_EQ(cisp_image_alloc(&out, CISP_FMT_RGB48, cfg.stream[CISP_STREAM_MAIN].width,
				  cfg.stream[CISP_STREAM_MAIN].height), 0);
	CHECK_EQ(cisp_vsensor_chart_patch(cisp_camera_sensor(cam), 18, &p), 0);
	req.buffer[CISP_STREAM_MAIN] = &out;
	req.controls = (struct cisp_control_request){
		.mask = CISP_REQ_AE_ENABLE | CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN | CISP_REQ_DIGITAL_GAIN |
			CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_TEMPERATURE,
		.ae_enable = false, .exposure_us = 20000, .analogue_gain = 1, .digital_gain = 1, .awb_enable = false,
		.colour_temperature = 2856 };
	CHECK_EQ(cisp_camera_queue(cam, &req), 0);
	CHECK_EQ(cisp_camera_start(cam), 0);
	/* The sensor's delays: the sixth frame has the manual controls. */
	for (int n = 0; n < 6; n++) {
		CHECK_EQ(cisp_camera_wait(cam, &back, 30ll * 1000 * 1000 * 1000), 0);
		CHECK_EQ(back->status, 0);
		if (n < 5)
			CHECK_EQ(cisp_camera_queue(cam, back), 0);
	}
	cisp_camera_stop(cam);
	/* The output's values as they are (0..1 of full scale). */
	CHECK_EQ(cisp_iq_image_from_cisp(&img, &out, CISP_TRANSFER_LINEAR), 0);
	CHECK_EQ(cisp_iq_patch_stats(&img, &(struct cisp_iq_rect){ p.x + p.width / 4, p.y + p.height / 4, p.width / 2,
								   p.height / 2 },
				     false, &st),
		 0);
	for (int c = 0; c < 3; c++)
		rgb[c] = st.mean[c];
	cisp_iq_image_free(&img);
	cisp_image_free(&out);
	cisp_camera_close(cam);
	cisp_camera_manager_destroy(mgr);
}

/* @sensor's shipped tuning without its `saturation` line, in the scratch folder. */
static const char *tuning_without_saturation(const char *sensor, char *path, size_t size)
{
	char src[512], *text, *line;
	FILE *f;

	snprintf(src, sizeof(src), "%s/data/tuning/%s.yaml", CISP_SOURCE_DIR, sensor);
	snprintf(path, size, "%s/%s-no-saturation.yaml", test_tmp_dir(), sensor);
	text = test_read_text(src);
	CHECK(text != NULL);
	line = text ? strstr(text, "\nsaturation: ") : NULL;
	CHECK(line != NULL);
	if (line)
		memset(line + 1, ' ', strcspn(line + 1, "\n"));
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f && text)
		fputs(text, f);
	if (f)
		fclose(f);
	free(text);
	return path;
}

/*
 * The shipped tunings' clip levels make clipped highlights neutral through
 * the camera: the white patch a quarter past the full well in green (blue,
 * balanced by 2.7, then stands above it) and four stops past it in every
 * colour comes out neutral, at the same level. Without the clip level the
 * sensor clips below its white level unseen, and the white a quarter past
 * the full well keeps blue's shortfall.
 */
TEST(iq_lab_camera_renders_clipped_white_neutral)
{
	/* Lux that put the white's green 1.25 times past the full well in 20 ms. */
	static const struct {
		const char *sensor;
		unsigned mode;
		double lux;
	} cams[] = { { "cisp-test", 0, 700 }, { "cisp-12m12", 1, 1800 } };
	/* The second sensor's 3-megapixel frames take most of the time; a sanitizer build checks one. */
	const int count = TEST_SANITIZED ? 1 : 2;

	if (TEST_SANITIZED)
		printf("    sanitizer build: cisp-test only\n");
	for (int i = 0; i < count; i++) {
		char path[512];
		double near[3], far[3], without[3];

		overexposed_white(cams[i].sensor, cams[i].mode, cams[i].lux, NULL, near);
		overexposed_white(cams[i].sensor, cams[i].mode, 16 * cams[i].lux, NULL, far);
		overexposed_white(cams[i].sensor, cams[i].mode, cams[i].lux,
				  tuning_without_saturation(cams[i].sensor, path, sizeof(path)), without);
		printf("    %s: clipped white R G B %.4f %.4f %.4f, four stops over %.4f %.4f %.4f; without the clip "
		       "level %.4f %.4f %.4f\n",
		       cams[i].sensor, near[0], near[1], near[2], far[0], far[1], far[2], without[0], without[1],
		       without[2]);
		for (int c = 0; c < 3; c++) {
			CHECK_NEAR(near[c], near[1], 0.005);
			CHECK_NEAR(far[c], near[1], 0.005);
		}
		/* Still tinted without it (cisp-12m12: 0.0043; highlights takes a raw clip as clipped light). */
		CHECK(without[1] - without[2] > 0.003);
	}
}
