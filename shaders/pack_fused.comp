// SPDX-License-Identifier: MIT
// The last stages of a frame fused with its packing into NV12 or I420, or
// into RGB888, XBGR32 or RGB48 (docs/gpu.md, "Fewer passes on the RGB side"):
// sharpening (src/isp/sharpen.c, from the luma of plane 3) or the colour
// stages of @stages (colour.glsl), then, for 4:2:0, the conversion to YCbCr
// (csc.c), then the packing (pack.c, cisp_pack_rows()) of an output of the
// frame's size showing the whole frame, without writing the planes back;
// sharpening's luma comes through a tile in shared memory (colour.glsl). One
// invocation makes a block of 8x2 pixels (one in the last row of an odd
// height): the words of each of its rows (two of Y; 6, 8 or 12 of RGB) and the
// words of its four 2x2 blocks' chroma, so the frame's width must be a
// multiple of 8 for every word to be one invocation's. The output's planes
// are where the layout in the tables puts them (vk_rgb_step_pack_fused(): each
// plane's offset and stride, multiples of 4, in the output's own buffer or in
// the caller's image imported where it is).
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Planes { uint rgb[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint words[]; };
#define LUMA_TILE_W (64 * 8 + 4) // the workgroup's 64 blocks of 8 pixels, and 2 each side
#define LUMA_TILE_H 6
#include "colour.glsl"
#include "pack_block.glsl"
const uint SHARPEN = 64u; // in @stages: sharpening instead of the colour stages

layout(push_constant) uniform Params {
	uint width, height;
	uint stages;     // COLOUR_* bits, or SHARPEN
	int lut3d_size;  // as colour.comp's
	int ccm_m[5];
	int ccm_offset[3];
	uint coring, strength, limit; // sharpening's
	uint place;      // PACK_*, and, from bit 8, where the layout starts in the tables
} p;

void main()
{
	uint x0 = 8u * gl_GlobalInvocationID.x, y0 = 2u * gl_GlobalInvocationID.y;
	uint w = p.width, h = p.height, n = w * h, tile_x0 = 8u * gl_WorkGroupID.x * gl_WorkGroupSize.x;
	if ((p.stages & SHARPEN) != 0u) // the same for the whole dispatch
		load_luma_tile(int(tile_x0), int(y0), int(w), int(h));
	if (x0 >= w || y0 >= h)
		return;
	uint packing = p.place & 255u, place_at = p.place >> 8;
	uint rows = min(2u, h - y0), cb[4] = uint[4](0u, 0u, 0u, 0u), cr[4] = cb;
	uint bpp = pixel_bytes(packing);

	for (uint j = 0u; j < rows; j++) {
		uint y = y0 + j, word[12] = uint[12](0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
		for (uint i = 0u; i < 8u; i++) {
			uint x = x0 + i, at = y * w + x;
			uvec3 v = uvec3(rgb[at], rgb[n + at], rgb[2u * n + at]);
			if ((p.stages & SHARPEN) != 0u) {
				uint c = x - tile_x0;
				int delta = sharpen_delta(int(luma_tile[j + 2u][c + 2u]), sharpen_blur(int(c), int(j)),
							  p.coring, p.strength, p.limit);
				v = uvec3(clamp16(int(v.r) + delta), clamp16(int(v.g) + delta), clamp16(int(v.b) + delta));
			} else {
				v = colour_stages(v, x, y, p.stages, p.ccm_m, p.ccm_offset, p.lut3d_size);
			}
			if (packing >= PACK_NV12) {
				v = csc(v);
				cb[i >> 1] += v.y; // four samples of at most 65535: no overflow
				cr[i >> 1] += v.z;
			}
			for (uint k = 0u; k < bpp; k++) {
				uint b = i * bpp + k;
				word[b >> 2] |= pixel_byte(v, packing, k) << (8u * (b & 3u));
			}
		}
		store_row(place_at, y, x0, bpp, word);
	}
	if (packing >= PACK_NV12)
		store_chroma(place_at, packing, x0, y0, rows, cb, cr);
}
