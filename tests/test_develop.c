/* SPDX-License-Identifier: MIT */
/* The controls of cisp develop: white balance, exposure, tone, crop, output size, standard output. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/develop.h>
#include <cisp/dng.h>
#include <cisp/error.h>
#include <cisp/isp.h>
#include <cisp/raster.h>
#include <cisp/raw_frame.h>

#include "cli.h"
#include "test.h"

/* Canon EOS 5D Mark III's published XYZ (D65) to camera matrix. */
static const float canon_5d3[9] = { 0.6722f, -0.0635f, -0.0963f, -0.4287f, 1.2460f,
				    0.2028f, -0.0909f, 0.2162f, 0.5668f };

static void put16(struct cisp_image *img, uint32_t x, uint32_t y, unsigned v)
{
	img->plane[0].data[y * img->plane[0].stride + 2 * x] = (uint8_t)v;
	img->plane[0].data[y * img->plane[0].stride + 2 * x + 1] = (uint8_t)(v >> 8);
}

/*
 * A 64x48 16-bit RGGB frame, black 1000, white 60000, the published
 * matrix and an as-shot balance that is wrong for its scene: the left half
 * a grey under a tinted light (camera R, G, B above black @left), the right
 * half a saturated colour.
 */
static void two_patch_frame(struct cisp_raw_frame *f, const unsigned left[3], int orientation)
{
	static const unsigned right[3] = { 20000, 8000, 3000 };

	memset(f, 0, sizeof(*f));
	CHECK_EQ(cisp_image_alloc(&f->image, CISP_FMT_SRGGB16, 64, 48), 0);
	for (uint32_t y = 0; y < 48; y++)
		for (uint32_t x = 0; x < 64; x++) {
			const unsigned *c = x < 32 ? left : right;
			unsigned colour = (x & 1) + (y & 1); /* 0 R, 1 G, 2 B */
			put16(&f->image, x, y, 1000 + c[colour]);
		}
	for (int c = 0; c < 4; c++)
		f->black[c] = 1000;
	f->white = 60000;
	f->has_matrix = true;
	memcpy(f->xyz_to_cam, canon_5d3, sizeof(canon_5d3));
	f->has_wb = true;
	f->wb_gains[0] = 2.5f;
	f->wb_gains[1] = 1;
	f->wb_gains[2] = 1.2f;
	f->orientation = orientation;
}

/* Mean R, G, B of a rectangle of a 16-bit RGB raster file. */
static void rect_mean(const char *name, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h, double mean[3])
{
	struct cisp_raster r;

	mean[0] = mean[1] = mean[2] = -1;
	CHECK_EQ(cisp_raster_read(cli_tmp(name), &r), 0);
	if (r.channels != 3 || r.width < x0 + w || r.height < y0 + h) {
		test_fail(__FILE__, __LINE__, "%s: %ux%u, %u channels", name, r.width, r.height, r.channels);
		cisp_raster_free(&r);
		return;
	}
	mean[0] = mean[1] = mean[2] = 0;
	for (uint32_t y = y0; y < y0 + h; y++)
		for (uint32_t x = x0; x < x0 + w; x++)
			for (int c = 0; c < 3; c++)
				mean[c] += r.data[(y * r.width + x) * 3 + c] / (double)(w * h);
	cisp_raster_free(&r);
}

static void raster_size(const char *name, uint32_t *w, uint32_t *h)
{
	struct cisp_raster r;

	*w = *h = 0;
	CHECK_EQ(cisp_raster_read(cli_tmp(name), &r), 0);
	*w = r.width;
	*h = r.height;
	cisp_raster_free(&r);
}

