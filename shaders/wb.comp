// SPDX-License-Identifier: MIT
// wb (src/isp/wb.c, cisp_wb_row_c): white-balance gains in Q4.12.
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint gain[4]; // by CFA site: (y & 1) * 2 + (x & 1)
} p;

uint wb(uint s, uint site)
{
	// 65535 * 65535 + 2048 fits in 32 bits unsigned.
	return min((s * p.gain[site] + 2048u) >> 12, 65535u);
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	uint i = y * (p.width / 2u) + px, pair = src[i], site = (y & 1u) * 2u;
	dst[i] = wb(lo16(pair), site) | (wb(hi16(pair), site + 1u) << 16);
}
