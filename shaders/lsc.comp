// SPDX-License-Identifier: MIT
// lsc (src/isp/lsc.c, cisp_lsc_cell_c): lens shading gains, bilinear between grid nodes.
// The host interpolates the grid down to each row with the reference's own
// cisp_lsc_row_gains(); the shader blends across and multiplies.
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
// [0, width): column x's cell << 16 | its Q10 weight of the cell's right node;
// then per row y, cell i, CFA column parity k, at width + (y * cells + i) * 2 + k:
// the cell's left node gain | its right node gain << 16 (4.12).
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint cells;
} p;

uint lsc(uint s, uint x, uint y)
{
	uint col = table[x], wx = col & 0xffffu;
	uint nodes = table[p.width + (y * p.cells + (col >> 16)) * 2u + (x & 1u)];
	// At most 65535 * 1024 + 512, then 65535 * 65535 + 2048: both fit in 32 bits unsigned.
	uint gain = ((nodes & 0xffffu) * (1024u - wx) + (nodes >> 16) * wx + 512u) >> 10;
	return min((s * gain + 2048u) >> 12, 65535u);
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	uint i = y * (p.width / 2u) + px, pair = src[i];
	dst[i] = lsc(lo16(pair), 2u * px, y) | (lsc(hi16(pair), 2u * px + 1u, y) << 16);
}
