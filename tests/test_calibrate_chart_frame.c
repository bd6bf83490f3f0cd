/* SPDX-License-Identifier: MIT */
/*
 * A chart frame instead of flats (include/cisp/calibrate_chart_frame.h): the
 * flat field from a chart's white areas and the tone response from grey
 * steps, against the virtual sensor's truth (its lens shading, black level
 * and full well), their refusals, and the real 1080p chart frame through
 * `cisp calibrate`.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/calibrate_chart_frame.h>
#include <cisp/error.h>
#include <cisp/sensor.h>
#include <cisp/tuning.h>

#include "cli.h"
#include "control/tuning.h"
#include "test.h"

/*
 * cisp-8m10 in its binned mode (data/sensors/cisp-8m10.yaml): 1632 x 1224
 * BGGR, black 64, the ADC clipping at 1023 at gain 1, relative illumination
 * in the corners R 0.30, G 0.38, B 0.40 (the shading is the array's, so
 * the binned mode sees the same normalised radius).
 */
#define W 1632
#define H 1224
static const double corner_truth[4] = { 0.30, 0.38, 0.38, 0.40 };

/* One frame of @sensor (its mode @mode) with @options at exposure @lines. */
static int frame_of(struct cisp_image *img, const char *sensor, unsigned mode, const char *options, int32_t lines)
{
	struct cisp_sensor *s = NULL;
	struct cisp_sensor_mode m;
	struct cisp_sensor_controls c = { 0 };
	int ret = cisp_sensor_open(&s, sensor, options);

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
	if (ret)
		test_fail(__FILE__, __LINE__, "capture %s: %s", options, cisp_last_error());
	return ret;
}

/* A frame of cisp-8m10's binned mode. */
static int frame(struct cisp_image *img, const char *options, int32_t lines)
{
	return frame_of(img, "virtual:cisp-8m10", 2, options, lines);
}

/* A frame of cisp-test (320 x 240 RGGB, black 64, white 1023), quick to render, for the refusals. */
static int small_frame(struct cisp_image *img, const char *options, int32_t lines)
{
	return frame_of(img, "virtual:cisp-test", 0, options, lines);
}

/* The model's lens shading gain at frame pixel (x, y): (1 + k r^2)^2, corner = 1 / (1 + k)^2. */
static double truth_gain(unsigned c, double x, double y)
{
	double k = 1 / sqrt(corner_truth[c]) - 1, dx = x + 0.5 - W / 2.0, dy = y + 0.5 - H / 2.0;
	double r2 = (dx * dx + dy * dy) / (W * W / 4.0 + H * H / 4.0);

	return (1 + k * r2) * (1 + k * r2);
}

TEST(chart_flat_against_the_sensors_shading)
{
	struct cisp_image img = { 0 };
	struct cisp_calib_chart_flat f;
	double worst = 0;

	/* The resolution chart (dark squares on white), lens shading and noise on, the white unclipped. */
	if (frame(&img, "scene=resolution,lux=500", 1600))
		return;
	CHECK_EQ(cisp_calib_flat_from_chart(&img, 64, 1023, "D65", &f), 0);
	CHECK(f.blocks > 300);
	CHECK(f.radius_reached > 0.9);
	for (int c = 0; c < 4; c++)
		CHECK_NEAR(f.falloff[c], corner_truth[c], 0.015);
	/* Every node's gain against the model's (the brightest node is the centre, gain 1). */
	for (unsigned c = 0; c < 4; c++)
		for (unsigned j = 0; j < CISP_CALIB_LSC_GRID; j++)
			for (unsigned i = 0; i < CISP_CALIB_LSC_GRID; i++) {
				double x = i * (W - 1.0) / (CISP_CALIB_LSC_GRID - 1), y = j * (H - 1.0) / (CISP_CALIB_LSC_GRID - 1);

				worst = fmax(worst, fabs(f.table.gain[c][j * CISP_CALIB_LSC_GRID + i] / truth_gain(c, x, y) - 1));
			}
	CHECK(worst < 0.02);
	CHECK(f.residual_rms_pct < 0.5);
	CHECK_NEAR(f.centre[0], W / 2.0, 30);
	CHECK_NEAR(f.centre[1], H / 2.0, 30);
	CHECK_NEAR(f.table.ct, 6504, 1);
	cisp_image_free(&img);
}

TEST(chart_flat_refuses_frames_without_white_areas)
{
	struct cisp_image img = { 0 };
	struct cisp_calib_chart_flat f;

	/* A dark frame: nothing white in it. */
	if (small_frame(&img, "scene=resolution,lux=0", 90))
		return;
	CHECK_ERR(cisp_calib_flat_from_chart(&img, 64, 1023, NULL, &f), -EINVAL, "too few white areas");
	cisp_image_free(&img);
	/* The resolution chart overexposed: its white saturates (at the full well, below the white level). */
	if (small_frame(&img, "scene=resolution,lux=100000", 200))
		return;
	CHECK_ERR(cisp_calib_flat_from_chart(&img, 64, 1023, NULL, &f), -EINVAL, "too few white areas");
	/* Levels that make no sense, an unknown light, a frame too small. */
	CHECK_ERR(cisp_calib_flat_from_chart(&img, 1023, 64, NULL, &f), -EINVAL, "not above black");
	cisp_image_free(&img);
	if (small_frame(&img, "scene=resolution,lux=500", 90))
		return;
	CHECK_ERR(cisp_calib_flat_from_chart(&img, 64, 1023, "Z99", &f), -EINVAL, "Z99");
	img.width = 16;
	CHECK_ERR(cisp_calib_flat_from_chart(&img, 64, 1023, NULL, &f), -EINVAL, "too small");
	cisp_image_free(&img);
}

