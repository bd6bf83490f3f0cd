// SPDX-License-Identifier: MIT
// Global tone (src/isp/tone.c, cisp_tone_row_c()): every sample through the
// 65536-entry table cisp_tone_prepare() made, in place.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
// The table, two 16-bit entries a word (the even one low).
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint lut[]; };
layout(push_constant) uniform Params {
	uint width, height;
} p;

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, i = y * p.width + x;
	for (uint c = 0u; c < 3u; c++) {
		uint v = rgb[c * n + i] & 0xffffu;
		rgb[c * n + i] = (lut[v >> 1] >> ((v & 1u) * 16u)) & 0xffffu;
	}
}
