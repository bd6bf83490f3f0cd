// SPDX-License-Identifier: MIT
// Clipped highlights (src/isp/highlights.c, highlights_pixel() through
// cisp_highlights_row_c()) on the 16-bit Bayer frame after white balance,
// one invocation per pair, with the coefficients of the reference's own
// cisp_highlights_prepare() as push constants. Every value is below 2^32
// as in C; reconstruct's quotient of up to 34 bits is divided in 32-bit
// words (docs/gpu.md, "Clipped highlights").
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer In { uint src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint mode_colour;  // the mode in the low half; from bit 16, 2 bits a CFA site: its colour (HL_*)
	uint white_knee;   // W low, the lowest knee high
	uint clip_knee[3]; // per colour: C[k] low, K[k] high
	uint floors[3];    // F[k]
	uint ramp[3];      // 2^24 / max(C[k] - K[k], 1) rounded up
	uint framp[3];     // 2^24 / max(C[k] / 2 - F[k], 1) rounded up
} p;

const uint HL_RED = 0u, HL_GREEN = 1u, HL_BLUE = 2u;
const uint MODE_BLEND = 1u, MODE_RECONSTRUCT = 2u; // enum cisp_highlights_mode

// Reflection at the frame's edges, as mirror() in src/core/plane.h.
int mirror(int i, int n)
{
	if (i < 0)
		i = -i;
	if (i >= n)
		i = 2 * (n - 1) - i;
	return i;
}

uint at(int x, int y)
{
	uint i = uint(y) * p.width + uint(x);
	return (src[i >> 1] >> ((i & 1u) * 16u)) & 0xffffu;
}

// The colour of a site, from the unreflected position as the C code takes it (& 1 of a negative int: two's complement).
uint colour(int x, int y)
{
	return (p.mode_colour >> (16 + 2 * ((y & 1) * 2 + (x & 1)))) & 3u;
}

uint clip_of(uint k)
{
	return p.clip_knee[k] & 0xffffu;
}

uint knee_of(uint k)
{
	return p.clip_knee[k] >> 16;
}

// pull(): s moved towards target by amount (Q15); |target - s| * amount < 2^31, >> on int floors.
uint pull(uint s, uint target, uint amount)
{
	return uint(int(s) + ((int(target - s) * int(amount) + 16384) >> 15));
}

// amount_above(): Q15, 0 at or below start; in uint as in C (below 2^27: an estimate never passes its clip level).
uint amount_above(uint v, uint start, uint ramp)
{
	if (v <= start)
		return 0u;
	return min(((v - start) * ramp + 256u) >> 9, 32768u);
}

// floor(hi:lo / den) for hi < den, one bit at a time: the remainder stays below 2 * den < 2^19.
uint divide(uint hi, uint lo, uint den)
{
	uint q = 0u, r = hi;
	for (int b = 31; b >= 0; b--) {
		r = (r << 1) | ((lo >> uint(b)) & 1u);
		if (r >= den) {
			r -= den;
			q |= 1u << uint(b);
		}
	}
	return q;
}

// reconstruct_target(): the colour of the 5x5 samples below their colour's knee, at the neutral level.
bool reconstruct_target(int x, int y, int w, int h, uint own, uint level, out uint target)
{
	uint sum[3] = uint[3](0u, 0u, 0u), n[3] = uint[3](0u, 0u, 0u), mean[3];
	uint white = p.white_knee & 0xffffu, hi, lo, white_hi, white_lo;

	target = 0u;
	for (int dy = -2; dy <= 2; dy++) {
		int yy = mirror(y + dy, h);
		for (int dx = -2; dx <= 2; dx++) {
			uint v = at(mirror(x + dx, w), yy), k = colour(x + dx, y + dy);
			if (v < knee_of(k)) {
				sum[k] += v; // 25 samples: below 2^21
				n[k]++;
			}
		}
	}
	for (uint k = 0u; k < 3u; k++) {
		if (n[k] == 0u)
			return false;
		mean[k] = sum[k] / n[k];
	}
	uint den = mean[HL_RED] + 2u * mean[HL_GREEN] + mean[HL_BLUE];
	if (den == 0u)
		return false;
	// C's 64-bit level * 4 * mean / den, capped at W: the product (< 2^34) against W * den (< 2^34)
	// says whether the quotient reaches W; below it the quotient is below 2^16 and hi < den.
	umulExtended(level * 4u, mean[own], hi, lo);
	umulExtended(white, den, white_hi, white_lo);
	if (hi > white_hi || (hi == white_hi && lo >= white_lo))
		target = white;
	else
		target = divide(hi, lo, den);
	return true;
}

