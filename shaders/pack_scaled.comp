// SPDX-License-Identifier: MIT
// Crop and scale of an output (scale.glsl) fused with its packing (pack.c,
// cisp_pack_rows(); docs/gpu.md, "Fewer passes on the RGB side"): the scaled
// pixels of a block of 8x2 of the output, packed as pack_fused.comp packs its
// block (no conversion: a YUV output is scaled from the converted planes),
// without the scaled planes. The output's width must be a multiple of 8.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Planes { uint rgb[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint words[]; };
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
#include "scale.glsl"
#include "pack_block.glsl"

void main()
{
	uint x0 = 8u * gl_GlobalInvocationID.x, y0 = 2u * gl_GlobalInvocationID.y;
	if (x0 >= p.out_w || y0 >= p.out_h)
		return;
	uint packing = p.place & 255u, place_at = p.place >> 8, bpp = pixel_bytes(packing);
	uint rows = min(2u, p.out_h - y0), cb[4] = uint[4](0u, 0u, 0u, 0u), cr[4] = cb;

	for (uint j = 0u; j < rows; j++) {
		uint word[12] = uint[12](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
		for (uint i = 0u; i < 8u; i++) {
			uvec3 v = scaled_at(x0 + i, y0 + j);
			cb[i >> 1] += v.y; // four samples of at most 65535: no overflow (read for 4:2:0 only)
			cr[i >> 1] += v.z;
			for (uint k = 0u; k < bpp; k++) {
				uint b = i * bpp + k;
				word[b >> 2] |= pixel_byte(v, packing, k) << (8u * (b & 3u));
			}
		}
		store_row(place_at, y0 + j, x0, bpp, word);
	}
	if (packing >= PACK_NV12)
		store_chroma(place_at, packing, x0, y0, rows, cb, cr);
}
