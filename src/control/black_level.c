/* SPDX-License-Identifier: MIT */
/*
 * Black level (the BLC block): the tuning's black level per channel, or the
 * sensor mode's, and the mode's white level, in 16-bit units
 * (cisp_blc_from_sensor_levels()). Levels the block cannot take (less than a
 * quarter of the range between black and white) are refused when the loop
 * is made.
 */
#include <errno.h>
#include <string.h>

#include <cisp/sensor_levels.h>

#include "algorithm.h"
#include "block.h"
#include "core/error_internal.h"

struct black_level {
	struct cisp_blc_params blc; /* the levels for the mode */
};

static int black_level_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_numbers(r, v, key, 4, 0, 65535, t->black_level);
}

static void black_level_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	for (int c = 0; c < 4; c++)
		t->black_level[c] = -1; /* the mode's */
}

static int black_level_configure(void *self, struct control_context *ctx)
{
	struct black_level *b = self;
	const struct cisp_sensor_mode *m = &ctx->mode;
	double black[4];

	for (int c = 0; c < 4; c++)
		black[c] = ctx->tuning->black_level[c] >= 0 ? ctx->tuning->black_level[c] : m->black_level;
	if (cisp_blc_from_sensor_levels(&b->blc, black, m->white_level, m->bits))
		return cisp_error_prefix(-EINVAL, "control: %s black_level [%g, %g, %g, %g] for mode '%s' (white level %u)",
					 ctx->tuning->name, black[0], black[1], black[2], black[3], m->name,
					 m->white_level);
	return 0;
}

static uint32_t black_level_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	struct black_level *b = self;
	struct cisp_blc_params blc = ps->blc;

	(void)ctx;
	memcpy(blc.black, b->blc.black, sizeof(blc.black));
	blc.white = b->blc.white;
	return control_write_block(&ps->blc, &blc, sizeof(blc), CISP_BLOCK_BLC) |
	       control_enable_block(ps, CISP_BLOCK_BLC, true);
}

const struct control_algorithm black_level_algorithm = {
	.section = "black_level",
	.size = sizeof(struct black_level),
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_BLC),
	.parse = black_level_parse,
	.defaults = black_level_defaults,
	.configure = black_level_configure,
	.prepare = black_level_prepare,
};
