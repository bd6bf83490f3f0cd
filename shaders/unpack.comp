// SPDX-License-Identifier: MIT
// unpack (src/isp/unpack.c): the raw input's samples to 16-bit units.
// One invocation makes one Bayer pair (samples 2x, 2x+1 of a row).
#version 450
#include "samples.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Raw { uint raw[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint dst[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint stride; // bytes from one raw row to the next
	uint bits;   // 8..16
	uint packed; // 1: MIPI CSI-2 RAW10 or RAW12
	uint offset; // of the first row's first byte in the buffer
} p;

uint byte_at(uint i)
{
	return (raw[i >> 2] >> ((i & 3u) * 8u)) & 0xffu;
}

// A sample of @bits bits: clamp to 2^bits - 1, then shift up (to16() of unpack.c).
uint to16(uint v)
{
	return min(v, (1u << p.bits) - 1u) << (16u - p.bits);
}

void main()
{
	uint px = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (px >= p.width / 2u || y >= p.height)
		return;
	uint row = p.offset + y * p.stride, x = 2u * px, a, b;
	if (p.packed == 0u && p.bits == 8u) {
		a = byte_at(row + x) << 8;
		b = byte_at(row + x + 1u) << 8;
	} else if (p.packed == 0u) {
		// Little-endian 16-bit containers.
		a = to16(byte_at(row + 2u * x) | (byte_at(row + 2u * x + 1u) << 8));
		b = to16(byte_at(row + 2u * x + 2u) | (byte_at(row + 2u * x + 3u) << 8));
	} else if (p.bits == 12u) {
		// RAW12: 2 samples in 3 bytes, high bits first, then the two low nibbles.
		uint s = row + 3u * px, lo = byte_at(s + 2u);
		a = ((byte_at(s) << 4) | (lo & 0xfu)) << 4;
		b = ((byte_at(s + 1u) << 4) | (lo >> 4)) << 4;
	} else {
		// RAW10: 4 samples in 5 bytes, high bits first, then the 4 low 2-bit parts.
		uint s = row + 5u * (x >> 2), k = x & 3u, lo = byte_at(s + 4u);
		a = ((byte_at(s + k) << 2) | ((lo >> (2u * k)) & 3u)) << 6;
		b = ((byte_at(s + k + 1u) << 2) | ((lo >> (2u * k + 2u)) & 3u)) << 6;
	}
	dst[y * (p.width / 2u) + px] = a | (b << 16);
}
