// SPDX-License-Identifier: MIT
// Sharpening (src/isp/sharpen.c, cisp_sharpen_row_c()): the luma of plane 3
// less its 5x5 binomial blur, soft-cored, scaled and limited, added to R, G
// and B, in place (each pixel reads only its own R, G, B).
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint coring, strength, limit;
} p;

const int k[5] = int[5](1, 4, 6, 4, 1); // binomial, sums to 16

int luma(int x, int y)
{
	return int(rgb[3u * p.width * p.height + uint(y) * p.width + uint(x)]);
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h)
		return;
	// The vertical blur of columns x-2..x+2 (reflected), then across: at most 256 * 65535.
	int s = 0;
	for (int i = 0; i < 5; i++) {
		int xm = mirror(x + i - 2, w), v = 0;
		for (int j = 0; j < 5; j++)
			v += k[j] * luma(xm, mirror(y + j - 2, h));
		s += k[i] * v;
	}
	int d = luma(x, y) - ((s + 128) >> 8);
	uint a = uint(abs(d)), cored = a > p.coring ? a - p.coring : 0u;
	// At most 65535 * 65535 + 128: inside 32 bits unsigned, as in C.
	int e = int(min((cored * p.strength + 128u) >> 8, p.limit)), delta = d < 0 ? -e : e;
	uint n = p.width * p.height, i = uint(y) * p.width + uint(x);
	for (uint c = 0u; c < 3u; c++)
		rgb[c * n + i] = clamp16(int(rgb[c * n + i]) + delta);
}
