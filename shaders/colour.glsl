// SPDX-License-Identifier: MIT
// The per-pixel colour stages' arithmetic (docs/gpu.md, "The fused colour
// dispatch"): colour correction, local tone mapping, global tone, the 3D LUT,
// sharpening's luma and the conversion to YCbCr, one function each, on a
// pixel held in registers.
//
// The tables: from word 0 the tone table, two 16-bit entries a word (the even
// one low); from word LUT3D_START the 3D LUT's node (r, g, b)'s R, G, B at
// ((b * size + g) * size + r) * 3, one word each; chroma denoise's
// (shaders/cnr.glsl); from word LTM_START local tone mapping's, made by the
// host's cisp_ltm_prepare(): grid_w, range and rscale, a spare word, then the
// grid's nodes (level | gain << 16, row-major, 32 x 32 at most), then each
// column's left node | its Q6 position << 8 (16384 at most), then each row's;
// from word CSC_START the conversion's Q15 matrix (cisp_csc_matrix(), rows Y,
// Cb, Cr) and Y's zero, a word each.
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint table[]; };

const uint LUT3D_START = 32768u;
const uint LTM_START = LUT3D_START + 33u * 33u * 33u * 3u + 2u * 32u + (2u * 8u + 1u) * 64u + 1u;
const uint LTM_NODES = LTM_START + 4u;
const uint LTM_COLS = LTM_NODES + 32u * 32u;
const uint LTM_ROWS = LTM_COLS + 16384u;
const uint CSC_START = LTM_ROWS + 16384u;

// cisp_ccm_row_c(): a Q3.12 matrix @m (row-major) and @offset. Each row's sum
// of |coeff| is at most 32767 (the ABI's check): inside int; >> floors.
uvec3 ccm(uvec3 c, int m[9], ivec3 offset)
{
	ivec3 v = ivec3(c), out_v;
	for (int k = 0; k < 3; k++)
		out_v[k] = ((m[3 * k] * v.r + m[3 * k + 1] * v.g + m[3 * k + 2] * v.b + 2048) >> 12) + offset[k];
	return uvec3(clamp(out_v, 0, 65535));
}

// cisp_ltm_level(): log2 of v in 1/256 stop, piecewise linear; 0..4095.
uint ltm_level(uint v)
{
	if (v == 0u)
		return 0u;
	int e = findMSB(v);
	return 256u * uint(e) + (e <= 8 ? v << uint(8 - e) : v >> uint(e - 8)) - 256u;
}

// cisp_ltm_gain_at() and the product of cisp_ltm_span_c(): pixel (x, y) of
// linear RGB @c times the gain blended from its four nodes. The weights sum
// to at most 4096 * 64 = 2^18, the gains' sum to less than 2^30, and a sample
// times a gain to less than 2^28: all inside uint.
uvec3 ltm(uvec3 c, uint x, uint y)
{
	uint grid_w = table[LTM_START], range = table[LTM_START + 1u], rscale = table[LTM_START + 2u];
	uint col = table[LTM_COLS + x], row = table[LTM_ROWS + y];
	uint fx = col >> 8, fy = row >> 8, k0 = (row & 255u) * grid_w + (col & 255u);
	uint k[4] = uint[4](k0, k0 + 1u, k0 + grid_w, k0 + grid_w + 1u);
	uint s[4] = uint[4]((64u - fx) * (64u - fy), fx * (64u - fy), (64u - fx) * fy, fx * fy);
	uint l = ltm_level((77u * c.r + 150u * c.g + 29u * c.b + 128u) >> 8);
	uint w[4], sum = 0u, acc = 0u;

	for (int i = 0; i < 4; i++) {
		uint level = table[LTM_NODES + k[i]] & 0xffffu;
		uint d = l > level ? l - level : level - l;
		w[i] = s[i] * (d < range ? ((range - d) * rscale) >> 16 : 0u);
		sum += w[i];
	}
	// Far from every node's level: the nodes by distance alone.
	if (sum == 0u) {
		w = s;
		sum = 64u * 64u;
	}
	for (int i = 0; i < 4; i++)
		acc += w[i] * (table[LTM_NODES + k[i]] >> 16);
	uint gain = (acc + sum / 2u) / sum;
	return min((c * gain + 128u) >> 8, uvec3(65535u));
}

