// SPDX-License-Identifier: MIT
// What the packings of blocks of 8x2 pixels share (pack_fused.comp,
// pack420_cnr.comp, pack_scaled.comp; docs/gpu.md, "Fewer passes on the RGB side"): the
// output's place (its planes' offsets and strides in the tables, at @at) and
// the words of a block of 8x2 pixels. Before it: the tables (table[]) and the
// output (words[]).
const uint PACK_RGB888 = 0u, PACK_XBGR32 = 1u, PACK_RGB48 = 2u, PACK_NV12 = 3u, PACK_I420 = 4u; // as pack.comp's

// Bytes a pixel in the first plane of @packing: a block's row is 2 x that many words.
uint pixel_bytes(uint packing)
{
	return packing == PACK_RGB888 ? 3u : packing == PACK_XBGR32 ? 4u : packing == PACK_RGB48 ? 6u : 1u;
}

// Byte @k of pixel @v in the first plane of @packing (pack.comp's byte_at() for one pixel; Y for 4:2:0).
uint pixel_byte(uvec3 v, uint packing, uint k)
{
	switch (packing) {
	case PACK_RGB888: return to8(v[k]);
	case PACK_XBGR32: return k == 3u ? 255u : to8(v[2u - k]);
	case PACK_RGB48: return (v[k / 2u] >> ((k & 1u) * 8u)) & 255u; // little-endian words
	default: return to8(v.x);
	}
}

// Plane @q's first byte in the output, and its stride: multiples of 4 (vk_output_place() with whole words).
uint place_offset(uint at, uint q) { return table[at + q]; }
uint place_stride(uint at, uint q) { return table[at + 3u + q]; }

// The 2 x @bpp words of @word, row @y of the first plane from pixel @x0 (a multiple of 8).
void store_row(uint at, uint y, uint x0, uint bpp, uint word[12])
{
	uint first = (place_offset(at, 0u) + y * place_stride(at, 0u) + x0 * bpp) / 4u;
	for (uint q = 0u; q < 2u * bpp; q++)
		words[first + q] = word[q];
}

// The chroma of the four 2x2 blocks from (@x0, @y0), of @rows rows, from their sums @cb and @cr:
// the rounded mean of each block's samples inside the frame (chroma() in pack.c), in a word of
// Cb Cr pairs for each two blocks (NV12, rows of w bytes) or a word of Cb and one of Cr (I420).
void store_chroma(uint at, uint packing, uint x0, uint y0, uint rows, uint cb[4], uint cr[4])
{
	uint count = 2u * rows;
	for (uint b = 0u; b < 4u; b++) {
		cb[b] = to8((cb[b] + count / 2u) / count);
		cr[b] = to8((cr[b] + count / 2u) / count);
	}
	uint row = y0 / 2u;
	if (packing == PACK_NV12) {
		uint first = (place_offset(at, 1u) + row * place_stride(at, 1u) + x0) / 4u;
		words[first] = cb[0] | cr[0] << 8 | cb[1] << 16 | cr[1] << 24;
		words[first + 1u] = cb[2] | cr[2] << 8 | cb[3] << 16 | cr[3] << 24;
	} else {
		words[(place_offset(at, 1u) + row * place_stride(at, 1u) + x0 / 2u) / 4u] =
			cb[0] | cb[1] << 8 | cb[2] << 16 | cb[3] << 24;
		words[(place_offset(at, 2u) + row * place_stride(at, 2u) + x0 / 2u) / 4u] =
			cr[0] | cr[1] << 8 | cr[2] << 16 | cr[3] << 24;
	}
}
