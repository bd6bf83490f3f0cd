// SPDX-License-Identifier: MIT
// RGB to YCbCr (src/isp/csc.c, cisp_csc_row_c()): a Q15 matrix, in place.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
layout(push_constant) uniform Params {
	uint width, height;
	int m[9]; // rows Y, Cb, Cr, Q15 (cisp_csc_matrix())
	int y_zero;
} p;

const int CHROMA_ZERO = 32896; // CISP_CSC_CHROMA_ZERO: 128 * 257

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, i = y * p.width + x;
	int r = int(rgb[i]), g = int(rgb[n + i]), b = int(rgb[2u * n + i]);
	// Y's coefficients sum to at most 32768: at most 65535 * 32768 + 16384, inside int.
	rgb[i] = clamp16(p.y_zero + ((p.m[0] * r + p.m[1] * g + p.m[2] * b + 16384) >> 15));
	rgb[n + i] = clamp16(CHROMA_ZERO + ((p.m[3] * r + p.m[4] * g + p.m[5] * b + 16384) >> 15));
	rgb[2u * n + i] = clamp16(CHROMA_ZERO + ((p.m[6] * r + p.m[7] * g + p.m[8] * b + 16384) >> 15));
}
