/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "blc.h"
#include "isp/dsp.h"
#include "isp/stage.h"

void cisp_blc_prepare(struct cisp_blc_coeffs *c, const struct cisp_blc_params *p, enum cisp_cfa cfa)
{
	for (int site = 0; site < 4; site++) {
		enum cisp_channel ch = cisp_cfa_channel(cfa, site & 1, site >> 1);
		int black = p->black[ch];
		int range = (int)p->white - black;

		/*
		 * Validation guarantees range >= 16384; holding to it here as well
		 * keeps the gain within Q2.14 whatever the caller passes.
		 */
		if (range < 16384)
			range = 16384;
		c->black[site] = (uint16_t)black;
		c->white = p->white;
		c->gain[site] = (uint16_t)((65535u * 16384u + (unsigned)range / 2) / (unsigned)range);
	}
}

void cisp_blc_row_c(const uint16_t *s, uint16_t *d, int w, const uint16_t black[2], const uint16_t gain[2],
		    uint16_t white)
{
	for (int x = 0; x < w; x++) {
		/* Negative differences clamp to 0 first, so the product fits in 32 bits unsigned. */
		int d0 = s[x] - black[x & 1];
		uint32_t v = ((uint32_t)(d0 > 0 ? d0 : 0) * gain[x & 1] + 8192) >> 14;

		/* Saturated samples are exactly full scale, whatever the gain's rounding. */
		d[x] = (uint16_t)(v > 65535 || s[x] >= white ? 65535 : v);
	}
}

void cisp_blc_rows(const struct cisp_blc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1)
{
	for (int y = y0; y < y1; y++)
		cisp_blc_row_c(plane_row(in, y), plane_row(out, y), in->width, &c->black[(y & 1) * 2],
			       &c->gain[(y & 1) * 2], c->white);
}

/* ---- the stage (stage.h) ---- */

static int blc_prepare(void **coeffs, const struct stage_env *env)
{
	int ret = stage_alloc(coeffs, sizeof(struct cisp_blc_coeffs), "black level");

	if (!ret)
		cisp_blc_prepare(*coeffs, &env->state->blc, env->cfa);
	return ret;
}

static void blc_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_blc_rows(c->coeffs, &io->in.c[0], &io->out.c[0], y0, y1);
}

static void blc_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	const struct cisp_blc_coeffs *b = c->coeffs;

	c->dsp->blc_row(in[0], out[0], c->width, &b->black[(y & 1) * 2], &b->gain[(y & 1) * 2], b->white);
}

const struct cisp_stage cisp_stage_blc = {
	.name = "blc",
	.block = CISP_BLOCK_BLC,
	.flags = STAGE_EXPOSURE,
	.planes_in = 1,
	.planes_out = 1,
	.prepare = blc_prepare,
	.release = free,
	.rows = blc_rows,
	.in_place = 1,
	.point = blc_point,
};
