// SPDX-License-Identifier: MIT
// bnr (src/isp/bnr_row.c, cisp_bnr_row_c; docs/stages/bnr.md): the fast
// Bayer denoise. Each invocation makes a pair of samples; the guide of every
// tap is read from the guide plane bnr_guide.comp made before. Integer
// arithmetic only: the mean's single-precision rounding (cisp_bnr_mean) is
// done in 32-bit words.
#version 450
#include "bnr.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
// The guide plane (bnr_guide.comp), then from @base: per CFA site
// (y & 1) * 2 + (x & 1), 256 inv values by guide level >> 8
// (cisp_bnr_inv_sigma), two to a word, the even level low.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };

// The guide of (x, y), both inside the frame.
uint guide(int x, int y)
{
	uint pair = table[uint(y) * (p.width / 2u) + uint(x >> 1)];
	return (x & 1) == 0 ? lo16(pair) : hi16(pair);
}

// cisp_bnr_tap_weight().
uint tap_weight(uint dg, uint dv, uint inv)
{
	uint u = ((dg * ((inv * 3u) >> 3)) >> 16) + ((dv * ((inv * 3u) >> 4)) >> 16);
	return u >= 64u ? 0u : 64u - u;
}

// @v (below 2^26) rounded to 24 significant bits, ties to even.
uint round24(uint v)
{
	int drop = findMSB(v) + 1 - 24;
	if (drop <= 0)
		return v;
	uint keep = v >> drop, rest = v & ((1u << drop) - 1u), mid = 1u << (drop - 1);
	if (rest > mid || (rest == mid && (keep & 1u) == 1u))
		keep++;
	return keep << drop;
}

// cisp_bnr_mean(): (uint)((float)swv / (float)sw + 0.5f), each step rounded to nearest even.
uint mean(uint swv, uint sw)
{
	uint a = round24(swv);
	if (a == 0u)
		return 0u;
	// The quotient's 24 significant bits m * 2^-e, by long division: a / sw < 2^20.
	uint m = a / sw, rem = a % sw;
	int e = 0;
	while (m < (1u << 23)) {
		rem <<= 1;
		m <<= 1;
		e++;
		if (rem >= sw) {
			rem -= sw;
			m |= 1u;
		}
	}
	if (2u * rem > sw || (2u * rem == sw && (m & 1u) == 1u))
		m++; // at most 2^24
	// y = x + 1/2 rounded to 24 bits and truncated is floor(x + 1/2 + ulp(y) / 2),
	// ties going up to the even integer; 2^k <= y < 2^(k + 1), ulp(y) = 2^(k - 23).
	int k = e >= 26 ? -1 : findMSB(m + (1u << (e - 1))) - e;
	// In units of half an ulp, 2^(k - 24): x below 2^25 of them; its dropped bits
	// cannot move the floor, as every other term is a whole number of units.
	int s = 24 - k - e;
	uint xu = s >= 0 ? m << s : m >> (-s);
	uint o = (xu + (1u << (23 - k)) + 1u) >> (24 - k);
	return min(o, 65535u);
}

uint denoise(int x, int y)
{
	int w = int(p.width), h = int(p.height);
	uint v0 = at(x, y);
	if (p.enabled == 0u)
		return v0;
	uint g0 = guide(x, y), site = uint(y & 1) * 2u + uint(x & 1);
	uint word = table[p.base + site * 128u + ((g0 >> 8) >> 1)];
	uint inv = ((g0 >> 8) & 1u) == 0u ? lo16(word) : hi16(word);
	bool green = ((p.green >> site) & 1u) == 1u;
	uint sw = 0u, swv = 0u;
	for (int j = -2; j <= 2; j += 2) {
		int Y = mirror(y + j, h);
		for (int i = -2; i <= 2; i += 2) {
			// Green sites take the diagonals below instead of the corners.
			if (green && j != 0 && i != 0)
				continue;
			int X = mirror(x + i, w);
			uint v = at(X, Y);
			uint wt = tap_weight(uint(abs(int(guide(X, Y)) - int(g0))), uint(abs(int(v) - int(v0))), inv);
			sw += wt;
			swv += wt * v;
		}
	}
	if (green)
		for (int j = -1; j <= 1; j += 2) {
			int Y = mirror(y + j, h);
			for (int i = -1; i <= 1; i += 2) {
				int X = mirror(x + i, w);
				uint v = at(X, Y);
				uint wt = tap_weight(uint(abs(int(guide(X, Y)) - int(g0))), uint(abs(int(v) - int(v0))), inv);
				sw += wt;
				swv += wt * v;
			}
		}
	return mean(swv, sw);
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	dst[y * (p.width / 2u) + px] = denoise(int(2u * px), int(y)) | (denoise(int(2u * px + 1u), int(y)) << 16);
}
