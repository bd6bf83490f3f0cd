// SPDX-License-Identifier: MIT
// The fast Bayer denoise's guide (cisp_bnr_guide_row_c(), src/isp/bnr_row.c):
// the 1 2 1 filter down the rows, then across the columns, each halving
// rounded up (cisp_bnr_guide_at()), rows and columns reflected as the
// reference reflects them; into the guide plane that bnr.comp reads.
#version 450
#include "bnr.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Guide { uint guide[]; };

uint guide3(uint a, uint b, uint c)
{
	return (((a + c + 1u) >> 1) + b + 1u) >> 1;
}

// Values below 2^18 throughout.
uint guide_at(int x, int y)
{
	int w = int(p.width), h = int(p.height);
	int u = mirror(y - 1, h), d = mirror(y + 1, h), l = mirror(x - 1, w), r = mirror(x + 1, w);
	return guide3(guide3(at(l, u), at(l, y), at(l, d)), guide3(at(x, u), at(x, y), at(x, d)),
		      guide3(at(r, u), at(r, y), at(r, d)));
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	guide[y * (p.width / 2u) + px] = guide_at(int(2u * px), int(y)) | (guide_at(int(2u * px + 1u), int(y)) << 16);
}
