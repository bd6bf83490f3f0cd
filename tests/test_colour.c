/* SPDX-License-Identifier: MIT */
/*
 * The blocks the camera algorithms write (control_prepare_params()): the
 * colour matrix and shading tables interpolated by colour temperature (in
 * mired), the noise profile and strengths by gain, white balance, black
 * level, tone and statistics in the ABI's fixed point.
 */
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/params_state.h>

#include "control/algorithm.h"
#include "control/awb.h"
#include "test.h"

static const double ccm_warm[3][3] = { { 2.0, -0.8, -0.2 }, { -0.4, 1.6, -0.2 }, { 0.1, -0.9, 1.8 } };
static const double ccm_cool[3][3] = { { 1.6, -0.5, -0.1 }, { -0.2, 1.4, -0.2 }, { 0.0, -0.5, 1.5 } };

/* Two matrices (2500 K, 6500 K), two flat shading tables (3000 K: 1.0, 6000 K: 2.0), two noise points. */
static struct cisp_tuning *make_tuning(void)
{
	struct cisp_tuning *t = NULL;

	CHECK_EQ(cisp_tuning_uncalibrated(&t), 0);
	if (!t)
		return NULL;
	t->ccm_count = 2;
	t->ccm[0].ct = 2500;
	memcpy(t->ccm[0].m, ccm_warm, sizeof(ccm_warm));
	t->ccm[1].ct = 6500;
	memcpy(t->ccm[1].m, ccm_cool, sizeof(ccm_cool));
	t->lsc_count = 2;
	t->lsc[0].ct = 3000;
	t->lsc[1].ct = 6000;
	for (int c = 0; c < 4; c++)
		for (int i = 0; i < TUNING_LSC_GRID * TUNING_LSC_GRID; i++) {
			t->lsc[0].gain[c][i] = 1.0f;
			t->lsc[1].gain[c][i] = 2.0f;
		}
	t->noise_count = 2;
	t->noise[0] = (struct tuning_noise){ 1, { 10, 10, 10, 10 }, { 100, 100, 100, 100 } };
	t->noise[1] = (struct tuning_noise){ 5, { 50, 50, 50, 50 }, { 2500, 2500, 2500, 2500 } };
	t->denoise_count = 2;
	t->denoise[0] = (struct tuning_denoise){ 1, 0.5, 2.0, 1.0, 100 };
	t->denoise[1] = (struct tuning_denoise){ 9, 1.5, 4.0, 0.5, 900 };
	return t;
}

static struct cisp_sensor_mode test_mode(void)
{
	struct cisp_sensor_mode m = { .width = 320, .height = 240, .bits = 10, .crop_width = 320, .crop_height = 240,
				      .binning = 1, .black_level = 64, .white_level = 1023 };

	return m;
}

/* Every camera algorithm's blocks for AWB's decision @a at sensor gain @gain and ISP gain @dgain. */
static int prepare(const struct cisp_tuning *t, const struct cisp_sensor_mode *m, const struct awb_result *a,
		   double gain, double dgain, struct cisp_param_state *ps)
{
	const double gains[2] = { a->gains[0] / a->gains[1], a->gains[2] / a->gains[1] };

	return control_prepare_params(t, m, gains, a->colour_temperature, gain, dgain, ps);
}

static double mired_mid(double a, double b)
{
	return 2 / (1 / a + 1 / b);
}

