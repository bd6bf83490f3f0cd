/* SPDX-License-Identifier: MIT */
/*
 * The sensor layer and the virtual sensor: the delay model, determinism,
 * noise statistics, black level and clipping, rolling-shutter flicker,
 * focus, colour, test patterns, flips, defects, formats and errors. Expected
 * values are computed here from the published tables and the model file's
 * numbers, not taken from the renderer.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cisp/error.h>
#include <cisp/raster.h>
#include <cisp/sensor.h>

#include "sensor/sensor_config.h"
#include "sensor/virtual/model.h"
#include "sensor/virtual/spectra.h"
#include "test.h"

#if CISP_HAVE_JPEG
#include <jpeglib.h>
#endif

/* The test model's numbers (data/sensors/cisp-test.yaml). */
#define T_BLACK 64
#define T_WHITE 1023
#define T_FULL_WELL 2000.0
#define T_CG 0.4
#define T_READ_E 2.5
#define T_ADC 0.5
#define T_SENS 200.0
#define T_LINE_NS 100000.0 /* 2400 pixels at 24 MHz */

static struct cisp_sensor *open_test(const char *options)
{
	struct cisp_sensor *s = NULL;
	int ret = cisp_sensor_open(&s, "virtual:cisp-test", options);

	if (ret < 0)
		test_fail(__FILE__, __LINE__, "open cisp-test (%s): %s", options ? options : "", cisp_last_error());
	return s;
}

static void alloc_for(struct cisp_sensor *s, struct cisp_image *img)
{
	struct cisp_sensor_mode m;

	cisp_sensor_get_mode(s, cisp_sensor_current_mode(s), &m);
	CHECK_EQ(cisp_image_alloc(img, m.format, m.width, m.height), 0);
}

static void set1(struct cisp_sensor *s, enum cisp_sensor_control id, int32_t v)
{
	struct cisp_sensor_controls c = { 0 };

	cisp_sensor_controls_set(&c, id, v);
	CHECK_EQ(cisp_sensor_set_controls(s, &c), 0);
}

static uint16_t px(const struct cisp_image *img, uint32_t x, uint32_t y)
{
	const uint8_t *p = img->plane[0].data + (size_t)y * img->plane[0].stride + 2 * x;

	return (uint16_t)(p[0] | p[1] << 8);
}

static int colour_of(enum cisp_cfa cfa, uint32_t x, uint32_t y)
{
	enum cisp_channel ch = cisp_cfa_channel(cfa, x, y);

	return ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;
}

/* Mean of the samples of colour @c (0 R, 1 G, 2 B, -1 all) in a rectangle. */
static double mean_rect(const struct cisp_image *img, enum cisp_cfa cfa, int c, int32_t x0, int32_t y0,
			int32_t w, int32_t h)
{
	double sum = 0;
	long n = 0;

	for (int32_t y = y0; y < y0 + h; y++)
		for (int32_t x = x0; x < x0 + w; x++)
			if (c < 0 || colour_of(cfa, (uint32_t)x, (uint32_t)y) == c) {
				sum += px(img, (uint32_t)x, (uint32_t)y);
				n++;
			}
	return n ? sum / n : 0;
}

static double mean_all(const struct cisp_image *img)
{
	return mean_rect(img, CISP_CFA_RGGB, -1, 0, 0, (int32_t)img->width, (int32_t)img->height);
}

TEST(sensor_enumerate_lists_models)
{
	struct cisp_sensor_desc list[32];
	int n = cisp_sensor_enumerate(list, 32);
	bool test = false, m8 = false, m12 = false;

	CHECK(n >= 3);
	for (int i = 0; i < n && i < 32; i++) {
		test |= !strcmp(list[i].name, "virtual:cisp-test");
		m8 |= !strcmp(list[i].name, "virtual:cisp-8m10") && strstr(list[i].description, "8 MP");
		m12 |= !strcmp(list[i].name, "virtual:cisp-12m12") && strstr(list[i].description, "12 MP");
		CHECK(!strcmp(list[i].backend, "virtual"));
	}
	CHECK(test && m8 && m12);
	CHECK_EQ(cisp_sensor_enumerate(NULL, 0), n);
}

TEST(sensor_open_errors)
{
	struct cisp_sensor *s;

	CHECK_ERR(cisp_sensor_open(&s, "nosuch:thing", NULL), -ENOENT, "backend 'virtual'");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:nosuch-model", NULL), -ENOENT, "no sensor model 'nosuch-model'");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:", NULL), -EINVAL, "nothing after");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "colour=red"), -ENOENT, "no option 'colour'");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "lux=-3"), -EINVAL, "lux=-3");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "illuminant=D42"), -EINVAL, "unknown illuminant 'D42'");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "scene=dominant:mauve"), -EINVAL, "'mauve'");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "scene=/no/such.png"), -ENOENT, "/no/such.png");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "flicker=55"), -EINVAL, "0, 50 or 60");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "noise"), -EINVAL, "not key=value");
	CHECK_ERR(cisp_sensor_start(NULL), -EINVAL, "start: no sensor given");
	CHECK_ERR(cisp_sensor_capture(NULL, NULL, NULL, 0), -EINVAL, "capture: no sensor given");
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Copy file @in to @out with the first @from replaced by @to. */
static void edit_file(const char *in, const char *out, const char *from, const char *to)
{
	char *text, *hit;
	FILE *f = fopen(in, "r");
	long size;

	CHECK(f != NULL);
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)size + strlen(to) + 1);
	CHECK_EQ(fread(text, 1, (size_t)size, f), size);
	fclose(f);
	hit = strstr(text, from);
	CHECK(hit != NULL);
	if (hit) {
		char *rest = strdup(hit + strlen(from));

		strcpy(hit, to);
		strcat(hit, rest);
		free(rest);
	}
	write_file(out, text);
	free(text);
}

/* The test model file with one piece replaced. */
static void write_variant(const char *path, const char *from, const char *to)
{
	char src[512];

	snprintf(src, sizeof(src), "%s/data/sensors/cisp-test.yaml", CISP_SOURCE_DIR);
	edit_file(src, path, from, to);
}

TEST(sensor_model_file_errors)
{
	char path[512], name[600];
	struct cisp_sensor *s;

	snprintf(path, sizeof(path), "%s/bad.yaml", test_tmp_dir());
	snprintf(name, sizeof(name), "virtual:%s", path);
	write_variant(path, "full_well: 2000", "full_wel: 2000");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "full_wel: unknown key");
	write_variant(path, "conversion_gain: 0.4 ", "conversion_gain: -1 ");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "conversion_gain: -1 is outside 0.0001..1000");
	write_variant(path, "exposure: 2,", "exposure: 12,");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "delays.exposure: 12 is outside 0..8");
	write_variant(path, "crop: [0, 0, 320, 240], binning: 1", "crop: [8, 0, 320, 240], binning: 1");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "inside the array");
	write_variant(path, "0.0007, 0.0001, 0.0, 0.0, 0.0]\n  g:", "0.0007, 0.0001, 0.0, 0.0]\n  g:");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "spectral_sensitivity.r: must have 36 numbers (has 35)");
	write_variant(path, "name: cisp-test", "name: ''");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "name: must not be empty");
	write_variant(path, "{name: full,", "{name: a-mode-name-longer-than-the-thirty-one-characters-a-mode-holds,");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, ".name: is longer than 31 characters");
	/* A value out of range is refused before it becomes an integer (it used to be converted first). */
	write_variant(path, "array: [320, 240] ", "array: [1e92, 240] ");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "array");
	/* Missing and mistyped values: the file, the line and the key's place. */
	write_variant(path, "full_well: 2000", "# no full well");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "bad.yaml:3: full_well: missing (required)");
	write_variant(path, "bit_depth: 10 ", "bit_depth: ten ");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "bad.yaml:7: bit_depth: 'ten' is not a number");
	write_variant(path, "binning: 1, bits: 10,", "binning: 1, bits: 11,");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "bad.yaml:31: modes[0]: mode full: bits must be 8, 10");
	write_variant(path, "size: [320, 240]", "size: 320");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "bad.yaml:31: modes[0].size: must be a list of 2 numbers");
	write_file(path, "name: x\n  bad: [indent\n");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "bad.yaml:2: mapping values are not allowed");
	/* Hostile nesting: refused at once, not scanned for hours. */
	{
		char deep[4096];

		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = 0;
		write_file(path, deep);
		CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "bad.yaml:1: nested more than 32 levels deep");
	}
	/* An odd crop offset shifts the CFA: RGGB read from column 1 is GRBG. */
	write_variant(path, "array: [320, 240] ", "array: [322, 240] ");
	edit_file(path, path, "crop: [0, 0, 320, 240], binning: 1", "crop: [1, 0, 320, 240], binning: 1");
	CHECK_EQ(cisp_sensor_open(&s, name, NULL), 0);
	if (s) {
		struct cisp_sensor_mode m;

		CHECK_EQ(cisp_sensor_get_mode(s, 0, &m), 0);
		CHECK(m.cfa == CISP_CFA_GRBG && m.format == CISP_FMT_SGRBG10 && m.crop_x == 1);
		CHECK_EQ(cisp_sensor_get_mode(s, 1, &m), 0);
		CHECK(m.cfa == CISP_CFA_RGGB);
		cisp_sensor_close(s);
	}
}

