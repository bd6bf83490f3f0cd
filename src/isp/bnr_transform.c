/* SPDX-License-Identifier: MIT */
/*
 * Transform shrinkage of the quality Bayer denoise (docs/stages/bnr.md):
 * every 2x2 cell of the mosaic is mixed into four half-resolution planes (a
 * luma-like sum and three colour differences, a 4-point Walsh-Hadamard
 * transform); each plane is cut into overlapping 4x4 blocks at every other
 * cell of a quincunx (the cells whose two coordinates have an even sum),
 * each block transformed by the 4x4 Walsh-Hadamard transform, its
 * coefficients under a threshold from the noise profile set to 0, and
 * transformed back; the 8 estimates of a cell are averaged, each weighted
 * by the inverse of the coefficients its block kept. Additions only, apart
 * from the thresholds and the weights; the transforms are kept unscaled, so
 * they are exact.
 */
#include <string.h>

#include "bnr_quality.h"
#include "scratch.h"

/* Cells of a tile, and the rows and columns of cells (blocks reach 3 either side) it reads. */
#define CH (CISP_BNR_TILE_H / 2 + 1)
#define CW (CISP_BNR_TILE_W / 2)
#define MH (CH + 6)
#define MW (CW + 6)

/* Weight of a block that kept n coefficients: 4096 / n, rounded. */
static const uint16_t block_weight[17] = {
	0, 4096, 2048, 1365, 1024, 819, 683, 585, 512, 455, 410, 372, 341, 315, 293, 273, 256,
};

/*
 * The unscaled 4-point Walsh-Hadamard transform: output k is the sum of
 * (-1)^|k & n| x[n] (|.| the number of 1 bits); applying it twice multiplies by 4.
 */
static inline void wht4(int32_t *a, int32_t *b, int32_t *c, int32_t *d)
{
	int32_t s0 = *a + *b, s1 = *a - *b, s2 = *c + *d, s3 = *c - *d;

	*a = s0 + s2;
	*b = s1 + s3;
	*c = s0 - s2;
	*d = s1 - s3;
}

/* Rows, then columns; inlined, the compiler keeps the block in registers. */
static inline __attribute__((always_inline)) void wht4x4(int32_t x[4][4])
{
	for (int r = 0; r < 4; r++)
		wht4(&x[r][0], &x[r][1], &x[r][2], &x[r][3]);
	for (int c = 0; c < 4; c++)
		wht4(&x[0][c], &x[1][c], &x[2][c], &x[3][c]);
}

/* (-1)^|k & n|: the matrix of wht4(). */
static const int8_t hadamard4[4][4] = { { 1, 1, 1, 1 }, { 1, -1, 1, -1 }, { 1, 1, -1, -1 }, { 1, -1, -1, 1 } };

/* n / d rounded half away from zero (d > 0). */
static inline int64_t div_round(int64_t n, int64_t d)
{
	return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d);
}

