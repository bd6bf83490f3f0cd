/* SPDX-License-Identifier: MIT */
/* Image-quality lab: colorimetry, CIEDE2000, colour evaluation and CCM fitting. */
#include <errno.h>
#include <math.h>

#include <cisp/error.h>
#include <cisp/iq.h>

#include "iq/plane_fit.h"
#include "test.h"

/*
 * Sharma, Wu & Dalal, "The CIEDE2000 color-difference formula: implementation
 * notes, supplementary test data, and mathematical observations", Color Res.
 * Appl. 30(1), 2005, table 1: L*a*b* of each pair and the expected ΔE00.
 */
static const double sharma[34][7] = {
	{ 50.0000, 2.6772, -79.7751, 50.0000, 0.0000, -82.7485, 2.0425 },
	{ 50.0000, 3.1571, -77.2803, 50.0000, 0.0000, -82.7485, 2.8615 },
	{ 50.0000, 2.8361, -74.0200, 50.0000, 0.0000, -82.7485, 3.4412 },
	{ 50.0000, -1.3802, -84.2814, 50.0000, 0.0000, -82.7485, 1.0000 },
	{ 50.0000, -1.1848, -84.8006, 50.0000, 0.0000, -82.7485, 1.0000 },
	{ 50.0000, -0.9009, -85.5211, 50.0000, 0.0000, -82.7485, 1.0000 },
	{ 50.0000, 0.0000, 0.0000, 50.0000, -1.0000, 2.0000, 2.3669 },
	{ 50.0000, -1.0000, 2.0000, 50.0000, 0.0000, 0.0000, 2.3669 },
	{ 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0009, 7.1792 },
	{ 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0010, 7.1792 },
	{ 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0011, 7.2195 },
	{ 50.0000, 2.4900, -0.0010, 50.0000, -2.4900, 0.0012, 7.2195 },
	{ 50.0000, -0.0010, 2.4900, 50.0000, 0.0009, -2.4900, 4.8045 },
	{ 50.0000, -0.0010, 2.4900, 50.0000, 0.0010, -2.4900, 4.8045 },
	{ 50.0000, -0.0010, 2.4900, 50.0000, 0.0011, -2.4900, 4.7461 },
	{ 50.0000, 2.5000, 0.0000, 50.0000, 0.0000, -2.5000, 4.3065 },
	{ 50.0000, 2.5000, 0.0000, 73.0000, 25.0000, -18.0000, 27.1492 },
	{ 50.0000, 2.5000, 0.0000, 61.0000, -5.0000, 29.0000, 22.8977 },
	{ 50.0000, 2.5000, 0.0000, 56.0000, -27.0000, -3.0000, 31.9030 },
	{ 50.0000, 2.5000, 0.0000, 58.0000, 24.0000, 15.0000, 19.4535 },
	{ 50.0000, 2.5000, 0.0000, 50.0000, 3.1736, 0.5854, 1.0000 },
	{ 50.0000, 2.5000, 0.0000, 50.0000, 3.2972, 0.0000, 1.0000 },
	{ 50.0000, 2.5000, 0.0000, 50.0000, 1.8634, 0.5757, 1.0000 },
	{ 50.0000, 2.5000, 0.0000, 50.0000, 3.2592, 0.3350, 1.0000 },
	{ 60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644 },
	{ 63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.2630 },
	{ 61.2901, 3.7196, -5.3901, 61.4292, 2.2480, -4.9620, 1.8731 },
	{ 35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645 },
	{ 22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373 },
	{ 36.4612, 47.8580, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146 },
	{ 90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441 },
	{ 90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381 },
	{ 6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377 },
	{ 2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082 },
};

TEST(iq_de2000_sharma_pairs)
{
	for (int i = 0; i < 34; i++) {
		double de = cisp_iq_delta_e2000(&sharma[i][0], &sharma[i][3]);
		double rev = cisp_iq_delta_e2000(&sharma[i][3], &sharma[i][0]);

		/* The published values have 4 decimals: match them to rounding. */
		if (fabs(de - sharma[i][6]) > 0.5e-4 + 1e-9)
			test_fail(__FILE__, __LINE__, "pair %d: dE00 %.6f, published %.4f", i + 1, de, sharma[i][6]);
		CHECK_NEAR(rev, de, 1e-9);
	}
	/* Identical colours, and a pure lightness difference (dL / SL at L 50 with SL = 1). */
	CHECK_NEAR(cisp_iq_delta_e2000(sharma[0], sharma[0]), 0, 1e-12);
	CHECK_NEAR(cisp_iq_delta_e2000((double[]){ 49.5, 0, 0 }, (double[]){ 50.5, 0, 0 }), 1.0, 1e-12);
	CHECK_NEAR(cisp_iq_delta_e76((double[]){ 50, 0, 0 }, (double[]){ 53, 4, 0 }), 5.0, 1e-12);
}

