// SPDX-License-Identifier: MIT
// The quality demosaic, pass 3's last step (the last loop of
// cisp_dmq_colour_rows()): red and blue of every pixel but its own sample,
// the colour difference after false-colour suppression (a median of 5)
// blended with the colour from the site's own samples alone, weighed by the
// leave-one-out errors of that colour's sites within 4 rows and columns;
// into planes R and B.
#version 450
#include "dmq.glsl"

// Errors of plane @k summed over columns x - 4 .. x + 4 and rows y + first, y + first + 2, .. y + 4.
int error_sum(int k, int x, int y, int first)
{
	int s = 0;
	for (int dy = first; dy <= 4; dy += 2)
		for (int dx = -4; dx <= 4; dx++)
			s += scratch_at(k, x + dx, y + dy);
	return s;
}

int med5(int a, int b, int c, int d, int e)
{
	int lo = min(a, b), hi = max(a, b);
	a = lo; b = hi;
	lo = min(d, e); hi = max(d, e); d = lo; e = hi;
	lo = min(a, d); hi = max(a, d); a = lo; d = hi;
	lo = min(b, e); hi = max(b, e); b = lo; e = hi;
	lo = min(b, c); hi = max(b, c); b = lo; c = hi;
	lo = min(c, d); hi = max(c, d); c = lo; d = hi;
	return max(b, c);
}

int cubic(int a, int b, int p, int q)
{
	return (9 * (a + b) - p - q + 8) >> 4;
}

// The colour from its own samples: the cubic along the row (kind 0) or the column (1), or the diagonal 7x7 filter (2).
int own_samples(int x, int y, int kind)
{
	if (kind == 0)
		return cubic(bayer_mirrored(x - 1, y), bayer_mirrored(x + 1, y), bayer_mirrored(x - 3, y), bayer_mirrored(x + 3, y));
	if (kind == 1)
		return cubic(bayer_mirrored(x, y - 1), bayer_mirrored(x, y + 1), bayer_mirrored(x, y - 3), bayer_mirrored(x, y + 3));
	int near = 0, far = 0;
	for (int dy = -1; dy <= 1; dy += 2)
		for (int dx = -1; dx <= 1; dx += 2) {
			near += bayer_mirrored(x + dx, y + dy);
			far += bayer_mirrored(x + dx, y + 3 * dy) + bayer_mirrored(x + 3 * dx, y + dy);
		}
	return (10 * near - far + 16) >> 5;
}

// The colour of plane @k (KR or KB) at a pixel without that sample; @rows_first: the first row offset of its sites.
uint colour(int k, int x, int y, int gc, int rows_first, int kind)
{
	int wc = cd_weight(error_sum(ECD, x, y, rows_first), error_sum(EOWN, x, y, rows_first));
	int d = scratch_at(k, x, y);
	int med = med5(d, scratch_at(k, x - 1, y), scratch_at(k, x + 1, y), scratch_at(k, x, y - 1), scratch_at(k, x, y + 1));
	d += ((med - d) * int(min(p.false_colour, 256u)) + 128) >> 8;
	return clamp16((wc * (gc - d) + (256 - wc) * own_samples(x, y, kind) + 128) >> 8);
}

void main()
{
	int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
	int w = int(p.width), h = int(p.height);
	if (x >= w || y >= h)
		return;
	uint n = p.width * p.height, i = uint(y) * p.width + uint(x);
	int gc = plane_at(1u, x, y), m = bayer_at(x, y);
	bool green = ((x ^ rb_column(y)) & 1) != 0, red = red_row(y);
	// Red sites lie on the rows of y's parity (offsets -4..4) on a red row, on the others (-3..3) on a blue one.
	rgb[i] = green || !red ? colour(KR, x, y, gc, red ? -4 : -3, green ? int(!red) : 2) : uint(m);
	rgb[2u * n + i] = green || red ? colour(KB, x, y, gc, red ? -3 : -4, green ? int(red) : 2) : uint(m);
}
