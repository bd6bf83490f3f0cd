/* SPDX-License-Identifier: MIT */
/* Image-quality lab: noise, dynamic range, shading, false colour, image conversion. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/iq.h>

#include "test.h"

static double gauss(void)
{
	double u1 = ((test_rand() >> 11) + 0.5) / 9007199254740992.0, u2 = (test_rand() >> 11) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

TEST(iq_snr_matches_set_sigma)
{
	struct cisp_iq_image grey, rgb;
	struct cisp_iq_patch_stats st;
	const int n = 128;
	const double ky = sqrt(0.2126 * 0.2126 + 0.7152 * 0.7152 + 0.0722 * 0.0722);
	const double kcb = sqrt(0.9278 * 0.9278 + 0.2126 * 0.2126 + 0.7152 * 0.7152) / 1.8556;
	const double kcr = sqrt(0.7874 * 0.7874 + 0.7152 * 0.7152 + 0.0722 * 0.0722) / 1.5748;

	CHECK_EQ(cisp_iq_image_alloc(&grey, n, n, 1), 0);
	CHECK_EQ(cisp_iq_image_alloc(&rgb, n, n, 3), 0);
	for (double sigma = 0.002; sigma < 0.1; sigma *= 3) {
		const double mean = 0.4;

		for (int i = 0; i < n * n; i++)
			grey.data[i] = (float)(mean + sigma * gauss());
		CHECK_EQ(cisp_iq_patch_stats(&grey, &(struct cisp_iq_rect){ 0, 0, n, n }, false, &st), 0);
		CHECK_EQ(st.pixels, n * n);
		CHECK_NEAR(st.mean_y, mean, 3 * sigma / n);
		if (fabs((mean / st.sd_y) / (mean / sigma) - 1) > 0.02)
			test_fail(__FILE__, __LINE__, "sigma %g: SNR %.3f, set %.3f", sigma, mean / st.sd_y, mean / sigma);
		/* Independent noise of sigma per channel: luma and chroma sigma follow from the weights. */
		for (int i = 0; i < n * n * 3; i++)
			rgb.data[i] = (float)(mean + sigma * gauss());
		CHECK_EQ(cisp_iq_patch_stats(&rgb, &(struct cisp_iq_rect){ 0, 0, n, n }, false, &st), 0);
		CHECK_NEAR(st.sd_y / (sigma * ky), 1, 0.02);
		CHECK_NEAR(st.sd_chroma / (sigma * sqrt(kcb * kcb + kcr * kcr)), 1, 0.02);
		CHECK_NEAR(st.sd[0] / sigma, 1, 0.02);
	}
	/* A gradient under the noise: detrending removes it, plain statistics count it. */
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			grey.data[y * n + x] = (float)(0.3 + 0.001 * x - 0.0005 * y + 0.01 * gauss());
	CHECK_EQ(cisp_iq_patch_stats(&grey, &(struct cisp_iq_rect){ 0, 0, n, n }, true, &st), 0);
	CHECK_NEAR(st.sd_y, 0.01, 0.0002);
	CHECK_NEAR(st.mean_y, 0.3 + 0.001 * 63.5 - 0.0005 * 63.5, 0.001);
	CHECK_EQ(cisp_iq_patch_stats(&grey, &(struct cisp_iq_rect){ 0, 0, n, n }, false, &st), 0);
	CHECK(st.sd_y > 0.03);
	CHECK_ERR(cisp_iq_patch_stats(&grey, &(struct cisp_iq_rect){ 0, 0, 3, n }, false, &st), -EINVAL, "patch");
	cisp_iq_image_free(&grey);
	cisp_iq_image_free(&rgb);
}

