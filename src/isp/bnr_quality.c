/* SPDX-License-Identifier: MIT */
/*
 * The quality Bayer denoise (docs/stages/bnr.md, CISP_BNR_QUALITY): each
 * output sample is the rounded mean of the patch-guided range filter and
 * the transform shrinkage. Both are computed per tile of the output, so
 * their scratch memory is small and fixed; every output sample is a function
 * of the mirrored input alone, so the result does not depend on the tiles,
 * the rows asked for or the band split.
 */
#include <string.h>

#include "bnr_quality.h"
#include "dsp.h"
#include "scratch.h"

void cisp_bnr_load_region(const struct plane16 *in, int x0, int y0, int w, int h, uint16_t *dst, int stride)
{
	const int fw = in->width, fh = in->height;

	for (int j = 0; j < h; j++) {
		const uint16_t *s = plane_row(in, mirror(y0 + j, fh));
		uint16_t *d = dst + (size_t)j * stride;
		int x = x0;

		for (; x < x0 + w && x < 0; x++)
			d[x - x0] = s[mirror(x, fw)];
		if (x < x0 + w && x0 + w <= fw) {
			memcpy(d + (x - x0), s + x, (size_t)(x0 + w - x) * sizeof(*s));
			continue;
		}
		for (; x < x0 + w; x++)
			d[x - x0] = s[mirror(x, fw)];
	}
}

typedef void tile_fn(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw, int th,
		     uint16_t *dst, int stride);

/*
 * The patch filter's tiles, @ptw columns wide, straight into @out, then the
 * transform's, @ttw wide, averaged into it; no tile size changes a byte.
 */
static void quality_rows(tile_fn *patch, int ptw, tile_fn *transform, int ttw, const struct cisp_bnr_quality *q,
			 const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	CISP_SCRATCH uint16_t p[CISP_BNR_TILE_H_MAX][CISP_BNR_TILE_W], t[CISP_BNR_TILE_H_MAX][CISP_BNR_TILE_W];
	const int w = in->width;

	for (int ty = y0; ty < y1; ty += CISP_BNR_TILE_H_MAX) {
		const int th = y1 - ty < CISP_BNR_TILE_H_MAX ? y1 - ty : CISP_BNR_TILE_H_MAX;

		/* Through a tile of its own: a band's rows are a ring (plane.h), which a stride cannot step through. */
		for (int tx = 0; tx < w; tx += ptw) {
			const int tw = w - tx < ptw ? w - tx : ptw;

			patch(q, in, tx, ty, tw, th, &p[0][0], CISP_BNR_TILE_W);
			for (int j = 0; j < th; j++)
				memcpy(plane_row(out, ty + j) + tx, p[j], (size_t)tw * sizeof(p[0][0]));
		}
		for (int tx = 0; tx < w; tx += ttw) {
			const int tw = w - tx < ttw ? w - tx : ttw;

			transform(q, in, tx, ty, tw, th, &t[0][0], CISP_BNR_TILE_W);
			for (int j = 0; j < th; j++) {
				uint16_t *d = plane_row(out, ty + j) + tx;

				for (int i = 0; i < tw; i++)
					d[i] = (uint16_t)(((uint32_t)d[i] + t[j][i] + 1) >> 1);
			}
		}
	}
}

void cisp_bnr_quality_rows(const struct cisp_bnr_quality *q, const struct plane16 *in, const struct plane16 *out,
			   int y0, int y1)
{
	quality_rows(cisp_bnr_patch_tile, CISP_BNR_TILE_W, cisp_bnr_transform_tile, CISP_BNR_TILE_W, q, in, out, y0, y1);
}

/*
 * Transform tiles of 58 columns (29 cells) have 32 block columns: whole
 * vectors of 4, 8 or 16 lanes, where 64 columns leave 13 of 48 AVX-512 lanes
 * idle. Patch tiles of 60 columns keep the sums a pair of taps shares
 * within 32 lanes a parity (simd_bnr_quality.h).
 */
#define SIMD_TRANSFORM_TILE_W 58
#define SIMD_PATCH_TILE_W 60

void cisp_bnr_quality_rows_dsp(const struct cisp_dsp *d, const struct cisp_bnr_quality *q, const struct plane16 *in,
			       const struct plane16 *out, int y0, int y1)
{
	quality_rows(d->bnr_patch_tile, SIMD_PATCH_TILE_W, d->bnr_transform_tile, SIMD_TRANSFORM_TILE_W, q, in, out, y0,
		     y1);
}
