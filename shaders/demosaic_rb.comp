// SPDX-License-Identifier: MIT
// The fast demosaic's red and blue (src/isp/demosaic_fast.c, rb_at()):
// green plus the mean colour difference of the nearest sites of that colour,
// from the green that shaders/demosaic_green.comp wrote in plane 1.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint bayer[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint rgb[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint first_colour[2]; // by row parity: the row's first red or blue column, 0 or 1
	uint red_first[2];    // by row parity: whether that colour is red
} p;

int at(int x, int y)
{
	uint i = uint(y) * p.width + uint(x);
	return int((bayer[i >> 1] >> ((i & 1u) * 16u)) & 0xffffu);
}

int green(int x, int y)
{
	return int(rgb[p.width * p.height + uint(y) * p.width + uint(x)]);
}

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
	int xl = mirror(x - 1, w), xr = mirror(x + 1, w), yu = mirror(y - 1, h), yd = mirror(y + 1, h);
	uint own, other;
	if ((x & 1) == int(p.first_colour[y & 1])) {
		own = uint(at(x, y));
		other = round_clip(4 * green(x, y) + at(xl, yu) + at(xr, yu) + at(xl, yd) + at(xr, yd) - green(xl, yu) -
					   green(xr, yu) - green(xl, yd) - green(xr, yd),
				   2);
	} else {
		own = round_clip(2 * green(x, y) + at(xl, y) + at(xr, y) - green(xl, y) - green(xr, y), 1);
		other = round_clip(2 * green(x, y) + at(x, yu) + at(x, yd) - green(x, yu) - green(x, yd), 1);
	}
	// The row's own colour: red in plane 0 or blue in plane 2.
	uint n = p.width * p.height, i = uint(y) * p.width + uint(x), own_plane = p.red_first[y & 1] != 0u ? 0u : 2u;
	rgb[own_plane * n + i] = own;
	rgb[(2u - own_plane) * n + i] = other;
}