/* Which of the steps chart's 24 steps (docs/iq.md: the ColorChecker's 6 x 4 layout) holds frame pixel (x, y); -1: none. */
static int step_at(double x, double y)
{
	double aspect = (double)W / H, side = 0.8 / 5.25, gap, u0, v0, u = x / H, v = y / H;
	int i, j;

	if (7.75 * side > 0.92 * aspect)
		side = 0.92 * aspect / 7.75;
	gap = side / 4;
	u0 = (aspect - (6 * side + 7 * gap)) / 2 + gap;
	v0 = (1 - (4 * side + 5 * gap)) / 2 + gap;
	i = (int)floor((u - u0) / (side + gap));
	j = (int)floor((v - v0) / (side + gap));
	if (i < 0 || i > 5 || j < 0 || j > 3 || u - u0 - i * (side + gap) > side || v - v0 - j * (side + gap) > side)
		return -1;
	return j * 6 + i;
}

TEST(tone_from_steps_against_the_sensors_truth)
{
	struct cisp_image img = { 0 };
	struct cisp_calib_tone t;
	struct cisp_calib_tone_curve curve;
	double luminance[CISP_CALIB_MAX_STEPS];
	unsigned matched = 0;

	/* The grey steps, no lens shading (it would change the steps' luminance), the brightest clipped. */
	if (frame(&img, "scene=steps,lux=3000,shading=off", 1600))
		return;
	CHECK_EQ(cisp_calib_tone_from_steps(&img, 1023, &t), 0);
	CHECK(t.count >= 16);
	for (unsigned i = 0; i < t.count; i++) {
		int k = step_at(t.step[i].x, t.step[i].y);

		luminance[i] = k >= 0 ? 0.9 * pow(2, -0.5 * k) : -1;
		matched += k >= 0;
	}
	CHECK(matched >= 16);
	/* Black 64 (the model's), from the channels alone and from the known luminances. */
	CHECK(t.black_found);
	CHECK_NEAR(t.black, 64, 1.0);
	CHECK_EQ(cisp_calib_tone_curve(&t, luminance, &curve), 0);
	CHECK_NEAR(curve.offset, 64, 1.0);
	CHECK(curve.linearity_pct < 2.0);
	CHECK(t.linearity_pct < 3.0);
	/* The ADC clips first, at the white level. */
	CHECK(t.clip_found[1]);
	CHECK_NEAR(t.clip[1], 1023, 0.5);
	CHECK(t.step[0].clipped);
	/* Without a known luminance, no curve. */
	for (int i = 0; i < CISP_CALIB_MAX_STEPS; i++)
		luminance[i] = -1;
	CHECK_ERR(cisp_calib_tone_curve(&t, luminance, &curve), -EINVAL, "known luminance");
	cisp_image_free(&img);
}

TEST(tone_from_steps_refusals)
{
	struct cisp_image img = { 0 };
	struct cisp_calib_tone t;

	/* A flat field is one region, background rather than steps. */
	if (small_frame(&img, "scene=flat,lux=500", 90))
		return;
	CHECK_ERR(cisp_calib_tone_from_steps(&img, 1023, &t), -EINVAL, "uniform regions found");
	CHECK_ERR(cisp_calib_tone_from_steps(&img, 0, &t), -EINVAL, "white level");
	img.height = 16;
	CHECK_ERR(cisp_calib_tone_from_steps(&img, 1023, &t), -EINVAL, "too small");
	cisp_image_free(&img);
}

TEST(calibrate_cli_real_chart_frame)
{
	struct cisp_tuning *t = NULL;
	char raw[4096];

	if (!test_data_dir()) {
		test_skip("shared test data not found");
		return;
	}
	snprintf(raw, sizeof(raw), "%s/raw/openisp_1920x1080_rggb10.raw", test_data_dir());
	CHECK_EQ(cli_sh("rm -f cal-real.yaml"), 0);
	CHECK_EQ(cli_run("calibrate --flat-from-chart %s@D65 --steps %s --size 1920x1080 --format SRGGB10 --black 0 "
			 "--white 1023 --sensor openisp --base %s/data/tuning/cisp-test.yaml -o cal-real.yaml",
			 raw, raw, CISP_SOURCE_DIR),
		 0);
	CHECK(strstr(cli_output, "flat from chart: ") != NULL);
	/* The frame is 8-bit data in 10-bit words clipped at 1020, whatever the channel. */
	CHECK(strstr(cli_output, "clip Gr: samples pile up at 1020.0 codes") != NULL);
	CHECK_EQ(cisp_tuning_load(&t, cli_tmp("cal-real.yaml")), 0);
	if (t) {
		CHECK_EQ(t->lsc_count, 1);
		/* The corners need more gain than the centre, and less than the table allows. */
		CHECK(t->lsc[0].gain[1][0] > 1.02 && t->lsc[0].gain[1][0] < 2);
	}
	cisp_tuning_free(t);
	/* Grey steps take no light; a frame of another size is refused and nothing written. */
	CHECK_EQ(cli_run("calibrate --steps %s@D65 -o cal-real2.yaml", raw), 2);
	CHECK(strstr(cli_output, "take no light") != NULL);
	CHECK_EQ(cli_run("calibrate --flat-from-chart %s --steps %s --size 960x1080 --format SRGGB10 --black 0 "
			 "--white 1023 --sensor openisp -o cal-real2.yaml",
			 raw, raw),
		 1);
	CHECK(!cli_exists("cal-real2.yaml"));
}
