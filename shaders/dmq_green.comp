// SPDX-License-Identifier: MIT
// The quality demosaic, pass 1 (cisp_dmq_green_rows()): on red and blue
// sites, four directional colour differences from DH and DV blended by the
// log-domain weights of their gradient sums (CH, CV over 3x4 windows), the
// colour-difference green, into plane R; the green of the four green
// neighbours with the same weights into plane B. Green sites copy the sample.
#version 450
#include "dmq.glsl"

// CH at column x of row y: sum over a = -1..1 of |dh(x - 1, y + a) - dh(x + 1, y + a)|.
int ch(int x, int y)
{
	int s = 0;
	for (int a = -1; a <= 1; a++)
		s += abs(scratch_at(DH, x - 1, y + a) - scratch_at(DH, x + 1, y + a));
	return s;
}

// CV at column x of row r: sum over a = -1..1 of |dv(x + a, r - 1) - dv(x + a, r + 1)|.
int cv(int x, int r)
{
	int s = 0;
	for (int a = -1; a <= 1; a++)
		s += abs(scratch_at(DV, x + a, r - 1) - scratch_at(DV, x + a, r + 1));
	return s;
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h)
		return;
	uint n = p.width * p.height, i = uint(y) * p.width + uint(x);
	int m = bayer_at(x, y);
	if (((x ^ rb_column(y)) & 1) != 0) {
		rgb[i] = rgb[2u * n + i] = uint(m);
		return;
	}
	int se = 0, sw = 0, sn = 0, ss = 0, ee = 0, ew = 0, en = 0, es = 0;
	for (int k = 1; k <= 4; k++) {
		se += ch(x + k, y);
		sw += ch(x - k, y);
		sn += cv(x, y - k);
		ss += cv(x, y + k);
	}
	for (int k = 0; k <= 3; k++) {
		ee += scratch_at(DH, x + k, y);
		ew += scratch_at(DH, x - k, y);
		en += scratch_at(DV, x, y - k);
		es += scratch_at(DV, x, y + k);
	}
	int le = mlog(1u + uint(se)), lw = mlog(1u + uint(sw)), ln = mlog(1u + uint(sn)), ls = mlog(1u + uint(ss));
	int ae = sig(lw - le), an = sig(ls - ln);
	int eh = (ae * ee + (256 - ae) * ew + 128) >> 8;
	int ev = (an * en + (256 - an) * es + 128) >> 8;
	int lh = min(le, lw) - soft(abs(le - lw));
	int lv = min(ln, ls) - soft(abs(ln - ls));
	int ah = sig(lv - lh);
	int d = (ah * eh + (256 - ah) * ev + 512) >> 10;
	rgb[i] = clamp16(m + d);
	// cisp_dmq_green_only()
	int gh = (ae * bayer_mirrored(x + 1, y) + (256 - ae) * bayer_mirrored(x - 1, y) + 128) >> 8;
	int gv = (an * bayer_mirrored(x, y - 1) + (256 - an) * bayer_mirrored(x, y + 1) + 128) >> 8;
	rgb[2u * n + i] = uint((ah * gh + (256 - ah) * gv + 128) >> 8) & 0xffffu;
}
