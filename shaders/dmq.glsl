// SPDX-License-Identifier: MIT
// What the quality demosaic's shaders share (docs/gpu.md, "The quality
// demosaic"; the arithmetic: docs/stages/demosaic_quality.md, and the C rows
// of src/isp/demosaic_quality_row.c that define the numbers). Binding 0 is
// the Bayer frame, 1 the RGB side's planes (R, G, B: pass 1 leaves its two
// greens in R and B, pass 2 the green in G, pass 3 red and blue), 2 four
// scratch planes of int32 (dh and dv, then KR and KB; the leave-one-out
// errors e_cd and e_own), each width x height, rows packed.
#include "rgb.glsl"

layout(std430, set = 0, binding = 0) readonly buffer Bayer { uint bayer[]; };
layout(std430, set = 0, binding = 1) buffer Planes { uint rgb[]; };
layout(std430, set = 0, binding = 2) buffer Scratch { int scratch[]; };
layout(push_constant) uniform Params {
	uint width, height;
	uint rb0;          // parity of the red/blue columns of row 0 (cisp_dmq_rb_column())
	uint ry;           // parity of the rows of red sites (cisp_dmq_red_row())
	uint false_colour; // pass 3's suppression strength, 0..256
	uint green_plane;  // the errors' green: 0 pass 1's colour-difference green, 1 the green
} p;

// The scratch planes.
const int DH = 0, DV = 1, KR = 0, KB = 1, ECD = 2, EOWN = 3;

// The Bayer sample at (x, y), both inside the frame.
int bayer_at(int x, int y)
{
	uint i = uint(y) * p.width + uint(x);
	return int((bayer[i >> 1] >> ((i & 1u) * 16u)) & 0xffffu);
}

// Reflected once at the frame's edges, as the C rows' row_reflected() and mirror().
int bayer_mirrored(int x, int y)
{
	return bayer_at(mirror(x, int(p.width)), mirror(y, int(p.height)));
}

int rb_column(int y)
{
	return (int(p.rb0) + y) & 1;
}

bool red_row(int y)
{
	return ((y - int(p.ry)) & 1) == 0;
}

// A column of a C scratch row padded by cisp_dmq_pad_row(): reflected until inside (more than once on narrow frames).
int fold(int x, int n)
{
	while (x < 0 || x >= n)
		x = x < 0 ? -x : 2 * (n - 1) - x;
	return x;
}

// Scratch plane @k at column x (padded) of frame row r (reflected: each C scratch row of row r equals that of mirror(r)).
int scratch_at(int k, int x, int r)
{
	int w = int(p.width), h = int(p.height);
	return scratch[k * w * h + mirror(r, h) * w + fold(x, w)];
}

// Plane @c of the RGB side at (x, y) inside the frame.
int plane_at(uint c, int x, int y)
{
	return int(rgb[c * p.width * p.height + uint(y) * p.width + uint(x)]);
}

// SIG and SOFT of the document (cisp_dmq_sig_table, cisp_dmq_soft_table).
const int SIG[72] = int[](128, 134, 139, 145, 150, 155, 161, 166, 171, 176, 180, 185, 189, 193, 197, 201, 205, 208,
			  212, 215, 218, 220, 223, 225, 228, 230, 232, 233, 235, 237, 238, 240, 241, 242, 243, 244,
			  245, 246, 247, 248, 248, 249, 249, 250, 250, 251, 251, 252, 252, 252, 253, 253, 253, 253,
			  254, 254, 254, 254, 254, 254, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255);
const int SOFT[36] = int[](8, 8, 7, 7, 6, 6, 5, 5, 5, 4, 4, 4, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1,
			   1, 1, 1, 1, 1);

int sig(int t)
{
	if (t >= 72)
		return 256;
	if (t <= -72)
		return 0;
	return t >= 0 ? SIG[t] : 256 - SIG[-t];
}

int soft(int d)
{
	return d < 36 ? SOFT[d] : 0;
}

// The piecewise-linear log2 in Q4 of s >= 1: 16 n + the 4 bits below the leading one.
int mlog(uint s)
{
	int n = findMSB(s);
	return 16 * n + int(((s << 4) >> uint(n)) & 15u);
}

// Weight (0..256) of the colour-difference estimate from the sums of the two errors (cd_weight()).
int cd_weight(int s_cd, int s_own)
{
	return clamp(128 + 4 * (mlog(uint(s_own) + 1u) - mlog(uint(s_cd) + 1u)), 0, 256);
}
