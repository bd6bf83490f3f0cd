// SPDX-License-Identifier: MIT
// Crop and scale of an output (scale.glsl) into the scaled planes, at the output's size.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Planes { uint rgb[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Scaled { uint scaled[]; };
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
#include "scale.glsl"

void main()
{
	uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y, n = p.out_w * p.out_h;
	if (i >= p.out_w || j >= p.out_h)
		return;
	uvec3 v = scaled_at(i, j);
	for (uint c = 0u; c < 3u; c++)
		scaled[c * n + j * p.out_w + i] = v[c];
}
