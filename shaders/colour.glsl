// SPDX-License-Identifier: MIT
// The per-pixel colour stages' arithmetic (docs/gpu.md, "The RGB side"), one
// function each, on a pixel held in registers.
//
// Local tone mapping's tables, made by the host's cisp_ltm_prepare(), start at
// word LTM_START of the tables (after the tone table, the 3D LUT's and chroma
// denoise's): grid_w, range and rscale, a spare word, then the grid's nodes
// (level | gain << 16, row-major, 32 x 32 at most), then each column's left
// node | its Q6 position << 8 (16384 at most), then each row's likewise.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };

const uint LTM_START = 32768u + 33u * 33u * 33u * 3u + 2u * 32u + (2u * 8u + 1u) * 64u + 1u;
const uint LTM_NODES = LTM_START + 4u;
const uint LTM_COLS = LTM_NODES + 32u * 32u;
const uint LTM_ROWS = LTM_COLS + 16384u;

// cisp_ltm_level(): log2 of v in 1/256 stop, piecewise linear; 0..4095.
uint ltm_level(uint v)
{
	if (v == 0u)
		return 0u;
	int e = findMSB(v);
	return 256u * uint(e) + (e <= 8 ? v << uint(8 - e) : v >> uint(e - 8)) - 256u;
}

// cisp_ltm_gain_at() and the product of cisp_ltm_span_c(): pixel (x, y) of
// linear RGB @c times the gain blended from its four nodes. The weights sum
// to at most 4096 * 64 = 2^18, the gains' sum to less than 2^30, and a sample
// times a gain to less than 2^28: all inside uint.
uvec3 ltm(uvec3 c, uint x, uint y)
{
	uint grid_w = table[LTM_START], range = table[LTM_START + 1u], rscale = table[LTM_START + 2u];
	uint col = table[LTM_COLS + x], row = table[LTM_ROWS + y];
	uint fx = col >> 8, fy = row >> 8, k0 = (row & 255u) * grid_w + (col & 255u);
	uint k[4] = uint[4](k0, k0 + 1u, k0 + grid_w, k0 + grid_w + 1u);
	uint s[4] = uint[4]((64u - fx) * (64u - fy), fx * (64u - fy), (64u - fx) * fy, fx * fy);
	uint l = ltm_level((77u * c.r + 150u * c.g + 29u * c.b + 128u) >> 8);
	uint w[4], sum = 0u, acc = 0u;

	for (int i = 0; i < 4; i++) {
		uint level = table[LTM_NODES + k[i]] & 0xffffu;
		uint d = l > level ? l - level : level - l;
		w[i] = s[i] * (d < range ? ((range - d) * rscale) >> 16 : 0u);
		sum += w[i];
	}
	// Far from every node's level: the nodes by distance alone.
	if (sum == 0u) {
		w = s;
		sum = 64u * 64u;
	}
	for (int i = 0; i < 4; i++)
		acc += w[i] * (table[LTM_NODES + k[i]] >> 16);
	uint gain = (acc + sum / 2u) / sum;
	return min((c * gain + 128u) >> 8, uvec3(65535u));
}
