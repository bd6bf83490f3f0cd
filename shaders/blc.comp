// SPDX-License-Identifier: MIT
// blc (src/isp/blc.c, cisp_blc_row_c): black level and rescale to full scale.
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint white;
	uint black[4]; // by CFA site: (y & 1) * 2 + (x & 1)
	uint gain[4];  // Q2.14
} p;

uint blc(uint s, uint site)
{
	// The product of at most 65535 * 65535 + 8192 fits in 32 bits unsigned, as in the C row.
	uint v = (uint(max(int(s) - int(p.black[site]), 0)) * p.gain[site] + 8192u) >> 14;
	return v > 65535u || s >= p.white ? 65535u : v;
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	uint i = y * (p.width / 2u) + px, pair = src[i], site = (y & 1u) * 2u;
	dst[i] = blc(lo16(pair), site) | (blc(hi16(pair), site + 1u) << 16);
}
