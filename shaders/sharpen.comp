// SPDX-License-Identifier: MIT
// Sharpening (src/isp/sharpen.c, cisp_sharpen_row_c()): the luma of plane 3
// less its 5x5 binomial blur, soft-cored, scaled and limited, added to R, G
// and B, in place (each pixel reads only its own R, G, B); then, where @csc
// is set, the conversion to YCbCr (src/isp/csc.c) of the sharpened pixel in
// registers, so that the planes are read and written once for both.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
#define LUMA_TILE_W 68 // the workgroup's 64 pixels and 2 each side
#define LUMA_TILE_H 5
#include "colour.glsl"

layout(push_constant) uniform Params {
	uint width, height;
	uint coring, strength, limit;
	uint csc; // not 0: convert to YCbCr with the tables' matrix
} p;

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height), x0 = int(gl_WorkGroupID.x * gl_WorkGroupSize.x);
	load_luma_tile(x0, y, w, h);
	if (x >= w || y >= h)
		return;
	uint n = p.width * p.height, i = uint(y) * p.width + uint(x);
	int delta = sharpen_delta(int(luma_tile[2][x - x0 + 2]), sharpen_blur(x - x0, 0), p.coring, p.strength, p.limit);
	uvec3 v;
	for (int c = 0; c < 3; c++)
		v[c] = clamp16(int(rgb[uint(c) * n + i]) + delta);
	if (p.csc != 0u)
		v = csc(v);
	for (int c = 0; c < 3; c++)
		rgb[uint(c) * n + i] = v[c];
}