TEST(develop_wb_box_makes_a_grey_patch_neutral)
{
	static const unsigned left[3] = { 6000, 12000, 9000 };
	struct cisp_raw_frame f;
	double m[3];

	two_patch_frame(&f, left, 1);
	CHECK_EQ(cisp_dng_write(cli_tmp("wb.dng"), &f), 0);
	cisp_raw_frame_free(&f);
	/* As shot, the grey is far from neutral. */
	CHECK_EQ(cli_run("develop wb.dng --wb camera --depth 16 -o camera.ppm"), 0);
	rect_mean("camera.ppm", 8, 8, 16, 32, m);
	printf("  grey patch, --wb camera: R/G %.4f B/G %.4f\n", m[0] / m[1], m[2] / m[1]);
	CHECK(fabs(m[0] / m[1] - 1) > 0.1);
	/* The box on it: neutral within 1%, whatever the box's exact edges. */
	CHECK_EQ(cli_run("develop wb.dng --wb box:4,4,24,40 --depth 16 -o box.ppm"), 0);
	rect_mean("box.ppm", 8, 8, 16, 32, m);
	printf("  grey patch, --wb box:4,4,24,40: R/G %.4f B/G %.4f (G %.0f)\n", m[0] / m[1], m[2] / m[1], m[1]);
	CHECK_NEAR(m[0] / m[1], 1, 0.01);
	CHECK_NEAR(m[2] / m[1], 1, 0.01);

	/* Turned (orientation 6): the box is in the upright picture, 48x64, where the grey is the top half. */
	two_patch_frame(&f, left, 6);
	CHECK_EQ(cisp_dng_write(cli_tmp("wb6.dng"), &f), 0);
	cisp_raw_frame_free(&f);
	CHECK_EQ(cli_run("develop wb6.dng --wb box:4,4,40,24 --depth 16 -o box6.ppm"), 0);
	rect_mean("box6.ppm", 8, 8, 32, 16, m);
	printf("  turned, --wb box:4,4,40,24: R/G %.4f B/G %.4f\n", m[0] / m[1], m[2] / m[1]);
	CHECK_NEAR(m[0] / m[1], 1, 0.01);
	CHECK_NEAR(m[2] / m[1], 1, 0.01);

	/* A box outside the picture, or on the coloured half only where a colour is missing: refused, no file. */
	CHECK_EQ(cli_run("develop wb6.dng --wb box:40,0,10,10 -o outside.png"), 1);
	CHECK(strstr(cli_output, "the white-balance box 10x10 at (40, 0) is not inside the 48x64 picture") != NULL);
	CHECK(!cli_exists("outside.png"));
}

/* The ISP's white-balance gains after cisp_develop_prepare() with @opt (no exposure applied). */
static int prepared_gains(const struct cisp_raw_frame *f, struct cisp_develop_options opt, uint16_t gain[4])
{
	struct cisp_isp_config cfg;
	struct cisp_isp *isp = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { &out, NULL };
	int ret;

	opt.manual_exposure = true;
	ret = cisp_develop_config(f, &opt, &cfg);
	if (!ret)
		ret = cisp_isp_create(&isp, &cfg);
	if (!ret)
		ret = cisp_image_alloc(&out, cfg.output[0].format, cfg.output[0].width, cfg.output[0].height);
	if (!ret)
		ret = cisp_develop_prepare(isp, f, &opt, outputs, NULL);
	if (!ret)
		memcpy(gain, cisp_isp_params(isp)->wb.gain, 4 * sizeof(uint16_t));
	cisp_isp_destroy(isp);
	cisp_image_free(&out);
	return ret;
}

