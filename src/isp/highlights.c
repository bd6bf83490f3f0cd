/* SPDX-License-Identifier: MIT */
/*
 * Clipped highlights (docs/stages/highlights.md). After white balance a
 * sensor's clipped white is no longer the same level in every channel, so a
 * region where every channel clipped comes out coloured (yellow, magenta).
 * Each colour has its own clip level (the sensor's times its gain). Where a
 * colour of the neighbourhood nears its clip level the others are limited to
 * it, so the clipping leaves no cast. A colour at its clip level was clipped
 * in the raw whatever the gains: unless another colour is far below its own
 * clip level (a saturated colour, which keeps its hue), that is clipped
 * light and the pixel goes towards a neutral: white (clip) or the neutral of
 * the same brightness (blend). Where every colour stays below its own knee
 * the pixel is unchanged. reconstruct takes, where any colour nears
 * clipping, the colour of the unclipped samples around first, and does as
 * clip where it cannot measure it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "isp/dsp.h"
#include "isp/stage.h"
#include "highlights.h"

/*
 * Q4.12 fractions of a colour's clip level: below HL_FLOOR a colour makes
 * the light a saturated colour, which keeps its hue; from HL_FULL up it
 * holds clipped light back from white no more.
 */
#define HL_FLOOR 1024 /* 0.25 */
#define HL_FULL 2048  /* 0.5 */

void cisp_highlights_prepare(struct cisp_highlights_coeffs *c, const struct cisp_highlights_params *p,
			     const struct cisp_wb_params *wb, enum cisp_cfa cfa)
{
	static const uint8_t colour_of[4] = { [CISP_CH_R] = HL_RED, [CISP_CH_GR] = HL_GREEN,
					      [CISP_CH_GB] = HL_GREEN, [CISP_CH_B] = HL_BLUE };
	uint32_t clip[3] = { 65535, 65535, 65535 };

	for (int site = 0; site < 4; site++) {
		enum cisp_channel ch = cisp_cfa_channel(cfa, site & 1, site >> 1);
		uint32_t gain = wb ? wb->gain[ch] : 4096;
		/* The white balance stage's arithmetic applied to the sensor's clip level. */
		uint32_t level = ((uint32_t)p->white * gain + 2048) >> 12;
		int k = colour_of[ch];

		if (level < clip[k])
			clip[k] = level; /* two greens: the lower */
		c->colour[site] = (uint8_t)k;
	}
	c->mode = p->mode;
	c->white = 65535;
	c->knee = 65535;
	for (int k = 0; k < 3; k++) {
		uint32_t knee = (clip[k] * p->knee + 2048) >> 12, range = clip[k] > knee ? clip[k] - knee : 1u;
		uint32_t floor = (clip[k] * HL_FLOOR + 2048) >> 12, full = (clip[k] * HL_FULL + 2048) >> 12;
		uint32_t frange = full > floor ? full - floor : 1u;

		c->clip[k] = (uint16_t)clip[k];
		c->knees[k] = (uint16_t)knee;
		/* rounded up: the amount reaches 1.0 at the clip level */
		c->ramp[k] = ((1u << 24) + range - 1) / range;
		c->floors[k] = (uint16_t)floor;
		c->framp[k] = ((1u << 24) + frange - 1) / frange;
		c->white = c->white < clip[k] ? c->white : (uint16_t)clip[k];
		c->knee = c->knee < knee ? c->knee : (uint16_t)knee;
	}
}

int cisp_highlights_radius(unsigned mode)
{
	/* Any other value runs as reconstruct in the row function: it gets its rows too. */
	return mode == CISP_HIGHLIGHTS_CLIP || mode == CISP_HIGHLIGHTS_BLEND ? 1 : 2;
}

/* Sample @x of @row (a column already reflected at the edges), no higher than @clip. */
static inline uint32_t capped(const uint16_t *row, int x, uint32_t clip)
{
	uint32_t v = row[x];

	return v < clip ? v : clip;
}

/* @s moved towards @target by @amount (Q15); |target - s| * amount < 2^31, >> rounds towards minus infinity. */
static inline uint32_t pull(uint32_t s, uint32_t target, uint32_t amount)
{
	return (uint32_t)((int32_t)s + (((int32_t)(target - s) * (int32_t)amount + 16384) >> 15));
}

/* Q15: 0 at or below @start, 1.0 from where @ramp (2^24 / range, rounded up) ends, for a colour at @v. */
static inline uint32_t amount_above(uint32_t v, uint32_t start, uint32_t ramp)
{
	uint32_t a;

	if (v <= start)
		return 0;
	a = ((v - start) * ramp + 256) >> 9;
	return a < 32768 ? a : 32768;
}

/*
 * Reconstruct's target in @target: the colour of the 5x5 samples below their
 * colour's knee at the neutral @level, for a pixel of colour @own. False
 * where a colour has none there: the colour around cannot be measured.
 */
