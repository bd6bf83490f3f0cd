// SPDX-License-Identifier: MIT
// Local tone mapping (src/isp/ltm.c, cisp_ltm_row_c()): each pixel times the
// gain of its four grid nodes, in place.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
#include "colour.glsl"
layout(push_constant) uniform Params {
	uint width, height;
} p;

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, i = y * p.width + x;
	uvec3 v = ltm(uvec3(rgb[i], rgb[n + i], rgb[2u * n + i]), x, y);
	rgb[i] = v.r;
	rgb[n + i] = v.g;
	rgb[2u * n + i] = v.b;
}