TEST(iq_lab_and_srgb_conversions)
{
	double lab[3], xyz[3], back[3], rgb[3];

	cisp_iq_xyz_to_lab(cisp_iq_white_d50, cisp_iq_white_d50, lab);
	CHECK_NEAR(lab[0], 100, 1e-9);
	CHECK_NEAR(lab[1], 0, 1e-9);
	CHECK_NEAR(lab[2], 0, 1e-9);
	/* 18 % grey: L* = 116 * 0.18^(1/3) - 16 = 49.496. */
	xyz[0] = 0.18 * cisp_iq_white_d65[0];
	xyz[1] = 0.18;
	xyz[2] = 0.18 * cisp_iq_white_d65[2];
	cisp_iq_xyz_to_lab(xyz, cisp_iq_white_d65, lab);
	CHECK_NEAR(lab[0], 116 * cbrt(0.18) - 16, 1e-9);
	/* Round trips, including the linear segment near black (Y < 0.008856). */
	for (double y = 0.001; y < 1.2; y *= 1.7) {
		double in[3] = { 0.9 * y, y, 0.7 * y };

		cisp_iq_xyz_to_lab(in, cisp_iq_white_d50, lab);
		cisp_iq_lab_to_xyz(lab, cisp_iq_white_d50, back);
		for (int c = 0; c < 3; c++)
			CHECK_NEAR(back[c], in[c], 1e-9);
	}
	/* sRGB white is the D65 white; the primaries' Y are the luminance weights. */
	cisp_iq_srgb_to_xyz((double[]){ 1, 1, 1 }, xyz);
	for (int c = 0; c < 3; c++)
		CHECK_NEAR(xyz[c], cisp_iq_white_d65[c], 2e-4);
	cisp_iq_srgb_to_xyz((double[]){ 0, 1, 0 }, xyz);
	CHECK_NEAR(xyz[1], 0.7152, 1e-12);
	cisp_iq_xyz_to_srgb(cisp_iq_white_d65, rgb);
	for (int c = 0; c < 3; c++)
		CHECK_NEAR(rgb[c], 1, 1e-3);
	/* Transfer functions: the published break points and their inverses. */
	CHECK_NEAR(cisp_iq_encode(CISP_TRANSFER_SRGB, 0.0031308), 0.0404500, 1e-6);
	CHECK_NEAR(cisp_iq_encode(CISP_TRANSFER_SRGB, 0.18), 0.4613561, 1e-6);
	CHECK_NEAR(cisp_iq_encode(CISP_TRANSFER_BT709, 0.0179), 4.5 * 0.0179, 1e-12);
	CHECK_NEAR(cisp_iq_encode(CISP_TRANSFER_BT709, 0.5), 1.099 * pow(0.5, 0.45) - 0.099, 1e-12);
	for (double v = 0; v <= 1; v += 0.01) {
		CHECK_NEAR(cisp_iq_linearize(CISP_TRANSFER_SRGB, cisp_iq_encode(CISP_TRANSFER_SRGB, v)), v, 1e-9);
		CHECK_NEAR(cisp_iq_linearize(CISP_TRANSFER_BT709, cisp_iq_encode(CISP_TRANSFER_BT709, v)), v, 1e-4);
	}
	/* Bradford maps one white onto the other and is undone by the reverse adaptation. */
	cisp_iq_adapt(cisp_iq_white_d65, cisp_iq_white_d65, cisp_iq_white_d50, xyz);
	for (int c = 0; c < 3; c++)
		CHECK_NEAR(xyz[c], cisp_iq_white_d50[c], 1e-6);
	cisp_iq_adapt((double[]){ 0.3, 0.2, 0.1 }, cisp_iq_white_d65, cisp_iq_white_d50, xyz);
	cisp_iq_adapt(xyz, cisp_iq_white_d50, cisp_iq_white_d65, back);
	CHECK_NEAR(back[0], 0.3, 1e-6);
	CHECK_NEAR(back[1], 0.2, 1e-6);
	CHECK_NEAR(back[2], 0.1, 1e-6);
	/* Angular error: 90 degrees between axes, 0 between parallel vectors. */
	CHECK_NEAR(cisp_iq_angular_error((double[]){ 1, 0, 0 }, (double[]){ 0, 2, 0 }), 90, 1e-9);
	CHECK_NEAR(cisp_iq_angular_error((double[]){ 1, 1, 1 }, (double[]){ 2, 2, 2 }), 0, 1e-6);
	CHECK_NEAR(cisp_iq_angular_error((double[]){ 1, 1, 0 }, (double[]){ 1, 0, 0 }), 45, 1e-9);
}

