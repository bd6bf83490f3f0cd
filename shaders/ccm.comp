// SPDX-License-Identifier: MIT
// Colour correction (src/isp/ccm.c, cisp_ccm_row_c()): a Q3.12 matrix and offsets, in place.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
layout(push_constant) uniform Params {
	uint width, height;
	int m[9]; // row-major, Q3.12
	int offset[3];
} p;

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, i = y * p.width + x;
	int r = int(rgb[i]), g = int(rgb[n + i]), b = int(rgb[2u * n + i]);
	// Each row's sum of |coeff| is at most 32767 (the ABI's check): inside int; >> floors.
	for (uint c = 0u; c < 3u; c++)
		rgb[c * n + i] = clamp16(((p.m[3u * c] * r + p.m[3u * c + 1u] * g + p.m[3u * c + 2u] * b + 2048) >> 12) + p.offset[c]);
}