static bool reconstruct_target(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], int x, int w,
			       int y, int own, uint32_t level, uint32_t *target)
{
	uint32_t sum[3] = { 0, 0, 0 }, n[3] = { 0, 0, 0 }, mean[3], den;
	uint64_t t;

	for (int dy = -2; dy <= 2; dy++) {
		for (int dx = -2; dx <= 2; dx++) {
			uint32_t v = rows[dy + 2][mirror(x + dx, w)];
			int k = c->colour[((y + dy) & 1) * 2 + ((x + dx) & 1)];

			if (v < c->knees[k]) {
				sum[k] += v;
				n[k]++;
			}
		}
	}
	for (int k = 0; k < 3; k++) {
		if (!n[k])
			return false;
		mean[k] = sum[k] / n[k];
	}
	den = mean[HL_RED] + 2 * mean[HL_GREEN] + mean[HL_BLUE];
	if (!den)
		return false;
	t = (uint64_t)level * 4 * mean[own] / den;
	*target = t < c->white ? (uint32_t)t : c->white;
	return true;
}

/* The largest sample of @up, @mid and @dn in [x0, x1): one loop the compiler vectorises. */
static uint32_t rows_max(const uint16_t *up, const uint16_t *mid, const uint16_t *dn, int x0, int x1)
{
	uint16_t m = 0;

	for (int x = x0; x < x1; x++) {
		uint16_t v = up[x] > mid[x] ? up[x] : mid[x];

		v = v > dn[x] ? v : dn[x];
		m = m > v ? m : v;
	}
	return m;
}

/* Pixel @x of row @y (steps 1 to 5 of docs/stages/highlights.md). */
static uint16_t highlights_pixel(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], int x, int w,
				 int y)
{
	const uint16_t *up = rows[1], *mid = rows[2], *dn = rows[3];
	const int own = c->colour[(y & 1) * 2 + (x & 1)];
	/* The colours of the pixel's row and of the rows above and below, at its column and the next. */
	const int row_x = own, row_x1 = c->colour[(y & 1) * 2 + ((x + 1) & 1)];
	const int ud_x = c->colour[((y + 1) & 1) * 2 + (x & 1)], ud_x1 = c->colour[((y + 1) & 1) * 2 + ((x + 1) & 1)];
	const uint32_t c_x1 = c->clip[row_x1], c_udx = c->clip[ud_x], c_udx1 = c->clip[ud_x1];
	int xl = mirror(x - 1, w), xr = mirror(x + 1, w);
	uint32_t est[3], amount[3], s = capped(mid, x, c->clip[row_x]), top, level, limit, most = 0, bright = 32768;
	uint32_t target, neutral;

	/* The pixel's three colours from its 3x3 neighbourhood, as a bilinear demosaic would. */
	est[own] = s;
	if (own == HL_GREEN) {
		est[row_x1] = (capped(mid, xl, c_x1) + capped(mid, xr, c_x1) + 1) >> 1;
		est[ud_x] = (capped(up, x, c_udx) + capped(dn, x, c_udx) + 1) >> 1;
	} else {
		est[HL_GREEN] = (capped(mid, xl, c_x1) + capped(mid, xr, c_x1) + capped(up, x, c_udx) +
				 capped(dn, x, c_udx) + 2) >> 2;
		est[ud_x1] = (capped(up, xl, c_udx1) + capped(up, xr, c_udx1) + capped(dn, xl, c_udx1) +
			      capped(dn, xr, c_udx1) + 2) >> 2;
	}
	top = est[0] > est[1] ? est[0] : est[1];
	top = top > est[2] ? top : est[2];
	level = (est[HL_RED] + 2 * est[HL_GREEN] + est[HL_BLUE] + 2) >> 2;
	/*
	 * How near each colour is to its own clip level; every colour at most
	 * its knee: unchanged. And how far every colour is above its floor: a
	 * colour below it makes the light a saturated colour.
	 */
	for (int k = 0; k < 3; k++) {
		uint32_t b = amount_above(est[k], c->floors[k], c->framp[k]);

		amount[k] = amount_above(est[k], c->knees[k], c->ramp[k]);
		most = most > amount[k] ? most : amount[k];
		bright = bright < b ? bright : b;
	}
	if (!most)
		return (uint16_t)s;
	if (c->mode == CISP_HIGHLIGHTS_RECONSTRUCT && reconstruct_target(c, rows, x, w, y, own, level, &target)) {
		/* A colour near clipping: the colour around, where it can be measured. */
		s = pull(s, target, most);
	} else {
		/*
		 * Where a colour clips, its light goes on above its clip level, so a
		 * sample above that level would give the colour a cast the light does
		 * not have: each colour k limits the sample towards C[k] by its amount.
		 * The own colour is never above its own clip level.
		 */
		limit = 0;
		for (int k = 0; k < 3; k++) {
			uint32_t over = s > c->clip[k] ? s - c->clip[k] : 0, cut = (over * amount[k] + 16384) >> 15;

			limit = limit > cut ? limit : cut;
		}
		s -= limit;
	}
	/*
	 * A colour at its clip level says how bright the light is no more, in
	 * any white balance: where no colour is below its floor (not a
	 * saturated colour) the light is taken as white, towards the brightest
	 * colour (clip, reconstruct) or the neutral of the same level (blend),
	 * by the clipped colour's amount.
	 */
	neutral = (most * bright + 16384) >> 15;
	if (!neutral)
		return (uint16_t)s;
	target = c->mode == CISP_HIGHLIGHTS_BLEND ? level : top;
	target = target < c->white ? target : c->white;
	return (uint16_t)pull(s, target, neutral);
}

