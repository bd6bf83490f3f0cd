/* SPDX-License-Identifier: MIT */
/*
 * The statistics the algorithms read (the STATS block): 32 x 24 zones, fine
 * enough that a small grey object in a scene of one colour fills whole zones
 * AWB can use; one AF window on the middle half of the frame; the row means
 * of every cell row for flicker detection. Cells with a sample over 80% of
 * full scale leave the zone means: sensors whose full well fills less than
 * the ADC's range clip below full scale, and a clipped cell would read as a
 * true (too dark) value.
 */
#include <string.h>

#include "af.h"
#include "algorithm.h"
#include "block.h"

#define ZONES_X 32
#define ZONES_Y 24
/* Cells with a sample at or over this (16-bit units) count as saturated. */
#define SATURATION 52428

static uint32_t statistics_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	struct cisp_stats_params s = ps->stats;
	uint32_t w = ctx->mode.width, h = ctx->mode.height;

	(void)self;
	s.zones_x = ZONES_X;
	s.zones_y = ZONES_Y;
	s.saturation = SATURATION;
	s.af_count = 0;
	memset(s.af, 0, sizeof(s.af));
	if (w >= 32 && h >= 32) {
		s.af_count = 1;
		s.af[0] = (struct cisp_stats_window){ (uint16_t)(w / 4 & ~1u), (uint16_t)(h / 4 & ~1u),
						      (uint16_t)(w / 2 & ~1u), (uint16_t)(h / 2 & ~1u) };
		if (ctx->faces.count)
			s.af[0] = af_face_window(&ctx->faces.face[0], w, h);
	}
	s.row_group = 0;
	return control_write_block(&ps->stats, &s, sizeof(s), CISP_BLOCK_STATS) |
	       control_enable_block(ps, CISP_BLOCK_STATS, true);
}

const struct control_algorithm statistics_algorithm = {
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_STATS),
	.prepare = statistics_prepare,
};