/* Twelve grey steps of 1 EV with shot and read noise; the brightest clips. */
TEST(iq_grey_steps_dynamic_range)
{
	enum { STEPS = 12, P = 48 };
	struct cisp_iq_image img;
	struct cisp_iq_rect rects[STEPS];
	double levels[STEPS], snr[STEPS];
	static struct cisp_iq_noise_result res;
	const double a = 4e-5, b = 1e-7; /* variance = a * mean + b */

	CHECK_EQ(cisp_iq_image_alloc(&img, STEPS * P, P, 1), 0);
	for (int k = 0; k < STEPS; k++) {
		double mean = k == 0 ? 1.2 : pow(2, -k), sd = sqrt(a * mean + b);

		levels[k] = pow(2, -k);
		snr[k] = mean / sd;
		rects[k] = (struct cisp_iq_rect){ k * P, 0, P, P };
		for (int y = 0; y < P; y++)
			for (int x = 0; x < P; x++) {
				double v = mean + sd * gauss();

				img.data[y * img.stride + k * P + x] = (float)(k == 0 ? fmin(v, 1.0) : v);
			}
	}
	CHECK_EQ(cisp_iq_noise(&img, rects, levels, STEPS, false, &res), 0);
	CHECK_EQ(res.count, STEPS);
	CHECK(res.step[0].clipped);
	for (int k = 1; k < STEPS; k++) {
		CHECK(!res.step[k].clipped);
		CHECK_NEAR(res.step[k].snr_y / snr[k], 1, 0.05);
	}
	/*
	 * SNR 10 is crossed where a m + b = m^2 / 100: between steps; the
	 * brightest unclipped step is 2^-1. Solve exactly: m = (100 a + sqrt((100 a)^2 + 400 b)) / 2.
	 */
	{
		double m10 = (100 * a + sqrt(1e4 * a * a + 400 * b)) / 2;
		double ev10 = log2(0.5 / m10);

		CHECK_NEAR(res.dr[1].ev, ev10, 0.25);
		CHECK_EQ(res.dr[1].steps, (unsigned)floor(log2(0.5 / m10)) + 1);
		CHECK(!res.dr[1].lower_bound);
	}
	/* SNR 1 is never reached (the darkest step has SNR ~1.5): a lower bound of 10 EV. */
	CHECK(res.dr[0].lower_bound);
	CHECK_NEAR(res.dr[0].ev, 10, 1e-9);
	CHECK_EQ(res.dr[0].steps, STEPS - 1);
	CHECK_ERR(cisp_iq_noise(&img, rects, (double[STEPS]){ 0 }, STEPS, false, &res), -EINVAL, "level");
	cisp_iq_image_free(&img);
}

TEST(iq_shading_of_a_ramp)
{
	struct cisp_iq_image img;
	static struct cisp_iq_shading_result s;

	/* 90x30, grid 3: blocks are 30x10; luma ramps in x, red is 10 % high in the right column. */
	CHECK_EQ(cisp_iq_image_alloc(&img, 90, 30, 3), 0);
	for (int y = 0; y < 30; y++)
		for (int x = 0; x < 90; x++) {
			float *p = img.data + y * img.stride + 3 * x;
			double v = 0.5 + 0.3 * x / 90.0;

			p[0] = (float)(x >= 60 ? 1.1 * v : v);
			p[1] = p[2] = (float)v;
		}
	CHECK_EQ(cisp_iq_shading(&img, 3, &s), 0);
	{
		double yl = 0.5 + 0.3 * 14.5 / 90, yc = 0.5 + 0.3 * 44.5 / 90, yr = (0.5 + 0.3 * 74.5 / 90) * (1 + 0.2126 * 0.1);

		CHECK_NEAR(s.luma_min, yl / yc, 1e-5);
		CHECK_NEAR(s.luma[4], 1, 1e-9);
		CHECK_NEAR(s.luma[5], yr / yc, 1e-5);
		CHECK_NEAR(s.luma_corner, (2 * yl + 2 * yr) / 4 / yc, 1e-5);
		CHECK_NEAR(s.luma_nonuniformity_pct, 100 * (yr - yl) / yc, 1e-3);
		CHECK_NEAR(s.color_max_pct, 10, 1e-3);
		CHECK_NEAR(s.color[3], 0, 1e-6);
	}
	CHECK_ERR(cisp_iq_shading(&img, 4, &s), -EINVAL, "odd");
	cisp_iq_image_free(&img);
}

