/* SPDX-License-Identifier: MIT */
/*
 * The translation of the canonical params into the RkISP1's
 * (src/abi/rkisp1.c, docs/rkisp1.md) against values worked out by hand:
 * the register values it writes and what it says each block became.
 */
#include <errno.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/params_state.h>

#include "abi/rkisp1.h"
#include "test.h"

#define BIT(type) CISP_BLOCK_BIT(CISP_BLOCK_##type)

struct fixture {
	struct cisp_param_state state;
	struct rkisp1_params_cfg out;
	struct rkisp1_report report;
};

static struct fixture *fixture(void)
{
	struct fixture *f = calloc(1, sizeof(*f));

	cisp_param_state_init(&f->state);
	return f;
}

static int translate(struct fixture *f, unsigned bits)
{
	return rkisp1_translate(&f->state, 640, 480, bits, RKISP1_REV_V10, &f->out, &f->report);
}

#define FIT(f, type) ((f)->report.block[CISP_BLOCK_##type].fit)
#define ERROR(f, type) ((f)->report.block[CISP_BLOCK_##type].error)

TEST(rkisp1_defaults)
{
	struct fixture *f = fixture();

	CHECK_EQ(translate(f, 10), 0);
	/* Black 0, white 65535, gains 1.0: BLS needs nothing and the gains are 1.0 (256 in Q2.8). */
	CHECK_EQ(FIT(f, BLC), RKISP1_EXACT);
	CHECK_EQ(FIT(f, WB), RKISP1_EXACT);
	CHECK_EQ(ERROR(f, WB), 0);
	CHECK_EQ(f->out.others.awb_gain_config.gain_red, 256);
	CHECK_EQ(f->out.others.awb_gain_config.gain_green_b, 256);
	CHECK(!(f->out.module_ens & RKISP1_CIF_ISP_MODULE_BLS));
	CHECK(f->out.module_en_update & RKISP1_CIF_ISP_MODULE_BLS);
	CHECK(!(f->out.module_ens & RKISP1_CIF_ISP_MODULE_AWB_GAIN));
	/* The identity matrix is 0x80 on the diagonal. */
	CHECK_EQ(FIT(f, CCM), RKISP1_EXACT);
	CHECK_EQ(f->out.others.ctk_config.coeff[0][0], 0x80);
	CHECK_EQ(f->out.others.ctk_config.coeff[1][1], 0x80);
	CHECK_EQ(f->out.others.ctk_config.coeff[0][1], 0);
	CHECK(f->out.module_ens & RKISP1_CIF_ISP_MODULE_CTK);
	/*
	 * sRGB through 17 knots: the first segment (12-bit codes 0..64) is a
	 * chord of the curve's steepest part, 2% of full scale below it.
	 */
	CHECK_EQ(FIT(f, TONE), RKISP1_NOT_EXPRESSIBLE);
	CHECK(ERROR(f, TONE) > 1200 && ERROR(f, TONE) < 1400);
	CHECK_EQ(f->out.others.goc_config.mode, RKISP1_CIF_ISP_GOC_MODE_LOGARITHMIC);
	CHECK_EQ(f->out.others.goc_config.gamma_y[0], 0);
	CHECK_EQ(f->out.others.goc_config.gamma_y[16], 1023);
	/* Stages off by default, or without an effect. */
	CHECK_EQ(FIT(f, LSC), RKISP1_OFF);
	CHECK_EQ(FIT(f, DPC), RKISP1_OFF);
	CHECK_EQ(FIT(f, BNR), RKISP1_OFF);
	CHECK_EQ(FIT(f, CROP), RKISP1_OFF);
	CHECK_EQ(FIT(f, NOISE), RKISP1_OFF);
	/* What it never matches. */
	CHECK_EQ(FIT(f, DEMOSAIC), RKISP1_NOT_EXPRESSIBLE);
	CHECK_EQ(FIT(f, STATS), RKISP1_NOT_EXPRESSIBLE);
	CHECK_EQ(FIT(f, CSC), RKISP1_NOT_EXPRESSIBLE); /* BT.709 by default */
	free(f);
}

