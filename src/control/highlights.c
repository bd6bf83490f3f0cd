/* SPDX-License-Identifier: MIT */
/*
 * Clipped highlights (the HIGHLIGHTS block, docs/stages/highlights.md): clip
 * mode at the level where the sensor clips. A sensor whose full well fills
 * less than its ADC's range at gain x1 clips there (the tuning's
 * `saturation`, which cisp calibrate measures); higher gains lift that level
 * until the ADC's white level clips first. Without the key the sensor clips
 * at the mode's white level. In the block's units (the black level stage's
 * output, 65535 at the white level):
 *
 *   white = 65535 * min(1, (saturation - black) / (white_level - black) * sensor gain)
 */
#include <errno.h>
#include <math.h>

#include "algorithm.h"
#include "block.h"
#include "core/error_internal.h"

struct highlights {
	double fraction; /* where the sensor clips at gain x1, of the range between black and white level */
};

static int highlights_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_number(r, v, key, 1, 65535, &t->saturation);
}

static void highlights_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->saturation = -1; /* the mode's white level */
}

static int highlights_configure(void *self, struct control_context *ctx)
{
	struct highlights *h = self;
	const struct cisp_sensor_mode *m = &ctx->mode;
	const double sat = ctx->tuning->saturation;
	/* The greens' black level, as the tuning or the mode gives it (black_level.c). */
	double black = ctx->tuning->black_level[1] >= 0 ? ctx->tuning->black_level[1] : m->black_level;

	h->fraction = 1;
	if (sat < 0 || sat >= m->white_level)
		return 0;
	if (sat <= black)
		return cisp_error(-EINVAL, "control: %s saturation %g is not above the black level %g of mode '%s'",
				  ctx->tuning->name, sat, black, m->name);
	h->fraction = (sat - black) / (m->white_level - black);
	return 0;
}

static uint32_t highlights_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	const struct highlights *h = self;
	struct cisp_highlights_params p = ps->highlights;
	double gain = ctx->sensor_gain > 0 ? ctx->sensor_gain : 1.0;

	p.mode = CISP_HIGHLIGHTS_CLIP;
	/* The ABI's lowest clip level, 1024, is far below any sensor's saturation. */
	p.white = (uint16_t)fmax(1024, abi_fixed_u16(fmin(1, h->fraction * gain), 65535));
	return control_write_block(&ps->highlights, &p, sizeof(p), CISP_BLOCK_HIGHLIGHTS) |
	       control_enable_block(ps, CISP_BLOCK_HIGHLIGHTS, true);
}

const struct control_algorithm highlights_algorithm = {
	.section = "saturation",
	.size = sizeof(struct highlights),
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS),
	.parse = highlights_parse,
	.defaults = highlights_defaults,
	.configure = highlights_configure,
	.prepare = highlights_prepare,
};
