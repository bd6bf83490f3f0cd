// SPDX-License-Identifier: MIT
// The patch filter's guide (src/isp/bnr_patch.c): the 3x3 binomial mean of
// the mosaic, (4 m + 2 (edges) + corners + 8) >> 4 on the reflected input,
// into a plane of its own that bnrq_patch.comp reads. The sum is below 2^20.
#version 450
#include "bnrq.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Guide { uint guide[]; };

uint guide_at(int x, int y)
{
	uint s = 4u * at_mirrored(x, y) +
		 2u * (at_mirrored(x - 1, y) + at_mirrored(x + 1, y) + at_mirrored(x, y - 1) + at_mirrored(x, y + 1)) +
		 at_mirrored(x - 1, y - 1) + at_mirrored(x + 1, y - 1) + at_mirrored(x - 1, y + 1) +
		 at_mirrored(x + 1, y + 1);
	return (s + 8u) >> 4;
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	guide[y * (p.width / 2u) + px] = guide_at(int(2u * px), int(y)) | (guide_at(int(2u * px + 1u), int(y)) << 16);
}