TEST(sensor_modes_and_controls)
{
	struct cisp_sensor *s = open_test(NULL);
	struct cisp_sensor_control_info ci;
	struct cisp_sensor_mode m;

	if (!s)
		return;
	CHECK_EQ(cisp_sensor_info(s)->num_modes, 2);
	CHECK(!strcmp(cisp_sensor_info(s)->model, "cisp-test"));
	CHECK_EQ(cisp_sensor_get_mode(s, 0, &m), 0);
	CHECK(m.width == 320 && m.height == 240 && m.format == CISP_FMT_SRGGB10 && m.bits == 10);
	CHECK(m.black_level == T_BLACK && m.white_level == T_WHITE);
	CHECK_NEAR(cisp_sensor_line_ns(&m), T_LINE_NS, 1e-6);
	CHECK_EQ(cisp_sensor_control_info(s, CISP_SENSOR_EXPOSURE, &ci), 0);
	CHECK(ci.supported && ci.min == 4 && ci.max == 65531 && ci.def == 100 && ci.delay == 2);
	CHECK(!strcmp(ci.name, "exposure"));
	CHECK_EQ(cisp_sensor_control_info(s, CISP_SENSOR_FRAME_LENGTH, &ci), 0);
	CHECK(ci.min == 250 && ci.max == 65535 && ci.def == 333 && ci.delay == 2);
	CHECK_EQ(cisp_sensor_control_info(s, CISP_SENSOR_ANALOGUE_GAIN, &ci), 0);
	CHECK(ci.min == 256 && ci.max == 4096 && ci.def == 256 && ci.delay == 1);
	CHECK_EQ(cisp_sensor_control_info(s, CISP_SENSOR_TEST_PATTERN, &ci), 0);
	CHECK(ci.max == 3 && ci.delay == 0);
	CHECK_ERR(cisp_sensor_control_info(s, (enum cisp_sensor_control)8, &ci), -EINVAL, "unknown control 8");
	CHECK_ERR(cisp_sensor_get_mode(s, 2, &m), -ERANGE, "mode 2 does not exist");
	CHECK_EQ(cisp_sensor_set_mode(s, 1), 0);
	CHECK_EQ(cisp_sensor_get_mode(s, 1, &m), 0);
	CHECK(m.width == 160 && m.height == 120 && m.binning == 2 && m.cfa == CISP_CFA_RGGB);
	CHECK_EQ(cisp_sensor_control_info(s, CISP_SENSOR_FRAME_LENGTH, &ci), 0);
	CHECK(ci.min == 130);
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_ERR(cisp_sensor_set_mode(s, 0), -EBUSY, "while streaming");
	CHECK_ERR(cisp_sensor_start(s), -EBUSY, "already streaming");
	cisp_sensor_close(s);
}

/* Capture frames 0..n-1 and keep the last metadata. */
static void capture_n(struct cisp_sensor *s, struct cisp_image *img, int n, struct cisp_sensor_metadata *md)
{
	for (int i = 0; i < n; i++)
		CHECK_EQ(cisp_sensor_capture(s, img, md, 0), 0);
}

TEST(sensor_delay_model_pixels_and_metadata)
{
	struct cisp_sensor *s = open_test("scene=dominant:neutral 8,noise=off,defects=off,shading=off,lux=1000");
	struct cisp_sensor_metadata md[8];
	struct cisp_sensor_controls c = { 0 };
	struct cisp_image img;
	double signal[8];

	if (!s)
		return;
	alloc_for(s, &img);
	set1(s, CISP_SENSOR_EXPOSURE, 50);
	CHECK_EQ(cisp_sensor_start(s), 0);
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(cisp_sensor_capture(s, &img, &md[i], 0), 0);
		signal[i] = mean_rect(&img, CISP_CFA_RGGB, 1, 0, 0, 200, 200) - T_BLACK;
	}
	/* Written with frames 0..2 done (write point 3): exposure shows on 5, gain on 4. */
	CHECK_EQ(cisp_sensor_next_sequence(s), 3);
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, 100);
	cisp_sensor_controls_set(&c, CISP_SENSOR_ANALOGUE_GAIN, 512);
	CHECK_EQ(cisp_sensor_set_controls(s, &c), 0);
	for (int i = 3; i < 8; i++) {
		CHECK_EQ(cisp_sensor_capture(s, &img, &md[i], 0), 0);
		signal[i] = mean_rect(&img, CISP_CFA_RGGB, 1, 0, 0, 200, 200) - T_BLACK;
	}
	for (int i = 0; i < 8; i++) {
		CHECK_EQ(md[i].sequence, i);
		CHECK_EQ(md[i].controls[CISP_SENSOR_EXPOSURE], i < 5 ? 50 : 100);
		CHECK_EQ(md[i].controls[CISP_SENSOR_ANALOGUE_GAIN], i < 4 ? 256 : 512);
		CHECK_EQ(md[i].exposure_ns, i < 5 ? 5000000 : 10000000);
		CHECK(md[i].flags & CISP_SENSOR_MD_CONTROLS_REPORTED);
	}
	/* The pixels agree: x2 gain from frame 4, another x2 exposure from frame 5. */
	CHECK(signal[0] > 100);
	CHECK_NEAR(signal[3] / signal[0], 1.0, 0.005);
	CHECK_NEAR(signal[4] / signal[0], 2.0, 0.01);
	CHECK_NEAR(signal[5] / signal[0], 4.0, 0.02);
	CHECK_NEAR(signal[7] / signal[5], 1.0, 0.005);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

TEST(sensor_queue_controls_for_a_frame)
{
	struct cisp_sensor *s = open_test("noise=off");
	struct cisp_sensor_controls c = { 0 }, p;
	struct cisp_sensor_metadata md;
	struct cisp_image img;

	if (!s)
		return;
	alloc_for(s, &img);
	/* While stopped: exposure for frame 2 is written at start, the frame-0 write point. */
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, 60);
	CHECK_EQ(cisp_sensor_queue_controls(s, 2, &c), 0);
	c.value[CISP_SENSOR_EXPOSURE] = 70;
	CHECK_ERR(cisp_sensor_queue_controls(s, 1, &c), -EAGAIN, "exposure (delay 2) for frame 1");
	CHECK_EQ(cisp_sensor_start(s), 0);
	c.mask = 0;
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, 80);
	cisp_sensor_controls_set(&c, CISP_SENSOR_ANALOGUE_GAIN, 300);
	CHECK_EQ(cisp_sensor_queue_controls(s, 6, &c), 0);
	c.mask = 0;
	cisp_sensor_controls_set(&c, CISP_SENSOR_DIGITAL_GAIN, 400);
	CHECK_EQ(cisp_sensor_queue_controls(s, 1, &c), 0); /* delay 1: due now, written at once */
	CHECK_EQ(cisp_sensor_predict_controls(s, 5, &p), 0);
	CHECK(p.value[CISP_SENSOR_EXPOSURE] == 60 && p.value[CISP_SENSOR_ANALOGUE_GAIN] == 256);
	CHECK_EQ(cisp_sensor_predict_controls(s, 6, &p), 0);
	CHECK(p.value[CISP_SENSOR_EXPOSURE] == 80 && p.value[CISP_SENSOR_ANALOGUE_GAIN] == 300 &&
	      p.value[CISP_SENSOR_DIGITAL_GAIN] == 400);
	for (uint64_t i = 0; i < 8; i++) {
		struct cisp_sensor_controls pred;

		CHECK_EQ(cisp_sensor_predict_controls(s, i, &pred), 0);
		CHECK_EQ(cisp_sensor_capture(s, &img, &md, 0), 0);
		CHECK_EQ(md.sequence, i);
		CHECK_EQ(md.controls[CISP_SENSOR_EXPOSURE], i < 2 ? 100 : i < 6 ? 60 : 80);
		CHECK_EQ(md.controls[CISP_SENSOR_ANALOGUE_GAIN], i < 6 ? 256 : 300);
		CHECK_EQ(md.controls[CISP_SENSOR_DIGITAL_GAIN], i < 1 ? 256 : 400);
		for (int id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
			CHECK_EQ(pred.value[id], md.controls[id]);
		if (i == 4) {
			c.mask = 0;
			cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, 90);
			CHECK_ERR(cisp_sensor_queue_controls(s, 6, &c), -EAGAIN, "next frame is 5");
		}
	}
	CHECK_ERR(cisp_sensor_predict_controls(s, 3, &p), -EINVAL, "already captured");
	/* Clamping: out-of-range values become the limits. */
	set1(s, CISP_SENSOR_ANALOGUE_GAIN, 100000);
	CHECK_EQ(cisp_sensor_predict_controls(s, 20, &p), 0);
	CHECK_EQ(p.value[CISP_SENSOR_ANALOGUE_GAIN], 4096);
	c.mask = 1u << 12;
	CHECK_ERR(cisp_sensor_set_controls(s, &c), -EINVAL, "unknown control bits 0x1000");
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

