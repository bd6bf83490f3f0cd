/* SPDX-License-Identifier: MIT */
/*
 * RGB to YCbCr (docs/stages/csc.md). 16-bit outputs are 257 times the 8-bit
 * values of ITU-R BT.601/709/2020, so cisp_to8() gives those values exactly:
 * limited range Y 16..235 is 4112..60395 and chroma is centred on
 * CISP_CSC_CHROMA_ZERO = 128 * 257.
 */
#include <stdlib.h>

#include "arith.h"
#include "csc.h"
#include "isp/dsp.h"
#include "isp/stage.h"

/*
 * Q15 coefficients, rows Y, Cb, Cr of columns R, G, B, per matrix and range,
 * derived from Kr and Kb as the document says; each chroma row sums to 0.
 */
static const int32_t matrices[3][2][9] = {
	[CISP_CSC_BT601] = {
		[CISP_RANGE_LIMITED] = { 8414, 16520, 3208, -4857, -9535, 14392, 14393, -12052, -2341 },
		[CISP_RANGE_FULL] = { 9798, 19234, 3736, -5529, -10855, 16384, 16384, -13720, -2664 },
	},
	[CISP_CSC_BT709] = {
		[CISP_RANGE_LIMITED] = { 5983, 20127, 2032, -3298, -11094, 14392, 14393, -13073, -1320 },
		[CISP_RANGE_FULL] = { 6966, 23436, 2366, -3754, -12630, 16384, 16384, -14882, -1502 },
	},
	[CISP_CSC_BT2020] = {
		[CISP_RANGE_LIMITED] = { 7393, 19080, 1669, -4019, -10373, 14392, 14393, -13235, -1158 },
		[CISP_RANGE_FULL] = { 8608, 22217, 1943, -4575, -11809, 16384, 16384, -15066, -1318 },
	},
};

const int32_t *cisp_csc_matrix(const struct cisp_csc_params *p, int32_t *y_zero)
{
	*y_zero = p->range == CISP_RANGE_LIMITED ? 16 * 257 : 0;
	return matrices[p->matrix][p->range];
}

void cisp_csc_row_c(const int32_t m[9], int32_t y_zero, const uint16_t *const in[3], uint16_t *const out[3], int w)
{
	const uint16_t *i_r = in[0], *i_g = in[1], *i_b = in[2];
	uint16_t *o_y = out[0], *o_cb = out[1], *o_cr = out[2];

	{
		for (int x = 0; x < w; x++) {
			const int32_t r = i_r[x], g = i_g[x], b = i_b[x];
			/* Y's coefficients sum to at most 32768: at most 65535 * 32768 + 16384, inside int32. */
			const int32_t yy = y_zero + ((m[0] * r + m[1] * g + m[2] * b + 16384) >> 15);
			const int32_t cb = CISP_CSC_CHROMA_ZERO + ((m[3] * r + m[4] * g + m[5] * b + 16384) >> 15);
			const int32_t cr = CISP_CSC_CHROMA_ZERO + ((m[6] * r + m[7] * g + m[8] * b + 16384) >> 15);

			o_y[x] = clamp16(yy);
			o_cb[x] = clamp16(cb);
			o_cr[x] = clamp16(cr);
		}
	}
}

void cisp_csc_rows(const struct cisp_csc_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1)
{
	int32_t y_zero;
	const int32_t *m = cisp_csc_matrix(p, &y_zero);

	for (int y = y0; y < y1; y++) {
		const uint16_t *i[3] = { plane_row(&in->c[0], y), plane_row(&in->c[1], y), plane_row(&in->c[2], y) };
		uint16_t *o[3] = { plane_row(&out->c[0], y), plane_row(&out->c[1], y), plane_row(&out->c[2], y) };

		cisp_csc_row_c(m, y_zero, i, o, in->c[0].width);
	}
}

/* ---- the stage (stage.h) ---- */

struct csc_coeffs {
	const int32_t *m;
	int32_t y_zero;
};

static int csc_prepare(void **coeffs, const struct stage_env *env)
{
	int ret = stage_alloc(coeffs, sizeof(struct csc_coeffs), "YCbCr conversion");
	struct csc_coeffs *c = *coeffs;

	if (!ret)
		c->m = cisp_csc_matrix(&env->state->csc, &c->y_zero);
	return ret;
}

static void csc_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_csc_rows(&c->state->csc, &io->in, &io->out, y0, y1);
}

static void csc_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	const struct csc_coeffs *m = c->coeffs;

	(void)y;
	c->dsp->csc_row(m->m, m->y_zero, in, out, c->width);
}

const struct cisp_stage cisp_stage_csc = {
	.name = "csc",
	.block = CISP_BLOCK_CSC,
	.flags = STAGE_ALWAYS | STAGE_YUV,
	.planes_in = 3,
	.planes_out = 3,
	.prepare = csc_prepare,
	.release = free,
	.rows = csc_rows,
	.in_place = 7,
	.point = csc_point,
};
