// SPDX-License-Identifier: MIT
// The quality demosaic's leave-one-out test, for pass 2 (on pass 1's
// colour-difference green) and pass 3 (on the green): how well the colour
// differences of the same-colour neighbours 2 away predict each red or blue
// sample (e_cd), against their mean alone (e_own), into scratch planes ECD
// and EOWN; 0 on green sites. As cisp_dmq_loo_range().
#version 450
#include "dmq.glsl"

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h)
		return;
	int i = y * w + x;
	if (((x ^ rb_column(y)) & 1) != 0) {
		scratch[ECD * w * h + i] = scratch[EOWN * w * h + i] = 0;
		return;
	}
	int xl = mirror(x - 2, w), xr = mirror(x + 2, w), yu = mirror(y - 2, h), yd = mirror(y + 2, h);
	uint gp = p.green_plane;
	int kn = plane_at(gp, xl, y) - bayer_at(xl, y) + plane_at(gp, xr, y) - bayer_at(xr, y) + plane_at(gp, x, yu) -
		 bayer_at(x, yu) + plane_at(gp, x, yd) - bayer_at(x, yd);
	int mn = bayer_at(xl, y) + bayer_at(xr, y) + bayer_at(x, yu) + bayer_at(x, yd);
	int m = bayer_at(x, y);
	scratch[ECD * w * h + i] = abs(4 * (plane_at(gp, x, y) - m) - kn);
	scratch[EOWN * w * h + i] = abs(4 * m - mn);
}