TEST(iq_false_color_on_neutral)
{
	struct cisp_iq_image img;
	struct cisp_iq_false_color_result r;
	double rgb[3] = { 0.3, 0.15, 0.1 }, xyz[3], lab[3], c;

	cisp_iq_srgb_to_xyz(rgb, xyz);
	cisp_iq_xyz_to_lab(xyz, cisp_iq_white_d65, lab);
	c = hypot(lab[1], lab[2]);
	CHECK_EQ(cisp_iq_image_alloc(&img, 100, 100, 3), 0);
	for (int i = 0; i < 100 * 100; i++) {
		/* Every 20th pixel coloured: 5 %. */
		for (int k = 0; k < 3; k++)
			img.data[3 * i + k] = (float)(i % 20 == 0 ? rgb[k] : 0.18);
	}
	CHECK_EQ(cisp_iq_false_color(&img, &(struct cisp_iq_rect){ 0, 0, 100, 100 }, &r), 0);
	CHECK_NEAR(r.fraction_visible, 0.05, 1e-9);
	CHECK_NEAR(r.max_chroma, c, 1e-3);
	CHECK_NEAR(r.mean_chroma, 0.05 * c, 0.02);
	CHECK_NEAR(r.p99_chroma, c, 0.06);
	CHECK(c > 20);
	for (int i = 0; i < 100 * 100 * 3; i++)
		img.data[i] = 0.18f;
	CHECK_EQ(cisp_iq_false_color(&img, &(struct cisp_iq_rect){ 0, 0, 100, 100 }, &r), 0);
	CHECK(r.max_chroma < 0.05);
	CHECK_NEAR(r.fraction_visible, 0, 0);
	cisp_iq_image_free(&img);
}

TEST(iq_image_conversions)
{
	struct cisp_image in;
	struct cisp_iq_image out;
	struct cisp_raster r;

	/* RGB888 sRGB: code 255 is 1.0, code 0 is 0, code 118 is 18 % grey. */
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_RGB888, 16, 16), 0);
	in.plane[0].data[0] = 255;
	in.plane[0].data[1] = 0;
	in.plane[0].data[2] = 118;
	CHECK_EQ(cisp_iq_image_from_cisp(&out, &in, CISP_TRANSFER_SRGB), 0);
	CHECK_NEAR(out.data[0], 1, 1e-6);
	CHECK_NEAR(out.data[1], 0, 1e-6);
	CHECK_NEAR(out.data[2], 0.1812, 1e-3);
	CHECK_EQ(out.channels, 3);
	cisp_iq_image_free(&out);
	cisp_image_free(&in);
	/* RGB48 linear: samples / 65535. */
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_RGB48, 16, 16), 0);
	in.plane[0].data[0] = 0x00;
	in.plane[0].data[1] = 0x80;
	CHECK_EQ(cisp_iq_image_from_cisp(&out, &in, CISP_TRANSFER_LINEAR), 0);
	CHECK_NEAR(out.data[0], 32768 / 65535.0, 1e-7);
	cisp_iq_image_free(&out);
	cisp_image_free(&in);
	/* A Bayer frame: channel B of BGGR is at (0,0); black 64, white 1023. */
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_SBGGR10, 16, 16), 0);
	in.plane[0].data[0] = 0x40 + 0x20; /* 96 */
	in.plane[0].data[1] = 0;
	CHECK_EQ(cisp_iq_image_from_bayer(&out, &in, CISP_CH_B, 64, 1023), 0);
	CHECK_EQ(out.width, 8);
	CHECK_NEAR(out.data[0], 32 / 959.0, 1e-6);
	cisp_iq_image_free(&out);
	CHECK_ERR(cisp_iq_image_from_bayer(&out, &in, 4, 64, 1023), -EINVAL, "channel 4");
	cisp_image_free(&in);
	CHECK_EQ(cisp_image_alloc(&in, CISP_FMT_NV12, 16, 16), 0);
	CHECK_ERR(cisp_iq_image_from_cisp(&out, &in, CISP_TRANSFER_SRGB), -EINVAL, "NV12");
	cisp_image_free(&in);
	/* Raster from a file: 8-bit sRGB. */
	CHECK_EQ(cisp_raster_alloc(&r, 4, 4, 1, 255), 0);
	r.data[0] = 255;
	CHECK_EQ(cisp_iq_image_from_raster(&out, &r, CISP_TRANSFER_SRGB), 0);
	CHECK_NEAR(out.data[0], 1, 1e-6);
	CHECK_NEAR(out.data[1], 0, 1e-6);
	cisp_iq_image_free(&out);
	cisp_raster_free(&r);
}
