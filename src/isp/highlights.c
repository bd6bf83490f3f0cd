/* SPDX-License-Identifier: MIT */
/*
 * Clipped highlights (docs/stages/highlights.md). After white balance a
 * sensor's clipped white is no longer the same level in every channel, so a
 * region where every channel clipped comes out coloured (yellow, magenta).
 * The stage clips every channel at the lowest clip level and, where every
 * colour of the neighbourhood nears it, pulls each sample towards a target
 * the same for every colour: white (clip) or the neutral of the same
 * brightness (blend). A saturated colour that clips in one channel keeps its
 * hue. reconstruct takes, where any colour nears clipping, the colour of the
 * unclipped samples around, and does as clip where it cannot measure it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "isp/dsp.h"
#include "isp/stage.h"
#include "highlights.h"

void cisp_highlights_prepare(struct cisp_highlights_coeffs *c, const struct cisp_highlights_params *p,
			     const struct cisp_wb_params *wb, enum cisp_cfa cfa)
{
	static const uint8_t colour_of[4] = { [CISP_CH_R] = HL_RED, [CISP_CH_GR] = HL_GREEN,
					      [CISP_CH_GB] = HL_GREEN, [CISP_CH_B] = HL_BLUE };
	uint32_t white = 65535, range;

	for (int site = 0; site < 4; site++) {
		enum cisp_channel ch = cisp_cfa_channel(cfa, site & 1, site >> 1);
		uint32_t gain = wb ? wb->gain[ch] : 4096;
		/* The white balance stage's arithmetic applied to the sensor's clip level. */
		uint32_t clip = ((uint32_t)p->white * gain + 2048) >> 12;

		if (clip < white)
			white = clip;
		c->colour[site] = colour_of[ch];
	}
	c->mode = p->mode;
	c->white = (uint16_t)white;
	c->knee = (uint16_t)((white * p->knee + 2048) >> 12);
	range = c->white > c->knee ? (uint32_t)(c->white - c->knee) : 1u;
	c->ramp = ((1u << 24) + range - 1) / range; /* rounded up: the amount reaches 1.0 at the clip level */
}

int cisp_highlights_radius(unsigned mode)
{
	/* Any other value runs as reconstruct in the row function: it gets its rows too. */
	return mode == CISP_HIGHLIGHTS_CLIP || mode == CISP_HIGHLIGHTS_BLEND ? 1 : 2;
}

/* Sample @x of @row (a column already reflected at the edges), no higher than @white. */
static inline uint32_t capped(const uint16_t *row, int x, uint32_t white)
{
	uint32_t v = row[x];

	return v < white ? v : white;
}

/* @s moved towards @target by @amount (Q15); |target - s| * amount < 2^31, >> rounds towards minus infinity. */
static inline uint16_t pull(uint32_t s, uint32_t target, uint32_t amount)
{
	return (uint16_t)((int32_t)s + (((int32_t)(target - s) * (int32_t)amount + 16384) >> 15));
}

/* Q15: 0 at the knee, 1.0 at the clip level, for a colour @v above the knee. */
static inline uint32_t amount_above_knee(const struct cisp_highlights_coeffs *c, uint32_t v)
{
	uint32_t a = ((v - c->knee) * c->ramp + 256) >> 9;

	return a < 32768 ? a : 32768;
}

/*
 * Reconstruct's target in @target: the colour of the 5x5 samples below the
 * knee at the neutral @level, for a pixel of colour @own. False where a
 * colour has none there: the colour around cannot be measured.
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

			if (v < c->knee) {
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

/* Pixel @x of row @y (steps 1 to 4 of docs/stages/highlights.md). */
static uint16_t highlights_pixel(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], int x, int w,
				 int y)
{
	const uint16_t *up = rows[1], *mid = rows[2], *dn = rows[3];
	const uint32_t white = c->white;
	int site = (y & 1) * 2 + (x & 1), own = c->colour[site];
	int xl = mirror(x - 1, w), xr = mirror(x + 1, w);
	uint32_t est[3], s = mid[x] < white ? mid[x] : white, top, low, level, target;

	/* clip and blend move a pixel only where every colour is above the knee, its own included. */
	if (s <= c->knee && c->mode != CISP_HIGHLIGHTS_RECONSTRUCT)
		return (uint16_t)s;
	/* The pixel's three colours from its 3x3 neighbourhood, as a bilinear demosaic would. */
	est[own] = s;
	if (own == HL_GREEN) {
		est[c->colour[(y & 1) * 2 + ((x + 1) & 1)]] = (capped(mid, xl, white) + capped(mid, xr, white) + 1) >> 1;
		est[c->colour[((y + 1) & 1) * 2 + (x & 1)]] = (capped(up, x, white) + capped(dn, x, white) + 1) >> 1;
	} else {
		est[HL_GREEN] = (capped(mid, xl, white) + capped(mid, xr, white) + capped(up, x, white) +
				 capped(dn, x, white) + 2) >> 2;
		est[c->colour[((y + 1) & 1) * 2 + ((x + 1) & 1)]] =
			(capped(up, xl, white) + capped(up, xr, white) + capped(dn, xl, white) +
			 capped(dn, xr, white) + 2) >> 2;
	}
	top = est[0] > est[1] ? est[0] : est[1];
	top = top > est[2] ? top : est[2];
	low = est[0] < est[1] ? est[0] : est[1];
	low = low < est[2] ? low : est[2];
	level = (est[HL_RED] + 2 * est[HL_GREEN] + est[HL_BLUE] + 2) >> 2;
	if (c->mode == CISP_HIGHLIGHTS_RECONSTRUCT && top > c->knee) {
		/* Any colour near clipping: the colour around, where it can be measured. */
		if (reconstruct_target(c, rows, x, w, y, own, level, &target))
			return pull(s, target, amount_above_knee(c, top));
	}
	/*
	 * Neutral only where every colour nears the clip level: a saturated
	 * colour with one clipped channel keeps its hue.
	 */
	if (low <= c->knee)
		return (uint16_t)s;
	return pull(s, c->mode == CISP_HIGHLIGHTS_BLEND ? level : top, amount_above_knee(c, low));
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
