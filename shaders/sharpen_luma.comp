// SPDX-License-Identifier: MIT
// Sharpening's luma (src/isp/sharpen.c, cisp_sharpen_luma_row_c()): BT.709
// weights in Q12 summing to 4096, from the R, G, B planes into plane 3.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
layout(push_constant) uniform Params {
	uint width, height;
} p;

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, i = y * p.width + x;
	// At most 4096 * 65535 + 2048: inside 32 bits unsigned.
	rgb[3u * n + i] = (871u * rgb[i] + 2929u * rgb[n + i] + 296u * rgb[2u * n + i] + 2048u) >> 12;
}
