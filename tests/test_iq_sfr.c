/* SPDX-License-Identifier: MIT */
/*
 * Slanted-edge SFR against analytic answers: an edge blurred by a Gaussian of
 * sigma s has MTF(f) = exp(-2 pi^2 s^2 f^2), so MTF50 = sqrt(ln 2 / 2) / (pi s).
 */
#include <errno.h>
#include <math.h>

#include <cisp/error.h>
#include <cisp/iq.h>

#include "test.h"

#define W 128
#define H 128

static double phi(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

/*
 * An edge through the image centre at @angle degrees from the vertical (or
 * horizontal with @horizontal), dark @lo to bright @hi, blurred by a Gaussian
 * of @sigma. @aperture > 1 integrates each pixel over aperture x aperture
 * points (a 100 % fill-factor pixel); 1 samples the pixel centre.
 */
static void make_edge(struct cisp_iq_image *img, double angle, double sigma, double lo, double hi, bool horizontal,
		      int aperture, double bump)
{
	double t = tan(angle * M_PI / 180), c = cos(angle * M_PI / 180);

	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			double sum = 0;

			for (int j = 0; j < aperture; j++)
				for (int i = 0; i < aperture; i++) {
					double fx = x + (aperture > 1 ? (i + 0.5) / aperture - 0.5 : 0);
					double fy = y + (aperture > 1 ? (j + 0.5) / aperture - 0.5 : 0);
					double u = horizontal ? fy - H / 2.0 : fx - W / 2.0;
					double v = horizontal ? fx - W / 2.0 : fy - H / 2.0;
					double s = (u - t * v) * c; /* signed distance across the edge */

					sum += phi(s / sigma) + bump * exp(-(s - 2) * (s - 2) / 2);
				}
			img->data[y * img->stride + x] = (float)(lo + (hi - lo) * sum / (aperture * aperture));
		}
}

static double gauss_mtf50(double sigma)
{
	return sqrt(log(2.0) / 2) / (M_PI * sigma);
}

TEST(iq_sfr_gaussian_edges_match_analytic_mtf50)
{
	struct cisp_iq_image img;
	struct cisp_iq_rect roi = { 24, 24, 80, 80 };
	static struct cisp_iq_sfr_result r;
	const double sigmas[] = { 0.5, 0.8, 1.0, 1.5, 2.0, 3.0 };

	CHECK_EQ(cisp_iq_image_alloc(&img, W, H, 1), 0);
	for (unsigned k = 0; k < sizeof(sigmas) / sizeof(sigmas[0]); k++) {
		double s = sigmas[k], want = gauss_mtf50(s);

		make_edge(&img, 5, s, 0.1, 0.8, false, 1, 0);
		CHECK_EQ(cisp_iq_sfr(&img, &roi, -1, &r), 0);
		if (fabs(r.mtf50 / want - 1) > 0.03)
			test_fail(__FILE__, __LINE__, "sigma %.2f: MTF50 %.4f, analytic %.4f (%.2f%%)", s, r.mtf50,
				  want, 100 * (r.mtf50 / want - 1));
		CHECK(r.vertical);
		CHECK_NEAR(r.angle_deg, 5, 0.05);
		CHECK_NEAR(r.low, 0.1, 1e-3);
		CHECK_NEAR(r.high, 0.8, 1e-3);
		/* The whole curve, at half Nyquist, and the 10-90 % rise of 2 * 1.2816 sigma. */
		CHECK_NEAR(r.mtf_nyq2, exp(-2 * M_PI * M_PI * s * s * 0.0625), 0.02);
		CHECK_NEAR(r.mtf[10], exp(-2 * M_PI * M_PI * s * s * 0.01), 0.02);
		CHECK_NEAR(r.rise_10_90, 2 * 1.28155 * s, 0.05 * s + 0.05);
		CHECK_NEAR(r.esf[CISP_IQ_ESF_POINTS / 2], 0.5, 0.01);
		CHECK_NEAR(r.overshoot_pct, 0, 0.5);
		CHECK_NEAR(r.mtf[0], 1, 1e-9);
	}
	cisp_iq_image_free(&img);
}

TEST(iq_sfr_orientation_polarity_and_angle)
{
	struct cisp_iq_image img;
	struct cisp_iq_rect roi = { 24, 24, 80, 80 };
	static struct cisp_iq_sfr_result r;
	const double s = 1.2, want = gauss_mtf50(1.2);

	CHECK_EQ(cisp_iq_image_alloc(&img, W, H, 1), 0);
	/* Near-horizontal edge, bright to dark. */
	make_edge(&img, -4, s, 0.9, 0.05, true, 1, 0);
	CHECK_EQ(cisp_iq_sfr(&img, &roi, -1, &r), 0);
	CHECK(!r.vertical);
	CHECK_NEAR(r.mtf50, want, 0.03 * want);
	CHECK_NEAR(r.low, 0.05, 1e-3);
	CHECK_NEAR(r.high, 0.9, 1e-3);
	/* A steeper slant (10 degrees): the frequency axis is corrected to across the edge. */
	make_edge(&img, 10, s, 0.05, 0.9, false, 1, 0);
	CHECK_EQ(cisp_iq_sfr(&img, &roi, -1, &r), 0);
	CHECK_NEAR(r.angle_deg, 10, 0.05);
	CHECK_NEAR(r.mtf50, want, 0.03 * want);
	cisp_iq_image_free(&img);
}

