// SPDX-License-Identifier: MIT
// Packing into an output format (src/isp/pack.c, cisp_pack_rows()): the
// image's planes one after the other, rows tightly packed, one invocation
// per 32-bit word of that byte stream (so that no two write the same word).
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Planes { uint rgb[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint words[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint packing; // PACK_* below
	uint bytes;   // of the whole image
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

void main()
{
	// Rows of 1024 workgroups: a 4K frame's words need more than 65535 workgroups in one dimension.
	uint word = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x, v = 0u;
	if (4u * word >= p.bytes)
		return;
	for (uint k = 0u; k < 4u; k++)
		if (4u * word + k < p.bytes)
			v |= byte_at(4u * word + k) << (8u * k);
	words[word] = v;
}