TEST(sensor_exposure_limited_by_frame_length)
{
	struct cisp_sensor *s = open_test("noise=off");
	struct cisp_sensor_controls c = { 0 };
	struct cisp_sensor_metadata md[6];
	struct cisp_image img;

	if (!s)
		return;
	alloc_for(s, &img);
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, 1000);
	cisp_sensor_controls_set(&c, CISP_SENSOR_FRAME_LENGTH, 500);
	CHECK_EQ(cisp_sensor_set_controls(s, &c), 0);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, &md[0]);
	CHECK_EQ(md[0].controls[CISP_SENSOR_EXPOSURE], 496);
	CHECK_EQ(md[0].frame_duration_ns, 50000000);
	set1(s, CISP_SENSOR_FRAME_LENGTH, 2000);
	for (int i = 1; i < 6; i++)
		capture_n(s, &img, 1, &md[i]);
	CHECK_EQ(md[2].controls[CISP_SENSOR_EXPOSURE], 496);
	CHECK_EQ(md[3].controls[CISP_SENSOR_EXPOSURE], 1000);
	/* Timestamps advance by each frame's own duration. */
	CHECK_EQ(md[3].timestamp_ns - md[2].timestamp_ns, 50000000);
	CHECK_EQ(md[4].timestamp_ns - md[3].timestamp_ns, 200000000);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

static uint64_t hash_image(const struct cisp_image *img)
{
	uint64_t h = 1469598103934665603ull;

	for (uint32_t y = 0; y < img->height; y++)
		for (size_t i = 0; i < (size_t)img->width * 2; i++)
			h = (h ^ img->plane[0].data[y * img->plane[0].stride + i]) * 1099511628211ull;
	return h;
}

TEST(sensor_same_seed_same_bytes)
{
	uint64_t h[3][3];
	const char *opts[3] = { "seed=7,scene=resolution", "seed=7,scene=resolution", "seed=8,scene=resolution" };

	for (int k = 0; k < 3; k++) {
		struct cisp_sensor *s = open_test(opts[k]);
		struct cisp_image img;

		if (!s)
			return;
		alloc_for(s, &img);
		CHECK_EQ(cisp_sensor_start(s), 0);
		for (int i = 0; i < 3; i++) {
			CHECK_EQ(cisp_sensor_capture(s, &img, NULL, 0), 0);
			h[k][i] = hash_image(&img);
		}
		cisp_image_free(&img);
		cisp_sensor_close(s);
	}
	for (int i = 0; i < 3; i++) {
		CHECK(h[0][i] == h[1][i]);
		CHECK(h[0][i] != h[2][i]);
	}
	CHECK(h[0][0] != h[0][1]); /* the noise differs from frame to frame */
}

/*
 * Temporal noise: half the variance of the difference of two frames, over a
 * region, against the model var = a * s + b with s the mean above black.
 */
static void measure_noise(struct cisp_sensor *s, int32_t again, int32_t dgain, double *mean, double *var)
{
	struct cisp_image a, b;
	struct cisp_sensor_controls c = { 0 };
	double sum = 0, sd = 0;
	long n = 0;

	alloc_for(s, &a);
	alloc_for(s, &b);
	cisp_sensor_controls_set(&c, CISP_SENSOR_ANALOGUE_GAIN, again);
	cisp_sensor_controls_set(&c, CISP_SENSOR_DIGITAL_GAIN, dgain);
	CHECK_EQ(cisp_sensor_set_controls(s, &c), 0);
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_EQ(cisp_sensor_capture(s, &a, NULL, 0), 0);
	CHECK_EQ(cisp_sensor_capture(s, &b, NULL, 0), 0);
	for (uint32_t y = 0; y < a.height * 3 / 4; y++)
		for (uint32_t x = 0; x < a.width * 3 / 4; x++) {
			double p = px(&a, x, y), q = px(&b, x, y);

			sum += p + q;
			sd += (p - q) * (p - q);
			n++;
		}
	CHECK_EQ(cisp_sensor_stop(s), 0);
	*mean = sum / (2 * n) - T_BLACK;
	*var = sd / (2 * n);
	cisp_image_free(&a);
	cisp_image_free(&b);
}

TEST(sensor_noise_matches_model)
{
	/* A flat grey field, the neutral card out of the measured region. */
	struct cisp_sensor *s = open_test("scene=dominant:neutral 8,defects=off,lux=300");
	double a, b, mean, var, a_exp, b_exp;
	static const int32_t gains[][2] = { { 256, 256 }, { 1024, 256 }, { 512, 512 } };

	if (!s)
		return;
	for (unsigned i = 0; i < sizeof(gains) / sizeof(gains[0]); i++) {
		double g = T_CG * gains[i][0] / 256.0, dg = gains[i][1] / 256.0;

		/* Independently from the model file: shot noise g per code, read and ADC noise, rounding. */
		a_exp = g * dg;
		b_exp = dg * dg * (g * g * T_READ_E * T_READ_E + T_ADC * T_ADC + 1.0 / 12) + (dg != 1 ? 1.0 / 12 : 0);
		CHECK_EQ(cisp_vsensor_noise_model(s, gains[i][0], gains[i][1], &a, &b), 0);
		CHECK_NEAR(a, a_exp, 1e-9);
		CHECK_NEAR(b, b_exp, 1e-9);
		measure_noise(s, gains[i][0], gains[i][1], &mean, &var);
		CHECK(mean > 50 && mean < 700);
		CHECK_NEAR(var / (a * mean + b), 1.0, 0.03);
	}
	/* Binned mode: four sites averaged, shot and read noise variance / 4. */
	CHECK_EQ(cisp_sensor_set_mode(s, 1), 0);
	CHECK_EQ(cisp_vsensor_noise_model(s, 256, 256, &a, &b), 0);
	CHECK_NEAR(a, T_CG / 4, 1e-9);
	CHECK_NEAR(b, T_CG * T_CG * T_READ_E * T_READ_E / 4 + T_ADC * T_ADC + 1.0 / 12, 1e-9);
	measure_noise(s, 256, 256, &mean, &var);
	CHECK_NEAR(var / (a * mean + b), 1.0, 0.05);
	cisp_sensor_close(s);
}

static double stddev_all(const struct cisp_image *img, double mean)
{
	double s = 0;

	for (uint32_t y = 0; y < img->height; y++)
		for (uint32_t x = 0; x < img->width; x++)
			s += (px(img, x, y) - mean) * (px(img, x, y) - mean);
	return sqrt(s / ((double)img->width * img->height));
}

