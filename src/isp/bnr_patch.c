/* SPDX-License-Identifier: MIT */
/*
 * Patch-guided range filter of the quality Bayer denoise (docs/stages/bnr.md):
 * a weighted mean of 12 same-colour samples around the centre (the nearest
 * 8 and 4 of the 7x7 window at green sites, the 8 of the 5x5 window at red
 * and blue ones), each weight set by how far the tap's 3x3 patch of a luma
 * guide and the tap's sample differ from the centre's, in units of the noise
 * variance the profile gives at the centre's local level. Comparing patches
 * instead of single guide values keeps texture that a pixel difference
 * cannot tell from noise.
 */
#include "bnr_quality.h"
#include "scratch.h"

/* Mirrored input and guide of a tile: the guide reaches 4 rows and columns past the tile, the input 5. */
#define GPAD 4
#define LPAD 5
#define LW (CISP_BNR_TILE_W + 2 * LPAD)
#define LH (CISP_BNR_TILE_H + 2 * LPAD)
#define GW (CISP_BNR_TILE_W + 2 * GPAD)
#define GH (CISP_BNR_TILE_H + 2 * GPAD)

/* Largest weight, the centre's. */
#define WMAX 4096

const int8_t cisp_bnr_taps[CISP_BNR_TAPS][2] = {
	{ 0, -2 }, { -2, 0 }, { 2, 0 }, { 0, 2 },     /* every site */
	{ -2, -2 }, { 2, -2 }, { -2, 2 }, { 2, 2 },   /* red and blue */
	{ -1, -1 }, { 1, -1 }, { -1, 1 }, { 1, 1 },   /* green */
	{ -3, -1 }, { 1, -3 }, { -1, 3 }, { 3, 1 },   /* green, a quarter turn apart */
};

/*
 * The patch distances are computed one tap offset at a time for the whole
 * tile: the squared guide differences of the offset at every position, then
 * their 3x3 box sums, in plain loops over rows; the same integers as summing
 * each tap's 9 terms.
 */
static void patch_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw, int th,
		       uint16_t *dst, int stride)
{
	CISP_SCRATCH uint16_t l[LH][LW], g[GH][GW];
	/* Per tile position: the limit Q, 2^48 / Q, the sums of weights and weighted samples. */
	CISP_SCRATCH uint64_t qv[CISP_BNR_TILE_H][CISP_BNR_TILE_W], inv[CISP_BNR_TILE_H][CISP_BNR_TILE_W];
	CISP_SCRATCH uint64_t swv[CISP_BNR_TILE_H][CISP_BNR_TILE_W];
	CISP_SCRATCH uint32_t sw[CISP_BNR_TILE_H][CISP_BNR_TILE_W];
	/* One offset's squared guide differences (tile + 1 around) and their horizontal 3-sums. */
	CISP_SCRATCH uint32_t d[CISP_BNR_TILE_H + 2][CISP_BNR_TILE_W + 2];
	CISP_SCRATCH uint64_t hs[CISP_BNR_TILE_H + 2][CISP_BNR_TILE_W];

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
			uint32_t sum9 = 0;

			/* Local level: the mean of the 3x3 same-colour samples. */
			for (int b = -2; b <= 2; b += 2)
				for (int a = -2; a <= 2; a += 2)
					sum9 += l[ly + b][lx + a];
			/* 36 scaled variances: a tap's weight is 0 where its squared distance reaches this. */
			qv[j][i] = cisp_bnr_patch_limit(q, site, sum9);
			inv[j][i] = qv[j][i] ? ((uint64_t)1 << 48) / qv[j][i] : 0;
			sw[j][i] = WMAX;
			swv[j][i] = (uint64_t)WMAX * l[ly][lx];
		}
	}
	for (int k = 0; k < CISP_BNR_TAPS; k++) {
		const int dx = cisp_bnr_taps[k][0], dy = cisp_bnr_taps[k][1];

		for (int j = 0; j < th + 2; j++) {
			const uint16_t *c = &g[j + GPAD - 1][GPAD - 1], *t = &g[j + GPAD - 1 + dy][GPAD - 1 + dx];

			for (int i = 0; i < tw + 2; i++) {
				int32_t e = (int32_t)t[i] - c[i];

				d[j][i] = (uint32_t)(e * (int64_t)e);
			}
			for (int i = 0; i < tw; i++)
				hs[j][i] = (uint64_t)d[j][i] + d[j][i + 1] + d[j][i + 2];
		}
		for (int j = 0; j < th; j++) {
			const int site_row = ((y0 + j) & 1) * 2;

			for (int i = 0; i < tw; i++) {
				const int site = site_row + ((x0 + i) & 1);
				const uint32_t v = l[j + LPAD + dy][i + LPAD + dx];
				const int64_t dv = (int64_t)v - l[j + LPAD][i + LPAD];
				uint64_t e, t, wt;

				/* Q = 0 keeps the centre alone. */
				if (!cisp_bnr_tap_used(k, q->green[site]))
					continue;
				e = (uint64_t)(dv * dv) + hs[j][i] + hs[j + 1][i] + hs[j + 2][i];
				if (e >= qv[j][i])
					continue;
				/* e < Q, so e * inv < 2^48: u = 2^16 e / Q, weight 4096 (1 - u / 2^16)^2. */
				t = 65536 - ((e * inv[j][i]) >> 32);
				wt = (t * t) >> 20;
				sw[j][i] += (uint32_t)wt;
				swv[j][i] += wt * v;
			}
		}
	}
	for (int j = 0; j < th; j++)
		for (int i = 0; i < tw; i++)
			dst[(size_t)j * stride + i] = (uint16_t)((swv[j][i] + sw[j][i] / 2) / sw[j][i]);
}

/* Taller tiles as tiles of CISP_BNR_TILE_H rows: no tile changes a byte. */
void cisp_bnr_patch_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw, int th,
			uint16_t *dst, int stride)
{
	for (int j = 0; j < th; j += CISP_BNR_TILE_H)
		patch_tile(q, in, x0, y0 + j, tw, th - j < CISP_BNR_TILE_H ? th - j : CISP_BNR_TILE_H,
			   dst + (size_t)j * stride, stride);
}
