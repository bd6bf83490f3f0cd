// SPDX-License-Identifier: MIT
// Chroma denoise, the vertical pass (src/isp/cnr_row.c, cisp_cnr_v_row_c()):
// the horizontal pass's Cb | Cr of plane 3 filtered down the column
// (reflected rows), against Y of plane 0, into planes 1 and 2.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint yuv[]; };
#include "cnr.glsl"

void main()
{
	uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
	if (x >= p.width || y >= p.height)
		return;
	uint n = p.width * p.height, c = y * p.width + x;
	uvec2 v = cnr_v_at(x, int(y));
	yuv[n + c] = v.x;
	yuv[2u * n + c] = v.y;
}