TEST(sensor_black_level_and_clipping)
{
	struct cisp_sensor *s = open_test("lux=0,defects=off");
	struct cisp_image img;
	double mean, dark_dn;
	bool all_white = true;

	if (!s)
		return;
	alloc_for(s, &img);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	/* Dark: the pedestal plus 10 e/s of dark current over 10 ms. */
	dark_dn = 10 * 0.010 * T_CG;
	mean = mean_all(&img);
	CHECK_NEAR(mean, T_BLACK + dark_dn, 0.03);
	CHECK_NEAR(stddev_all(&img, mean), sqrt(T_CG * T_CG * T_READ_E * T_READ_E + T_ADC * T_ADC + 1.0 / 12), 0.03);
	/* Far over-exposed at gain x1: the full well clips, at black + 2000 e * 0.4. */
	CHECK_EQ(cisp_sensor_set_option(s, "lux", "100000"), 0);
	capture_n(s, &img, 1, NULL);
	mean = mean_all(&img);
	CHECK_NEAR(mean, T_BLACK + T_FULL_WELL * T_CG, 0.05);
	CHECK_NEAR(stddev_all(&img, mean), sqrt(T_CG * T_CG * T_READ_E * T_READ_E + T_ADC * T_ADC + 1.0 / 12), 0.05);
	/* At x2 the full well would be 1664 codes: the ADC clips first, every sample at 1023. */
	set1(s, CISP_SENSOR_ANALOGUE_GAIN, 512);
	capture_n(s, &img, 2, NULL);
	for (uint32_t y = 0; y < img.height; y++)
		for (uint32_t x = 0; x < img.width; x++)
			all_white &= px(&img, x, y) == T_WHITE;
	CHECK(all_white);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

/* Row means of the green samples above black, left of the grey card. */
static void row_profile(const struct cisp_image *img, double *rows)
{
	for (uint32_t y = 0; y < img->height; y++)
		rows[y] = mean_rect(img, CISP_CFA_RGGB, 1, 0, (int32_t)y, 200, 1) - T_BLACK;
}

/* Relative amplitude of the sinusoid of @period rows in @rows, over whole periods (one-bin DFT). */
static double amplitude(const double *rows, uint32_t n, double period)
{
	uint32_t whole = (uint32_t)(floor(n / period) * period);
	double re = 0, im = 0, mean = 0;

	for (uint32_t y = 0; y < whole; y++)
		mean += rows[y] / whole;
	for (uint32_t y = 0; y < whole; y++) {
		re += (rows[y] - mean) * cos(2 * M_PI * y / period);
		im += (rows[y] - mean) * sin(2 * M_PI * y / period);
	}
	return 2 * hypot(re, im) / whole / mean;
}

/* Rows between the brightest row of the first 120 and the brightest 50..150 rows after it. */
static double peak_distance(const double *rows, uint32_t n)
{
	uint32_t p1 = 0, p2;

	for (uint32_t y = 0; y < 120 && y < n; y++)
		if (rows[y] > rows[p1])
			p1 = y;
	p2 = p1 + 50;
	for (uint32_t y = p1 + 50; y < p1 + 150 && y < n; y++)
		if (rows[y] > rows[p2])
			p2 = y;
	return (double)p2 - p1;
}

TEST(sensor_flicker_banding)
{
	struct cisp_sensor *s = open_test("scene=dominant:neutral 8,noise=off,shading=off,defects=off,blur=off,"
					  "flicker=50,flicker_depth=0.5,lux=2000");
	struct cisp_image img;
	double rows[240], best_period, e, x;

	if (!s)
		return;
	alloc_for(s, &img);
	/* 3 ms exposure; 100 us lines: 100 Hz light gives bands every 100 rows. */
	set1(s, CISP_SENSOR_EXPOSURE, 30);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	row_profile(&img, rows);
	best_period = peak_distance(rows, 240);
	CHECK_NEAR(best_period, 100, 2);
	/* Averaging over the exposure: amplitude = depth * |sinc(pi f E)| with f = 100 Hz. */
	e = 0.003;
	x = M_PI * 100 * e;
	CHECK_NEAR(amplitude(rows, 240, 100), 0.5 * sin(x) / x, 0.01);
	/* A whole period of exposure (10 ms) averages the flicker out. */
	set1(s, CISP_SENSOR_EXPOSURE, 100);
	capture_n(s, &img, 3, NULL);
	row_profile(&img, rows);
	CHECK(amplitude(rows, 240, 100) < 0.003);
	/* 60 Hz mains: bands every 1 / 120 s = 83.3 rows. */
	CHECK_EQ(cisp_sensor_set_option(s, "flicker", "60"), 0);
	set1(s, CISP_SENSOR_EXPOSURE, 30);
	capture_n(s, &img, 3, NULL);
	row_profile(&img, rows);
	CHECK(amplitude(rows, 240, 1e9 / 120 / T_LINE_NS) > 0.3);
	CHECK_NEAR(peak_distance(rows, 240), 1e9 / 120 / T_LINE_NS, 1.5);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

/* Sum of squared differences between same-colour neighbours (2 apart), G sites of the Gr rows. */
static double sharpness(const struct cisp_image *img)
{
	double sum = 0;

	for (uint32_t y = 0; y + 2 < img->height; y += 2)
		for (uint32_t x = 1; x + 2 < img->width; x += 2) {
			double g = px(img, x, y), gx = px(img, x + 2, y), gy = px(img, x, y + 2);

			sum += (gx - g) * (gx - g) + (gy - g) * (gy - g);
		}
	return sum;
}

TEST(sensor_focus_peak)
{
	struct cisp_sensor *s = open_test("scene=resolution,defects=off,lux=1500");
	struct cisp_vsensor_truth t;
	struct cisp_sensor_metadata md;
	struct cisp_image img;
	double best = 0, sharp[60];
	int best_pos = -1, n = 0;

	if (!s)
		return;
	CHECK_EQ(cisp_vsensor_truth(s, &t), 0);
	/* Focus: infinity 200 + 100 steps per dioptre at 0.8 m. */
	CHECK_EQ(t.focus_position, 325);
	CHECK_NEAR(t.blur_sigma_focused, 0.5, 1e-9);
	alloc_for(s, &img);
	CHECK_EQ(cisp_sensor_start(s), 0);
	for (int pos = 25; pos <= 550; pos += 25, n++) {
		set1(s, CISP_SENSOR_LENS_POSITION, pos);
		capture_n(s, &img, 2, &md); /* delay 1: the second frame has it */
		CHECK_EQ(md.controls[CISP_SENSOR_LENS_POSITION], pos);
		sharp[n] = sharpness(&img);
		if (sharp[n] > best) {
			best = sharp[n];
			best_pos = pos;
		}
	}
	CHECK_EQ(best_pos, 325);
	/* Sharpness falls on both sides of the peak. */
	for (int i = 1; i < n; i++) {
		int pos = 25 + 25 * i;

		if (pos <= 325)
			CHECK(sharp[i] > sharp[i - 1]);
		else
			CHECK(sharp[i] < sharp[i - 1]);
	}
	/* A nearer scene moves the peak: 0.25 m focuses at 600. */
	CHECK_EQ(cisp_sensor_set_option(s, "distance", "0.25"), 0);
	CHECK_EQ(cisp_vsensor_truth(s, &t), 0);
	CHECK_EQ(t.focus_position, 600);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

/* The camera's response to a reflectance under an illuminant, summed here from the tables. */
static void expected_rgb(const struct vs_camera *cam, const double *spd, const double *refl, double rgb[3])
{
	for (int c = 0; c < 3; c++) {
		rgb[c] = 0;
		for (int i = 0; i < VS_BANDS; i++)
			rgb[c] += spd[i] * (refl ? refl[i] : 1) * cam->q[c][i] * (380 + 10 * i);
	}
}

static void chart_against_tables(const char *illuminant, const double *spd)
{
	char opts[256], path[512];
	struct cisp_sensor *s;
	struct vs_model model;
	struct cisp_image img;
	double ref[3], white[3], lum = 0, lum65 = 0, k;
	int32_t exposure = 80;

	snprintf(opts, sizeof(opts), "illuminant=%s,shading=off,defects=off,lux=1000", illuminant);
	s = open_test(opts);
	snprintf(path, sizeof(path), "%s/data/sensors/cisp-test.yaml", CISP_SOURCE_DIR);
	CHECK_EQ(vs_model_load(path, &model), 0);
	if (!s)
		return;
	alloc_for(s, &img);
	set1(s, CISP_SENSOR_EXPOSURE, exposure);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	/*
	 * Electrons = sensitivity * lux * t * response / luminance, relative to
	 * green on white under D65; codes = electrons * conversion gain.
	 */
	expected_rgb(&model.camera, vs_d65, NULL, ref);
	expected_rgb(&model.camera, spd, NULL, white);
	for (int i = 0; i < VS_BANDS; i++) {
		lum += spd[i] * vs_cie1931[i][1];
		lum65 += vs_d65[i] * vs_cie1931[i][1];
	}
	k = T_SENS * 1000 * exposure * T_LINE_NS * 1e-9 * T_CG / (lum / lum65) / ref[1];
	for (unsigned p = 0; p < VS_CC_PATCHES; p++) {
		struct cisp_vsensor_patch patch;
		double rgb[3];
		int32_t ix, iy, iw, ih;

		CHECK_EQ(cisp_vsensor_chart_patch(s, p, &patch), 0);
		CHECK(!strcmp(patch.name, vs_colorchecker[p].name));
		expected_rgb(&model.camera, spd, vs_colorchecker[p].r, rgb);
		/* Inside the patch, clear of the blurred edges. */
		ix = patch.x + patch.width / 4;
		iy = patch.y + patch.height / 4;
		iw = patch.width / 2;
		ih = patch.height / 2;
		for (int c = 0; c < 3; c++) {
			double got = mean_rect(&img, CISP_CFA_RGGB, c, ix, iy, iw, ih) - T_BLACK;

			double want = k * rgb[c], samples = iw * ih / (c == 1 ? 2.0 : 4.0);

			/* Within 1% plus four standard deviations of a mean of noisy samples. */
			CHECK_NEAR(got, want, 0.01 * want + 4 * sqrt((T_CG * want + 1.34) / samples));
			CHECK_NEAR(patch.camera[c], rgb[c] / white[1], 1e-9);
		}
	}
	vs_model_free(&model);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

TEST(sensor_chart_patches_follow_the_spectra)
{
	double spd_a[VS_BANDS];

	chart_against_tables("D65", vs_d65);
	/* Illuminant A from its CIE definition, computed here. */
	for (int i = 0; i < VS_BANDS; i++) {
		double l = 380 + 10 * i;

		spd_a[i] = 100 * pow(560 / l, 5) * (exp(1.435e7 / (2848 * 560.0)) - 1) / (exp(1.435e7 / (2848 * l)) - 1);
	}
	chart_against_tables("A", spd_a);
}

static void xy_of(const double *spd, double *x, double *y)
{
	double xyz[3] = { 0, 0, 0 };

	for (int i = 0; i < VS_BANDS; i++)
		for (int c = 0; c < 3; c++)
			xyz[c] += spd[i] * vs_cie1931[i][c];
	*x = xyz[0] / (xyz[0] + xyz[1] + xyz[2]);
	*y = xyz[1] / (xyz[0] + xyz[1] + xyz[2]);
}

TEST(sensor_spectral_tables)
{
	static const struct {
		const char *name;
		double x, y;
	} whites[] = {
		/* CIE 15:2004 chromaticities of the illuminants (2-degree observer). */
		{ "D65", 0.31272, 0.32903 }, { "D50", 0.34567, 0.35851 }, { "D75", 0.29902, 0.31485 },
		{ "A", 0.44757, 0.40745 },   { "F2", 0.37208, 0.37529 },  { "F11", 0.38052, 0.37713 },
	};
	static const struct {
		int patch;
		int srgb[3];
	} published[] = {
		/* BabelColor average sRGB: dark skin, foliage, green, neutral 5. */
		{ 0, { 115, 82, 68 } }, { 3, { 87, 108, 67 } }, { 13, { 70, 148, 73 } }, { 21, { 122, 122, 121 } },
	};
	static const double m[3][3] = { { 3.2404542, -1.5371385, -0.4985314 },
					{ -0.9692660, 1.8760108, 0.0415560 },
					{ 0.0556434, -0.2040259, 1.0572252 } };
	double spd[VS_BANDS], x, y, day[VS_BANDS], worst = 0, wy = 0;

	for (size_t i = 0; i < sizeof(whites) / sizeof(whites[0]); i++) {
		CHECK_EQ(vs_illuminant(whites[i].name, spd), 0);
		xy_of(spd, &x, &y);
		CHECK_NEAR(x, whites[i].x, 0.0012);
		CHECK_NEAR(y, whites[i].y, 0.0012);
		CHECK_NEAR(spd[18], 100, 1e-9); /* 560 nm */
	}
	/* D65 rebuilt from the daylight components matches its table. */
	vs_daylight(6504, day);
	for (int i = 0; i < VS_BANDS; i++)
		worst = fmax(worst, fabs(day[i] - vs_d65[i]));
	CHECK(worst < 0.2);
	/* ColorChecker patches lit by D65 land on their published sRGB values. */
	for (int i = 0; i < VS_BANDS; i++)
		wy += vs_d65[i] * vs_cie1931[i][1];
	for (size_t k = 0; k < sizeof(published) / sizeof(published[0]); k++) {
		double xyz[3] = { 0, 0, 0 };

		for (int i = 0; i < VS_BANDS; i++)
			for (int c = 0; c < 3; c++)
				xyz[c] += vs_d65[i] * vs_colorchecker[published[k].patch].r[i] * vs_cie1931[i][c] / wy;
		for (int c = 0; c < 3; c++) {
			double lin = m[c][0] * xyz[0] + m[c][1] * xyz[1] + m[c][2] * xyz[2];
			double enc = lin <= 0.0031308 ? 12.92 * lin : 1.055 * pow(lin, 1 / 2.4) - 0.055;

			CHECK_NEAR(255 * enc, published[k].srgb[c], 4);
		}
	}
	/* The sRGB basis: flat white, and each primary is that primary. */
	for (int i = 0; i < VS_BANDS; i++)
		CHECK_NEAR(vs_srgb_basis()[0][i] + vs_srgb_basis()[1][i] + vs_srgb_basis()[2][i], 1.0, 1e-9);
}

/* Least-squares 3x3 from camera RGB to XYZ over the chart; mean residual |XYZ| error. */
static double luther_residual(struct cisp_sensor *s)
{
	struct cisp_vsensor_patch p[VS_CC_PATCHES];
	double ata[3][3] = { { 0 } }, atb[3][3] = { { 0 } }, err = 0;

	for (unsigned i = 0; i < VS_CC_PATCHES; i++) {
		CHECK_EQ(cisp_vsensor_chart_patch(s, i, &p[i]), 0);
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++) {
				ata[r][c] += p[i].camera[r] * p[i].camera[c];
				atb[r][c] += p[i].camera[r] * p[i].xyz[c];
			}
	}
	/* Solve ata * M = atb by Gauss-Jordan (3x3, well conditioned). */
	for (int i = 0; i < 3; i++) {
		double piv = ata[i][i];

		for (int c = 0; c < 3; c++) {
			ata[i][c] /= piv;
			atb[i][c] /= piv;
		}
		for (int r = 0; r < 3; r++) {
			double f = ata[r][i];

			if (r == i)
				continue;
			for (int c = 0; c < 3; c++) {
				ata[r][c] -= f * ata[i][c];
				atb[r][c] -= f * atb[i][c];
			}
		}
	}
	for (unsigned i = 0; i < VS_CC_PATCHES; i++)
		for (int c = 0; c < 3; c++) {
			double est = 0;

			for (int r = 0; r < 3; r++)
				est += p[i].camera[r] * atb[r][c];
			err += fabs(est - p[i].xyz[c]);
		}
	return err / (3 * VS_CC_PATCHES);
}

TEST(sensor_colour_matrix_cannot_be_perfect)
{
	char path[512], name[600];
	struct cisp_sensor *s = open_test(NULL);
	double spectral, matrix;

	if (!s)
		return;
	spectral = luther_residual(s);
	cisp_sensor_close(s);
	/* The same sensor with camera RGB = M * XYZ: a 3x3 matrix undoes it exactly. */
	snprintf(path, sizeof(path), "%s/matrix.yaml", test_tmp_dir());
	snprintf(name, sizeof(name), "virtual:%s", path);
	write_variant(path, "spectral_sensitivity:\n", "colour_matrix: [[1.5, -0.3, -0.1], [-0.4, 1.3, 0.1], [0.05, -0.2, 1.0]]\nx_unused:\n");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "x_unused: unknown key");
	write_variant(path, "# Relative quantum efficiency at 380, 390, ..., 730 nm.\nspectral_sensitivity:",
		      "colour_matrix: [[1.5, -0.3, -0.1], [-0.4, 1.3, 0.1], [0.05, -0.2, 1.0]]\nspectral_sensitivity:");
	CHECK_ERR(cisp_sensor_open(&s, name, NULL), -EINVAL, "exactly one of");
	{
		/* Drop the three sensitivity lines' block: rewrite the file without it. */
		FILE *f = fopen(path, "r");
		char line[1024], out[16384] = "";
		bool skip = false;

		CHECK(f != NULL);
		while (f && fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "spectral_sensitivity:", 21))
				skip = true;
			if (!skip)
				strncat(out, line, sizeof(out) - strlen(out) - 1);
		}
		if (f)
			fclose(f);
		write_file(path, out);
	}
	CHECK_EQ(cisp_sensor_open(&s, name, NULL), 0);
	if (!s)
		return;
	matrix = luther_residual(s);
	cisp_sensor_close(s);
	CHECK(matrix < 1e-9);
	CHECK(spectral > 0.002); /* the spectral camera is not a linear transform of the observer */
	CHECK(spectral < 0.05);
}

