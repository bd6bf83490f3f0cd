/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/image.h>

#include "core/error_internal.h"
#include "isp/dsp.h"
#include "isp/stage.h"
#include "lsc.h"

/* Interpolation weights are Q10: 1024 is a whole grid cell. */
#define W_BITS 10
#define W_ONE (1 << W_BITS)

struct cisp_lsc_coeffs {
	int grid_w, width;
	uint16_t gain[4][CISP_LSC_MAX_GRID * CISP_LSC_MAX_GRID]; /* per CFA site, row-major */
	uint16_t *col_node, *col_weight;                           /* per frame column */
	uint16_t *row_node, *row_weight;                           /* per frame row */
	int cell_end[CISP_LSC_MAX_GRID - 1];                       /* the column after each cell */
};

/*
 * Left node and Q10 weight of the right node for pixel coordinate @x of
 * @n, with @nodes grid nodes spanning pixel 0 to pixel n - 1.
 */
static void node_weight(int x, int n, int nodes, uint16_t *node, uint16_t *weight)
{
	int span = n - 1, pos = x * (nodes - 1); /* position in units of 1/span cell */
	int i = pos / span;

	if (i > nodes - 2)
		i = nodes - 2;
	*node = (uint16_t)i;
	/* span is odd (frame sizes are even), so the rounding never meets a tie. */
	*weight = (uint16_t)(((pos - i * span) * W_ONE + span / 2) / span);
}

int cisp_lsc_prepare(struct cisp_lsc_coeffs **out, const struct cisp_lsc_params *p, enum cisp_cfa cfa,
		     int width, int height)
{
	struct cisp_lsc_coeffs *c;
	int gw = p->grid_w, gh = p->grid_h;

	*out = NULL;
	if (gw < 2 || gw > CISP_LSC_MAX_GRID || gh < 2 || gh > CISP_LSC_MAX_GRID)
		return cisp_error(-EINVAL, "LSC grid %dx%d is outside 2x2..%dx%d", gw, gh, CISP_LSC_MAX_GRID,
				  CISP_LSC_MAX_GRID);
	if (width < 2 || height < 2 || width > CISP_MAX_DIMENSION || height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "LSC frame size %dx%d is outside 2x2..%dx%d", width, height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	c = calloc(1, sizeof(*c) + sizeof(uint16_t) * 2 * ((size_t)width + height));
	if (!c)
		return cisp_error(-ENOMEM, "out of memory for LSC tables");
	c->col_node = (uint16_t *)(c + 1);
	c->col_weight = c->col_node + width;
	c->row_node = c->col_weight + width;
	c->row_weight = c->row_node + height;
	c->grid_w = gw;
	c->width = width;
	for (int site = 0; site < 4; site++) {
		const uint16_t *g = p->gain + (size_t)cisp_cfa_channel(cfa, site & 1, site >> 1) * gw * gh;

		for (int i = 0; i < gw * gh; i++)
			c->gain[site][i] = g[i];
	}
	for (int x = 0; x < width; x++)
		node_weight(x, width, gw, &c->col_node[x], &c->col_weight[x]);
	/* Column x lies in cell col_node[x], which grows with x. */
	for (int i = 0, x = 0; i < gw - 1; i++) {
		while (x < width && c->col_node[x] <= i)
			x++;
		c->cell_end[i] = x;
	}
	for (int y = 0; y < height; y++)
		node_weight(y, height, gh, &c->row_node[y], &c->row_weight[y]);
	*out = c;
	return 0;
}

void cisp_lsc_free(struct cisp_lsc_coeffs *c)
{
	free(c);
}

void cisp_lsc_row_gains(const struct cisp_lsc_coeffs *c, int y, struct cisp_lsc_row *r)
{
	const int gw = c->grid_w, wy = c->row_weight[y];

	r->cells = gw - 1;
	r->end = c->cell_end;
	r->wx = c->col_weight;
	/* Vertical first, for the two sites of the row (a mean of 16-bit gains fits 16 bits). */
	for (int k = 0; k < 2; k++) {
		const uint16_t *top = c->gain[(y & 1) * 2 + k] + c->row_node[y] * gw;

		for (int i = 0; i < gw; i++) {
			uint16_t g = (uint16_t)(((uint32_t)top[i] * (W_ONE - wy) + (uint32_t)top[i + gw] * wy + W_ONE / 2) >>
						W_BITS);

			if (i < gw - 1)
				r->left[i][k] = g;
			if (i > 0)
				r->right[i - 1][k] = g;
		}
	}
}

void cisp_lsc_cell_c(const uint16_t *s, uint16_t *d, const struct cisp_lsc_row *r, int i, int x0, int x1)
{
	for (int x = x0; x < x1; x++) {
		const uint32_t wx = r->wx[x];
		uint32_t gain = (r->left[i][x & 1] * (W_ONE - wx) + r->right[i][x & 1] * wx + W_ONE / 2) >> W_BITS;
		uint32_t v = ((uint32_t)s[x] * gain + 2048) >> 12;

		d[x] = (uint16_t)(v > 65535 ? 65535 : v);
	}
}

void cisp_lsc_row_c(const uint16_t *s, uint16_t *d, int w, const struct cisp_lsc_row *r)
{
	for (int i = 0, x0 = 0; i < r->cells && x0 < w; i++) {
		const int x1 = r->end[i] < w ? r->end[i] : w;

		cisp_lsc_cell_c(s, d, r, i, x0, x1);
		x0 = x1;
	}
}

void cisp_lsc_rows(const struct cisp_lsc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1)
{
	struct cisp_lsc_row r;

	for (int y = y0; y < y1; y++) {
		cisp_lsc_row_gains(c, y, &r);
		cisp_lsc_row_c(plane_row(in, y), plane_row(out, y), in->width, &r);
	}
}

/* ---- the stage (stage.h) ---- */

static int lsc_prepare(void **coeffs, const struct stage_env *env)
{
	struct cisp_lsc_coeffs *c;
	int ret = cisp_lsc_prepare(&c, &env->state->lsc, env->cfa, env->width, env->height);

	if (ret)
		return ret;
	cisp_lsc_free(*coeffs);
	*coeffs = c;
	return 0;
}

static void lsc_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_lsc_rows(c->coeffs, &io->in.c[0], &io->out.c[0], y0, y1);
}

static void lsc_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	struct cisp_lsc_row gains;

	cisp_lsc_row_gains(c->coeffs, y, &gains);
	c->dsp->lsc_row(in[0], out[0], c->width, &gains);
}

static void lsc_release(void *coeffs)
{
	cisp_lsc_free(coeffs);
}

const struct cisp_stage cisp_stage_lsc = {
	.name = "lsc",
	.block = CISP_BLOCK_LSC,
	.planes_in = 1,
	.planes_out = 1,
	.prepare = lsc_prepare,
	.release = lsc_release,
	.rows = lsc_rows,
	.in_place = 1,
	.point = lsc_point,
};
