/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "isp/dsp.h"
#include "isp/stage.h"
#include "wb.h"

void cisp_wb_prepare(struct cisp_wb_coeffs *c, const struct cisp_wb_params *p, enum cisp_cfa cfa)
{
	for (int site = 0; site < 4; site++)
		c->gain[site] = p->gain[cisp_cfa_channel(cfa, site & 1, site >> 1)];
}

void cisp_wb_row_c(const uint16_t *s, uint16_t *d, int w, const uint16_t gain[2])
{
	for (int x = 0; x < w; x++) {
		/* 65535 * 65535 + 2048 fits in 32 bits unsigned. */
		uint32_t v = ((uint32_t)s[x] * gain[x & 1] + 2048) >> 12;

		d[x] = (uint16_t)(v > 65535 ? 65535 : v);
	}
}

void cisp_wb_rows(const struct cisp_wb_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		  int y0, int y1)
{
	for (int y = y0; y < y1; y++)
		cisp_wb_row_c(plane_row(in, y), plane_row(out, y), in->width, &c->gain[(y & 1) * 2]);
}

/* ---- the stage (stage.h) ---- */

static int wb_prepare(void **coeffs, const struct stage_env *env)
{
	int ret = stage_alloc(coeffs, sizeof(struct cisp_wb_coeffs), "white balance");

	if (!ret)
		cisp_wb_prepare(*coeffs, &env->state->wb, env->cfa);
	return ret;
}

static void wb_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_wb_rows(c->coeffs, &io->in.c[0], &io->out.c[0], y0, y1);
}

static void wb_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	const struct cisp_wb_coeffs *wb = c->coeffs;

	c->dsp->wb_row(in[0], out[0], c->width, &wb->gain[(y & 1) * 2]);
}

const struct cisp_stage cisp_stage_wb = {
	.name = "wb",
	.block = CISP_BLOCK_WB,
	.planes_in = 1,
	.planes_out = 1,
	.prepare = wb_prepare,
	.release = free,
	.rows = wb_rows,
	.in_place = 1,
	.point = wb_point,
};
