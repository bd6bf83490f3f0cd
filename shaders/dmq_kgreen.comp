// SPDX-License-Identifier: MIT
// The quality demosaic, pass 3's second step: KR and KB on green sites from
// those of the 4 neighbours (red and blue sites), the horizontal and the
// vertical pair blended by the green's gradients. As the third loop of
// cisp_dmq_colour_rows().
#version 450
#include "dmq.glsl"

int green(int x, int r)
{
	return plane_at(1u, fold(x, int(p.width)), mirror(r, int(p.height)));
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h || ((x ^ rb_column(y)) & 1) == 0)
		return;
	int gc = plane_at(1u, x, y);
	int gh = abs(green(x - 1, y) - green(x + 1, y)) + abs(2 * gc - green(x - 2, y) - green(x + 2, y));
	int gv = abs(green(x, y - 1) - green(x, y + 1)) + abs(2 * gc - green(x, y - 2) - green(x, y + 2));
	int ah = sig(mlog(uint(gv) + 1u) - mlog(uint(gh) + 1u)), av = 256 - ah;
	int i = y * w + x;
	for (int k = KR; k <= KB; k++)
		scratch[k * w * h + i] = (ah * (scratch_at(k, x - 1, y) + scratch_at(k, x + 1, y)) +
					  av * (scratch_at(k, x, y - 1) + scratch_at(k, x, y + 1)) + 256) >> 9;
}
