// SPDX-License-Identifier: MIT
// The quality demosaic, pass 2 (cisp_dmq_blend_rows()): the green of red
// and blue sites, pass 1's two greens (planes R and B) blended by the cube
// of the weight of the leave-one-out errors summed over the 5x5 sites of the
// pixel's colour; into plane G. Green sites copy the sample.
#version 450
#include "dmq.glsl"

// The errors of plane @k summed over the 5x5 sites of the colour of (x, y).
int error_sum(int k, int x, int y)
{
	int s = 0;
	for (int dy = -4; dy <= 4; dy += 2)
		for (int dx = -4; dx <= 4; dx += 2)
			s += scratch_at(k, x + dx, y + dy);
	return s;
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h)
		return;
	uint n = p.width * p.height, i = uint(y) * p.width + uint(x);
	if (((x ^ rb_column(y)) & 1) != 0) {
		rgb[n + i] = uint(bayer_at(x, y));
		return;
	}
	int wc = cd_weight(error_sum(ECD, x, y), error_sum(EOWN, x, y)), w3 = (wc * wc * wc + 32768) >> 16;
	rgb[n + i] = uint((w3 * int(rgb[i]) + (256 - w3) * int(rgb[2u * n + i]) + 128) >> 8) & 0xffffu;
}
