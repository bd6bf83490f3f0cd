// SPDX-License-Identifier: MIT
// What the quality Bayer denoise's shaders share (src/isp/bnr_quality.h,
// docs/stages/bnr.md): the input plane at binding 0, the push constants
// (struct cisp_bnr_quality as the host's cisp_bnr_prepare() made it), the
// reflection at the frame's edges. 64-bit integers (shaderInt64) hold the
// products and quotients the C reference takes in uint64_t and int64_t.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint a[4], b[4]; // the noise profile of each CFA site (y & 1) * 2 + (x & 1)
	uint s2;         // strength^2
	uint green;      // bit site: the site is green
	uint filters;    // bit 0: the patch filter runs, bit 1: the transform (both: their mean)
} p;

// mirror() of src/core/plane.h: reflection without repeating the edge.
int mirror(int i, int n)
{
	if (i < 0)
		i = -i;
	if (i >= n)
		i = 2 * (n - 1) - i;
	return i;
}

// The input sample at (x, y), both inside the frame.
uint at(int x, int y)
{
	uint pair = src[uint(y) * (p.width / 2u) + uint(x >> 1)];
	return (x & 1) == 0 ? lo16(pair) : hi16(pair);
}

// The input sample at (mirror(x), mirror(y)): cisp_bnr_load_region()'s.
uint at_mirrored(int x, int y)
{
	return at(mirror(x, int(p.width)), mirror(y, int(p.height)));
}
