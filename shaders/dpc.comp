// SPDX-License-Identifier: MIT
// dpc (src/isp/dpc.c, cisp_dpc_rows): defective pixel correction, the
// dynamic detection against the 8 same-colour neighbours and the static list.
// Neighbours two rows or columns away are mirrored within the colour's
// plane, as cisp_dpc_mirror() does; everything is read from the input.
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
// From @base: per row y, at base + y, the index of its first static defect
// (height + 1 entries), then at base + height + 1 + k the column of static
// defect k; a row's columns are sorted.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint threshold; // 0: dynamic detection off
	uint base;
} p;

int mirror_cfa(int i, int n)
{
	if (i < 0)
		i = 2 * (i & 1) - i;
	if (i >= n)
		i = 2 * n - 4 - i + 2 * (i & 1);
	return i;
}

int at(int x, int y)
{
	uint pair = src[uint(y) * (p.width / 2u) + uint(x >> 1)];
	return int((x & 1) == 0 ? lo16(pair) : hi16(pair));
}

// The mean of the middle two of four samples, rounded half up.
int mid4(int a, int b, int c, int d)
{
	int hi = max(max(a, b), max(c, d)), lo = min(min(a, b), min(c, d));
	return (a + b + c + d - hi - lo + 1) >> 1;
}

// Whether (x, y) is on the static list: a binary search of its row's columns.
bool is_static(uint x, uint y)
{
	uint lo = table[p.base + y], hi = table[p.base + y + 1u], columns = p.base + p.height + 1u;
	while (lo < hi) {
		uint m = lo + (hi - lo) / 2u, c = table[columns + m];
		if (c == x)
			return true;
		if (c < x)
			lo = m + 1u;
		else
			hi = m;
	}
	return false;
}

uint dpc(int x, int y, int up, int dn)
{
	int w = int(p.width), l = mirror_cfa(x - 2, w), r = mirror_cfa(x + 2, w);
	int s = at(x, y), u = at(x, up), d = at(x, dn), ml = at(l, y), mr = at(r, y);
	if (is_static(uint(x), uint(y)))
		return uint(mid4(u, d, ml, mr));
	if (p.threshold == 0u)
		return uint(s);
	int ul = at(l, up), ur = at(r, up), dl = at(l, dn), dr = at(r, dn);
	int hi = max(max(max(ul, u), max(ur, ml)), max(max(mr, dl), max(d, dr)));
	int lo = min(min(min(ul, u), min(ur, ml)), min(min(mr, dl), min(d, dr)));
	if (s - hi > int(p.threshold) || lo - s > int(p.threshold))
		return uint(mid4(u, d, ml, mr));
	return uint(s);
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	int yi = int(y), h = int(p.height), up = mirror_cfa(yi - 2, h), dn = mirror_cfa(yi + 2, h);
	dst[y * (p.width / 2u) + px] = dpc(int(2u * px), yi, up, dn) | (dpc(int(2u * px + 1u), yi, up, dn) << 16);
}