TEST(rkisp1_black_and_gains)
{
	struct fixture *f = fixture();

	/* A 10-bit black of 64 is 4096 in 16-bit units, 256 in 12-bit ones. */
	f->state.enabled |= BIT(BLC);
	for (int c = 0; c < 4; c++)
		f->state.blc.black[c] = 4096;
	f->state.blc.white = 65472; /* 10-bit 1023 */
	f->state.wb.gain[0] = 6144; /* 1.5 */
	CHECK_EQ(translate(f, 10), 0);
	CHECK_EQ(f->out.others.bls_config.fixed_val.r, 256);
	CHECK_EQ(f->out.others.bls_config.fixed_val.b, 256);
	CHECK_EQ(f->out.others.bls_config.enable_auto, 0);
	CHECK(f->out.module_ens & RKISP1_CIF_ISP_MODULE_BLS);
	/* The rescale 65535 / 61376 = 1.0678 rides on the gains: 256 * 1.0678 = 273.35, 1.5 of it 410.02. */
	CHECK_EQ(f->out.others.awb_gain_config.gain_green_r, 273);
	CHECK_EQ(f->out.others.awb_gain_config.gain_red, 410);
	CHECK(f->out.module_ens & RKISP1_CIF_ISP_MODULE_AWB_GAIN);
	/* A gain of 273 for 273.4 is off by up to 0.15% near full scale: approximate, under 1%. */
	CHECK_EQ(FIT(f, BLC), RKISP1_APPROXIMATE);
	CHECK(ERROR(f, BLC) >= 16 && ERROR(f, BLC) < 200);
	CHECK_EQ(ERROR(f, BLC), ERROR(f, WB));

	/* Gain 1.5 alone is exact at the RkISP1's 12 bits: half a step off at odd codes, 15 where both clip. */
	cisp_param_state_init(&f->state);
	for (int c = 0; c < 4; c++)
		f->state.wb.gain[c] = 6144;
	CHECK_EQ(translate(f, 12), 0);
	CHECK_EQ(f->out.others.awb_gain_config.gain_blue, 384);
	CHECK_EQ(FIT(f, WB), RKISP1_EXACT);
	CHECK_EQ(ERROR(f, WB), 15);

	/* A gain of 5 is beyond the AWB gains' 3.996. */
	f->state.wb.gain[3] = 20480;
	CHECK_EQ(translate(f, 12), 0);
	CHECK_EQ(f->out.others.awb_gain_config.gain_blue, 1023);
	CHECK_EQ(FIT(f, WB), RKISP1_NOT_EXPRESSIBLE);
	CHECK(ERROR(f, WB) > RKISP1_APPROXIMATE_LIMIT);
	free(f);
}

TEST(rkisp1_lens_shading)
{
	struct fixture *f = fixture();
	struct cisp_lsc_params *l = &f->state.lsc;

	/* A flat 17x17 grid of 1.0 is 1024 everywhere, on 8 sectors a half: 320 / 8 = 40 and 240 / 8 = 30. */
	f->state.enabled |= BIT(LSC);
	l->grid_w = l->grid_h = 17;
	for (int i = 0; i < 4 * 17 * 17; i++)
		l->gain[i] = 4096;
	CHECK_EQ(translate(f, 10), 0);
	CHECK_EQ(FIT(f, LSC), RKISP1_EXACT);
	CHECK_EQ(ERROR(f, LSC), 0);
	CHECK_EQ(f->out.others.lsc_config.r_data_tbl[8][8], 1024);
	CHECK_EQ(f->out.others.lsc_config.b_data_tbl[16][0], 1024);
	CHECK_EQ(f->out.others.lsc_config.x_size_tbl[0], 40);
	CHECK_EQ(f->out.others.lsc_config.y_size_tbl[7], 30);
	CHECK_EQ(f->out.others.lsc_config.x_grad_tbl[0], 819); /* 32768 / 40 */
	CHECK_EQ(f->out.others.lsc_config.y_grad_tbl[0], 1092); /* 32768 / 30 = 1092.3 */
	CHECK(f->out.module_ens & RKISP1_CIF_ISP_MODULE_LSC);

	/* A 2x2 ramp of 1.0 .. 2.0 across the frame: a plane, which the RkISP1's nodes hold to their precision. */
	l->grid_w = l->grid_h = 2;
	for (int c = 0; c < 4; c++) {
		l->gain[c * 4 + 0] = l->gain[c * 4 + 2] = 4096;
		l->gain[c * 4 + 1] = l->gain[c * 4 + 3] = 8192;
	}
	CHECK_EQ(translate(f, 10), 0);
	CHECK_EQ(f->out.others.lsc_config.gr_data_tbl[0][0], 1024);
	CHECK_EQ(f->out.others.lsc_config.gr_data_tbl[0][16], 2050); /* at pixel 640: 1 + 640 / 639 */
	CHECK_EQ(FIT(f, LSC), RKISP1_EXACT);
	CHECK(ERROR(f, LSC) <= 32); /* half a step of Q2.10 at full scale */

	/* Gains of 4.0 and more do not fit Q2.10's 12 bits. */
	l->gain[1] = 20000;
	CHECK_EQ(translate(f, 10), 0);
	CHECK_EQ(f->out.others.lsc_config.r_data_tbl[0][16], 4095);
	CHECK_EQ(FIT(f, LSC), RKISP1_NOT_EXPRESSIBLE);
	free(f);
}

TEST(rkisp1_colour_matrix)
{
	struct fixture *f = fixture();
	struct cisp_ccm_params *m = &f->state.ccm;

	/* 1.5, -0.25, -0.25 per row, offset -256: all on the Q4.7 grid, the offset 16 12-bit units. */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			m->coeff[3 * i + j] = (int16_t)(i == j ? 6144 : -1024);
	m->offset[1] = -256;
	CHECK_EQ(translate(f, 10), 0);
	CHECK_EQ(f->out.others.ctk_config.coeff[0][0], 192);
	CHECK_EQ(f->out.others.ctk_config.coeff[0][1], 0x7e0); /* -32 in 11 bits */
	CHECK_EQ(f->out.others.ctk_config.ct_offset[1], 0xff0); /* -16 in 12 bits */
	CHECK_EQ(FIT(f, CCM), RKISP1_EXACT);

	/* 1.001 is 4100: 0.125 of a Q4.7 step off, 0.1% of full scale. */
	m->coeff[0] = 4100;
	CHECK_EQ(translate(f, 10), 0);
	CHECK_EQ(FIT(f, CCM), RKISP1_APPROXIMATE);
	CHECK_EQ(ERROR(f, CCM), 72); /* 4/4096 * 65535 + 8, rounded up */
	free(f);
}

