/* SPDX-License-Identifier: MIT */
/*
 * The output tone (the TONE block): the sRGB transfer function when the
 * tuning's gamma is 0, else a linear transfer with the pure power 1/gamma in
 * the tone curve.
 */
#include <math.h>
#include <string.h>

#include "algorithm.h"
#include "block.h"

static int tone_curve_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	double g;
	int ret = yaml_reader_number(r, v, key, -INFINITY, INFINITY, &g);

	if (ret)
		return ret;
	if (g != 0 && !(g >= 1 && g <= 10))
		return yaml_reader_fail(r, v, key, "%s is outside 1..10 (or 0, the sRGB curve)", yaml_reader_scalar(v));
	t->gamma = g;
	return 0;
}

static void tone_curve_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->gamma = 0;
}

static uint32_t tone_curve_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	const double gamma = ctx->tuning->gamma;
	struct cisp_tone_params tone;

	(void)self;
	memset(&tone, 0, sizeof(tone));
	tone.header.type = CISP_BLOCK_TONE;
	tone.header.size = sizeof(tone);
	tone.transfer = gamma > 0 ? CISP_TRANSFER_LINEAR : CISP_TRANSFER_SRGB;
	for (int i = 0; i < CISP_TONE_POINTS; i++) {
		double x = i / 256.0;

		if (gamma > 0)
			x = pow(x, 1.0 / gamma);
		tone.curve[i] = abi_fixed_u16(x > 1 ? 1 : x, 65535);
	}
	return control_write_block(&ps->tone, &tone, sizeof(tone), CISP_BLOCK_TONE) |
	       control_enable_block(ps, CISP_BLOCK_TONE, true);
}

const struct control_algorithm tone_curve_algorithm = {
	.section = "gamma",
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_TONE),
	.parse = tone_curve_parse,
	.defaults = tone_curve_defaults,
	.prepare = tone_curve_prepare,
};