TEST(colour_ccm_by_mired)
{
	struct cisp_tuning *t = make_tuning();
	struct cisp_param_state *ps = calloc(1, sizeof(*ps));
	struct cisp_sensor_mode m = test_mode();
	struct awb_result a = { { 1, 1, 1 }, 2500, CISP_AWB_CONVERGED };
	size_t size;

	if (!t || !ps)
		goto out;
	cisp_param_state_init(ps);
	/* At a table entry, below the first and above the last: that entry's matrix. */
	for (int k = 0; k < 3; k++) {
		static const double cts[3] = { 2500, 1800, 9000 };
		const double(*want)[3] = k == 2 ? ccm_cool : ccm_warm;

		a.colour_temperature = cts[k];
		prepare(t, &m, &a, 1, 1, ps);
		for (int i = 0; i < 3; i++) {
			int sum = 0;

			for (int j = 0; j < 3; j++) {
				CHECK_NEAR(ps->ccm.coeff[3 * i + j], want[i][j] * 4096, 1);
				sum += ps->ccm.coeff[3 * i + j];
			}
			CHECK_EQ(sum, 4096);
		}
	}
	/* Half way in mired: the mean of the two matrices. */
	a.colour_temperature = mired_mid(2500, 6500);
	prepare(t, &m, &a, 1, 1, ps);
	for (int i = 0; i < 9; i++)
		CHECK_NEAR(ps->ccm.coeff[i], (ccm_warm[i / 3][i % 3] + ccm_cool[i / 3][i % 3]) / 2 * 4096, 1.5);
	CHECK(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM));
	/* Half way in kelvin is not half way. */
	a.colour_temperature = 4500;
	prepare(t, &m, &a, 1, 1, ps);
	CHECK(fabs(ps->ccm.coeff[0] - (2.0 + 1.6) / 2 * 4096) > 100);
	CHECK_EQ(cisp_params_encode(ps, ~0u, NULL, 0, &size), 0);
out:
	free(ps);
	cisp_tuning_free(t);
}

TEST(colour_lsc_wb_blc_tone)
{
	struct cisp_tuning *t = make_tuning();
	struct cisp_param_state *ps = calloc(1, sizeof(*ps));
	struct cisp_sensor_mode m = test_mode();
	struct awb_result a = { { 1.8, 1, 1.4 }, 0, CISP_AWB_CONVERGED };
	const int n = TUNING_LSC_GRID;
	int changed;
	size_t size;

	if (!t || !ps)
		goto out;
	cisp_param_state_init(ps);
	a.colour_temperature = mired_mid(3000, 6000);
	changed = prepare(t, &m, &a, 1, 2.0, ps);
	CHECK(changed & CISP_BLOCK_BIT(CISP_BLOCK_LSC));
	/* The statistics the algorithms read: 32 x 24 zones, the AF window on the middle half. */
	CHECK(changed & CISP_BLOCK_BIT(CISP_BLOCK_STATS));
	CHECK_EQ(ps->stats.zones_x, 32);
	CHECK_EQ(ps->stats.zones_y, 24);
	CHECK_EQ(ps->stats.af[0].x, 80);
	CHECK_EQ(ps->stats.af[0].width, 160);
	CHECK_EQ(ps->lsc.grid_w, n);
	CHECK_EQ(ps->lsc.grid_h, n);
	for (int i = 0; i < 4 * n * n; i++)
		CHECK_NEAR(ps->lsc.gain[i], 1.5 * 4096, 1);
	CHECK(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LSC));

	/* White balance carries the ISP's digital gain, Q4.12. */
	CHECK_EQ(ps->wb.gain[CISP_CH_R], lround(1.8 * 2 * 4096));
	CHECK_EQ(ps->wb.gain[CISP_CH_GR], 2 * 4096);
	CHECK_EQ(ps->wb.gain[CISP_CH_GB], 2 * 4096);
	CHECK_EQ(ps->wb.gain[CISP_CH_B], lround(1.4 * 2 * 4096));

	/* Black level: the mode's (codes at 10 bits shifted to 16), or the tuning's. */
	for (int c = 0; c < 4; c++)
		CHECK_EQ(ps->blc.black[c], 64 << 6);
	CHECK_EQ(ps->blc.white, 1023 << 6);
	t->black_level[0] = 60;
	t->black_level[1] = t->black_level[2] = t->black_level[3] = 62.5;
	CHECK(prepare(t, &m, &a, 1, 2.0, ps) == CISP_BLOCK_BIT(CISP_BLOCK_BLC));
	CHECK_EQ(ps->blc.black[0], 60 << 6);
	CHECK_EQ(ps->blc.black[3], 4000);

	/* The same inputs again: nothing changed. */
	CHECK_EQ(prepare(t, &m, &a, 1, 2.0, ps), 0);

	/* Tone: the sRGB curve by default, a pure power otherwise. */
	CHECK_EQ(ps->tone.transfer, CISP_TRANSFER_SRGB);
	CHECK_EQ(ps->tone.curve[128], 32768);
	t->gamma = 2.2;
	CHECK_EQ(prepare(t, &m, &a, 1, 2.0, ps), CISP_BLOCK_BIT(CISP_BLOCK_TONE));
	CHECK_EQ(ps->tone.transfer, CISP_TRANSFER_LINEAR);
	CHECK_NEAR(ps->tone.curve[64], 65535 * pow(0.25, 1 / 2.2), 1);
	CHECK_EQ(ps->tone.curve[256], 65535);

	/* Tables over the pixel array: a mode reading the right half sees the right half. */
	t->lsc_count = 1;
	t->lsc_array_width = 640;
	t->lsc_array_height = 240;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < n; i++)
			for (int c = 0; c < 4; c++)
				t->lsc[0].gain[c][j * n + i] = 1.0f + (float)i / (n - 1); /* 1 at the left, 2 at the right */
	m.crop_x = 320;
	prepare(t, &m, &a, 1, 2.0, ps);
	CHECK_NEAR(ps->lsc.gain[0], (1.5 + 0.5 / 639) * 4096, 8);
	CHECK_NEAR(ps->lsc.gain[n - 1], 2.0 * 4096, 8);
	CHECK_NEAR(ps->lsc.gain[n / 2], 1.75 * 4096, 8);

	/* No tables: shading correction off. */
	t->lsc_count = 0;
	CHECK(prepare(t, &m, &a, 1, 2.0, ps) & CISP_BLOCK_BIT(CISP_BLOCK_LSC));
	CHECK(!(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LSC)));
	CHECK_EQ(cisp_params_encode(ps, ~0u, NULL, 0, &size), 0);