// cisp_tone_row_c(): each sample through the table cisp_tone_prepare() made.
uvec3 tone(uvec3 c)
{
	return (uvec3(table[c.r >> 1], table[c.g >> 1], table[c.b >> 1]) >> ((c & 1u) * 16u)) & 0xffffu;
}

// Cell (0..size-2) and Q15 weight towards the next node of input @v: locate() in lut3d.c.
ivec2 lut3d_locate(int v, int size)
{
	int a = v * (size - 1);
	int q = (a + (a >> 16) + 1) >> 16; // floor(a / 65535), exact for a < 2^22
	int pos = (a + 1 + q) >> 1;        // round(a * 32768 / 65535)
	int i = min(pos >> 15, size - 2);
	return ivec2(i, pos - (i << 15));
}

int lut3d_node(int index, int c)
{
	return int(table[LUT3D_START + uint(index * 3 + c)]);
}

// cisp_lut3d_rows(): tetrahedral interpolation between the @size^3 nodes, Q15 weights.
uvec3 lut3d(uvec3 c, int size)
{
	ivec2 r = lut3d_locate(int(c.r), size), g = lut3d_locate(int(c.g), size), b = lut3d_locate(int(c.b), size);
	int sr = 1, sg = size, sb = size * size, wr = r.y, wg = g.y, wb = b.y;
	int base = (b.x * size + g.x) * size + r.x, i1, i2, k0, k1, k2, k3;
	// The tetrahedron from node 000 to 111 through the corners the order of the weights picks, as in C.
	if (wr >= wg) {
		if (wg >= wb) {
			i1 = sr; i2 = sr + sg; k0 = 32768 - wr; k1 = wr - wg; k2 = wg - wb; k3 = wb;
		} else if (wr >= wb) {
			i1 = sr; i2 = sr + sb; k0 = 32768 - wr; k1 = wr - wb; k2 = wb - wg; k3 = wg;
		} else {
			i1 = sb; i2 = sr + sb; k0 = 32768 - wb; k1 = wb - wr; k2 = wr - wg; k3 = wg;
		}
	} else {
		if (wb >= wg) {
			i1 = sb; i2 = sg + sb; k0 = 32768 - wb; k1 = wb - wg; k2 = wg - wr; k3 = wr;
		} else if (wb >= wr) {
			i1 = sg; i2 = sg + sb; k0 = 32768 - wg; k1 = wg - wb; k2 = wb - wr; k3 = wr;
		} else {
			i1 = sg; i2 = sr + sg; k0 = 32768 - wg; k1 = wg - wr; k2 = wr - wb; k3 = wb;
		}
	}
	// The weights sum to 32768: at most 65535 * 32768 + 16384, inside int.
	uvec3 out_v;
	for (int k = 0; k < 3; k++)
		out_v[k] = uint((lut3d_node(base, k) * k0 + lut3d_node(base + i1, k) * k1 + lut3d_node(base + i2, k) * k2 +
				 lut3d_node(base + sr + sg + sb, k) * k3 + 16384) >> 15);
	return out_v;
}

// cisp_sharpen_luma_row_c(): BT.709 weights in Q12 summing to 4096, so at
// most 4096 * 65535 + 2048: inside uint.
uint sharpen_luma(uvec3 c)
{
	return (871u * c.r + 2929u * c.g + 296u * c.b + 2048u) >> 12;
}

const uint COLOUR_CCM = 1u, COLOUR_LTM = 2u, COLOUR_TONE = 4u, COLOUR_LUT3D = 8u, COLOUR_LUMA = 16u, COLOUR_CSC = 32u;

