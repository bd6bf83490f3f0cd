// SPDX-License-Identifier: MIT
// The patch-guided range filter of the quality Bayer denoise
// (cisp_bnr_patch_tile(), src/isp/bnr_patch.c): each sample the weighted
// mean of its same-colour taps, a tap's weight from the squared distance of
// its 3x3 patch of the guide (bnrq_guide.comp) and its sample to the
// centre's, against the limit Q the noise profile gives at the centre's
// level. The C reference's uint64_t arithmetic in uint64_t.
#version 450
#include "bnrq.glsl"

layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
layout(std430, set = 0, binding = 2) readonly buffer Guide { uint guide[]; };

// cisp_bnr_taps: 0..3 every site's, 4..7 red and blue sites', 8..15 green sites'.
const ivec2 taps[16] = ivec2[](ivec2(0, -2), ivec2(-2, 0), ivec2(2, 0), ivec2(0, 2), ivec2(-2, -2), ivec2(2, -2),
			       ivec2(-2, 2), ivec2(2, 2), ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1),
			       ivec2(-3, -1), ivec2(1, -3), ivec2(-1, 3), ivec2(3, 1));

// The guide at (x, y), up to 4 outside the frame. The reference computes it
// from the reflected input there; the 1 2 1 weights are symmetric, so that
// is the guide at the reflected position.
int guide_at(int x, int y)
{
	int mx = mirror(x, int(p.width)), my = mirror(y, int(p.height));
	uint pair = guide[uint(my) * (p.width / 2u) + uint(mx >> 1)];
	return int((mx & 1) == 0 ? lo16(pair) : hi16(pair));
}

uint filtered(int x, int y)
{
	uint site = uint(y & 1) * 2u + uint(x & 1), v0 = at(x, y), sum9 = 0u;
	for (int j = -2; j <= 2; j += 2)
		for (int i = -2; i <= 2; i += 2)
			sum9 += at_mirrored(x + i, y + j);
	// cisp_bnr_patch_limit(): below 2^44.
	uint64_t var = ((uint64_t(p.a[site]) * uint64_t((sum9 + 4u) / 9u) + 32768ul) >> 16) + uint64_t(p.b[site]);
	uint64_t q = 36ul * ((var * uint64_t(p.s2)) >> 16);
	uint64_t inv = q != 0ul ? (1ul << 48) / q : 0ul;
	uint64_t sw = 4096ul, swv = 4096ul * uint64_t(v0);
	bool green = ((p.green >> site) & 1u) == 1u;
	for (int k = 0; k < 16; k++) {
		// cisp_bnr_tap_used()
		if (k >= 4 && (k < 8) == green)
			continue;
		ivec2 t = taps[k];
		uint v = at_mirrored(x + t.x, y + t.y);
		int dv = int(v) - int(v0);
		// Squares below 2^32, their sum of 10 below 2^36.
		uint64_t e = uint64_t(uint(dv * dv));
		for (int b = -1; b <= 1; b++)
			for (int a = -1; a <= 1; a++) {
				int d = guide_at(x + t.x + a, y + t.y + b) - guide_at(x + a, y + b);
				e += uint64_t(uint(d * d));
			}
		if (e >= q)
			continue;
		// e < Q, so e * inv < 2^48.
		uint64_t w = 65536ul - ((e * inv) >> 32);
		w = (w * w) >> 20;
		sw += w;
		swv += w * uint64_t(v);
	}
	return uint((swv + sw / 2ul) / sw);
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	dst[y * (p.width / 2u) + px] = filtered(int(2u * px), int(y)) | (filtered(int(2u * px + 1u), int(y)) << 16);
}