// highlights_pixel(): pixel x of row y.
uint pixel(int x, int y, int w, int h)
{
	int xl = mirror(x - 1, w), xr = mirror(x + 1, w), yu = mirror(y - 1, h), yd = mirror(y + 1, h);
	uint own = colour(x, y), row_x1 = colour(x + 1, y), ud_x = colour(x, y + 1), ud_x1 = colour(x + 1, y + 1);
	uint c_x1 = clip_of(row_x1), c_udx = clip_of(ud_x), c_udx1 = clip_of(ud_x1);
	uint s = min(at(x, y), clip_of(own)), est[3] = uint[3](0u, 0u, 0u), amount[3];
	uint most = 0u, bright = 32768u, target;
	uint mode = p.mode_colour & 0xffffu, white = p.white_knee & 0xffffu;

	// The pixel's three colours from its 3x3 neighbourhood, each sample capped at its colour's clip level.
	est[own] = s;
	if (own == HL_GREEN) {
		est[row_x1] = (min(at(xl, y), c_x1) + min(at(xr, y), c_x1) + 1u) >> 1;
		est[ud_x] = (min(at(x, yu), c_udx) + min(at(x, yd), c_udx) + 1u) >> 1;
	} else {
		est[HL_GREEN] = (min(at(xl, y), c_x1) + min(at(xr, y), c_x1) + min(at(x, yu), c_udx) +
				 min(at(x, yd), c_udx) + 2u) >> 2;
		est[ud_x1] = (min(at(xl, yu), c_udx1) + min(at(xr, yu), c_udx1) + min(at(xl, yd), c_udx1) +
			      min(at(xr, yd), c_udx1) + 2u) >> 2;
	}
	uint top = max(max(est[0], est[1]), est[2]);
	uint level = (est[HL_RED] + 2u * est[HL_GREEN] + est[HL_BLUE] + 2u) >> 2;
	for (uint k = 0u; k < 3u; k++) {
		uint b = amount_above(est[k], p.floors[k], p.framp[k]);
		amount[k] = amount_above(est[k], knee_of(k), p.ramp[k]);
		most = max(most, amount[k]);
		bright = min(bright, b);
	}
	if (most == 0u)
		return s;
	if (mode == MODE_RECONSTRUCT && reconstruct_target(x, y, w, h, own, level, target)) {
		s = pull(s, target, most);
	} else {
		// Each colour limits the sample towards its clip level by its amount: over * amount < 2^31.
		uint limit = 0u;
		for (uint k = 0u; k < 3u; k++) {
			uint over = s > clip_of(k) ? s - clip_of(k) : 0u;
			limit = max(limit, (over * amount[k] + 16384u) >> 15);
		}
		s -= limit;
	}
	uint neutral = (most * bright + 16384u) >> 15;
	if (neutral == 0u)
		return s & 0xffffu;
	target = min(mode == MODE_BLEND ? level : top, white);
	return pull(s, target, neutral) & 0xffffu; // C's (uint16_t)
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	int w = int(p.width), h = int(p.height), x = int(px) * 2;
	dst[y * (p.width / 2u) + px] = pixel(x, int(y), w, h) | (pixel(x + 1, int(y), w, h) << 16);
}
