// SPDX-License-Identifier: MIT
// The quality demosaic, pass 1's first step: dh and dv (green minus the
// other colour along the row and along the column, from Hamilton-Adams
// estimates) of every pixel into scratch planes DH and DV, as
// cisp_dmq_diff_h_range() and diff_v_row() of src/isp/demosaic_quality_row.c.
#version 450
#include "dmq.glsl"

int ha(int c, int a, int b, int p, int q)
{
	return (2 * (a + b) + 2 * c - p - q + 2) >> 2;
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h)
		return;
	int c = bayer_at(x, y);
	int eh = ha(c, bayer_mirrored(x - 1, y), bayer_mirrored(x + 1, y), bayer_mirrored(x - 2, y), bayer_mirrored(x + 2, y));
	int ev = ha(c, bayer_mirrored(x, y - 1), bayer_mirrored(x, y + 1), bayer_mirrored(x, y - 2), bayer_mirrored(x, y + 2));
	bool rb = ((x ^ rb_column(y)) & 1) == 0;
	int i = y * w + x;
	scratch[DH * w * h + i] = rb ? eh - c : c - eh;
	scratch[DV * w * h + i] = rb ? ev - c : c - ev;
}