TEST(develop_wb_modes)
{
	static const unsigned left[3] = { 6000, 12000, 9000 };
	struct cisp_raw_frame f, nowb;
	struct cisp_param_state daylight;
	struct cisp_develop_options opt = { 0 };
	uint16_t g[4], d65[4], warm[4], tinted[4], k5000[4];

	two_patch_frame(&f, left, 1);
	/* Multipliers, divided by green. */
	opt.awb = CISP_DEVELOP_AWB_GAINS;
	opt.wb_gains[0] = 4, opt.wb_gains[1] = 2, opt.wb_gains[2] = 3;
	CHECK_EQ(prepared_gains(&f, opt, g), 0);
	CHECK_EQ(g[CISP_CH_R], 8192);
	CHECK_EQ(g[CISP_CH_GR], 4096);
	CHECK_EQ(g[CISP_CH_GB], 4096);
	CHECK_EQ(g[CISP_CH_B], 6144);
	/* Daylight: the file's matrix's D65 balance, what a file without as-shot balance gets. */
	nowb = f;
	nowb.has_wb = false;
	cisp_param_state_init(&daylight);
	CHECK_EQ(cisp_raw_frame_params(&nowb, &daylight), 0);
	opt.awb = CISP_DEVELOP_AWB_DAYLIGHT;
	CHECK_EQ(prepared_gains(&f, opt, d65), 0);
	for (int c = 0; c < 4; c++)
		CHECK_NEAR(d65[c], daylight.wb.gain[c], 1);
	/* 6504 K on the Planckian locus is close to D65 (which lies 0.003 above it). */
	opt.awb = CISP_DEVELOP_AWB_TEMPERATURE;
	opt.wb_kelvin = 6504;
	CHECK_EQ(prepared_gains(&f, opt, g), 0);
	printf("  gains R, B: daylight %u %u, 6504K %u %u\n", d65[0], d65[3], g[0], g[3]);
	CHECK_NEAR(g[0] / (double)d65[0], 1, 0.04);
	CHECK_NEAR(g[3] / (double)d65[3], 1, 0.04);
	/* Warmer light (3000 K): more red in the light, so less red gain and more blue gain. */
	opt.wb_kelvin = 3000;
	CHECK_EQ(prepared_gains(&f, opt, warm), 0);
	CHECK(warm[0] < g[0] * 0.8 && warm[3] > g[3] * 1.3);
	/* A magenta tint at 5000 K: less green in the light, so R and B gains fall against green. */
	opt.wb_kelvin = 5000;
	CHECK_EQ(prepared_gains(&f, opt, k5000), 0);
	opt.wb_tint = 50;
	CHECK_EQ(prepared_gains(&f, opt, tinted), 0);
	printf("  5000K: R %u B %u; tint +50: R %u B %u; 3000K: R %u B %u\n", k5000[0], k5000[3], tinted[0], tinted[3],
	       warm[0], warm[3]);
	CHECK(tinted[0] < k5000[0] && tinted[3] < k5000[3]);
	/* Out of range: refused with the ranges. */
	opt.wb_kelvin = 1000;
	CHECK_ERR(prepared_gains(&f, opt, g), -EINVAL, "colour temperature 1000K with tint 50");
	opt.wb_kelvin = 5000;
	opt.wb_tint = 101;
	CHECK_ERR(prepared_gains(&f, opt, g), -EINVAL, "the tint in -100..100");
	opt.awb = CISP_DEVELOP_AWB_GAINS;
	opt.wb_gains[1] = 0;
	CHECK_ERR(prepared_gains(&f, opt, g), -EINVAL, "multiplier 0 out of range 0.01..100");
	opt.awb = CISP_DEVELOP_AWB_BOX;
	opt.wb_box = (struct cisp_develop_area){ 60, 0, 8, 8 };
	CHECK_ERR(prepared_gains(&f, opt, g), -EINVAL, "is not inside the 64x48 picture");
	opt.awb = 99;
	CHECK_ERR(prepared_gains(&f, opt, g), -EINVAL, "white balance 99");
	cisp_raw_frame_free(&f);
}

/* A 64x48 16-bit frame, black 0, white 65535, no matrix and unit balance: every sample @level, or @bright on
 * the first @bright_rows rows. */
static void flat_frame(struct cisp_raw_frame *f, unsigned level, unsigned bright, uint32_t bright_rows)
{
	memset(f, 0, sizeof(*f));
	CHECK_EQ(cisp_image_alloc(&f->image, CISP_FMT_SRGGB16, 64, 48), 0);
	for (uint32_t y = 0; y < 48; y++)
		for (uint32_t x = 0; x < 64; x++)
			put16(&f->image, x, y, y < bright_rows ? bright : level);
	f->white = 65535;
	f->has_wb = true;
	f->wb_gains[0] = f->wb_gains[1] = f->wb_gains[2] = 1;
}