TEST(sensor_test_patterns)
{
	struct cisp_sensor *s = open_test(NULL);
	struct cisp_sensor_metadata md;
	struct cisp_image img;

	if (!s)
		return;
	alloc_for(s, &img);
	set1(s, CISP_SENSOR_TEST_PATTERN, CISP_SENSOR_PATTERN_BARS);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, &md);
	CHECK_EQ(md.controls[CISP_SENSOR_TEST_PATTERN], 1);
	/* Bar 1 is yellow: R and G on, B off; bar 6 blue; 40 columns a bar. */
	CHECK_EQ(px(&img, 40, 0), T_WHITE);  /* R site */
	CHECK_EQ(px(&img, 41, 0), T_WHITE);  /* G */
	CHECK_EQ(px(&img, 41, 1), T_BLACK);  /* B */
	CHECK_EQ(px(&img, 240, 0), T_BLACK); /* R in blue */
	CHECK_EQ(px(&img, 241, 1), T_WHITE); /* B in blue */
	CHECK_EQ(px(&img, 319, 239), T_BLACK);
	set1(s, CISP_SENSOR_TEST_PATTERN, CISP_SENSOR_PATTERN_RAMP); /* delay 0: this very frame */
	capture_n(s, &img, 1, NULL);
	CHECK_EQ(px(&img, 0, 5), T_BLACK);
	CHECK_EQ(px(&img, 319, 5), T_WHITE);
	CHECK_EQ(px(&img, 160, 5), T_BLACK + (959 * 160 + 159) / 319);
	set1(s, CISP_SENSOR_TEST_PATTERN, CISP_SENSOR_PATTERN_SOLID);
	capture_n(s, &img, 1, NULL);
	CHECK_EQ(px(&img, 77, 33), T_BLACK + 959 / 2);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