/* The exact linear sRGB rendering of the ColorChecker reference (D50 adapted to D65). */
static void colorchecker_srgb(double out[24][3])
{
	const struct cisp_iq_colorchecker_patch *cc = cisp_iq_colorchecker();

	for (int i = 0; i < 24; i++) {
		double xyz[3];

		cisp_iq_lab_to_xyz(cc[i].lab_d50, cisp_iq_white_d50, xyz);
		cisp_iq_adapt(xyz, cisp_iq_white_d50, cisp_iq_white_d65, xyz);
		cisp_iq_xyz_to_srgb(xyz, out[i]);
	}
}

TEST(iq_colorchecker_evaluation)
{
	static struct cisp_iq_color_result res, res2;
	const struct cisp_iq_color_options exposure = { .exposure = true }, both = { .exposure = true, .white = true };
	double m[24][3], scaled[24][3], tinted[24][3];

	CHECK(!strcmp(cisp_iq_colorchecker()[0].name, "dark skin"));
	CHECK(!strcmp(cisp_iq_colorchecker()[23].name, "black 2"));
	CHECK_NEAR(cisp_iq_colorchecker()[18].lab_d50[0], 95.19, 1e-9);
	colorchecker_srgb(m);
	/* A perfect rendering scores 0 (to the 4-decimal sRGB matrices). */
	CHECK_EQ(cisp_iq_colorchecker_evaluate((const double(*)[3])m, NULL, &res), 0);
	CHECK_EQ(res.count, 24);
	CHECK(res.mean_de00 < 0.01);
	CHECK(res.wb_error_deg < 0.05);
	CHECK_NEAR(res.exposure_scale, 1, 0);
	CHECK_NEAR(res.patch[14].ref_lab[1], 51.05, 1e-6);
	CHECK(res.patch[18].neutral && !res.patch[17].neutral);
	/* The swatch colours are the sRGB encoding: neutral 5 (L* 50.76) is about 0.47. */
	CHECK_NEAR(res.patch[21].ref_srgb[1], 0.47, 0.02);

	/* 20 % under-exposed: large error until exposure normalisation restores it exactly. */
	for (int i = 0; i < 24; i++)
		for (int c = 0; c < 3; c++)
			scaled[i][c] = 0.8 * m[i][c];
	CHECK_EQ(cisp_iq_colorchecker_evaluate((const double(*)[3])scaled, NULL, &res), 0);
	CHECK(res.mean_de00 > 3);
	CHECK(res.wb_error_deg < 0.05);
	CHECK_EQ(cisp_iq_colorchecker_evaluate((const double(*)[3])scaled, &exposure, &res), 0);
	CHECK(res.mean_de00 < 0.01);
	CHECK_NEAR(res.exposure_scale, 1.25, 1e-3);

	/* A white-balance error: red +10 %, blue -10 %. The angle between (1.1, 1, 0.9) and (1, 1, 1). */
	for (int i = 0; i < 24; i++) {
		tinted[i][0] = 1.1 * m[i][0];
		tinted[i][1] = m[i][1];
		tinted[i][2] = 0.9 * m[i][2];
	}
	CHECK_EQ(cisp_iq_colorchecker_evaluate((const double(*)[3])tinted, &exposure, &res), 0);
	CHECK_NEAR(res.wb_error_deg, acos(3.0 / sqrt(3 * (1.21 + 1 + 0.81))) * 180 / M_PI, 0.05);
	CHECK_EQ(cisp_iq_colorchecker_evaluate((const double(*)[3])tinted, &both, &res2), 0);
	CHECK(res.mean_de00 > 2.5);
	CHECK(res2.mean_de00 < 0.6);
	/* Neutral patches are exactly neutral again after white normalisation, to the chart's own tints. */
	CHECK(res2.patch[20].de00 < 0.3);

	CHECK_ERR(cisp_iq_color_evaluate((const double(*)[3])m, (const double(*)[3])m, cisp_iq_white_d50, NULL, NULL, 0,
					 NULL, &res),
		  -EINVAL, "1..64");
	m[3][1] = NAN;
	CHECK_ERR(cisp_iq_colorchecker_evaluate((const double(*)[3])m, NULL, &res), -EINVAL, "patch 3");
}