out:
	free(ps);
	cisp_tuning_free(t);
}

TEST(colour_noise_and_strengths_by_gain)
{
	struct cisp_tuning *t = make_tuning();
	struct cisp_param_state *ps = calloc(1, sizeof(*ps));
	struct cisp_sensor_mode m = test_mode();
	struct awb_result a = { { 1, 1, 1 }, 5000, CISP_AWB_CONVERGED };

	if (!t || !ps)
		goto out;
	cisp_param_state_init(ps);
	prepare(t, &m, &a, 1, 1, ps);
	CHECK_EQ(ps->noise.a[0], 10 * 65536);
	CHECK_EQ(ps->noise.b[3], 100);
	CHECK_EQ(ps->bnr.strength, 128);
	CHECK_EQ(ps->cnr.strength, 512);
	CHECK_EQ(ps->sharpen.strength, 256);
	CHECK_EQ(ps->sharpen.coring, 100);
	CHECK(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BNR));
	/* Dynamic defect correction from the tuning, off at 0. */
	CHECK_EQ(ps->dpc.threshold, 4096);
	CHECK(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_DPC));
	t->defect_threshold = 0;
	CHECK(prepare(t, &m, &a, 1, 1, ps) & CISP_BLOCK_BIT(CISP_BLOCK_DPC));
	CHECK(!(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_DPC)));
	t->defect_threshold = 4096;

	/* Between table gains: linear. */
	prepare(t, &m, &a, 3, 1, ps);
	CHECK_EQ(ps->noise.a[1], 30 * 65536);
	CHECK_EQ(ps->noise.b[2], 1300);
	/* Strengths follow the overall gain: sensor 3 x ISP 1.5 = 4.5, between 1 and 9. */
	prepare(t, &m, &a, 3, 1.5, ps);
	CHECK_EQ(ps->noise.a[1], 30 * 65536); /* the raw data's profile: sensor gain only */
	CHECK_NEAR(ps->bnr.strength, (0.5 + 3.5 / 8) * 256, 1);
	CHECK_NEAR(ps->sharpen.coring, 100 + 3.5 / 8 * 800, 1);

	/* Beyond the last entry: shot noise grows with the gain, read noise with its square. */
	prepare(t, &m, &a, 10, 1, ps);
	CHECK_EQ(ps->noise.a[0], 100 * 65536);
	CHECK_EQ(ps->noise.b[0], 10000);
	/* Below the first: the first. */
	prepare(t, &m, &a, 0.5, 1, ps);
	CHECK_EQ(ps->noise.a[0], 10 * 65536);

	/* Zero strength turns the stage off. */
	t->denoise[0].bnr_strength = t->denoise[1].bnr_strength = 0;
	CHECK(prepare(t, &m, &a, 1, 1, ps) & CISP_BLOCK_BIT(CISP_BLOCK_BNR));
	CHECK(!(ps->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BNR)));
out:
	free(ps);
	cisp_tuning_free(t);
}