/* Pixels per run checked at once: a run whose 3x3 neighbourhoods stay below the knee is copied. */
#define HL_RUN 64

void cisp_highlights_span_c(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], uint16_t *out,
			    int w, int y, int x0, int x1)
{
	const uint16_t *up = rows[1], *mid = rows[2], *dn = rows[3];

	for (int x = x0; x < x1; x++) {
		/*
		 * Every colour is a mean of samples no higher than these, so
		 * where no sample of a run's neighbourhoods passes the knee its
		 * pixels come out as they went in.
		 */
		if ((x - x0) % HL_RUN == 0) {
			int xe = x + HL_RUN < x1 ? x + HL_RUN : x1;

			if (rows_max(up, mid, dn, x ? x - 1 : 0, xe < w ? xe + 1 : w) <= c->knee) {
				memcpy(out + x, mid + x, (size_t)(xe - x) * sizeof(*out));
				x = xe - 1;
				continue;
			}
		}
		out[x] = highlights_pixel(c, rows, x, w, y);
	}
}

void cisp_highlights_row_c(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], uint16_t *out,
			   int w, int y)
{
	cisp_highlights_span_c(c, rows, out, w, y, 0, w);
}

/* Rows y - 2 .. y + 2 of @in reflected at the edges; rows outside @radius are NULL. */
static void support_rows(const struct plane16 *in, int y, int radius, const uint16_t *rows[5])
{
	for (int d = -2; d <= 2; d++)
		rows[d + 2] = d >= -radius && d <= radius ? plane_row(in, mirror(y + d, in->height)) : NULL;
}

void cisp_highlights_rows(const struct cisp_highlights_coeffs *c, const struct plane16 *in,
			  const struct plane16 *out, int y0, int y1)
{
	const uint16_t *rows[5];

	for (int y = y0; y < y1; y++) {
		support_rows(in, y, cisp_highlights_radius(c->mode), rows);
		cisp_highlights_row_c(c, rows, plane_row(out, y), in->width, y);
	}
}

/* ---- the stage (stage.h) ---- */

static int highlights_prepare(void **coeffs, const struct stage_env *env)
{
	const struct cisp_param_state *s = env->state;
	int ret = stage_alloc(coeffs, sizeof(struct cisp_highlights_coeffs), "highlights");

	if (!ret)
		cisp_highlights_prepare(*coeffs, &s->highlights,
					s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &s->wb : NULL, env->cfa);
	return ret;
}

static void highlights_stage_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_highlights_rows(c->coeffs, &io->in.c[0], &io->out.c[0], y0, y1);
}

/* The banded form: the same rows, from the rows the executor holds around each. */
static void highlights_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct cisp_highlights_coeffs *hl = c->coeffs;
	const uint16_t *rows[5];

	for (int y = y0; y < y1; y++) {
		support_rows(&io->in[0].c[0], y, cisp_highlights_radius(hl->mode), rows);
		c->dsp->highlights_row(hl, rows, plane_row(&io->out.c[0], y), c->width, y);
		pass_emit(io, y, NULL);
	}
}

static int highlights_passes(const struct stage_ctx *c, struct stage_pass pass[STAGE_MAX_PASSES])
{
	const struct cisp_highlights_coeffs *hl = c->coeffs;

	pass[0] = (struct stage_pass){ .planes = 1,
				       .n_in = 1,
				       .in = { { STAGE_INPUT, cisp_highlights_radius(hl->mode) } },
				       .rows = highlights_pass };
	return 1;
}

const struct cisp_stage cisp_stage_highlights = {
	.name = "highlights",
	.block = CISP_BLOCK_HIGHLIGHTS,
	.reads = CISP_BLOCK_BIT(CISP_BLOCK_WB),
	.planes_in = 1,
	.planes_out = 1,
	.prepare = highlights_prepare,
	.release = free,
	.rows = highlights_stage_rows,
	.passes = highlights_passes,
};
