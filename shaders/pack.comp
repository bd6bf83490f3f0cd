// SPDX-License-Identifier: MIT
// Packing into an output format (src/isp/pack.c, cisp_pack_rows()) into the
// image's bytes where they are: each plane at its offset in the buffer, with
// its stride (the layout vk_rgb_step_pack() writes into the tables; the
// output's own buffer has the planes one after the other, rows tightly
// packed). One invocation per 32-bit word of the buffer that holds bytes of
// the planes (so that no two write the same word); the bytes of such a word
// outside the planes (a row's padding) are written back as they were read.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Planes { uint rgb[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint words[]; };
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint packing;    // PACK_* below
	uint layout_at;  // the layout in the tables: each plane's offset (bytes), then each one's stride
	uint first_word; // the first word of the buffer that holds a plane's byte
	uint words;      // from there to the last
} p;

// The layouts (vk_rgb_step_pack()).
const uint PACK_RGB888 = 0u, PACK_XBGR32 = 1u, PACK_RGB48 = 2u, PACK_NV12 = 3u, PACK_I420 = 4u;

uint sample16(uint c, uint i)
{
	return rgb[c * p.width * p.height + i];
}

// The rounded mean of plane @c's samples of 2x2 block (cx, cy) inside the frame: chroma() in pack.c.
uint chroma(uint c, uint cx, uint cy)
{
	uint x = 2u * cx, y = 2u * cy, nx = x + 1u < p.width ? 2u : 1u, ny = y + 1u < p.height ? 2u : 1u, sum = 0u;
	for (uint j = 0u; j < ny; j++)
		for (uint k = 0u; k < nx; k++)
			sum += sample16(c, (y + j) * p.width + x + k);
	return to8((sum + (nx * ny) / 2u) / (nx * ny));
}

// Byte @b of the image with its planes one after the other, rows tightly packed.
uint byte_at(uint b)
{
	uint n = p.width * p.height, cw = (p.width + 1u) / 2u;
	switch (p.packing) {
	case PACK_RGB888:
		return to8(sample16(b % 3u, b / 3u));
	case PACK_XBGR32:
		return b % 4u == 3u ? 255u : to8(sample16(2u - b % 4u, b / 4u));
	case PACK_RGB48: // little-endian words
		return (sample16((b % 6u) / 2u, b / 6u) >> ((b & 1u) * 8u)) & 255u;
	default: // NV12: Y, then rows of Cb Cr pairs; I420: Y, then Cb, then Cr
		if (b < n)
			return to8(sample16(0u, b));
		b -= n;
		if (p.packing == PACK_NV12)
			return chroma(1u + (b & 1u), (b % (2u * cw)) / 2u, b / (2u * cw));
		uint plane_bytes = cw * ((p.height + 1u) / 2u), c = b < plane_bytes ? 1u : 2u;
		b %= plane_bytes;
		return chroma(c, b % cw, b / cw);
	}
}

// The bytes of a row of plane @q, and its rows (cisp_image_plane_size()).
uint row_bytes(uint q)
{
	uint cw = (p.width + 1u) / 2u;
	switch (p.packing) {
	case PACK_RGB888: return 3u * p.width;
	case PACK_XBGR32: return 4u * p.width;
	case PACK_RGB48: return 6u * p.width;
	case PACK_NV12: return q == 0u ? p.width : 2u * cw;
	default: return q == 0u ? p.width : cw;
	}
}

uint rows(uint q)
{
	return q == 0u ? p.height : (p.height + 1u) / 2u;
}

// The byte of the tightly packed image (byte_at()'s @b) that byte @o of the buffer holds, or ~0u: none.
uint packed_byte(uint o)
{
	uint planes = p.packing < PACK_NV12 ? 1u : p.packing == PACK_NV12 ? 2u : 3u, start = 0u;
	for (uint q = 0u; q < planes; q++) {
		uint at = table[p.layout_at + q], stride = table[p.layout_at + 3u + q], rb = row_bytes(q);
		// The host keeps each plane's span, stride x (rows - 1) + its row, inside 32 bits.
		if (o >= at && o - at < stride * (rows(q) - 1u) + rb && (o - at) % stride < rb)
			return start + (o - at) / stride * rb + (o - at) % stride;
		start += rb * rows(q);
	}
	return ~0u;
}

void main()
{
	// Rows of 1024 workgroups: a 4K frame's words need more than 65535 workgroups in one dimension.
	uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x, v = 0u, mask = 0u;
	if (i >= p.words)
		return;
	uint word = p.first_word + i;
	for (uint k = 0u; k < 4u; k++) {
		uint b = packed_byte(4u * word + k);
		if (b != ~0u) {
			v |= byte_at(b) << (8u * k);
			mask |= 255u << (8u * k);
		}
	}
	if (mask == 0u)
		return; // padding between rows alone
	if (mask != ~0u)
		v |= words[word] & ~mask;
	words[word] = v;
}