TEST(rkisp1_tone)
{
	struct fixture *f = fixture();
	struct cisp_tone_params *t = &f->state.tone;

	/* A linear transfer and the identity curve: the knots are x / 4096 * 1023. */
	t->transfer = CISP_TRANSFER_LINEAR;
	CHECK_EQ(translate(f, 12), 0);
	CHECK_EQ(f->out.others.goc_config.gamma_y[1], 16); /* 64 / 4096 * 1023 = 15.98 */
	CHECK_EQ(f->out.others.goc_config.gamma_y[8], 192); /* x 768: 191.8 */
	CHECK_EQ(f->out.others.goc_config.gamma_y[12], 512); /* x 2048: 511.5 */
	CHECK_EQ(f->out.others.goc_config.gamma_y[14], 767); /* x 3072: 767.3 */
	/* Interpolating a line loses nothing; the knots and the output round to 10 bits: one step. */
	CHECK_EQ(FIT(f, TONE), RKISP1_APPROXIMATE);
	CHECK_EQ(ERROR(f, TONE), 64);

	/* BT.709's toe is linear: its chords stay within 0.4%. */
	t->transfer = CISP_TRANSFER_BT709;
	CHECK_EQ(translate(f, 12), 0);
	CHECK_EQ(f->out.others.goc_config.gamma_y[1], 72);
	CHECK_EQ(FIT(f, TONE), RKISP1_APPROXIMATE);
	CHECK(ERROR(f, TONE) > 64 && ERROR(f, TONE) < 300);

	/* V12's spacing is not in the uAPI. */
	CHECK_EQ(rkisp1_translate(&f->state, 640, 480, 12, RKISP1_REV_V12, &f->out, &f->report), 0);
	CHECK_EQ(FIT(f, TONE), RKISP1_NOT_EXPRESSIBLE);
	free(f);
}

TEST(rkisp1_missing_and_outside)
{
	struct fixture *f = fixture();

	f->state.enabled |= BIT(DPC) | BIT(BNR) | BIT(LUT3D) | BIT(SHARPEN) | BIT(CNR);
	f->state.dpc.threshold = 1000;
	f->state.crop_enabled = 1;
	f->state.csc.matrix = CISP_CSC_BT601;
	CHECK_EQ(translate(f, 10), 0);
	CHECK_EQ(FIT(f, DPC), RKISP1_NOT_EXPRESSIBLE);
	CHECK_EQ(FIT(f, BNR), RKISP1_NOT_EXPRESSIBLE);
	CHECK_EQ(FIT(f, LUT3D), RKISP1_NOT_EXPRESSIBLE);
	CHECK_EQ(FIT(f, SHARPEN), RKISP1_NOT_EXPRESSIBLE);
	CHECK_EQ(FIT(f, CNR), RKISP1_NOT_EXPRESSIBLE);
	CHECK_EQ(FIT(f, CROP), RKISP1_OUTSIDE_PARAMS);
	CHECK_EQ(FIT(f, CSC), RKISP1_OUTSIDE_PARAMS);
	/* Statistics: the nearest measurements the RkISP1 has, over the frame. */
	CHECK_EQ(f->out.meas.aec_config.meas_window.h_size, 640);
	CHECK_EQ(f->out.meas.hst_config.mode, RKISP1_CIF_ISP_HISTOGRAM_MODE_Y_HISTOGRAM);
	CHECK(f->out.module_ens & RKISP1_CIF_ISP_MODULE_AEC);
	/* Nothing is written for the stages it cannot do. */
	CHECK(!(f->out.module_en_update & RKISP1_CIF_ISP_MODULE_DPCC));
	CHECK(!(f->out.module_en_update & RKISP1_CIF_ISP_MODULE_DPF));
	CHECK(rkisp1_fit_name(RKISP1_OUTSIDE_PARAMS)[0] == 'o');
	free(f);
}

TEST(rkisp1_bad_input)
{
	struct fixture *f = fixture();

	CHECK_ERR(translate(f, 14), -EINVAL, "8 to 12 bits");
	CHECK_ERR(rkisp1_translate(&f->state, 650, 480, 10, RKISP1_REV_V10, &f->out, &f->report), -EINVAL,
		  "multiples of 16");
	CHECK_ERR(rkisp1_translate(&f->state, 8192, 4096, 10, RKISP1_REV_V10, &f->out, &f->report), -EINVAL,
		  "4032x3024");
	CHECK_ERR(rkisp1_translate(&f->state, 640, 480, 10, 11, &f->out, &f->report), -EINVAL, "V10 or V12");
	free(f);
}