TEST(iq_chart_patch_grid)
{
	/* A 6x4 chart whose grid spans (100,50)-(700,450): cells are 100x100. */
	const double corners[4][2] = { { 100, 50 }, { 700, 50 }, { 700, 450 }, { 100, 450 } };
	struct cisp_iq_rect r[24];

	cisp_iq_chart_patches(corners, 6, 4, 0.5, r);
	CHECK_EQ(r[0].x, 125);
	CHECK_EQ(r[0].y, 75);
	CHECK_EQ(r[0].width, 50);
	CHECK_EQ(r[0].height, 50);
	CHECK_EQ(r[23].x, 625);
	CHECK_EQ(r[23].y, 375);
	CHECK_EQ(r[7].x, 225);
	CHECK_EQ(r[7].y, 175);
}

TEST(iq_ccm_fit_recovers_a_known_matrix)
{
	/* Camera = M^-1 (target): the fit must find M; M's rows sum to 1. */
	const double mtrue[3][3] = { { 1.62, -0.45, -0.17 }, { -0.28, 1.51, -0.23 }, { 0.05, -0.52, 1.47 } };
	const struct cisp_iq_colorchecker_patch *cc = cisp_iq_colorchecker();
	double target[24][3], srgb[24][3], camera[24][3], minv[3][3];
	struct cisp_iq_ccm_fit fit;
	struct cisp_ccm_params p;
	const struct cisp_iq_ccm_fit_options refine = { .preserve_white = true, .refine_de2000 = true };
	double det;

	colorchecker_srgb(srgb);
	for (int i = 0; i < 24; i++)
		cisp_iq_lab_to_xyz(cc[i].lab_d50, cisp_iq_white_d50, target[i]);
	/* Invert M by cofactors. */
	det = mtrue[0][0] * (mtrue[1][1] * mtrue[2][2] - mtrue[1][2] * mtrue[2][1]) -
	      mtrue[0][1] * (mtrue[1][0] * mtrue[2][2] - mtrue[1][2] * mtrue[2][0]) +
	      mtrue[0][2] * (mtrue[1][0] * mtrue[2][1] - mtrue[1][1] * mtrue[2][0]);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;

			minv[i][j] = (mtrue[r0][c0] * mtrue[r1][c1] - mtrue[r0][c1] * mtrue[r1][c0]) / det;
		}
	for (int i = 0; i < 24; i++)
		for (int r = 0; r < 3; r++)
			camera[i][r] = minv[r][0] * srgb[i][0] + minv[r][1] * srgb[i][1] + minv[r][2] * srgb[i][2];
	CHECK_EQ(cisp_iq_fit_ccm((const double(*)[3])camera, (const double(*)[3])target, cisp_iq_white_d50, 24, NULL,
				 &fit), 0);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			CHECK_NEAR(fit.ccm[i][j], mtrue[i][j], 1e-3);
	CHECK(fit.mean_de00 < 0.02);
	CHECK_EQ(cisp_iq_fit_ccm((const double(*)[3])camera, (const double(*)[3])target, cisp_iq_white_d50, 24,
				 &refine, &fit), 0);
	CHECK(fit.mean_de00 < 0.02);
	for (int i = 0; i < 3; i++)
		CHECK_NEAR(fit.ccm[i][0] + fit.ccm[i][1] + fit.ccm[i][2], 1, 1e-12);

	/* The Q3.12 form: rounded, each row summing to exactly 4096. */
	CHECK_EQ(cisp_iq_ccm_to_params(mtrue, &p), 0);
	CHECK_EQ(p.header.type, CISP_BLOCK_CCM);
	CHECK_EQ(p.coeff[0], 6635); /* 6636 rounded, less 1 so the row sums to 4096 */
	CHECK_EQ(p.coeff[1], -1843);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(p.coeff[3 * i] + p.coeff[3 * i + 1] + p.coeff[3 * i + 2], 4096);
	CHECK_ERR(cisp_iq_ccm_to_params((const double[3][3]){ { 9, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } }, &p), -ERANGE,
		  "Q3.12");

	/* All-grey patches cannot determine a matrix. */
	for (int i = 0; i < 24; i++)
		camera[i][0] = camera[i][1] = camera[i][2] = 0.1 + 0.03 * i;
	CHECK_ERR(cisp_iq_fit_ccm((const double(*)[3])camera, (const double(*)[3])target, cisp_iq_white_d50, 24, NULL,
				  &fit),
		  -EINVAL, "do not determine");
}

