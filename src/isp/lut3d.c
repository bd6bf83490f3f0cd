/* SPDX-License-Identifier: MIT */
/*
 * 3D lookup table with tetrahedral interpolation (docs/stages/lut3d.md).
 *
 * Weights are Q15 (0..32768) so that a node value times a weight, and the sum
 * of the four weighted nodes of a tetrahedron, fit in int32.
 */
#include "isp/stage.h"
#include "lut3d.h"

/* Cell index (0..n-2) and Q15 weight (0..32768) towards the next node for input @v. */
static inline void locate(int32_t v, int32_t n, int32_t *cell, int32_t *w)
{
	const int32_t a = v * (n - 1);
	/* floor(a / 65535), exact for a < 2^22. */
	const int32_t q = (a + (a >> 16) + 1) >> 16;
	/* round(a * 32768 / 65535): the position in Q15 nodes. */
	const int32_t p = (a + 1 + q) >> 1;
	int32_t i = p >> 15;

	if (i > n - 2)
		i = n - 2;
	*cell = i;
	*w = p - (i << 15);
}

void cisp_lut3d_rows(const struct cisp_lut3d_params *p, const struct rgb16 *in, const struct rgb16 *out, int y0,
		     int y1)
{
	const int32_t n = p->size, w = in->c[0].width;
	/* Index steps to the next node along R, G and B. */
	const int32_t sr = 1, sg = n, sb = n * n;

	for (int y = y0; y < y1; y++) {
		const uint16_t *i_r = plane_row(&in->c[0], y), *i_g = plane_row(&in->c[1], y),
			       *i_b = plane_row(&in->c[2], y);
		uint16_t *o_r = plane_row(&out->c[0], y), *o_g = plane_row(&out->c[1], y),
			 *o_b = plane_row(&out->c[2], y);

		for (int x = 0; x < w; x++) {
			int32_t cr, cg, cb, wr, wg, wb;

			locate(i_r[x], n, &cr, &wr);
			locate(i_g[x], n, &cg, &wg);
			locate(i_b[x], n, &cb, &wb);

			/*
			 * The tetrahedron containing the point runs from node 000 to
			 * node 111 through the two corners picked by the order of the
			 * weights; k0..k3 are its nodes' weights (they sum to 32768).
			 * Ties may go either way: the two candidates share the face.
			 */
			const int32_t base = (cb * n + cg) * n + cr;
			int32_t i1, i2, k0, k1, k2, k3;
			if (wr >= wg) {
				if (wg >= wb) { /* r >= g >= b: 000, 100, 110, 111 */
					i1 = sr, i2 = sr + sg, k0 = 32768 - wr, k1 = wr - wg, k2 = wg - wb, k3 = wb;
				} else if (wr >= wb) { /* r >= b > g: 000, 100, 101, 111 */
					i1 = sr, i2 = sr + sb, k0 = 32768 - wr, k1 = wr - wb, k2 = wb - wg, k3 = wg;
				} else { /* b > r >= g: 000, 001, 101, 111 */
					i1 = sb, i2 = sr + sb, k0 = 32768 - wb, k1 = wb - wr, k2 = wr - wg, k3 = wg;
				}
			} else {
				if (wb >= wg) { /* b >= g > r: 000, 001, 011, 111 */
					i1 = sb, i2 = sg + sb, k0 = 32768 - wb, k1 = wb - wg, k2 = wg - wr, k3 = wr;
				} else if (wb >= wr) { /* g > b >= r: 000, 010, 011, 111 */
					i1 = sg, i2 = sg + sb, k0 = 32768 - wg, k1 = wg - wb, k2 = wb - wr, k3 = wr;
				} else { /* g > r > b: 000, 010, 110, 111 */
					i1 = sg, i2 = sr + sg, k0 = 32768 - wg, k1 = wg - wr, k2 = wr - wb, k3 = wb;
				}
			}
			const uint16_t *c0 = p->table[base], *c1 = p->table[base + i1], *c2 = p->table[base + i2],
				       *c3 = p->table[base + sr + sg + sb];
			uint16_t res[3];
			for (int c = 0; c < 3; c++)
				res[c] = (uint16_t)((c0[c] * k0 + c1[c] * k1 + c2[c] * k2 + c3[c] * k3 + 16384) >> 15);
			o_r[x] = res[0];
			o_g[x] = res[1];
			o_b[x] = res[2];
		}
	}
}

/* ---- the stage (stage.h): it reads its params block as it is ---- */

static void lut3d_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_lut3d_rows(&c->state->lut3d, &io->in, &io->out, y0, y1);
}

/* One row through the reference rows (the 3D LUT has no dsp.h entry). */
static void lut3d_point(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y)
{
	struct rgb16 i, o;

	for (int k = 0; k < 3; k++) {
		i.c[k] = (struct plane16){ (uint16_t *)in[k], c->width, y, c->width, c->height };
		o.c[k] = (struct plane16){ out[k], c->width, y, c->width, c->height };
	}
	cisp_lut3d_rows(&c->state->lut3d, &i, &o, y, y + 1);
}

const struct cisp_stage cisp_stage_lut3d = {
	.name = "lut3d",
	.block = CISP_BLOCK_LUT3D,
	.planes_in = 3,
	.planes_out = 3,
	.rows = lut3d_rows,
	.in_place = 7,
	.point = lut3d_point,
};
