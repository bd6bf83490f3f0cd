/* SPDX-License-Identifier: MIT */
/*
 * The colour matrix for a light (control/colour_matrix.c): on the
 * white-balance curve the tuning's matrices interpolated by colour
 * temperature as before; off it, the off-curve entries of the grey's side
 * blended in proportion to its tint beyond 0.01, never beyond them, each
 * exact at its own place; and the sign of a grey's tint (awb_curve_tint()).
 */
#include <math.h>
#include <string.h>

#include <cisp/tuning.h>

#include "control/awb.h"
#include "control/colour_matrix.h"
#include "control/tuning.h"
#include "test.h"

/* A curve from 2856 K to 6500 K, matrices on it at both ends and one off it (green side) at 4000 K. */
static const char tuning_text[] =
	"version: 1\nsensor: s\n"
	"awb:\n  ct:\n    - {ct: 2856, r_over_g: 1.0, b_over_g: 0.4}\n    - {ct: 6500, r_over_g: 0.6, b_over_g: 0.7}\n"
	"ccm:\n"
	"  - {ct: 2856, matrix: [[2, -1, 0], [-0.5, 1.5, 0], [0, -1, 2]]}\n"
	"  - {ct: 4000, tint: 0.05, matrix: [[1.2, -0.2, 0], [-0.1, 1.2, -0.1], [0, -0.4, 1.4]]}\n"
	"  - {ct: 6500, matrix: [[1.6, -0.6, 0], [-0.2, 1.4, -0.2], [0, -0.5, 1.5]]}\n"
	"noise: [{gain: 1, a: [1, 1, 1, 1], b: [1, 1, 1, 1]}]\n";

static double mired_fraction(double ct)
{
	return (1e6 / 2856 - 1e6 / ct) / (1e6 / 2856 - 1e6 / 6500);
}

TEST(colour_matrix_off_the_curve)
{
	struct cisp_tuning *t = NULL;
	double m[3][3], on[3][3], f = mired_fraction(4000);

	CHECK_EQ(cisp_tuning_parse(&t, tuning_text, strlen(tuning_text), "t.yaml"), 0);
	if (!t)
		return;
	CHECK_EQ(t->ccm_count, 3);
	CHECK_NEAR(t->ccm[1].tint, 0.05, 1e-12);
	/* On the curve: the two on-curve entries, linear in mired; the off-curve one plays no part. */
	colour_matrix_at(t, 4000, 0, on);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			CHECK_NEAR(on[i][j], t->ccm[0].m[i][j] + f * (t->ccm[2].m[i][j] - t->ccm[0].m[i][j]), 1e-12);
	/* At the off-curve light's own place: its matrix. */
	colour_matrix_at(t, 4000, 0.05, m);
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			CHECK_NEAR(m[i][j], t->ccm[1].m[i][j], 1e-12);
	/*
	 * Within 0.01 of the curve (what AWB cannot tell from it): the curve's;
	 * halfway from there to the entry: halfway between; further out than
	 * any entry: no further than the entry.
	 */
	colour_matrix_at(t, 4000, 0.01, m);
	CHECK_NEAR(m[0][0], on[0][0], 1e-12);
	colour_matrix_at(t, 4000, 0.03, m);
	CHECK_NEAR(m[0][0], (on[0][0] + 1.2) / 2, 1e-12);
	colour_matrix_at(t, 4000, 0.2, m);
	CHECK_NEAR(m[0][0], 1.2, 1e-12);
	/* The other side has no entry: the curve's matrix. */
	colour_matrix_at(t, 4000, -0.05, m);
	CHECK_NEAR(m[0][0], on[0][0], 1e-12);
	/* Two lamps AWB places at one temperature, apart in tint: each gets its own matrix. */
	{
		static const char two[] =
			"version: 1\nsensor: s\n"
			"awb:\n  ct:\n    - {ct: 2856, r_over_g: 1.0, b_over_g: 0.4}\n    - {ct: 6500, r_over_g: 0.6, b_over_g: 0.7}\n"
			"ccm:\n"
			"  - {ct: 4000, matrix: [[2, -1, 0], [-0.5, 1.5, 0], [0, -1, 2]]}\n"
			"  - {ct: 4000, tint: 0.05, matrix: [[1.2, -0.2, 0], [-0.1, 1.2, -0.1], [0, -0.4, 1.4]]}\n"
			"  - {ct: 4000, tint: 0.07, matrix: [[1.4, -0.3, -0.1], [-0.1, 1.3, -0.2], [0, -0.6, 1.6]]}\n"
			"noise: [{gain: 1, a: [1, 1, 1, 1], b: [1, 1, 1, 1]}]\n";
		struct cisp_tuning *t2 = NULL;

		CHECK_EQ(cisp_tuning_parse(&t2, two, strlen(two), "two.yaml"), 0);
		if (t2) {
			colour_matrix_at(t2, 4000, 0.05, m);
			CHECK_NEAR(m[0][0], 1.2, 1e-9);
			CHECK_NEAR(m[2][2], 1.4, 1e-9);
			colour_matrix_at(t2, 4000, 0.07, m);
			CHECK_NEAR(m[0][0], 1.4, 1e-9);
			CHECK_NEAR(m[2][2], 1.6, 1e-9);
			/* Between them: between their matrices. */
			colour_matrix_at(t2, 4000, 0.06, m);
			CHECK(m[0][0] > 1.2 && m[0][0] < 1.4);
			cisp_tuning_free(t2);
		}
	}
	/* Rows still sum to 1 anywhere. */
	colour_matrix_at(t, 3000, 0.03, m);
	for (int i = 0; i < 3; i++)
		CHECK_NEAR(m[i][0] + m[i][1] + m[i][2], 1, 1e-12);
	cisp_tuning_free(t);
}

TEST(colour_matrix_tint_sign)
{
	struct cisp_tuning *t = NULL;
	double ct, mid[2] = { 0.8, 0.55 };

	CHECK_EQ(cisp_tuning_parse(&t, tuning_text, strlen(tuning_text), "t.yaml"), 0);
	if (!t)
		return;
	/* On the curve's middle: no tint. */
	CHECK_NEAR(awb_curve_tint(t, mid, &ct), 0, 1e-12);
	CHECK_NEAR(1e6 / ct, (1e6 / 2856 + 1e6 / 6500) / 2, 1e-6);
	/* Less red and less blue than the curve: a green light, positive; more of both: magenta, negative. */
	CHECK(awb_curve_tint(t, (double[2]){ 0.78, 0.53 }, &ct) > 0.02);
	CHECK(awb_curve_tint(t, (double[2]){ 0.82, 0.57 }, &ct) < -0.02);
	/* Its distance from the straight curve: |(-0.4, 0.3) x (-0.22, 0.13)| / 0.5. */
	CHECK_NEAR(awb_curve_tint(t, (double[2]){ 0.78, 0.53 }, &ct), 0.028, 1e-9);
	cisp_tuning_free(t);
}