/* The developed 8-bit value at (32, 40) and the green gain that exposure left in the ISP. */
static void develop_flat(const struct cisp_raw_frame *f, struct cisp_develop_options opt, unsigned *value,
			 unsigned *gain)
{
	struct cisp_isp_config cfg;
	struct cisp_isp *isp = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { &out, NULL };

	*value = *gain = 0;
	CHECK_EQ(cisp_develop_config(f, &opt, &cfg), 0);
	CHECK_EQ(cisp_isp_create(&isp, &cfg), 0);
	CHECK_EQ(cisp_image_alloc(&out, cfg.output[0].format, cfg.output[0].width, cfg.output[0].height), 0);
	CHECK_EQ(cisp_develop_prepare(isp, f, &opt, outputs, NULL), 0);
	CHECK_EQ(cisp_isp_process(isp, &f->image, outputs, NULL, NULL), 0);
	*gain = cisp_isp_params(isp)->wb.gain[CISP_CH_GR];
	*value = out.plane[0].data[40 * out.plane[0].stride + 32 * 3 + 1];
	cisp_isp_destroy(isp);
	cisp_image_free(&out);
}

TEST(develop_exposure_and_tone)
{
	struct cisp_develop_options opt = { 0 };
	struct cisp_raw_frame f;
	struct cisp_isp_config cfg;
	struct cisp_isp *isp = NULL;
	struct cisp_image out = { 0 };
	struct cisp_image *outputs[CISP_MAX_OUTPUTS] = { &out, NULL };
	uint16_t curve[3][257];
	unsigned v, gain, v_manual, v_ev;

	/* A flat grey at 5% of the range: automatic exposure puts it at 0.25 display light, sRGB code 137. */
	flat_frame(&f, 3277, 0, 0);
	develop_flat(&f, opt, &v, &gain);
	printf("  flat 5%% grey: automatic exposure code %u (gain %.3f)\n", v, gain / 4096.0);
	CHECK_NEAR(v, 137, 2);
	/* By hand: the standard curve alone, 2u / (1 + u) of u = 0.05^1.5, gives code 41; one stop more, 69. */
	opt.manual_exposure = true;
	develop_flat(&f, opt, &v_manual, &gain);
	CHECK_EQ(gain, 4096);
	CHECK_NEAR(v_manual, 41, 1);
	opt.ev = 1;
	develop_flat(&f, opt, &v_ev, &gain);
	CHECK_EQ(gain, 8192);
	CHECK_NEAR(v_ev, 69, 1);
	/* The file's BaselineExposure is added by hand the same way. */
	opt.ev = 0;
	f.baseline_ev = 1;
	develop_flat(&f, opt, &v, &gain);
	CHECK_EQ(gain, 8192);
	CHECK_EQ(v, v_ev);
	/* Linear output: the sensor's exposure, no curve. */
	opt = (struct cisp_develop_options){ .linear = true, .output_format = CISP_FMT_RGB888 };
	develop_flat(&f, opt, &v, &gain);
	CHECK_EQ(gain, 4096);
	cisp_raw_frame_free(&f);

	/* 3% of the picture at 80% of the range: the exposure stops where they would clip (at most 1% may). */
	opt = (struct cisp_develop_options){ 0 };
	flat_frame(&f, 1311, 52429, 2);
	develop_flat(&f, opt, &v, &gain);
	printf("  dark scene with 3%% highlights at 0.8: gain %.3f\n", gain / 4096.0);
	CHECK(gain > 1.15 * 4096 && gain <= 1.25 * 4096 + 1);
	cisp_raw_frame_free(&f);
	/* It never darkens: a bright flat frame keeps gain 1. */
	flat_frame(&f, 58982, 0, 0);
	develop_flat(&f, opt, &v, &gain);
	CHECK_EQ(gain, 4096);

	/* The curves' nodes: identity for linear; standard and filmic rise from 0 to 65535 with a shoulder. */
	for (int t = 0; t < 3; t++) {
		opt = (struct cisp_develop_options){ .tone = (uint16_t)t, .manual_exposure = true };
		CHECK_EQ(cisp_develop_config(&f, &opt, &cfg), 0);
		CHECK_EQ(cisp_isp_create(&isp, &cfg), 0);
		CHECK_EQ(cisp_image_alloc(&out, cfg.output[0].format, cfg.output[0].width, cfg.output[0].height), 0);
		CHECK_EQ(cisp_develop_prepare(isp, &f, &opt, outputs, NULL), 0);
		memcpy(curve[t], cisp_isp_params(isp)->tone.curve, sizeof(curve[t]));
		cisp_isp_destroy(isp);
		cisp_image_free(&out);
		CHECK_EQ(curve[t][0], 0);
		CHECK_EQ(curve[t][256], 65535);
		for (int i = 1; i <= 256; i++)
			CHECK(curve[t][i] > curve[t][i - 1]);
	}
	for (int i = 0; i <= 256; i++)
		CHECK_EQ(curve[CISP_DEVELOP_TONE_LINEAR][i], i < 256 ? 256 * i : 65535);
	/* Standard at 0.5: 2u / (1 + u), u = 0.5^1.5 = 0.35356: 0.52241 of 65535. */
	CHECK_NEAR(curve[CISP_DEVELOP_TONE_STANDARD][128], 34236, 2);
	/* Shoulders: the last segment rises less than the identity's; filmic's the least. */
	CHECK(curve[0][256] - curve[0][255] < 256 && curve[1][256] - curve[1][255] < curve[0][256] - curve[0][255]);
	/* Filmic's toe: darker deep shadows than standard. */
	CHECK(curve[1][4] < curve[0][4]);
	opt.tone = 3;
	CHECK_ERR(cisp_develop_config(&f, &opt, &cfg), -EINVAL, "tone curve 3 out of range");
	cisp_raw_frame_free(&f);
}

