/* SPDX-License-Identifier: MIT */
/*
 * Colour correction matrix with offsets (docs/stages/ccm.md).
 *
 * The ABI bounds each row's sum of |coeff| by 32767, so with inputs up to
 * 65535 the dot product and its rounding term fit in int32.
 */
#include "arith.h"
#include "ccm.h"
#include "isp/dsp.h"
#include "isp/stage.h"

void cisp_ccm_row_c(const int16_t m[9], const int32_t off[3], const uint16_t *const in[3], uint16_t *const out[3],
		    int w)
{
	const uint16_t *i_r = in[0], *i_g = in[1], *i_b = in[2];
	uint16_t *o_r = out[0], *o_g = out[1], *o_b = out[2];

	{
		for (int x = 0; x < w; x++) {
			int32_t r = i_r[x], g = i_g[x], b = i_b[x];
			/* >> on a negative int32 is an arithmetic shift with gcc and clang: floor division. */
			int32_t nr = ((m[0] * r + m[1] * g + m[2] * b + 2048) >> 12) + off[0];
			int32_t ng = ((m[3] * r + m[4] * g + m[5] * b + 2048) >> 12) + off[1];
			int32_t nb = ((m[6] * r + m[7] * g + m[8] * b + 2048) >> 12) + off[2];

			o_r[x] = clamp16(nr);
			o_g[x] = clamp16(ng);
			o_b[x] = clamp16(nb);
		}
	}
}

void cisp_ccm_rows(const struct cisp_ccm_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1)
{
	for (int y = y0; y < y1; y++) {
		const uint16_t *i[3] = { plane_row(&in->c[0], y), plane_row(&in->c[1], y), plane_row(&in->c[2], y) };
		uint16_t *o[3] = { plane_row(&out->c[0], y), plane_row(&out->c[1], y), plane_row(&out->c[2], y) };

		cisp_ccm_row_c(p->coeff, p->offset, i, o, in->c[0].width);
	}
}

/* ---- the stage (stage.h): it reads its params block as it is ---- */

static void ccm_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_ccm_rows(&c->state->ccm, &io->in, &io->out, y0, y1);
}

static void ccm_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	(void)y;
	c->dsp->ccm_row(c->state->ccm.coeff, c->state->ccm.offset, in, out, c->width);
}

const struct cisp_stage cisp_stage_ccm = {
	.name = "ccm",
	.block = CISP_BLOCK_CCM,
	.planes_in = 3,
	.planes_out = 3,
	.rows = ccm_rows,
	.in_place = 7,
	.point = ccm_point,
};