TEST(sensor_flips_and_defects)
{
	struct cisp_sensor *s = open_test("noise=off,shading=off,lux=1000");
	struct cisp_vsensor_defect defects[512];
	struct cisp_vsensor_patch before, after;
	struct cisp_image img;
	struct cisp_sensor_metadata md;
	double m0, m1;
	int n, hot = -1, dead = -1;

	if (!s)
		return;
	n = cisp_vsensor_defects(s, defects, 512);
	/* 1e-3 of 76800 sites, a few of them twice. */
	CHECK(n >= 70 && n <= 77);
	for (int i = 0; i < n && i < 512; i++) {
		if (defects[i].hot && hot < 0)
			hot = i;
		if (!defects[i].hot && dead < 0)
			dead = i;
		if (i > 0)
			CHECK(defects[i].y > defects[i - 1].y ||
			      (defects[i].y == defects[i - 1].y && defects[i].x > defects[i - 1].x));
	}
	CHECK(hot >= 0 && dead >= 0);
	alloc_for(s, &img);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, &md);
	CHECK_EQ(px(&img, defects[hot].x, defects[hot].y), T_WHITE);
	CHECK_EQ(px(&img, defects[dead].x, defects[dead].y), T_BLACK);
	CHECK_EQ(cisp_vsensor_chart_patch(s, 0, &before), 0);
	m0 = mean_rect(&img, CISP_CFA_RGGB, 1, before.x + 4, before.y + 4, before.width - 8, before.height - 8);
	set1(s, CISP_SENSOR_HFLIP, 1);
	set1(s, CISP_SENSOR_VFLIP, 1);
	capture_n(s, &img, 2, &md); /* flip delay 1 */
	CHECK(md.controls[CISP_SENSOR_HFLIP] == 1 && md.controls[CISP_SENSOR_VFLIP] == 1);
	CHECK_EQ(md.format, CISP_FMT_SRGGB10); /* the CFA order is kept */
	CHECK_EQ(cisp_vsensor_chart_patch(s, 0, &after), 0);
	CHECK_EQ(after.x, 320 - before.x - before.width);
	CHECK_EQ(after.y, 240 - before.y - before.height);
	m1 = mean_rect(&img, CISP_CFA_RGGB, 1, after.x + 4, after.y + 4, after.width - 8, after.height - 8);
	CHECK_NEAR(m1 / m0, 1.0, 0.01);
	CHECK_EQ(px(&img, 319 - defects[hot].x, 239 - defects[hot].y), T_WHITE);
	CHECK_EQ(px(&img, 319 - defects[dead].x, 239 - defects[dead].y), T_BLACK);
	/* Without defects: the hot site reads like its neighbours. */
	CHECK_EQ(cisp_sensor_set_option(s, "defects", "off"), 0);
	capture_n(s, &img, 1, NULL);
	CHECK(px(&img, 319 - defects[hot].x, 239 - defects[hot].y) < T_WHITE);
	CHECK_EQ(cisp_vsensor_defects(s, defects, 512), 0);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

TEST(sensor_capture_formats_and_errors)
{
	struct cisp_sensor *s = open_test("seed=3");
	struct cisp_sensor *s2 = open_test("seed=3");
	struct cisp_image img, packed, wide, wrong;
	bool same = true;

	if (!s || !s2)
		return;
	alloc_for(s, &img);
	CHECK_ERR(cisp_sensor_capture(s, &img, NULL, 0), -ENODATA, "not streaming");
	CHECK_EQ(cisp_image_alloc(&wrong, CISP_FMT_SRGGB10, 160, 120), 0);
	CHECK_EQ(cisp_image_alloc(&packed, CISP_FMT_SRGGB10P, 320, 240), 0);
	CHECK_EQ(cisp_image_alloc(&wide, CISP_FMT_SRGGB16, 320, 240), 0);
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_EQ(cisp_sensor_start(s2), 0);
	CHECK_ERR(cisp_sensor_capture(s, &wrong, NULL, 0), -EINVAL, "delivers 320x240 SRGGB10");
	cisp_image_free(&wrong);
	CHECK_EQ(cisp_image_alloc(&wrong, CISP_FMT_SGRBG10, 320, 240), 0);
	CHECK_ERR(cisp_sensor_capture(s, &wrong, NULL, 0), -EINVAL, "SGRBG10");
	/* The same frame three ways: unpacked, CSI-2 packed, 16-bit. */
	CHECK_EQ(cisp_sensor_capture(s, &img, NULL, 0), 0);
	CHECK_EQ(cisp_sensor_capture(s2, &packed, NULL, 0), 0);
	for (uint32_t y = 0; y < 240 && same; y++)
		for (uint32_t x = 0; x < 320; x++) {
			const uint8_t *g = packed.plane[0].data + y * packed.plane[0].stride + x / 4 * 5;
			unsigned v = (unsigned)g[x % 4] << 2 | ((g[4] >> (2 * (x % 4))) & 3);

			same &= v == px(&img, x, y);
		}
	CHECK(same);
	CHECK_EQ(cisp_sensor_capture(s, &img, NULL, 0), 0);
	CHECK_EQ(cisp_sensor_capture(s2, &wide, NULL, 0), 0);
	for (uint32_t y = 0; y < 240; y++)
		for (uint32_t x = 0; x < 320; x++)
			same &= px(&wide, x, y) == px(&img, x, y) << 6;
	CHECK(same);
	cisp_image_free(&img);
	cisp_image_free(&packed);
	cisp_image_free(&wide);
	cisp_image_free(&wrong);
	cisp_sensor_close(s);
	cisp_sensor_close(s2);
}

