// SPDX-License-Identifier: MIT
// The transform shrinkage of the quality Bayer denoise
// (cisp_bnr_transform_tile(), src/isp/bnr_transform.c), then the stage's
// mean of the two filters (cisp_bnr_quality_rows()). One invocation per 2x2
// cell: its 7x7 cells mixed into the four Walsh-Hadamard planes, the 8
// overlapping 4x4 blocks of the quincunx that hold the cell thresholded and
// transformed back at the cell, their weighted mean, and the cell's four
// samples. The
// transforms are sums of at most 2^26 in int; the sums of the weighted
// estimates and the thresholds are int64_t and uint64_t, as in C.
#version 450
#include "bnrq.glsl"

// The patch filter's result (bnrq_patch.comp), replaced by the mean.
layout(std430, set = 0, binding = 1) buffer Out { uint dst[]; };

// Weight of a block that kept n coefficients: 4096 / n, rounded.
const uint block_weight[17] = uint[](0u, 4096u, 2048u, 1365u, 1024u, 819u, 683u, 585u, 512u, 455u, 410u, 372u, 341u,
				     315u, 293u, 273u, 256u);

// (-1)^|k & n|: the 4-point transform's matrix (wht4() of the reference).
int hadamard(int k, int n)
{
	return (bitCount(k & n) & 1) == 0 ? 1 : -1;
}

// The unscaled 4-point transform, in place (wht4()).
void wht4(inout int a, inout int b, inout int c, inout int d)
{
	int s0 = a + b, s1 = a - b, s2 = c + d, s3 = c - d;
	a = s0 + s2;
	b = s1 + s3;
	c = s0 - s2;
	d = s1 - s3;
}

// The cells of rows and columns -3..3 around this one, in the four planes.
int m[4][7][7];

// n / d rounded half away from zero (d > 0): div_round() of the reference.
int64_t div_round(int64_t n, int64_t d)
{
	return n >= 0l ? (n + d / 2l) / d : -((-n + d / 2l) / d);
}

void main()
{
	int cx = int(gl_GlobalInvocationID.x), cy = int(gl_GlobalInvocationID.y);
	if (cx >= int(p.width / 2u) || cy >= int(p.height / 2u))
		return;
	// Cell (c, r) is the samples at rows 2r, 2r + 1 and columns 2c, 2c + 1 of the reflected input.
	for (int r = 0; r < 7; r++)
		for (int c = 0; c < 7; c++) {
			int x = 2 * (cx + c - 3), y = 2 * (cy + r - 3);
			int v0 = int(at_mirrored(x, y)), v1 = int(at_mirrored(x + 1, y));
			int v2 = int(at_mirrored(x, y + 1)), v3 = int(at_mirrored(x + 1, y + 1));
			wht4(v0, v1, v2, v3);
			m[0][r][c] = v0;
			m[1][r][c] = v1;
			m[2][r][c] = v2;
			m[3][r][c] = v3;
		}
	uint64_t sa = 0ul, sb = 0ul;
	for (int s = 0; s < 4; s++) {
		sa += uint64_t(p.a[s]);
		sb += uint64_t(p.b[s]);
	}
	int64_t acc[4] = int64_t[](0l, 0l, 0l, 0l);
	uint ws[4] = uint[](0u, 0u, 0u, 0u);
	// Block (br, bc) has its top-left cell at (br - 3, bc - 3) from this one, which is its (3 - br, 3 - bc);
	// blocks lie on the quincunx, their top-left cells' coordinates of even sum.
	for (int br = 0; br < 4; br++)
		for (int bc = (cx + cy + br) & 1; bc < 4; bc += 2) {
			uint sum = 0u;
			for (int j = 0; j < 4; j++)
				for (int i = 0; i < 4; i++)
					sum += uint(m[0][br + j][bc + i]);
			// cisp_bnr_block_threshold(): below 2^46.
			uint64_t var = ((sa * uint64_t((sum + 32u) >> 6) + (1ul << 17)) >> 18) + ((sb + 2ul) >> 2);
			uint64_t thr = (((var * uint64_t(p.s2)) >> 16) * 94372ul) >> 8;
			for (int k = 0; k < 4; k++) {
				int x[4][4];
				for (int j = 0; j < 4; j++)
					for (int i = 0; i < 4; i++)
						x[j][i] = m[k][br + j][bc + i];
				// wht4x4(): rows, then columns.
				for (int r = 0; r < 4; r++)
					wht4(x[r][0], x[r][1], x[r][2], x[r][3]);
				for (int c = 0; c < 4; c++)
					wht4(x[0][c], x[1][c], x[2][c], x[3][c]);
				// Keep what reaches the threshold, and the mean; back at the cell alone.
				int nz = 0, back = 0;
				for (int u = 0; u < 4; u++)
					for (int v = 0; v < 4; v++)
						if (uint64_t(int64_t(x[u][v]) * int64_t(x[u][v])) >= thr || (u | v) == 0) {
							nz++;
							back += hadamard(3 - br, u) * hadamard(3 - bc, v) * x[u][v];
						}
				uint wt = block_weight[nz];
				acc[k] += int64_t(wt) * int64_t(back);
				ws[k] += wt;
			}
		}
	// Plane k's value at the cell is acc / (16 ws); a sample is their mix / 4.
	int64_t qk[4];
	for (int k = 0; k < 4; k++)
		qk[k] = div_round(acc[k] * 64l, int64_t(ws[k]));
	uint o[4];
	for (int s = 0; s < 4; s++) {
		int64_t v = 0l;
		for (int k = 0; k < 4; k++)
			v += int64_t(hadamard(k, s)) * qk[k];
		v = v <= 0l ? 0l : (v + 2048l) >> 12;
		o[s] = uint(min(v, 65535l));
	}
	// Position s of the cell is row 2 cy + (s >> 1), column 2 cx + (s & 1).
	for (int r = 0; r < 2; r++) {
		uint i = uint(2 * cy + r) * (p.width / 2u) + uint(cx), t0 = o[2 * r], t1 = o[2 * r + 1];
		if ((p.filters & 1u) == 1u) {
			uint pair = dst[i];
			t0 = (lo16(pair) + t0 + 1u) >> 1;
			t1 = (hi16(pair) + t1 + 1u) >> 1;
		}
		dst[i] = t0 | (t1 << 16);
	}
}
