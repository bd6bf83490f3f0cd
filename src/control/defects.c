/* SPDX-License-Identifier: MIT */
/*
 * Dynamic defective pixel correction (the DPC block): the hot and dead
 * pixels every sensor has, found per frame with the tuning's threshold; 0
 * turns the stage off.
 */
#include "algorithm.h"
#include "block.h"

static int defects_parse(struct tuning_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return tuning_whole(r, v, key, 0, 65535, &t->defect_threshold);
}

static void defects_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->defect_threshold = 4096;
}

static uint32_t defects_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	uint16_t threshold = control_q16(ctx->tuning->defect_threshold, 1);
	uint32_t changed = 0;

	(void)self;
	if (ps->dpc.threshold != threshold) {
		ps->dpc.threshold = threshold;
		changed = CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	}
	return changed | control_enable_block(ps, CISP_BLOCK_DPC, ctx->tuning->defect_threshold > 0);
}

const struct control_algorithm defects_algorithm = {
	.section = "defect_threshold",
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_DPC),
	.parse = defects_parse,
	.defaults = defects_defaults,
	.prepare = defects_prepare,
};
