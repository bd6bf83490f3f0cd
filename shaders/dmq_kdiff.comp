// SPDX-License-Identifier: MIT
// The quality demosaic, pass 3's first step: on red and blue sites, the
// colour difference of the site's own colour (green minus the sample) and
// that of the other colour (the 7x7 filter of the diagonal sites' own
// differences), into scratch planes KR (green minus red) and KB (green
// minus blue). As the first two loops of cisp_dmq_colour_rows().
#version 450
#include "dmq.glsl"

// The own colour difference of the red or blue site at column x (padded) of row r (reflected).
int own_diff(int x, int r)
{
	int xx = fold(x, int(p.width)), rr = mirror(r, int(p.height));
	return plane_at(1u, xx, rr) - bayer_at(xx, rr);
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h || ((x ^ rb_column(y)) & 1) != 0)
		return;
	int s = 10 * (own_diff(x - 1, y - 1) + own_diff(x + 1, y - 1) + own_diff(x - 1, y + 1) + own_diff(x + 1, y + 1)) -
		(own_diff(x - 1, y - 3) + own_diff(x + 1, y - 3) + own_diff(x - 1, y + 3) + own_diff(x + 1, y + 3) +
		 own_diff(x - 3, y - 1) + own_diff(x + 3, y - 1) + own_diff(x - 3, y + 1) + own_diff(x + 3, y + 1));
	int i = y * w + x, own = red_row(y) ? KR : KB;
	scratch[own * w * h + i] = own_diff(x, y);
	scratch[(KR + KB - own) * w * h + i] = (s + 16) >> 5;
}