TEST(iq_convergence)
{
	const double ae[] = { 10, 40, 70, 90, 97, 99, 101, 100, 100, 100 };
	const double bad[] = { 10, 40, 70, 90, 97, 99, 101, 100, 100, 95 };
	static struct cisp_iq_convergence c;

	CHECK_EQ(cisp_iq_convergence(ae, 10, 100, 2, &c), 0);
	CHECK(c.converged);
	CHECK_EQ(c.frames, 5);
	CHECK_NEAR(c.final_error, 0, 0);
	CHECK_EQ(cisp_iq_convergence(bad, 10, 100, 2, &c), 0);
	CHECK(!c.converged);
	CHECK_EQ(c.frames, -1);
	CHECK_NEAR(c.final_error, 5, 0);
	CHECK_ERR(cisp_iq_convergence(ae, 0, 100, 2, &c), -EINVAL, "frames");
	CHECK_ERR(cisp_iq_convergence(ae, 10, 100, -1, &c), -EINVAL, "tolerance");
}

TEST(iq_find_colorchecker_synthetic)
{
	struct cisp_iq_image img;
	double ref[24][3], corners[4][2], score;
	const double x0 = 130.5, y0 = 95.25, p = 55, g[3] = { 0.7, 0.8, 1.1 };

	colorchecker_srgb(ref);
	CHECK_EQ(cisp_iq_image_alloc(&img, 640, 480, 3), 0);
	for (int y = 0; y < 480; y++)
		for (int x = 0; x < 640; x++) {
			double u = (x + 0.5 - x0) / p, v = (y + 0.5 - y0) / p;
			int i = (int)floor(u), j = (int)floor(v);
			bool in = u >= 0 && v >= 0 && i < 6 && j < 4 && u - i >= 0.1 && u - i < 0.9 && v - j >= 0.1 && v - j < 0.9;

			for (int c = 0; c < 3; c++)
				img.data[(size_t)y * img.stride + 3 * x + c] =
					(float)((in ? g[c] * ref[j * 6 + i][c] : u >= -0.1 && v >= -0.1 && u < 6.1 && v < 4.1 ? 0.02 : 0.2) +
						0.01 * (((int)(test_rand() % 201)) - 100) / 100.0);
		}
	CHECK_EQ(cisp_iq_find_colorchecker(&img, corners, &score), 0);
	CHECK(score < 0.05);
	/* Point-sampled patch edges put each edge up to half a pixel off its true place. */
	CHECK_NEAR(corners[0][0], x0, 0.5);
	CHECK_NEAR(corners[0][1], y0, 0.5);
	CHECK_NEAR(corners[2][0], x0 + 6 * p, 0.5);
	CHECK_NEAR(corners[2][1], y0 + 4 * p, 0.5);
	/* Grey everywhere: nothing to find. */
	for (size_t i = 0; i < 640 * 480 * 3; i++)
		img.data[i] = 0.3f + 0.01f * (float)(test_rand() % 3);
	CHECK_ERR(cisp_iq_find_colorchecker(&img, corners, &score), -ENOENT, "no ColorChecker found");
	cisp_iq_image_free(&img);
}

TEST(iq_plane_fit_at_origin)
{
	struct plane_fit f = { 0 }, line = { 0 }, none = { 0 };

	/* v = 10 + 2 dx - 3 dy on a window cut by an edge (not centred on the origin). */
	for (int dy = -1; dy <= 2; dy++)
		for (int dx = 0; dx <= 3; dx++)
			plane_fit_add(&f, dx, dy, 10 + 2 * dx - 3 * dy);
	CHECK_NEAR(plane_fit_at_origin(&f), 10, 1e-9);
	/* Samples on one line span no plane: their mean. */
	for (int dx = -2; dx <= 3; dx++)
		plane_fit_add(&line, dx, 0, dx);
	CHECK_NEAR(plane_fit_at_origin(&line), 0.5, 1e-12);
	CHECK_EQ(plane_fit_at_origin(&none), 0);
}