TEST(sensor_pollable_fd)
{
	struct cisp_sensor *s = open_test(NULL);
	struct cisp_image img;
	struct pollfd p;

	if (!s)
		return;
	alloc_for(s, &img);
	p.fd = cisp_sensor_fd(s);
	p.events = POLLIN;
	CHECK(p.fd >= 0);
	CHECK_EQ(poll(&p, 1, 0), 0); /* stopped: nothing to read */
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_EQ(poll(&p, 1, 1000), 1);
	CHECK_EQ(cisp_sensor_capture(s, &img, NULL, CISP_SENSOR_NONBLOCK), 0);
	CHECK_EQ(poll(&p, 1, 1000), 1); /* not paced: the next one is ready at once */
	CHECK_EQ(cisp_sensor_stop(s), 0);
	CHECK_EQ(poll(&p, 1, 0), 0);
	/* Real time: frame 0 is ready when its readout ends, 300 ms after start. */
	CHECK_EQ(cisp_sensor_set_option(s, "realtime", "on"), 0);
	set1(s, CISP_SENSOR_FRAME_LENGTH, 3000);
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_ERR(cisp_sensor_capture(s, &img, NULL, CISP_SENSOR_NONBLOCK), -EAGAIN, "not ready");
	CHECK_EQ(poll(&p, 1, 2000), 1);
	CHECK_EQ(cisp_sensor_capture(s, &img, NULL, CISP_SENSOR_NONBLOCK), 0);
	CHECK_EQ(cisp_sensor_capture(s, &img, NULL, 0), 0); /* blocks until frame 1 is due */
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

/* "backlit:R:FILE": the image at R of its reflectance in the middle 70%, a white window around it. */
TEST(sensor_backlit_scene)
{
	struct cisp_raster r;
	struct cisp_sensor *s;
	struct cisp_image img;
	char path[512], opts[700];

	snprintf(path, sizeof(path), "%s/white.png", test_tmp_dir());
	CHECK_EQ(cisp_raster_alloc(&r, 64, 48, 3, 255), 0);
	for (size_t i = 0; i < 64 * 48 * 3; i++)
		r.data[i] = 255;
	CHECK_EQ(cisp_raster_write(path, &r), 0);
	cisp_raster_free(&r);
	snprintf(opts, sizeof(opts), "scene=backlit:0.1:%s,shading=off,defects=off,blur=off,lux=300", path);
	s = open_test(opts);
	if (!s)
		return;
	alloc_for(s, &img);
	set1(s, CISP_SENSOR_EXPOSURE, 100);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	/* The 320x240 view: the portrait covers 48..272 x 36..204. */
	double window = mean_rect(&img, CISP_CFA_RGGB, 1, 0, 0, 40, 30) - T_BLACK;
	double face = mean_rect(&img, CISP_CFA_RGGB, 1, 120, 90, 80, 60) - T_BLACK;
	CHECK(window > 200);
	CHECK_NEAR(face / window, 0.1, 0.01);
	cisp_image_free(&img);
	cisp_sensor_close(s);
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "scene=backlit:2:x.png"), -EINVAL, "0.01 to 1");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "scene=backlit:0.1"), -EINVAL, "backlit:REFLECTANCE:FILE");
	CHECK_ERR(cisp_sensor_open(&s, "virtual:cisp-test", "scene=backlit:0.1:/no/such.png"), -ENOENT, "/no/such.png");
}

