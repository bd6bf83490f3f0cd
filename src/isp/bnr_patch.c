/* SPDX-License-Identifier: MIT */
/*
 * Patch-guided range filter of the quality Bayer denoise (docs/stages/bnr.md):
 * a weighted mean of the same-colour samples of a 7x7 window (5x5 at red and
 * blue sites), each weight set by how far the tap's 3x3 patch of a luma
 * guide and the tap's sample differ from the centre's, in units of the noise
 * variance the profile gives at the centre's local level. Comparing patches
 * instead of single guide values keeps texture that a pixel difference
 * cannot tell from noise.
 */
#include "bnr_quality.h"

/* Mirrored input and guide of a tile: the guide reaches 4 rows and columns past the tile, the input 5. */
#define GPAD 4
#define LPAD 5
#define LW (CISP_BNR_TILE_W + 2 * LPAD)
#define LH (CISP_BNR_TILE_H + 2 * LPAD)
#define GW (CISP_BNR_TILE_W + 2 * GPAD)
#define GH (CISP_BNR_TILE_H + 2 * GPAD)

/* Largest weight, the centre's. */
#define WMAX 4096

/* Tap offsets (dx, dy): green sites take the 24 same-colour ones of the 7x7 window, red and blue the first 8. */
static const int8_t taps[24][2] = {
	{ -2, -2 }, { 0, -2 }, { 2, -2 }, { -2, 0 }, { 2, 0 }, { -2, 2 }, { 0, 2 }, { 2, 2 },
	{ -1, -1 }, { 1, -1 }, { -1, 1 }, { 1, 1 }, { -3, -3 }, { -1, -3 }, { 1, -3 }, { 3, -3 },
	{ -3, -1 }, { 3, -1 }, { -3, 1 }, { 3, 1 }, { -3, 3 }, { -1, 3 }, { 1, 3 }, { 3, 3 },
};

void cisp_bnr_patch_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			 int th, uint16_t *dst, int stride)
{
	uint16_t l[LH][LW], g[GH][GW];

	cisp_bnr_load_region(in, x0 - LPAD, y0 - LPAD, tw + 2 * LPAD, th + 2 * LPAD, &l[0][0], LW);
	/* Guide: the 3x3 binomial mean of the mosaic (R/4 + G/2 + B/4 at every site). */
	for (int j = 0; j < th + 2 * GPAD; j++)
		for (int i = 0; i < tw + 2 * GPAD; i++) {
			const uint16_t *a = &l[j][i], *m = &l[j + 1][i], *b = &l[j + 2][i];
			uint32_t s = 4u * m[1] + 2u * ((uint32_t)m[0] + m[2] + a[1] + b[1]) + a[0] + a[2] + b[0] + b[2];

			g[j][i] = (uint16_t)((s + 8) >> 4);
		}
	for (int j = 0; j < th; j++) {
		const int site_row = ((y0 + j) & 1) * 2;

		for (int i = 0; i < tw; i++) {
			const int site = site_row + ((x0 + i) & 1), lx = i + LPAD, ly = j + LPAD;
			const int ntap = q->green[site] ? 24 : 8;
			const uint32_t v0 = l[ly][lx];
			uint32_t sum9 = 0, c[9];
			uint64_t var, qv, inv, sw = WMAX, swv = (uint64_t)WMAX * v0;

			/* Local level: the mean of the 3x3 same-colour samples. */
			for (int b = -2; b <= 2; b += 2)
				for (int a = -2; a <= 2; a += 2)
					sum9 += l[ly + b][lx + a];
			var = (((uint64_t)q->a[site] * ((sum9 + 4) / 9) + 32768) >> 16) + q->b[site];
			/* 36 scaled variances: a tap's weight is 0 where its squared distance reaches this. */
			qv = 36 * ((var * q->s2) >> 16);
			if (qv == 0) {
				dst[(size_t)j * stride + i] = (uint16_t)v0;
				continue;
			}
			inv = ((uint64_t)1 << 48) / qv;
			for (int b = 0; b < 3; b++)
				for (int a = 0; a < 3; a++)
					c[b * 3 + a] = g[j + GPAD - 1 + b][i + GPAD - 1 + a];
			for (int k = 0; k < ntap; k++) {
				const int dx = taps[k][0], dy = taps[k][1];
				const uint32_t v = l[ly + dy][lx + dx];
				const int64_t dv = (int64_t)v - v0;
				uint64_t e = (uint64_t)(dv * dv), t, wt;

				if (e >= qv)
					continue;
				for (int b = 0; b < 3; b++)
					for (int a = 0; a < 3; a++) {
						int64_t d = (int64_t)g[j + GPAD - 1 + dy + b][i + GPAD - 1 + dx + a] - c[b * 3 + a];

						e += (uint64_t)(d * d);
					}
				if (e >= qv)
					continue;
				/* e < qv, so e * inv < 2^48: u = 2^16 e / qv, weight 4096 (1 - u / 2^16)^2. */
				t = 65536 - ((e * inv) >> 32);
				wt = (t * t) >> 20;
				sw += wt;
				swv += wt * v;
			}
			dst[(size_t)j * stride + i] = (uint16_t)((swv + sw / 2) / sw);
		}
	}
}