/* A 96x64 12-bit DNG with a default crop of 80x56 at (4, 2). */
static void crop_dng(const char *name, int orientation)
{
	struct cisp_raw_frame f;

	memset(&f, 0, sizeof(f));
	CHECK_EQ(cisp_image_alloc(&f.image, CISP_FMT_SRGGB12, 96, 64), 0);
	for (uint32_t y = 0; y < 64; y++)
		for (uint32_t x = 0; x < 96; x++)
			put16(&f.image, x, y, 200 + x * 20 + y * 10);
	f.white = 4095;
	f.orientation = orientation;
	f.crop.x = 4, f.crop.y = 2, f.crop.width = 80, f.crop.height = 56;
	CHECK_EQ(cisp_dng_write(cli_tmp(name), &f), 0);
	cisp_raw_frame_free(&f);
}

TEST(develop_crop_and_output_size)
{
	uint32_t w, h;

	crop_dng("c.dng", 1);
	crop_dng("c6.dng", 6);
	CHECK_EQ(cli_run("develop c.dng --crop 10,10,40,20 -o crop.png"), 0);
	raster_size("crop.png", &w, &h);
	CHECK(w == 40 && h == 20);
	/* Odd edges move inwards to even mosaic coordinates: (5, 3)..(14, 12) becomes (6, 4)..(14, 12). */
	CHECK_EQ(cli_run("develop c.dng --crop 1,1,9,9 -o odd.png"), 0);
	raster_size("odd.png", &w, &h);
	CHECK(w == 8 && h == 8);
	/* Turned: the crop is in the upright picture (56x80). */
	CHECK_EQ(cli_run("develop c6.dng --crop 0,0,56,20 -o crop6.png"), 0);
	raster_size("crop6.png", &w, &h);
	CHECK(w == 56 && h == 20);
	/* Fit inside, or stretch with '!'. */
	CHECK_EQ(cli_run("develop c.dng --output-size 40x40 -o fit.png"), 0);
	raster_size("fit.png", &w, &h);
	CHECK(w == 40 && h == 28);
	CHECK_EQ(cli_run("develop c.dng --output-size '40x40!' -o stretch.png"), 0);
	raster_size("stretch.png", &w, &h);
	CHECK(w == 40 && h == 40);
	CHECK_EQ(cli_run("develop c6.dng --output-size 40x40 -o fit6.png"), 0);
	raster_size("fit6.png", &w, &h);
	CHECK(w == 28 && h == 40);
	/* Bad values: a clear error and no file. */
	CHECK_EQ(cli_run("develop c.dng --crop 0,0,100,10 -o bad1.png"), 1);
	CHECK(strstr(cli_output, "the crop 100x10 at (0, 0) is not inside the 80x56 picture") != NULL);
	CHECK_EQ(cli_run("develop c.dng --crop 3,3,1,1 -o bad2.png"), 1);
	CHECK(strstr(cli_output, "smaller than 2x2") != NULL);
	static const char *const bad_crops[] = { "1,2,3", "0,0,0,5", "-1,0,5,5", "a,b,c,d", "1,2,3,4,5", "" };
	for (size_t i = 0; i < sizeof(bad_crops) / sizeof(bad_crops[0]); i++) {
		CHECK_EQ(cli_run("develop c.dng --crop '%s' -o bad3.png", bad_crops[i]), 2);
		CHECK(strstr(cli_output, "is not X,Y,W,H") != NULL);
	}
	static const char *const bad_sizes[] = { "0x5", "40x40!!", "40", "!", "x40!" };
	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		CHECK_EQ(cli_run("develop c.dng --output-size '%s' -o bad4.png", bad_sizes[i]), 2);
		CHECK(strstr(cli_output, "is not a size WxH") != NULL);
	}
	CHECK(!cli_exists("bad1.png") && !cli_exists("bad2.png") && !cli_exists("bad3.png") && !cli_exists("bad4.png"));
}

