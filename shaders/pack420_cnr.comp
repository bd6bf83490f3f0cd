// SPDX-License-Identifier: MIT
// Chroma denoise's vertical pass fused with the packing into NV12 or I420
// (docs/gpu.md, "Fewer passes on the RGB side"): the vertical pass
// (cnr_v.comp's cnr_v_at()) of each pixel of a block of 8x2, then the
// packing (pack.c, cisp_pack_rows()) of an output of the frame's size
// showing the whole frame, without writing the planes back. One invocation a
// block, as pack_fused.comp: the frame's width must be a multiple of 8.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Planes { uint yuv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint words[]; };
#include "cnr.glsl"
#include "pack_block.glsl"

void main()
{
	uint x0 = 8u * gl_GlobalInvocationID.x, y0 = 2u * gl_GlobalInvocationID.y, w = p.width, h = p.height;
	if (x0 >= w || y0 >= h)
		return;
	uint packing = p.place & 255u, place_at = p.place >> 8;
	uint rows = min(2u, h - y0), cb[4] = uint[4](0u, 0u, 0u, 0u), cr[4] = cb;

	for (uint j = 0u; j < rows; j++) {
		uint y = y0 + j, word[12] = uint[12](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
		for (uint i = 0u; i < 8u; i++) {
			uvec2 c = cnr_v_at(x0 + i, int(y));
			word[i >> 2] |= to8(yuv[y * w + x0 + i]) << (8u * (i & 3u));
			cb[i >> 1] += c.x; // four samples of at most 65535: no overflow
			cr[i >> 1] += c.y;
		}
		store_row(place_at, y, x0, 1u, word);
	}
	store_chroma(place_at, packing, x0, y0, rows, cb, cr);
}
