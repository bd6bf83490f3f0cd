// SPDX-License-Identifier: MIT
// The 3D LUT (src/isp/lut3d.c, cisp_lut3d_rows()): tetrahedral interpolation
// between the nodes, Q15 weights, in place.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
// From word TABLE_START (after the tone table): node (r, g, b)'s R, G, B at
// ((b * size + g) * size + r) * 3, one word each.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
layout(push_constant) uniform Params {
	uint width, height;
	int size; // nodes per edge
} p;

const uint TABLE_START = 32768u;

// Cell (0..size-2) and Q15 weight towards the next node of input @v: locate() in lut3d.c.
ivec2 locate(int v)
{
	int n = p.size, a = v * (n - 1);
	int q = (a + (a >> 16) + 1) >> 16; // floor(a / 65535), exact for a < 2^22
	int pos = (a + 1 + q) >> 1;        // round(a * 32768 / 65535)
	int i = min(pos >> 15, n - 2);
	return ivec2(i, pos - (i << 15));
}

int node(int index, uint c)
{
	return int(table[TABLE_START + uint(index) * 3u + c]);
}

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, i = y * p.width + x;
	ivec2 r = locate(int(rgb[i])), g = locate(int(rgb[n + i])), b = locate(int(rgb[2u * n + i]));
	int sr = 1, sg = p.size, sb = p.size * p.size, wr = r.y, wg = g.y, wb = b.y;
	int base = (b.x * p.size + g.x) * p.size + r.x, i1, i2, k0, k1, k2, k3;
	// The tetrahedron from node 000 to 111 through the corners the order of the weights picks, as in C.
	if (wr >= wg) {
		if (wg >= wb) {
			i1 = sr; i2 = sr + sg; k0 = 32768 - wr; k1 = wr - wg; k2 = wg - wb; k3 = wb;
		} else if (wr >= wb) {
			i1 = sr; i2 = sr + sb; k0 = 32768 - wr; k1 = wr - wb; k2 = wb - wg; k3 = wg;
		} else {
			i1 = sb; i2 = sr + sb; k0 = 32768 - wb; k1 = wb - wr; k2 = wr - wg; k3 = wg;
		}
	} else {
		if (wb >= wg) {
			i1 = sb; i2 = sg + sb; k0 = 32768 - wb; k1 = wb - wg; k2 = wg - wr; k3 = wr;
		} else if (wb >= wr) {
			i1 = sg; i2 = sg + sb; k0 = 32768 - wg; k1 = wg - wb; k2 = wb - wr; k3 = wr;
		} else {
			i1 = sg; i2 = sr + sg; k0 = 32768 - wg; k1 = wg - wr; k2 = wr - wb; k3 = wb;
		}
	}
	// The weights sum to 32768: at most 65535 * 32768 + 16384, inside int.
	for (uint c = 0u; c < 3u; c++)
		rgb[c * n + i] = uint((node(base, c) * k0 + node(base + i1, c) * k1 + node(base + i2, c) * k2 +
				       node(base + sr + sg + sb, c) * k3 + 16384) >> 15);
}