TEST(develop_bad_controls)
{
	static const char *const bad_wb[] = { "purple", "1000K", "30000K", "5000K,200", "5000K,", "5000", "1,2",
					      "0,1,1", "1,1,1,1", "1,x,1", "box:1,2,3", "box:0,0,0,5", "box:",
					      "nan,1,1", "5000K,1x" };

	crop_dng("b.dng", 1);
	for (size_t i = 0; i < sizeof(bad_wb) / sizeof(bad_wb[0]); i++) {
		CHECK_EQ(cli_run("develop b.dng --wb '%s' -o wb.png", bad_wb[i]), 2);
		CHECK(strstr(cli_output, "--wb takes camera, auto, daylight") != NULL ||
		      strstr(cli_output, "is not X,Y,W,H") != NULL);
	}
	CHECK_EQ(cli_run("develop b.dng --tone soft -o wb.png"), 2);
	CHECK(strstr(cli_output, "--tone takes standard, filmic or linear, not 'soft'") != NULL);
	CHECK_EQ(cli_run("develop b.dng --ev 5 -o wb.png"), 2);
	CHECK(!cli_exists("wb.png"));
	/* The good forms. */
	static const char *const good_wb[] = { "camera", "auto", "daylight", "5000K", "3200k,-20", "2,1,1.5",
						"box:0,0,16,16" };
	for (size_t i = 0; i < sizeof(good_wb) / sizeof(good_wb[0]); i++) {
		CHECK_EQ(cli_run("develop b.dng --wb '%s' --force -o wb.png", good_wb[i]), 0);
		CHECK(cli_exists("wb.png"));
	}
	CHECK_EQ(cli_run("develop b.dng --tone filmic --no-auto-exposure --force -o wb.png"), 0);
}

TEST(develop_to_standard_output)
{
	struct cisp_raster a = { 0 }, b = { 0 };

	crop_dng("s.dng", 1);
	/* The same picture as into a file (the files' times of writing differ). */
	CHECK_EQ(cli_run("develop s.dng -o file.png"), 0);
	CHECK_EQ(cli_run("develop s.dng --type png -o - > piped.png"), 0);
	CHECK_EQ(cisp_raster_read(cli_tmp("file.png"), &a), 0);
	CHECK_EQ(cisp_raster_read(cli_tmp("piped.png"), &b), 0);
	CHECK(a.data && b.data && a.width == 80 && a.height == 56 && b.width == a.width && b.height == a.height &&
	      !memcmp(a.data, b.data, (size_t)a.width * a.height * 3 * sizeof(uint16_t)));
	cisp_raster_free(&a);
	cisp_raster_free(&b);
	/* Never to a terminal (script(1) gives the command one), never several files. */
	CHECK_EQ(cli_sh("script -qec \"\\\"$CISP\\\" develop s.dng -o -\" /dev/null"), 2);
	CHECK(strstr(cli_output, "standard output, which is a terminal") != NULL);
	CHECK_EQ(cli_run("develop s.dng --type ../x.png -o - > slash.png"), 1);
	CHECK(strstr(cli_output, "--type ./x.png is not a file type") != NULL && cli_size("slash.png") == 0);
	CHECK_EQ(cli_run("develop s.dng s.dng -o - > two.png"), 2);
	CHECK(strstr(cli_output, "-o - takes one input file") != NULL);
}
