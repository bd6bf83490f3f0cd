// SPDX-License-Identifier: MIT
// What the two chroma denoise passes share (src/isp/cnr.h, docs/stages/cnr.md):
// the tables the host made with cisp_cnr_prepare(), a tap's weight and the
// weighted mean. From word TABLE_START of the tables (after the tone table and
// the 3D LUT's): the inverse thresholds of luma (32 words) and chroma (32),
// then R[n] for n in 0..(2 * 8 + 1) * 64.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
layout(push_constant) uniform Params {
	uint width, height;
	int radius;
} p;

const uint TABLE_START = 32768u + 33u * 33u * 33u * 3u;

uint inv_y(uint y) { return table[TABLE_START + (y >> 11)]; }
uint inv_c(uint y) { return table[TABLE_START + 32u + (y >> 11)]; }

// cisp_cnr_weight(): each distance times an inverse threshold below 2^32, u at most 128.
uint cnr_weight(uint dy, uint dcb, uint dcr, uint iy, uint ic)
{
	uint uy = min((dy * iy) >> 16, 128u), ub = min((dcb * ic) >> 16, 128u), ur = min((dcr * ic) >> 16, 128u);
	int t = 16384 - int(uy * uy) - int(ub * ub) - int(ur * ur);
	return t <= 0 ? 0u : (uint(t) * uint(t)) >> 22;
}

// cisp_cnr_mean(): (swv * R[sw] + 2^31) >> 32 from the 64-bit product's two words.
uint cnr_mean(uint sw, uint swv)
{
	uint hi, lo;
	umulExtended(swv, table[TABLE_START + 64u + sw], hi, lo);
	return min(hi + (lo >> 31), 65535u);
}

uint absdiff(uint a, uint b) { return a > b ? a - b : b - a; }