static void transform_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw,
			   int th, uint16_t *dst, int stride)
{
	const int cy0 = y0 >> 1, cx0 = x0 >> 1;
	const int ncy = ((y0 + th - 1) >> 1) - cy0 + 1, ncx = ((x0 + tw - 1) >> 1) - cx0 + 1;
	CISP_SCRATCH uint16_t raw[2 * MH][2 * MW];
	CISP_SCRATCH int32_t m[4][MH][MW];
	CISP_SCRATCH int64_t acc[4][CH][CW];
	CISP_SCRATCH uint32_t ws[4][CH][CW];
	uint64_t sa = 0, sb = 0;

	memset(acc, 0, sizeof(acc));
	memset(ws, 0, sizeof(ws));

	for (int s = 0; s < 4; s++) {
		sa += q->a[s];
		sb += q->b[s];
	}
	/* Cells of rows [cy0 - 3, cy0 + ncy + 3), columns [cx0 - 3, cx0 + ncx + 3), mixed. */
	cisp_bnr_load_region(in, 2 * (cx0 - 3), 2 * (cy0 - 3), 2 * (ncx + 6), 2 * (ncy + 6), &raw[0][0], 2 * MW);
	for (int r = 0; r < ncy + 6; r++)
		for (int c = 0; c < ncx + 6; c++) {
			int32_t v[4] = { raw[2 * r][2 * c], raw[2 * r][2 * c + 1], raw[2 * r + 1][2 * c],
					 raw[2 * r + 1][2 * c + 1] };

			wht4(&v[0], &v[1], &v[2], &v[3]);
			for (int k = 0; k < 4; k++)
				m[k][r][c] = v[k];
		}
	/*
	 * Blocks with their top-left cell at rows [cy0 - 3, cy0 + ncy), columns
	 * [cx0 - 3, cx0 + ncx), on the quincunx: cy0 - 3 + br + cx0 - 3 + bc even.
	 */
	for (int br = 0; br < ncy + 3; br++)
		for (int bc = (br + cy0 + cx0) & 1; bc < ncx + 3; bc += 2) {
			/* The block's rows and columns that are cells of the tile. */
			const int j0 = br < 3 ? 3 - br : 0, j1 = br > ncy - 1 ? ncy + 3 - br : 4;
			const int i0 = bc < 3 ? 3 - bc : 0, i1 = bc > ncx - 1 ? ncx + 3 - bc : 4;
			uint32_t sum = 0;
			uint64_t thr;

			for (int j = 0; j < 4; j++)
				for (int i = 0; i < 4; i++)
					sum += (uint32_t)m[0][br + j][bc + i];
			/* The mean of the four channels' variances at the block's mean sample level. */
			thr = cisp_bnr_block_threshold(q, sa, sb, sum);
			for (int k = 0; k < 4; k++) {
				int32_t x[4][4];
				int nz = 0;
				uint32_t wt;

				for (int j = 0; j < 4; j++)
					for (int i = 0; i < 4; i++)
						x[j][i] = m[k][br + j][bc + i];
				wht4x4(x);
				/* Without branches: which coefficients survive is data, not a pattern to predict. */
				for (int j = 0; j < 4; j++)
					for (int i = 0; i < 4; i++) {
						const int32_t keep = (int32_t)((uint64_t)((int64_t)x[j][i] * x[j][i]) >= thr) |
								     (int32_t)((i | j) == 0);

						x[j][i] &= -keep;
						nz += keep;
					}
				wht4x4(x);
				wt = block_weight[nz];
				/* Cells of the block inside the tile: block row j is tile cell row br + j - 3. */
				for (int j = j0; j < j1; j++)
					for (int i = i0; i < i1; i++) {
						acc[k][br + j - 3][bc + i - 3] += (int64_t)wt * x[j][i];
						ws[k][br + j - 3][bc + i - 3] += wt;
					}
			}
		}
	/* Back to the mosaic: plane k's value at the cell is acc / (16 ws); a sample is their mix / 4. */
	for (int r = 0; r < ncy; r++)
		for (int c = 0; c < ncx; c++) {
			int64_t qk[4];

			for (int k = 0; k < 4; k++)
				qk[k] = div_round(acc[k][r][c] * 64, ws[k][r][c]);
			for (int p = 0; p < 4; p++) {
				/* Position p of the cell is sample (2 (cx0 + c) + (p & 1), 2 (cy0 + r) + (p >> 1)). */
				const int j = 2 * (cy0 + r) + (p >> 1) - y0, i = 2 * (cx0 + c) + (p & 1) - x0;
				int64_t v = 0;

				if (j < 0 || j >= th || i >= tw)
					continue;
				for (int k = 0; k < 4; k++)
					v += hadamard4[k][p] * qk[k];
				v = v <= 0 ? 0 : (v + 2048) >> 12;
				dst[(size_t)j * stride + i] = (uint16_t)(v > 65535 ? 65535 : v);
			}
		}
}

/* Taller tiles as tiles of CISP_BNR_TILE_H rows: no tile changes a byte. */
void cisp_bnr_transform_tile(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw, int th,
			     uint16_t *dst, int stride)
{
	for (int j = 0; j < th; j += CISP_BNR_TILE_H)
		transform_tile(q, in, x0, y0 + j, tw, th - j < CISP_BNR_TILE_H ? th - j : CISP_BNR_TILE_H,
			       dst + (size_t)j * stride, stride);
}