static void image_scene_ratios(const char *path, const uint8_t srgb[3])
{
	char opts[600];
	struct cisp_sensor *s;
	struct vs_model model;
	struct cisp_image img;
	double lin[3], got[3], want[3] = { 0, 0, 0 }, mod[3];

	snprintf(opts, sizeof(opts), "scene=%s,shading=off,defects=off,lux=1000", path);
	s = open_test(opts);
	if (!s)
		return;
	snprintf(opts, sizeof(opts), "%s/data/sensors/cisp-test.yaml", CISP_SOURCE_DIR);
	CHECK_EQ(vs_model_load(opts, &model), 0);
	/* The pixel's spectrum is its linear sRGB weights on the smooth basis. */
	for (int c = 0; c < 3; c++) {
		double v = srgb[c] / 255.0;

		lin[c] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	for (int k = 0; k < 3; k++) {
		expected_rgb(&model.camera, vs_d65, vs_srgb_basis()[k], mod);
		for (int c = 0; c < 3; c++)
			want[c] += lin[k] * mod[c];
	}
	alloc_for(s, &img);
	set1(s, CISP_SENSOR_EXPOSURE, 200);
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	for (int c = 0; c < 3; c++)
		got[c] = mean_rect(&img, CISP_CFA_RGGB, c, 40, 40, 240, 160) - T_BLACK;
	CHECK(got[1] > 100);
	CHECK_NEAR(got[0] / got[1], want[0] / want[1], 0.02 * want[0] / want[1]);
	CHECK_NEAR(got[2] / got[1], want[2] / want[1], 0.02 * want[2] / want[1]);
	vs_model_free(&model);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

TEST(sensor_image_file_scenes)
{
	static const uint8_t colour[3] = { 180, 120, 60 };
	struct cisp_raster r;
	char path[512];

	snprintf(path, sizeof(path), "%s/scene.png", test_tmp_dir());
	CHECK_EQ(cisp_raster_alloc(&r, 64, 48, 3, 255), 0);
	for (size_t i = 0; i < 64 * 48; i++)
		for (int c = 0; c < 3; c++)
			r.data[i * 3 + c] = colour[c];
	CHECK_EQ(cisp_raster_write(path, &r), 0);
	cisp_raster_free(&r);
	image_scene_ratios(path, colour);
#if CISP_HAVE_JPEG
	{
		struct jpeg_compress_struct cinfo;
		struct jpeg_error_mgr jerr;
		uint8_t row[64 * 3];
		FILE *f;

		snprintf(path, sizeof(path), "%s/scene.jpg", test_tmp_dir());
		f = fopen(path, "wb");
		CHECK(f != NULL);
		if (!f)
			return;
		cinfo.err = jpeg_std_error(&jerr);
		jpeg_create_compress(&cinfo);
		jpeg_stdio_dest(&cinfo, f);
		cinfo.image_width = 64;
		cinfo.image_height = 48;
		cinfo.input_components = 3;
		cinfo.in_color_space = JCS_RGB;
		jpeg_set_defaults(&cinfo);
		jpeg_set_quality(&cinfo, 100, TRUE);
		jpeg_start_compress(&cinfo, TRUE);
		for (int i = 0; i < 64; i++)
			memcpy(row + 3 * i, colour, 3);
		while (cinfo.next_scanline < 48) {
			JSAMPROW rp = row;

			jpeg_write_scanlines(&cinfo, &rp, 1);
		}
		jpeg_finish_compress(&cinfo);
		jpeg_destroy_compress(&cinfo);
		fclose(f);
		image_scene_ratios(path, colour);
	}
#else
	test_skip("built without libjpeg: JPEG scenes not tested");
#endif
}

TEST(sensor_built_in_scenes)
{
	struct cisp_sensor *s = open_test("scene=hdr,noise=off,defects=off,lux=100");
	struct cisp_image img;
	double lamp, shadow, g, r, b;

	if (!s)
		return;
	alloc_for(s, &img);
	set1(s, CISP_SENSOR_EXPOSURE, 4); /* 0.4 ms: the lamp stays below clipping */
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	/* The lamp sits at (0.3 * 4 / 3, 0.3) of the field: pixel (96, 72). */
	lamp = mean_rect(&img, CISP_CFA_RGGB, 1, 92, 68, 8, 8) - T_BLACK;
	CHECK(lamp > 100 && lamp < 900);
	set1(s, CISP_SENSOR_FRAME_LENGTH, 3100);
	set1(s, CISP_SENSOR_EXPOSURE, 3000);
	capture_n(s, &img, 3, NULL);
	shadow = mean_rect(&img, CISP_CFA_RGGB, 1, 300, 220, 16, 16) - T_BLACK;
	CHECK(shadow > 5);
	/* Lamp over the far wall: more than 10^4 between them. */
	CHECK(lamp / 4 / (shadow / 3000) > 1e4);
	cisp_sensor_close(s);
	/* Dominated by green foliage: G far above R and B. */
	s = open_test("scene=dominant:green,noise=off,defects=off");
	if (!s)
		return;
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	r = mean_rect(&img, CISP_CFA_RGGB, 0, 0, 0, 200, 160) - T_BLACK;
	g = mean_rect(&img, CISP_CFA_RGGB, 1, 0, 0, 200, 160) - T_BLACK;
	b = mean_rect(&img, CISP_CFA_RGGB, 2, 0, 0, 200, 160) - T_BLACK;
	CHECK(g > 2 * r && g > 2 * b);
	cisp_sensor_close(s);
	/* The gradient ramps left to right. */
	s = open_test("scene=gradient,noise=off,defects=off,shading=off");
	if (!s)
		return;
	CHECK_EQ(cisp_sensor_start(s), 0);
	capture_n(s, &img, 1, NULL);
	CHECK(mean_rect(&img, CISP_CFA_RGGB, 1, 10, 10, 20, 20) < mean_rect(&img, CISP_CFA_RGGB, 1, 150, 10, 20, 20));
	CHECK(mean_rect(&img, CISP_CFA_RGGB, 1, 150, 10, 20, 20) < mean_rect(&img, CISP_CFA_RGGB, 1, 290, 10, 20, 20));
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

TEST(sensor_real_models_open)
{
	static const char *const names[] = { "virtual:cisp-8m10", "virtual:cisp-12m12" };
	static const uint32_t formats[] = { CISP_FMT_SBGGR10, CISP_FMT_SGRBG12 };

	for (int i = 0; i < 2; i++) {
		struct cisp_sensor *s;
		struct cisp_sensor_mode m;
		struct cisp_sensor_control_info ci;

		CHECK_EQ(cisp_sensor_open(&s, names[i], NULL), 0);
		if (!s)
			continue;
		CHECK_EQ(cisp_sensor_info(s)->num_modes, 3);
		CHECK_EQ(cisp_sensor_get_mode(s, 0, &m), 0);
		CHECK_EQ(m.format, formats[i]);
		/* The default frame length gives 30 frames a second. */
		CHECK_NEAR(m.frame_length_default * cisp_sensor_line_ns(&m), 1e9 / 30, 2e4);
		CHECK_EQ(cisp_sensor_control_info(s, CISP_SENSOR_ANALOGUE_GAIN, &ci), 0);
		CHECK_EQ(ci.delay, i == 0 ? 1 : 2);
		cisp_sensor_close(s);
	}
}

/*
 * A frame taken ahead (to overlap capture with processing) leaves the write
 * point at itself: a control with a delay still reaches the frame it was
 * meant for, one without delay the frame after the one taken.
 */
TEST(sensor_frame_taken_ahead_keeps_the_write_point)
{
	struct cisp_sensor *s = open_test("noise=off");
	struct cisp_sensor_controls c = { 0 }, p;
	struct cisp_sensor_metadata md;
	struct cisp_image img, view;

	if (!s)
		return;
	alloc_for(s, &img);
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_EQ(cisp_sensor_capture(s, &img, &md, 0), 0);
	CHECK_EQ(cisp_sensor_next_sequence(s), 1);
	CHECK_EQ(cisp_sensor_capture(s, &img, &md, CISP_SENSOR_AHEAD), 0);
	CHECK_EQ(md.sequence, 1);
	CHECK_EQ(cisp_sensor_next_sequence(s), 1);
	/* Exposure (delay 2) for frame 3 is written at write point 1: still possible. */
	cisp_sensor_controls_set(&c, CISP_SENSOR_EXPOSURE, 60);
	CHECK_EQ(cisp_sensor_queue_controls(s, 3, &c), 0);
	/* Frame 1 is captured: neither a queue nor a prediction reaches it. */
	c.mask = 0;
	cisp_sensor_controls_set(&c, CISP_SENSOR_TEST_PATTERN, CISP_SENSOR_PATTERN_SOLID);
	CHECK_ERR(cisp_sensor_queue_controls(s, 1, &c), -EAGAIN, "test_pattern");
	CHECK_ERR(cisp_sensor_predict_controls(s, 1, &p), -EINVAL, "already captured");
	/* Without delay, written now: frame 2, not the frame taken. */
	CHECK_EQ(cisp_sensor_set_controls(s, &c), 0);
	CHECK_EQ(cisp_sensor_predict_controls(s, 2, &p), 0);
	CHECK_EQ(p.value[CISP_SENSOR_TEST_PATTERN], CISP_SENSOR_PATTERN_SOLID);
	CHECK_EQ(p.value[CISP_SENSOR_EXPOSURE], 100);
	CHECK_EQ(cisp_sensor_capture(s, &img, &md, 0), 0);
	CHECK(md.sequence == 2 && md.controls[CISP_SENSOR_TEST_PATTERN] == CISP_SENSOR_PATTERN_SOLID &&
	      md.controls[CISP_SENSOR_EXPOSURE] == 100);
	CHECK_EQ(cisp_sensor_next_sequence(s), 3);
	CHECK_EQ(cisp_sensor_capture(s, &img, &md, 0), 0);
	CHECK(md.sequence == 3 && md.controls[CISP_SENSOR_EXPOSURE] == 60);
	CHECK_EQ(cisp_sensor_dropped(s), 0);
	/* The virtual sensor renders into the caller's image: it lends nothing, and takes no frame. */
	CHECK_ERR(cisp_sensor_acquire(s, img.format, &view, &md, 0), -ENOTSUP, "no buffers of its own");
	CHECK_EQ(cisp_sensor_next_sequence(s), 4);
	CHECK_ERR(cisp_sensor_release(s, &img), -EINVAL, "did not lend");
	cisp_image_free(&img);
	cisp_sensor_close(s);
}

/*
 * In real time a consumer slower than the sensor gets the frames that found
 * a free buffer, then a gap: frames ending while every buffer was full are
 * dropped and counted, so the queue never holds more than its buffers.
 */
TEST(sensor_realtime_drops_frames_when_no_buffer_is_free)
{
	struct cisp_sensor *s = open_test("noise=off,realtime=on,buffers=2");
	struct cisp_sensor_metadata md;
	struct cisp_image img;
	struct timespec nap, now;
	uint64_t last, gaps = 0, looked_ns;
	unsigned waiting = 0;
	int r;

	if (!s)
		return;
	CHECK_ERR(cisp_sensor_set_option(s, "buffers", "0"), -EINVAL, "buffers");
	CHECK_ERR(cisp_sensor_set_option(s, "buffers", "2.5"), -EINVAL, "whole number");
	CHECK_EQ(cisp_sensor_set_mode(s, 1), 0);
	alloc_for(s, &img);
	set1(s, CISP_SENSOR_FRAME_LENGTH, 130); /* 13 ms frames */
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_ERR(cisp_sensor_set_option(s, "buffers", "3"), -EBUSY, "while stopped");
	CHECK_EQ(cisp_sensor_capture(s, &img, &md, 0), 0);
	CHECK_EQ(md.sequence, 0);
	last = 0;
	/* Away for ten frames: two fill the buffers, the others are dropped. */
	nap = (struct timespec){ 0, (long)(10 * md.frame_duration_ns) };
	nanosleep(&nap, NULL);
	clock_gettime(CLOCK_MONOTONIC, &now);
	looked_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	while ((r = cisp_sensor_capture(s, &img, &md, CISP_SENSOR_NONBLOCK)) == 0) {
		/* Frames that had ended when we looked were in the queue together. */
		if (md.timestamp_ns + md.frame_duration_ns <= looked_ns)
			waiting++;
		/* The oldest frames stayed in the buffers: frame 1 first. */
		if (!last)
			CHECK_EQ(md.sequence, 1);
		CHECK(md.sequence > last);
		gaps += md.sequence - last - 1;
		last = md.sequence;
	}
	CHECK_EQ(r, -EAGAIN);
	CHECK(waiting >= 1 && waiting <= 2);
	CHECK_EQ(cisp_sensor_capture(s, &img, &md, 0), 0);
	CHECK(md.sequence > last);
	gaps += md.sequence - last - 1;
	/* The frames after them were dropped: a gap. */
	CHECK(md.sequence >= 10);
	CHECK(gaps >= 7);
	CHECK_EQ(cisp_sensor_dropped(s), gaps);
	CHECK_EQ(cisp_sensor_stop(s), 0);
	CHECK_EQ(cisp_sensor_start(s), 0);
	CHECK_EQ(cisp_sensor_dropped(s), 0);
	cisp_image_free(&img);
	cisp_sensor_close(s);
}