// Those of colour correction, LTM, tone and the 3D LUT that @stages has, in
// the reference executor's order, on pixel (@x, @y) of colour @v: the matrix
// @ccm_m (two 16-bit coefficients a word, the even one low), its
// @ccm_offset, the 3D LUT's @lut3d_size.
uvec3 colour_stages(uvec3 v, uint x, uint y, uint stages, int ccm_m[5], int ccm_offset[3], int lut3d_size)
{
	if ((stages & COLOUR_CCM) != 0u) {
		int m[9];
		for (int k = 0; k < 9; k++)
			m[k] = bitfieldExtract(ccm_m[k >> 1], (k & 1) * 16, 16); // sign-extended
		v = ccm(v, m, ivec3(ccm_offset[0], ccm_offset[1], ccm_offset[2]));
	}
	if ((stages & COLOUR_LTM) != 0u)
		v = ltm(v, x, y);
	if ((stages & COLOUR_TONE) != 0u)
		v = tone(v);
	if ((stages & COLOUR_LUT3D) != 0u)
		v = lut3d(v, lut3d_size);
	return v;
}

#ifdef LUMA_TILE_W
// Sharpening's luma around a workgroup's pixels in shared memory, so that
// each sample is read from the planes about once, not 25 times: columns
// x0 - 2 .. x0 + LUMA_TILE_W - 3 and rows y0 - 2 .. y0 + LUMA_TILE_H - 3,
// reflected at the frame's edges as the reference reads them. The including
// shader defines the tile's size and declares the planes rgb[].
shared uint luma_tile[LUMA_TILE_H][LUMA_TILE_W];

// Every invocation of the workgroup calls it (it ends in a barrier). Places
// more than one reflection away (past the last pixel of a frame narrower or
// shorter than the tile) are left alone: no pixel of the frame reads them.
void load_luma_tile(int x0, int y0, int w, int h)
{
	uint luma = 3u * uint(w) * uint(h);
	for (uint k = gl_LocalInvocationIndex; k < uint(LUMA_TILE_W * LUMA_TILE_H); k += gl_WorkGroupSize.x) {
		int r = int(k) / LUMA_TILE_W, c = int(k) % LUMA_TILE_W, xs = x0 - 2 + c, ys = y0 - 2 + r;
		if (xs <= w + 1 && ys <= h + 1)
			luma_tile[r][c] = rgb[luma + uint(mirror(ys, h)) * uint(w) + uint(mirror(xs, w))];
	}
	barrier();
}

// The 5x5 binomial blur of the luma around the pixel at column @c and row @r
// of the tile less 2 (its offset from (x0, y0)), unscaled: at most 256 * 65535.
int sharpen_blur(int c, int r)
{
	const int k[5] = int[5](1, 4, 6, 4, 1); // sums to 16
	int s = 0;
	for (int i = 0; i < 5; i++) {
		int v = 0;
		for (int j = 0; j < 5; j++)
			v += k[j] * int(luma_tile[r + j][c + i]);
		s += k[i] * v;
	}
	return s;
}
#endif

// cisp_sharpen_row_c()'s change to each colour of a pixel of luma @l whose
// 5x5 binomial blur sums to @s (at most 256 * 65535): the detail soft-cored,
// scaled and limited. At most 65535 * 65535 + 128: inside uint, as in C.
int sharpen_delta(int l, int s, uint coring, uint strength, uint limit)
{
	int d = l - ((s + 128) >> 8);
	uint a = uint(abs(d)), cored = a > coring ? a - coring : 0u;
	int e = int(min((cored * strength + 128u) >> 8, limit));
	return d < 0 ? -e : e;
}

// cisp_csc_row_c(): RGB to YCbCr with the matrix of the tables. Y's
// coefficients sum to at most 32768, so each sum is at most 65535 * 32768 +
// 16384 in magnitude: inside int; >> floors the signed chroma sums, as in C.
uvec3 csc(uvec3 c)
{
	const int CHROMA_ZERO = 32896; // CISP_CSC_CHROMA_ZERO: 128 * 257
	ivec3 v = ivec3(c), out_v;
	for (int k = 0; k < 3; k++) {
		uint row = CSC_START + uint(3 * k);
		out_v[k] = (int(table[row]) * v.r + int(table[row + 1u]) * v.g + int(table[row + 2u]) * v.b + 16384) >> 15;
	}
	out_v += ivec3(int(table[CSC_START + 9u]), CHROMA_ZERO, CHROMA_ZERO);
	return uvec3(clamp(out_v, 0, 65535));
}
