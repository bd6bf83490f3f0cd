// SPDX-License-Identifier: MIT
// What the fast Bayer denoise's two passes share (bnr_guide.comp, then
// bnr.comp): the input plane, the push constants, the reflection at the
// frame's edges and a sample of the input.
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint base;    // the filter's tables: their first word in the guide buffer
	uint green;   // bit site: the site is green
	uint enabled; // 0: strength 0, a copy
} p;

// mirror() of src/core/plane.h: reflection without repeating the edge.
int mirror(int i, int n)
{
	if (i < 0)
		i = -i;
	if (i >= n)
		i = 2 * n - 2 - i;
	return i;
}

uint at(int x, int y)
{
	uint pair = src[uint(y) * (p.width / 2u) + uint(x >> 1)];
	return (x & 1) == 0 ? lo16(pair) : hi16(pair);
}
