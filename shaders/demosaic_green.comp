// SPDX-License-Identifier: MIT
// The fast demosaic's green (src/isp/demosaic_fast.c, green_at() through
// cisp_demosaic_green_range_c()): Hamilton-Adams estimates blended by their
// gradients over a 5x5 window, at red and blue sites; green sites copy.
#version 450
#include "rgb.glsl"

// The 16-bit Bayer frame of the Bayer side: two samples a word, the even one low.
layout(std430, set = 0, binding = 0) readonly buffer In { uint bayer[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint rgb[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint first_colour[2]; // by row parity: the row's first red or blue column, 0 or 1
} p;

int at(int x, int y)
{
	uint i = uint(y) * p.width + uint(x);
	return int((bayer[i >> 1] >> ((i & 1u) * 16u)) & 0xffffu);
}

// floor((v + 2^(s-1)) / 2^s) clamped to 0..65535, v <= 0 giving 0: round_clip().
uint round_clip(int v, int s)
{
	return v <= 0 ? 0u : min(uint(v + (1 << (s - 1))) >> s, 65535u);
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h)
		return;
	uint out_index = p.width * p.height + uint(y) * p.width + uint(x);
	if ((x & 1) != int(p.first_colour[y & 1])) {
		rgb[out_index] = uint(at(x, y));
		return;
	}
	int x0 = mirror(x - 2, w), x1 = mirror(x - 1, w), x3 = mirror(x + 1, w), x4 = mirror(x + 2, w);
	int y0 = mirror(y - 2, h), y1 = mirror(y - 1, h), y3 = mirror(y + 1, h), y4 = mirror(y + 2, h);
	// Every value below stays under 2^27 in magnitude (docs/stages/demosaic_fast.md).
	int v = at(x, y);
	int lh = 2 * v - at(x0, y) - at(x4, y);
	int lv = 2 * v - at(x, y0) - at(x, y4);
	int gh = 2 * (at(x1, y) + at(x3, y)) + lh;
	int gv = 2 * (at(x, y1) + at(x, y3)) + lv;
	int dh = 4 * abs(at(x1, y) - at(x3, y)) + 4 * abs(lh) + 2 * (abs(at(x1, y1) - at(x3, y1)) + abs(at(x1, y3) - at(x3, y3))) +
		 abs(at(x0, y1) - at(x, y1)) + abs(at(x, y1) - at(x4, y1)) + abs(at(x0, y3) - at(x, y3)) +
		 abs(at(x, y3) - at(x4, y3));
	int dv = 4 * abs(at(x, y1) - at(x, y3)) + 4 * abs(lv) + 2 * (abs(at(x1, y1) - at(x1, y3)) + abs(at(x3, y1) - at(x3, y3))) +
		 abs(at(x1, y0) - at(x1, y)) + abs(at(x1, y) - at(x1, y4)) + abs(at(x3, y0) - at(x3, y)) +
		 abs(at(x3, y) - at(x3, y4));
	int level = int(64 * dv >= 16 * dh) + int(64 * dv >= 31 * dh) + int(64 * dv >= 43 * dh) + int(64 * dv >= 56 * dh) +
		    int(64 * dh < 56 * dv) + int(64 * dh < 43 * dv) + int(64 * dh < 31 * dv) + int(64 * dh < 16 * dv);
	rgb[out_index] = round_clip(gh * level + gv * (8 - level), 5);
}
