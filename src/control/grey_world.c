/* SPDX-License-Identifier: MIT */
/*
 * Grey-world white balance and a digital-gain exposure (the WB block), for a
 * stream with no sensor to control and no tuning: the loop's grey-world
 * configuration, which cispisp runs without a tuning file
 * (docs/gstreamer.md, "White balance and exposure").
 *
 * Both read the zone means, taken before the white-balance gains: what they
 * measure does not depend on what they set, so the first estimate is final
 * for a still scene. It is taken whole; later ones are approached a quarter
 * of the way (in log scale), so scene changes fade in and noise does not
 * flicker. Sums over the zones in use, with count unsaturated cells of means
 * r, g, b out of total cells each:
 *
 *   R = sum r count, G = sum g count, B = sum b count, saturated = sum (total - count)
 *   white balance: red = G / R, blue = G / B, each within 1/8..8
 *   exposure: Y = ((54 R red + 183 G + 19 B blue) / 256 + 65535 saturated) / (cells + saturated),
 *             gain = 0.18 * 65535 * 2^ev / Y within min(1, 2^ev)..max
 *
 * A frame whose sums are 0 changes nothing, but still counts as the first
 * (unless both are manual).
 */
#include <math.h>
#include <string.h>

#include "algorithm.h"
#include "block.h"

/* Grey-world gains are kept within this factor of 1. */
#define AWB_LIMIT 8.0
/* Weight of a new estimate against the running value (in log scale). */
#define SMOOTHING 0.25
/* The mean linear luma the exposure aims at, as a fraction of white. */
#define TARGET 0.18
/* The largest gain unless a request sets one. */
#define DEFAULT_MAX_GAIN 4.0

struct grey_world {
	bool primed;           /* a frame has been processed since the start */
	double red, blue;      /* white-balance gains against green */
	double gain;           /* digital gain on every channel */
	double max_gain;
	/* The request's values. */
	bool awb, ae;          /* automatic white balance, exposure */
	double ev;             /* stops */
};

static int grey_world_init(void *self, const struct control_context *ctx)
{
	struct grey_world *g = self;

	(void)ctx;
	g->max_gain = DEFAULT_MAX_GAIN;
	g->awb = g->ae = true;
	g->red = g->blue = g->gain = 1.0;
	return 0;
}

/* The loop's report: the gains in use and whether they are automatic. */
static void publish(const struct grey_world *g, struct control_context *ctx)
{
	ctx->state.ae_state = g->ae ? CISP_AE_SEARCHING : CISP_AE_MANUAL;
	ctx->state.digital_gain = g->gain;
	ctx->state.awb_state = g->awb ? CISP_AWB_SEARCHING : CISP_AWB_MANUAL;
	ctx->state.colour_gains[0] = g->red;
	ctx->state.colour_gains[1] = g->blue;
}

/* Manual values are what automatic ones resume from. */
static void grey_world_request(void *self, struct control_context *ctx, const struct cisp_control_request *r)
{
	struct grey_world *g = self;

	if (r->mask & CISP_REQ_AWB_ENABLE)
		g->awb = r->awb_enable;
	if (r->mask & CISP_REQ_COLOUR_GAINS) {
		g->red = r->colour_gains[0];
		g->blue = r->colour_gains[1];
	}
	if (r->mask & CISP_REQ_AE_ENABLE)
		g->ae = r->ae_enable;
	if (r->mask & CISP_REQ_DIGITAL_GAIN)
		g->gain = r->digital_gain;
	if (r->mask & CISP_REQ_EV)
		g->ev = r->ev;
	if (r->mask & CISP_REQ_MAX_DIGITAL_GAIN)
		g->max_gain = r->max_digital_gain > 0 ? r->max_digital_gain : DEFAULT_MAX_GAIN;
	publish(g, ctx);
}

/* A new stream: estimates are forgotten (unit gains until the first), manual values stay. */
static void grey_world_start(void *self, struct control_context *ctx)
{
	struct grey_world *g = self;

	if (g->awb)
		g->red = g->blue = 1.0;
	if (g->ae)
		g->gain = 1.0;
	g->primed = false;
	publish(g, ctx);
}

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Move @cur towards @target: all the way when not primed, else SMOOTHING of the way in log scale. */
static double approach(double cur, double target, bool primed)
{
	return primed ? cur * pow(target / cur, SMOOTHING) : target;
}

/* One frame's estimate: false, changing nothing, when the sums give none. */
static bool estimate(struct grey_world *g, const struct cisp_stats *st)
{
	double r = 0, gr = 0, b = 0, cells = 0, saturated = 0;
	double red = g->red, blue = g->blue;

	for (unsigned i = 0; i < (unsigned)st->zones_x * st->zones_y; i++) {
		const struct cisp_stats_zone *z = &st->zone[i];

		r += (double)z->r * z->count;
		gr += (double)z->g * z->count;
		b += (double)z->b * z->count;
		cells += z->count;
		saturated += (double)z->total - z->count;
	}
	if (g->awb) {
		if (r <= 0 || gr <= 0 || b <= 0)
			return false;
		red = clampd(gr / r, 1 / AWB_LIMIT, AWB_LIMIT);
		blue = clampd(gr / b, 1 / AWB_LIMIT, AWB_LIMIT);
	}
	if (g->ae) {
		/* Mean luma of the frame once balanced; saturated cells count as white. */
		double luma = (54 * r * red + 183 * gr + 19 * b * blue) / 256 + 65535.0 * saturated;
		double target = TARGET * 65535.0 * pow(2.0, g->ev);
		double lo = fmin(1.0, pow(2.0, g->ev));

		if (cells + saturated <= 0 || luma <= 0)
			return false;
		luma /= cells + saturated;
		g->gain = approach(g->gain, clampd(target / luma, lo, g->max_gain), g->primed);
	}
	if (g->awb) {
		g->red = approach(g->red, red, g->primed);
		g->blue = approach(g->blue, blue, g->primed);
	}
	return true;
}

static void grey_world_process(void *self, struct control_context *ctx)
{
	struct grey_world *g = self;

	if (!g->awb && !g->ae)
		return;
	if (estimate(g, ctx->stats))
		publish(g, ctx);
	g->primed = true;
}

/* The WB block: R = red gain, Gr = Gb = gain, B = blue gain. */
static uint32_t grey_world_prepare(void *self, const struct control_context *ctx, struct cisp_param_state *ps)
{
	struct grey_world *g = self;
	struct cisp_wb_params wb = ps->wb;

	(void)ctx;
	wb.gain[CISP_CH_R] = abi_fixed_u16(g->red * g->gain, 4096);
	wb.gain[CISP_CH_GR] = wb.gain[CISP_CH_GB] = abi_fixed_u16(g->gain, 4096);
	wb.gain[CISP_CH_B] = abi_fixed_u16(g->blue * g->gain, 4096);
	return control_write_block(&ps->wb, &wb, sizeof(wb), CISP_BLOCK_WB) |
	       control_enable_block(ps, CISP_BLOCK_WB, true);
}

const struct control_algorithm grey_world_algorithm = {
	.size = sizeof(struct grey_world),
	.blocks = CISP_BLOCK_BIT(CISP_BLOCK_WB),
	.requests = CISP_REQ_AWB_ENABLE | CISP_REQ_COLOUR_GAINS | CISP_REQ_AE_ENABLE | CISP_REQ_DIGITAL_GAIN |
		    CISP_REQ_EV | CISP_REQ_MAX_DIGITAL_GAIN,
	.init = grey_world_init,
	.request = grey_world_request,
	.start = grey_world_start,
	.process = grey_world_process,
	.prepare = grey_world_prepare,
};
