/* SPDX-License-Identifier: MIT */
/*
 * Local tone mapping (the LTM block, docs/stages/ltm.md): from each frame's
 * statistics zones, a grid of the zones' levels and gains for a later
 * frame. A zone's level is the log2 luminance of its mean after white
 * balance; its gain moves that level towards the exposure target by
 * @strength of its distance beyond LTM_SCENE_STOPS, at most @boost stops up
 * and @cut stops down.
 * A zone whose cells are mostly clipped keeps a gain of 1: lowering it would
 * turn the clip grey. The tuning's `ltm` section sets the four values;
 * strength 0, the default, leaves the stage off.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algorithm.h"
#include "block.h"
#include "core/error_internal.h"
#include "isp/ltm.h"
#include "ltm_grid.h"

/*
 * A region this close to the target in stops keeps its gain: one uniformly lit
 * scene's reflectances (white 0.9 to black 0.03) span 5 stops, about 2.5 on
 * each side of its mean; that is the objects' own contrast, what lies beyond
 * is lighting to compress.
 */
#define LTM_SCENE_STOPS 2.5

int control_ltm_grid(const struct cisp_stats *st, const double wb[3], double target, const struct ltm_tuning *t,
		     struct cisp_ltm_params *out)
{
	const int gw = st->zones_x, gh = st->zones_y, n = gw * gh;
	const double anchor = cisp_ltm_level((uint32_t)lround(fmin(fmax(target, 0), 1) * 65535));
	double stops[CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID];

	if (!(st->valid & CISP_STATS_ZONES) || gw < 2 || gh < 2 || gw > CISP_LTM_MAX_GRID || gh > CISP_LTM_MAX_GRID)
		return cisp_error(-EINVAL, "ltm: the statistics have no zone grid of 2x2..%dx%d", CISP_LTM_MAX_GRID,
				  CISP_LTM_MAX_GRID);
	memset(out, 0, sizeof(*out));
	out->header.type = CISP_BLOCK_LTM;
	out->header.size = sizeof(*out);
	out->grid_w = (uint16_t)gw;
	out->grid_h = (uint16_t)gh;
	out->range = (uint16_t)lround(fmin(fmax(t->range, 0.25), 4) * 256);
	for (int k = 0; k < n; k++) {
		const struct cisp_stats_zone *z = &st->zone[k];
		bool clipped = z->total && 2 * z->count < z->total;
		double luma = (77 * z->r * wb[0] + 150 * z->g * wb[1] + 29 * z->b * wb[2]) / 256;
		uint32_t level = clipped ? 4095 : cisp_ltm_level((uint32_t)lround(fmin(luma, 65535)));
		/* An empty zone (more zones than cells) sits at the target and keeps its gain. */
		double away = z->total && !clipped ? (anchor - level) / 256 : 0;
		double lift = t->strength * (away > 0 ? fmax(away - LTM_SCENE_STOPS, 0) : fmin(away + LTM_SCENE_STOPS, 0));

		stops[k] = fmin(fmax(lift, -t->cut), t->boost);
		out->node[k] = (uint16_t)(z->total ? level : anchor);
	}
	/*
	 * Each gain is the mean of those of the node and its eight neighbours whose levels are within
	 * the range: a zone whose mean a few pixels of a bright neighbour raise (an edge's blur) keeps
	 * the gain of the region it belongs to, instead of a lower one that would darken its side of
	 * the edge.
	 */
	for (int k = 0; k < n; k++) {
		double sum = 0;
		int count = 0;

		for (int j = k / gw - 1; j <= k / gw + 1; j++)
			for (int i = k % gw - 1; i <= k % gw + 1; i++)
				if (j >= 0 && j < gh && i >= 0 && i < gw && abs(out->node[j * gw + i] - out->node[k]) < out->range) {
					sum += stops[j * gw + i];
					count++;
				}
		out->node[n + k] = (uint16_t)fmin(fmax(lround(256 * exp2(sum / count)), 16), 4095);
	}
	return 0;
}

/* ---- the ltm section ---- */

static const char *const ltm_keys[] = { "strength", "boost", "cut", "range", NULL };

static int ltm_key(struct yaml_reader *r, void *ctx, unsigned i, const char *k, yaml_node_t *v)
{
	struct ltm_tuning *l = &((struct cisp_tuning *)ctx)->ltm;

	switch (i) {
	case 0: return yaml_reader_number(r, v, k, 0, 1, &l->strength);
	case 1: return yaml_reader_number(r, v, k, 0, 4, &l->boost);
	case 2: return yaml_reader_number(r, v, k, 0, 4, &l->cut);
	default: return yaml_reader_number(r, v, k, 0.25, 4, &l->range);
	}
}

static int ltm_parse(struct yaml_reader *r, const yaml_node_t *v, const char *key, struct cisp_tuning *t)
{
	return yaml_reader_map(r, v, key, ltm_keys, 0, ltm_key, t);
}

static void ltm_defaults(struct cisp_tuning *t, bool uncalibrated)
{
	(void)uncalibrated;
	t->ltm = (struct ltm_tuning){ .strength = 0, .boost = 2, .cut = 1, .range = 1.5 };
}

/* ---- the LTM block ---- */

struct ltm_algorithm {
	bool ready; /* @grid holds a frame's grid */
	struct cisp_ltm_params grid;
};

static void ltm_start(void *self, struct control_context *ctx)
{
	(void)ctx;
	((struct ltm_algorithm *)self)->ready = false;
}

static void ltm_process(void *self, struct control_context *ctx)
{
	struct ltm_algorithm *a = self;
	double dgain = ctx->frame_isp_dgain > 0 ? ctx->frame_isp_dgain : 1.0;
	const double wb[3] = { ctx->state.colour_gains[0] * dgain, dgain, ctx->state.colour_gains[1] * dgain };

	if (ctx->tuning->ltm.strength > 0 && ctx->stats)
		a->ready = !control_ltm_grid(ctx->stats, wb, ctx->tuning->ae.target, &ctx->tuning->ltm, &a->grid);
}

static uint32_t ltm_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	struct ltm_algorithm *a = self;
	bool on = a->ready && ctx->tuning->ltm.strength > 0;

	return (on ? control_write_block(&ps->ltm, &a->grid, sizeof(a->grid), CISP_BLOCK_LTM) : 0) |
	       control_enable_block(ps, CISP_BLOCK_LTM, on);
}

const struct control_algorithm ltm_algorithm = {
	.section = "ltm",
	.size = sizeof(struct ltm_algorithm),
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_LTM),
	.parse = ltm_parse,
	.defaults = ltm_defaults,
	.start = ltm_start,
	.process = ltm_process,
	.prepare = ltm_prepare,
};
