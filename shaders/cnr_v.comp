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
	uint x = gl_GlobalInvocationID.x;
	int y = int(gl_GlobalInvocationID.y), h = int(p.height);
	if (x >= p.width || y >= h)
		return;
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
	yuv[n + c] = cnr_mean(sw, swb);
	yuv[2u * n + c] = cnr_mean(sw, swr);
}