/* MTF of a Gaussian times a square pixel aperture seen across an edge at @angle. */
static double aperture_mtf(double sigma, double angle, double f)
{
	double a = f * cos(angle * M_PI / 180), b = f * sin(angle * M_PI / 180);
	double sa = a > 0 ? sin(M_PI * a) / (M_PI * a) : 1, sb = b > 0 ? sin(M_PI * b) / (M_PI * b) : 1;

	return exp(-2 * M_PI * M_PI * sigma * sigma * f * f) * sa * sb;
}

TEST(iq_sfr_pixel_aperture_and_noise)
{
	struct cisp_iq_image img;
	struct cisp_iq_rect roi = { 24, 24, 80, 80 };
	static struct cisp_iq_sfr_result r;
	double lo = 0, hi = 1, want;

	CHECK_EQ(cisp_iq_image_alloc(&img, W, H, 1), 0);
	make_edge(&img, 5, 0.6, 0.1, 0.8, false, 8, 0);
	for (int it = 0; it < 60; it++) {
		double m = (lo + hi) / 2;

		if (aperture_mtf(0.6, 5, m) > 0.5)
			lo = m;
		else
			hi = m;
	}
	want = (lo + hi) / 2;
	CHECK_EQ(cisp_iq_sfr(&img, &roi, -1, &r), 0);
	CHECK_NEAR(r.mtf50, want, 0.03 * want);
	CHECK_NEAR(r.mtf_nyq, aperture_mtf(0.6, 5, 0.5), 0.03);

	/* Gaussian noise of 1 % of the step: the estimate stays within 5 %. */
	make_edge(&img, 5, 1.0, 0.1, 0.8, false, 1, 0);
	for (int i = 0; i < W * H; i += 2) {
		double u1 = ((test_rand() >> 11) + 0.5) / 9007199254740992.0, u2 = (test_rand() >> 11) / 9007199254740992.0;
		double g = sqrt(-2 * log(u1));

		img.data[i] += (float)(0.007 * g * cos(2 * M_PI * u2));
		img.data[i + 1] += (float)(0.007 * g * sin(2 * M_PI * u2));
	}
	CHECK_EQ(cisp_iq_sfr(&img, &roi, -1, &r), 0);
	CHECK_NEAR(r.mtf50, gauss_mtf50(1.0), 0.05 * gauss_mtf50(1.0));
	cisp_iq_image_free(&img);
}

TEST(iq_sfr_overshoot_and_rgb)
{
	struct cisp_iq_image grey, rgb;
	struct cisp_iq_rect roi = { 24, 24, 80, 80 };
	static struct cisp_iq_sfr_result r;

	CHECK_EQ(cisp_iq_image_alloc(&grey, W, H, 1), 0);
	/* A halo: a Gaussian bump of 10 % of the step, 2 pixels on the bright side. */
	make_edge(&grey, 5, 0.7, 0.0, 1.0, false, 1, 0.1);
	CHECK_EQ(cisp_iq_sfr(&grey, &roi, -1, &r), 0);
	CHECK_NEAR(r.overshoot_pct, 10.0, 0.5);
	CHECK_NEAR(r.undershoot_pct, 0, 0.2);
	/* In an RGB image each channel can be measured on its own: blue blurred more. */
	CHECK_EQ(cisp_iq_image_alloc(&rgb, W, H, 3), 0);
	make_edge(&grey, 5, 1.0, 0.1, 0.8, false, 1, 0);
	for (int i = 0; i < W * H; i++)
		rgb.data[3 * i] = rgb.data[3 * i + 1] = grey.data[i];
	make_edge(&grey, 5, 2.0, 0.1, 0.8, false, 1, 0);
	for (int i = 0; i < W * H; i++)
		rgb.data[3 * i + 2] = grey.data[i];
	CHECK_EQ(cisp_iq_sfr(&rgb, &roi, 2, &r), 0);
	CHECK_NEAR(r.mtf50, gauss_mtf50(2.0), 0.03 * gauss_mtf50(2.0));
	CHECK_EQ(cisp_iq_sfr(&rgb, &roi, 1, &r), 0);
	CHECK_NEAR(r.mtf50, gauss_mtf50(1.0), 0.03 * gauss_mtf50(1.0));
	cisp_iq_image_free(&rgb);
	cisp_iq_image_free(&grey);
}

TEST(iq_sfr_rejects_bad_regions)
{
	struct cisp_iq_image img;
	static struct cisp_iq_sfr_result r;

	CHECK_EQ(cisp_iq_image_alloc(&img, W, H, 1), 0);
	make_edge(&img, 0.2, 1.0, 0.1, 0.8, false, 1, 0);
	CHECK_ERR(cisp_iq_sfr(&img, &(struct cisp_iq_rect){ 24, 24, 80, 80 }, -1, &r), -EINVAL, "at least 1");
	CHECK_ERR(cisp_iq_sfr(&img, &(struct cisp_iq_rect){ 120, 24, 80, 80 }, -1, &r), -EINVAL, "outside");
	CHECK_ERR(cisp_iq_sfr(&img, &(struct cisp_iq_rect){ 0, 0, 8, 80 }, -1, &r), -EINVAL, "smaller than 16x16");
	CHECK_ERR(cisp_iq_sfr(&img, &(struct cisp_iq_rect){ 24, 24, 80, 80 }, 2, &r), -EINVAL, "channel 2");
	for (int i = 0; i < W * H; i++)
		img.data[i] = 0.5f;
	CHECK_ERR(cisp_iq_sfr(&img, &(struct cisp_iq_rect){ 24, 24, 80, 80 }, -1, &r), -EINVAL, "no edge");
	cisp_iq_image_free(&img);
}
