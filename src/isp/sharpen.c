/* SPDX-License-Identifier: MIT */
/*
 * Luma unsharp mask with soft coring and an overshoot limit
 * (docs/stages/sharpen.md). The same change is added to R, G and B, so
 * sharpening moves brightness only, not colour.
 */
#include "arith.h"
#include "isp/dsp.h"
#include "isp/stage.h"
#include "sharpen.h"

/* Output columns handled per pass; sized for small stack buffers. */
#define CHUNK 256
#define R CISP_SHARPEN_RADIUS

/* Luma of pixel @x of rows @r, @g, @b: BT.709 weights in Q12, summing to 4096. */
static inline int32_t luma(const uint16_t *r, const uint16_t *g, const uint16_t *b, int x)
{
	return (871 * r[x] + 2929 * g[x] + 296 * b[x] + 2048) >> 12;
}

void cisp_sharpen_rows(const struct cisp_sharpen_params *p, const struct rgb16 *in, const struct rgb16 *out,
		       int y0, int y1)
{
	static const int32_t k[2 * R + 1] = { 1, 4, 6, 4, 1 }; /* binomial, sums to 16 */
	const int w = in->c[0].width, h = in->c[0].height;
	const uint32_t coring = p->coring, strength = p->strength;
	const int32_t limit = p->limit;

	for (int y = y0; y < y1; y++) {
		const uint16_t *rows[2 * R + 1][3];

		for (int j = 0; j < 2 * R + 1; j++)
			for (int c = 0; c < 3; c++)
				rows[j][c] = plane_row(&in->c[c], mirror(y + j - R, h));
		const uint16_t *const *mid = rows[R];
		uint16_t *o[3] = { plane_row(&out->c[0], y), plane_row(&out->c[1], y), plane_row(&out->c[2], y) };

		for (int x0 = 0; x0 < w; x0 += CHUNK) {
			const int x1 = x0 + CHUNK < w ? x0 + CHUNK : w;
			int32_t v[CHUNK + 2 * R]; /* vertical blur of luma, columns x0-R .. x1+R-1 */

			for (int x = x0 - R; x < x1 + R; x++) {
				const int xm = mirror(x, w);
				int32_t s = 0;

				for (int j = 0; j < 2 * R + 1; j++)
					s += k[j] * luma(rows[j][0], rows[j][1], rows[j][2], xm);
				v[x - x0 + R] = s;
			}
			for (int x = x0; x < x1; x++) {
				int32_t s = 0;

				for (int j = 0; j < 2 * R + 1; j++)
					s += k[j] * v[x - x0 + j];
				const int32_t blur = (s + 128) >> 8;
				const int32_t d = luma(mid[0], mid[1], mid[2], x) - blur;
				/* Soft coring: shrink |d| by the threshold; noise below it vanishes. */
				const uint32_t a = (uint32_t)(d < 0 ? -d : d);
				const uint32_t cored = a > coring ? a - coring : 0;
				uint32_t e = (cored * strength + 128) >> 8;
				if (e > (uint32_t)limit)
					e = (uint32_t)limit;
				const int32_t delta = d < 0 ? -(int32_t)e : (int32_t)e;

				for (int c = 0; c < 3; c++)
					o[c][x] = clamp16(mid[c][x] + delta);
			}
		}
	}
}

/*
 * The same arithmetic split in two for dsp.h and banded execution: the luma
 * of a row, then one output row from the luma of rows y-2..y+2 (each
 * computed once instead of five times).
 */
void cisp_sharpen_luma_row_c(const uint16_t *const rgb[3], uint16_t *out, int w)
{
	for (int x = 0; x < w; x++)
		out[x] = (uint16_t)luma(rgb[0], rgb[1], rgb[2], x);
}

void cisp_sharpen_row_c(const uint16_t *const l[5], const uint16_t *const mid[3], uint16_t *const out[3], int w,
			int coring, int strength, int limit, int32_t *v)
{
	/* v[x + R]: the vertical blur of column x, for x in [-R, w + R) (reflected). */
	for (int x = -R; x < w + R; x++) {
		const int xm = mirror(x, w);

		v[x + R] = l[0][xm] + 4 * l[1][xm] + 6 * l[2][xm] + 4 * l[3][xm] + l[4][xm];
	}
	for (int x = 0; x < w; x++) {
		const int32_t s = v[x] + 4 * v[x + 1] + 6 * v[x + 2] + 4 * v[x + 3] + v[x + 4];
		const int32_t d = l[2][x] - ((s + 128) >> 8);
		const uint32_t a = (uint32_t)(d < 0 ? -d : d);
		const uint32_t cored = a > (uint32_t)coring ? a - (uint32_t)coring : 0;
		uint32_t e = (cored * (uint32_t)strength + 128) >> 8;

		if (e > (uint32_t)limit)
			e = (uint32_t)limit;
		const int32_t delta = d < 0 ? -(int32_t)e : (int32_t)e;

		for (int c = 0; c < 3; c++)
			out[c][x] = clamp16(mid[c][x] + delta);
	}
}

/* ---- the stage (stage.h): it reads its params block as it is ---- */

static void sharpen_rows(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1)
{
	cisp_sharpen_rows(&c->state->sharpen, &io->in, &io->out, y0, y1);
}

/* The luma of each row (cisp_sharpen_luma_row_c()), once. */
static void luma_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct rgb16 *in = &io->in[0];

	for (int y = y0; y < y1; y++) {
		const uint16_t *rgb[3] = { plane_row(&in->c[0], y), plane_row(&in->c[1], y), plane_row(&in->c[2], y) };

		c->dsp->luma_row(rgb, plane_row(&io->out.c[0], y), c->width);
		pass_emit(io, y, NULL);
	}
}

/*
 * Each row from the luma of rows y-2..y+2 (cisp_sharpen_row_c()). In place
 * when the executor allows it: the luma of the rows below was read from
 * rows this pass has not changed yet.
 */
static void sharpen_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct cisp_sharpen_params *p = &c->state->sharpen;
	const struct plane16 *luma = &io->in[0].c[0];
	const struct rgb16 *in = &io->in[1];

	for (int y = y0; y < y1; y++) {
		const uint16_t *l[5], *mid[3] = { plane_row(&in->c[0], y), plane_row(&in->c[1], y), plane_row(&in->c[2], y) };
		uint16_t *o[3] = { plane_row(&io->out.c[0], y), plane_row(&io->out.c[1], y), plane_row(&io->out.c[2], y) };

		for (int k = 0; k < 5; k++)
			l[k] = plane_row(luma, mirror(y + k - R, c->height));
		c->dsp->sharpen_row(l, mid, o, c->width, p->coring, p->strength, p->limit, io->scratch);
		pass_emit(io, y, NULL);
	}
}

static int sharpen_passes(const struct stage_ctx *c, struct stage_pass pass[STAGE_MAX_PASSES])
{
	pass[0] = (struct stage_pass){ .planes = 1, .n_in = 1, .in = { { STAGE_INPUT, 0 } }, .rows = luma_pass };
	pass[1] = (struct stage_pass){ .planes = 3,
				       .n_in = 2,
				       .in = { { 0, R }, { STAGE_INPUT, 0 } },
				       .in_place = true,
				       .scratch = ((size_t)c->width + 2 * R) * sizeof(int32_t),
				       .rows = sharpen_pass };
	return 2;
}

const struct cisp_stage cisp_stage_sharpen = {
	.name = "sharpen",
	.block = CISP_BLOCK_SHARPEN,
	.planes_in = 3,
	.planes_out = 3,
	.rows = sharpen_rows,
	.passes = sharpen_passes,
};
