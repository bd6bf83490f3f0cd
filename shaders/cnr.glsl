// SPDX-License-Identifier: MIT
// What the two chroma denoise passes share (src/isp/cnr.h, docs/stages/cnr.md):
// the tables the host made with cisp_cnr_prepare(), a tap's weight and the
// weighted mean. From word TABLE_START of the tables (after the tone table and
// the 3D LUT's): the inverse thresholds of luma (32 words) and chroma (32),
// then R[n] for n in 0..(2 * 8 + 1) * 64.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
layout(push_constant) uniform Params {
	uint width, height;
	int radius;
	uint place; // pack420_cnr.comp's output: as pack_fused.comp's
} p;

const uint TABLE_START = 32768u + 33u * 33u * 33u * 3u;

uint inv_y(uint y) { return table[TABLE_START + (y >> 11)]; }
uint inv_c(uint y) { return table[TABLE_START + 32u + (y >> 11)]; }

// cisp_cnr_weight(): each distance times an inverse threshold below 2^32, u at most 128.
uint cnr_weight(uint dy, uint dcb, uint dcr, uint iy, uint ic)
{
	uint uy = min((dy * iy) >> 16, 128u), ub = min((dcb * ic) >> 16, 128u), ur = min((dcr * ic) >> 16, 128u);
	int t = 16384 - int(uy * uy) - int(ub * ub) - int(ur * ur);
	return t <= 0 ? 0u : (uint(t) * uint(t)) >> 22;
}

// cisp_cnr_mean(): (swv * R[sw] + 2^31) >> 32 from the 64-bit product's two words.
uint cnr_mean(uint sw, uint swv)
{
	uint hi, lo;
	umulExtended(swv, table[TABLE_START + 64u + sw], hi, lo);
	return min(hi + (lo >> 31), 65535u);
}

uint absdiff(uint a, uint b) { return a > b ? a - b : b - a; }

// The vertical pass at pixel (@x, @y) (cisp_cnr_v_row_c()): the horizontal pass's Cb | Cr of
// plane 3 filtered down the column (reflected rows) against Y of plane 0 of yuv[], declared
// before: the denoised Cb and Cr.
uvec2 cnr_v_at(uint x, int y)
{
	int h = int(p.height);
	uint n = p.width * p.height, c = uint(y) * p.width + x;
	uint y0 = yuv[c], b0 = yuv[3u * n + c] & 0xffffu, r0 = yuv[3u * n + c] >> 16;
	uint iy = inv_y(y0), ic = inv_c(y0), sw = 0u, swb = 0u, swr = 0u;
	for (int k = -p.radius; k <= p.radius; k++) {
		uint i = uint(mirror(y + k, h)) * p.width + x, br = yuv[3u * n + i];
		uint b = br & 0xffffu, r = br >> 16;
		uint wt = cnr_weight(absdiff(yuv[i], y0), absdiff(b, b0), absdiff(r, r0), iy, ic);
		sw += wt;
		swb += wt * b;
		swr += wt * r;
	}
	return uvec2(cnr_mean(sw, swb), cnr_mean(sw, swr));
}
