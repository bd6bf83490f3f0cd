/* SPDX-License-Identifier: MIT */
/*
 * Local tone mapping (docs/stages/ltm.md). The grid of levels and gains
 * comes with the params block, made by the control algorithm from an
 * earlier frame's statistics (src/control/ltm.c), so the stage is a point
 * function of each row: it runs in bands like the colour matrix and needs
 * no pass over the whole frame first.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "isp/dsp.h"
#include "isp/stage.h"
#include "ltm.h"

void cisp_ltm_node_pos(int x, int n, int nodes, uint8_t *node, uint8_t *pos)
{
	/* (x + 1/2) nodes / n - 1/2 in 1/64 node, floored, clamped to the first and last node. */
	int64_t u = ((int64_t)(2 * x + 1) * nodes * LTM_POS_ONE) / (2 * (int64_t)n) - LTM_POS_ONE / 2;
	int64_t top = (int64_t)(nodes - 1) * LTM_POS_ONE;
	int i;

	u = u < 0 ? 0 : u > top ? top : u;
	i = (int)(u / LTM_POS_ONE);
	if (i > nodes - 2)
		i = nodes - 2;
	*node = (uint8_t)i;
	*pos = (uint8_t)(u - (int64_t)i * LTM_POS_ONE);
}

int cisp_ltm_prepare(struct cisp_ltm_coeffs *c, const struct cisp_ltm_params *p, int width, int height)
{
	int gw = p->grid_w, gh = p->grid_h, n = gw * gh;

	if (gw < 2 || gw > CISP_LTM_MAX_GRID || gh < 2 || gh > CISP_LTM_MAX_GRID)
		return cisp_error(-EINVAL, "LTM grid %dx%d is outside 2x2..%dx%d", gw, gh, CISP_LTM_MAX_GRID,
				  CISP_LTM_MAX_GRID);
	if (p->range < 64 || p->range > 1024)
		return cisp_error(-EINVAL, "LTM range %u is outside 64..1024", p->range);
	if (width < 2 || height < 2 || width > CISP_MAX_DIMENSION || height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "LTM frame size %dx%d is outside 2x2..%dx%d", width, height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	for (int k = 0; k < n; k++) {
		if (p->node[k] > 4095 || p->node[n + k] < 16 || p->node[n + k] > 4095)
			return cisp_error(-EINVAL, "LTM node %d: level %u or gain %u is out of range", k, p->node[k],
					  p->node[n + k]);
		c->level[k] = p->node[k];
		c->gain[k] = p->node[n + k];
	}
	c->grid_w = gw;
	c->grid_h = gh;
	c->range = p->range;
	c->rscale = (1u << 22) / p->range;
	for (int i = 0; i < CISP_LTM_MAX_GRID; i++)
		c->node_end[i] = 0;
	for (int x = 0; x < width; x++) {
		cisp_ltm_node_pos(x, width, gw, &c->col_node[x], &c->col_pos[x]);
		c->node_end[c->col_node[x]] = x + 1;
	}
	for (int y = 0; y < height; y++)
		cisp_ltm_node_pos(y, height, gh, &c->row_node[y], &c->row_pos[y]);
	return 0;
}

uint32_t cisp_ltm_gain_at(const struct cisp_ltm_coeffs *c, uint32_t luma, int x, int y)
{
	const int fx = c->col_pos[x], fy = c->row_pos[y];
	const int k0 = c->row_node[y] * c->grid_w + c->col_node[x], k[4] = { k0, k0 + 1, k0 + c->grid_w,
									 k0 + c->grid_w + 1 };
	const uint32_t s[4] = { (uint32_t)((LTM_POS_ONE - fx) * (LTM_POS_ONE - fy)), (uint32_t)(fx * (LTM_POS_ONE - fy)),
				(uint32_t)((LTM_POS_ONE - fx) * fy), (uint32_t)(fx * fy) };
	const uint32_t l = cisp_ltm_level(luma);
	uint32_t w[4], sum = 0, acc = 0;

	for (int i = 0; i < 4; i++) {
		uint32_t d = l > c->level[k[i]] ? l - c->level[k[i]] : c->level[k[i]] - l;
		uint32_t r = d < c->range ? ((c->range - d) * c->rscale) >> 16 : 0;

		w[i] = s[i] * r;
		sum += w[i];
	}
	/* Far from every node's level: the nodes by distance alone. */
	if (!sum) {
		for (int i = 0; i < 4; i++)
			w[i] = s[i];
		sum = LTM_POS_ONE * LTM_POS_ONE;
	}
	for (int i = 0; i < 4; i++)
		acc += w[i] * c->gain[k[i]];
	return (acc + sum / 2) / sum;
}

void cisp_ltm_row_c(const struct cisp_ltm_coeffs *c, const uint16_t *const in[3], uint16_t *const out[3], int w,
		    int y)
{
	cisp_ltm_span_c(c, in, out, 0, w, y);
}

void cisp_ltm_span_c(const struct cisp_ltm_coeffs *c, const uint16_t *const in[3], uint16_t *const out[3], int x0,
		     int x1, int y)
{
	for (int x = x0; x < x1; x++) {
		uint32_t r = in[0][x], g = in[1][x], b = in[2][x];
		uint32_t gain = cisp_ltm_gain_at(c, cisp_ltm_luma(r, g, b), x, y);
		uint32_t v[3] = { (r * gain + 128) >> 8, (g * gain + 128) >> 8, (b * gain + 128) >> 8 };

		for (int k = 0; k < 3; k++)
			out[k][x] = (uint16_t)(v[k] > 65535 ? 65535 : v[k]);
	}
}

/* ---- the stage (stage.h) ---- */

static int ltm_prepare(void **coeffs, const struct stage_env *env)
{
	int ret = stage_alloc(coeffs, sizeof(struct cisp_ltm_coeffs), "LTM");

	return ret ? ret : cisp_ltm_prepare(*coeffs, &env->state->ltm, env->width, env->height);
}

static void ltm_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	for (int y = y0; y < y1; y++) {
		const uint16_t *in[3];
		uint16_t *out[3];

		for (int k = 0; k < 3; k++) {
			in[k] = plane_row(&io->in.c[k], y);
			out[k] = plane_row(&io->out.c[k], y);
		}
		cisp_ltm_row_c(c->coeffs, in, out, c->width, y);
	}
}

static void ltm_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	c->dsp->ltm_row(c->coeffs, in, out, c->width, y);
}

const struct cisp_stage cisp_stage_ltm = {
	.name = "ltm",
	.block = CISP_BLOCK_LTM,
	.planes_in = 3,
	.planes_out = 3,
	.prepare = ltm_prepare,
	.release = free,
	.rows = ltm_rows,
	.in_place = 7,
	.point = ltm_point,
};
