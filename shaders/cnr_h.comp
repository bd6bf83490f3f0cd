// SPDX-License-Identifier: MIT
// Chroma denoise, the horizontal pass (src/isp/cnr_row.c, cisp_cnr_h_row_c()):
// Cb and Cr of planes 1 and 2 filtered along the row (reflected), into the
// scratch plane 3 as Cb | Cr << 16; Y (plane 0) is left as it is.
#version 450
#include "rgb.glsl"

layout(std430, set = 0, binding = 1) buffer Planes { uint yuv[]; };
#include "cnr.glsl"

void main()
{
	int x = int(gl_GlobalInvocationID.x), w = int(p.width);
	uint y = gl_GlobalInvocationID.y;
	if (x >= w || y >= p.height)
		return;
	uint n = p.width * p.height, row = y * p.width;
	uint y0 = yuv[row + uint(x)], b0 = yuv[n + row + uint(x)], r0 = yuv[2u * n + row + uint(x)];
	uint iy = inv_y(y0), ic = inv_c(y0), sw = 0u, swb = 0u, swr = 0u;
	// At most (2 * 8 + 1) taps of weight 64 or less: the sums stay below 2^27.
	for (int k = -p.radius; k <= p.radius; k++) {
		uint i = row + uint(mirror(x + k, w)), b = yuv[n + i], r = yuv[2u * n + i];
		uint wt = cnr_weight(absdiff(yuv[i], y0), absdiff(b, b0), absdiff(r, r0), iy, ic);
		sw += wt;
		swb += wt * b;
		swr += wt * r;
	}
	yuv[3u * n + row + uint(x)] = cnr_mean(sw, swb) | cnr_mean(sw, swr) << 16;
}
