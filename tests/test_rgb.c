/* SPDX-License-Identifier: MIT */
/* RGB-domain stages: colour correction, tone, 3D LUT, sharpening. */
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>

#include "isp/ccm.h"
#include "isp/lut3d.h"
#include "isp/sharpen.h"
#include "isp/tone.h"
#include "test.h"

/* Three planes holding frame rows [first, first + rows) of a w x h frame. */
struct frame {
	uint16_t *mem;
	struct rgb16 p;
};

static void frame_alloc(struct frame *f, int w, int h, int first, int rows)
{
	/* A stride wider than the row catches code that assumes packed rows. */
	ptrdiff_t stride = w + 7;

	f->mem = calloc((size_t)3 * stride * rows, sizeof(uint16_t));
	for (int c = 0; c < 3; c++)
		f->p.c[c] = (struct plane16){ f->mem + (size_t)c * stride * rows, stride, first, w, h };
}

static void frame_free(struct frame *f)
{
	free(f->mem);
}

static uint16_t *px(const struct frame *f, int c, int x, int y)
{
	return plane_row(&f->p.c[c], y) + x;
}

static void frame_random(struct frame *f, unsigned bits)
{
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < f->p.c[c].height; y++)
			for (int x = 0; x < f->p.c[c].width; x++)
				*px(f, c, x, y) = (uint16_t)(test_rand() >> (64 - bits));
}

/* A row function of any stage, with its parameters in @ctx. */
typedef void (*rows_fn)(const void *ctx, const struct rgb16 *in, const struct rgb16 *out, int y0, int y1);

/* Rows [y0, y1) of @whole into a band frame of rows [r0, r1). */
static void band_copy(const struct frame *whole, struct frame *band, int r0, int r1)
{
	for (int c = 0; c < 3; c++)
		for (int y = r0; y < r1; y++)
			memcpy(px(band, c, 0, y), px(whole, c, 0, y), sizeof(uint16_t) * (size_t)whole->p.c[c].width);
}

/*
 * Running @fn on the whole frame, on odd-sized bands whose input holds only
 * the rows within @radius of the band, and in place (when @in_place) all
 * give the same output.
 */
static void check_bands(rows_fn fn, const void *ctx, const struct frame *in, int radius, bool in_place)
{
	const int w = in->p.c[0].width, h = in->p.c[0].height;
	static const int sizes[] = { 1, 3, 5, 7, 9, 11 };
	struct frame whole, inp;
	int mismatches = 0;

	frame_alloc(&whole, w, h, 0, h);
	fn(ctx, &in->p, &whole.p, 0, h);
	for (int y0 = 0, i = 0; y0 < h; i++) {
		int y1 = y0 + sizes[i % 6] > h ? h : y0 + sizes[i % 6];
		int r0 = y0 - radius < 0 ? 0 : y0 - radius, r1 = y1 + radius > h ? h : y1 + radius;
		struct frame bin, bout;

		frame_alloc(&bin, w, h, r0, r1 - r0);
		frame_alloc(&bout, w, h, y0, y1 - y0);
		band_copy(in, &bin, r0, r1);
		fn(ctx, &bin.p, &bout.p, y0, y1);
		for (int c = 0; c < 3; c++)
			for (int y = y0; y < y1; y++)
				mismatches += memcmp(px(&bout, c, 0, y), px(&whole, c, 0, y), sizeof(uint16_t) * w) != 0;
		frame_free(&bin);
		frame_free(&bout);
		y0 = y1;
	}
	CHECK_EQ(mismatches, 0);
	if (in_place) {
		frame_alloc(&inp, w, h, 0, h);
		band_copy(in, &inp, 0, h);
		fn(ctx, &inp.p, &inp.p, 0, h);
		mismatches = 0;
		for (int c = 0; c < 3; c++)
			for (int y = 0; y < h; y++)
				mismatches += memcmp(px(&inp, c, 0, y), px(&whole, c, 0, y), sizeof(uint16_t) * w) != 0;
		CHECK_EQ(mismatches, 0);
		frame_free(&inp);
	}
	frame_free(&whole);
}

/* ---- colour correction matrix ---- */

static void ccm_fn(const void *ctx, const struct rgb16 *in, const struct rgb16 *out, int y0, int y1)
{
	cisp_ccm_rows(ctx, in, out, y0, y1);
}

static struct cisp_ccm_params ccm_params(const int16_t m[9], int32_t o0, int32_t o1, int32_t o2)
{
	struct cisp_ccm_params p = { .header = { CISP_BLOCK_CCM, 0, sizeof(p) } };

	memcpy(p.coeff, m, sizeof(p.coeff));
	p.offset[0] = o0;
	p.offset[1] = o1;
	p.offset[2] = o2;
	return p;
}

/* The ABI formula in 64 bits with an explicit floor. */
static uint16_t ccm_expect(const struct cisp_ccm_params *p, int i, const int64_t in[3])
{
	int64_t s = 2048;

	for (int j = 0; j < 3; j++)
		s += (int64_t)p->coeff[3 * i + j] * in[j];
	int64_t q = s >= 0 ? s / 4096 : -((-s + 4095) / 4096);
	q += p->offset[i];
	return (uint16_t)(q < 0 ? 0 : q > 65535 ? 65535 : q);
}

/* Run one pixel through the stage. */
static void ccm_pixel(const struct cisp_ccm_params *p, uint16_t r, uint16_t g, uint16_t b, uint16_t out[3])
{
	struct frame f;

	frame_alloc(&f, 16, 16, 0, 16);
	*px(&f, 0, 5, 3) = r;
	*px(&f, 1, 5, 3) = g;
	*px(&f, 2, 5, 3) = b;
	cisp_ccm_rows(p, &f.p, &f.p, 3, 4);
	for (int c = 0; c < 3; c++)
		out[c] = *px(&f, c, 5, 3);
	frame_free(&f);
}

TEST(ccm_identity)
{
	static const int16_t id[9] = { 4096, 0, 0, 0, 4096, 0, 0, 0, 4096 };
	struct cisp_ccm_params p = ccm_params(id, 0, 0, 0);
	struct frame in, out;

	frame_alloc(&in, 40, 16, 0, 16);
	frame_alloc(&out, 40, 16, 0, 16);
	frame_random(&in, 16);
	cisp_ccm_rows(&p, &in.p, &out.p, 0, 16);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 16; y++)
			CHECK(!memcmp(px(&in, c, 0, y), px(&out, c, 0, y), 40 * sizeof(uint16_t)));
	frame_free(&in);
	frame_free(&out);
}

TEST(ccm_known_matrix)
{
	/* Saturation boost: 2 on the diagonal, -0.5 off it; offsets in the last row. */
	static const int16_t m[9] = { 8192, -2048, -2048, -2048, 8192, -2048, -2048, -2048, 8192 };
	struct cisp_ccm_params p = ccm_params(m, 0, 0, -1000);
	uint16_t o[3];

	ccm_pixel(&p, 30000, 10000, 20000, o);
	CHECK_EQ(o[0], 45000); /* 60000 - 5000 - 10000 */
	CHECK_EQ(o[1], 0);     /* 20000 - 15000 - 10000 < 0: clamped */
	CHECK_EQ(o[2], 19000); /* 40000 - 15000 - 5000 - 1000 */
	ccm_pixel(&p, 65535, 0, 0, o);
	CHECK_EQ(o[0], 65535); /* 131070: clamped */
	CHECK_EQ(o[1], 0);

	/* Rounding: +2048 then floor, so -0.5 goes to 0 and just below it to -1. */
	static const int16_t r[9] = { -2048, 0, 0, -2049, 0, 0, 2047, 0, 0 };
	p = ccm_params(r, 100, 100, 100);
	ccm_pixel(&p, 1, 0, 0, o);
	CHECK_EQ(o[0], 100);
	CHECK_EQ(o[1], 99);
	CHECK_EQ(o[2], 100);
	ccm_pixel(&p, 3, 0, 0, o); /* -1.5 -> -1, -1.5007 -> -2, 1.4993 -> 1 */
	CHECK_EQ(o[0], 99);
	CHECK_EQ(o[1], 98);
	CHECK_EQ(o[2], 101);

	/* Offsets at the ends of their range. */
	static const int16_t z[9] = { 0 };
	p = ccm_params(z, 65535, -65535, 70);
	ccm_pixel(&p, 65535, 65535, 65535, o);
	CHECK_EQ(o[0], 65535);
	CHECK_EQ(o[1], 0);
	CHECK_EQ(o[2], 70);
}

TEST(ccm_random_against_formula)
{
	struct frame in, out;
	int bad = 0;

	frame_alloc(&in, 64, 16, 0, 16);
	frame_alloc(&out, 64, 16, 0, 16);
	for (int trial = 0; trial < 50; trial++) {
		int16_t m[9];

		/* Random rows with sum |coeff| <= 32767, negative entries included. */
		for (int i = 0; i < 3; i++) {
			int left = 32767;
			for (int j = 0; j < 3; j++) {
				int a = (int)(test_rand() % (uint64_t)(left + 1));
				m[3 * i + j] = (int16_t)(test_rand() & 1 ? -a : a);
				left -= a;
			}
		}
		struct cisp_ccm_params p = ccm_params(m, (int32_t)(test_rand() % 131071) - 65535,
						      (int32_t)(test_rand() % 2001) - 1000, 0);
		frame_random(&in, 16);
		cisp_ccm_rows(&p, &in.p, &out.p, 0, 16);
		for (int y = 0; y < 16; y++)
			for (int x = 0; x < 64; x++) {
				int64_t v[3] = { *px(&in, 0, x, y), *px(&in, 1, x, y), *px(&in, 2, x, y) };
				for (int c = 0; c < 3; c++)
					bad += *px(&out, c, x, y) != ccm_expect(&p, c, v);
			}
	}
	CHECK_EQ(bad, 0);
	frame_free(&in);
	frame_free(&out);
}

TEST(ccm_overflow_bound)
{
	/* Rows at the ABI's bound (sum |coeff| = 32767) with every input at 65535. */
	static const int16_t m[9] = { 32767, 0, 0, -16384, -16383, 0, 16384, -16383, 0 };
	struct cisp_ccm_params p = ccm_params(m, -65535, 65535, 0);
	uint16_t o[3];

	ccm_pixel(&p, 65535, 65535, 65535, o);
	CHECK_EQ(o[0], 65535); /* 524264 - 65535, clamped */
	CHECK_EQ(o[1], 0);     /* -524265 + 65535, clamped */
	CHECK_EQ(o[2], 16);    /* (65535 + 2048) >> 12 */
	for (int c = 0; c < 3; c++) {
		int64_t v[3] = { 65535, 65535, 65535 };
		CHECK_EQ(o[c], ccm_expect(&p, c, v));
	}
	/* The largest products of either sign, near the top of the input range. */
	static const int16_t n[9] = { -32767, 0, 0, 32767, 0, 0, 0, 0, 0 };
	p = ccm_params(n, 65535, -65535, 0);
	for (int64_t v = 65533; v <= 65535; v++) {
		int64_t in3[3] = { v, 0, 0 };
		ccm_pixel(&p, (uint16_t)v, 0, 0, o);
		CHECK_EQ(o[0], ccm_expect(&p, 0, in3));
		CHECK_EQ(o[1], ccm_expect(&p, 1, in3));
	}
}

TEST(ccm_bands)
{
	static const int16_t m[9] = { 6000, -1500, -404, -900, 5500, -504, 100, -1800, 5796 };
	struct cisp_ccm_params p = ccm_params(m, 10, -20, 30);
	struct frame in;

	frame_alloc(&in, 34, 30, 0, 30);
	frame_random(&in, 16);
	check_bands(ccm_fn, &p, &in, 0, true);
	frame_free(&in);
}

/* ---- tone curve and transfer function ---- */

static void tone_fn(const void *ctx, const struct rgb16 *in, const struct rgb16 *out, int y0, int y1)
{
	cisp_tone_rows(ctx, in, out, y0, y1);
}

static void tone_params(struct cisp_tone_params *p, unsigned transfer)
{
	memset(p, 0, sizeof(*p));
	p->header = (struct cisp_block_header){ CISP_BLOCK_TONE, 0, sizeof(*p) };
	p->transfer = (uint16_t)transfer;
	for (int i = 0; i < CISP_TONE_POINTS; i++)
		p->curve[i] = (uint16_t)(i * 256 > 65535 ? 65535 : i * 256);
}

static double srgb(double x)
{
	return x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055;
}

static double bt709(double x)
{
	return x < 0.018 ? 4.5 * x : 1.099 * pow(x, 0.45) - 0.099;
}

TEST(tone_identity_linear)
{
	static struct cisp_tone_coeffs c;
	struct cisp_tone_params p;
	int bad = 0;

	tone_params(&p, CISP_TRANSFER_LINEAR);
	cisp_tone_prepare(&c, &p);
	for (int v = 0; v < 65536; v++)
		bad += c.lut[v] != v;
	CHECK_EQ(bad, 0);
}

/* Input at which segment k starts, written apart from tone.c: k below 8, then eight an octave. */
static int segment_start(int k)
{
	if (k < 8)
		return k;
	return (int)ldexp(8 + k % 8, k / 8 - 1);
}

/*
 * The stage's output at every code from its segment tables, by the arithmetic of
 * docs/stages/tone.md in floating point: the segment from frexp(), the rounding as floor(x + 1/2).
 */
static int tone_direct_mismatches(const struct cisp_tone_coeffs *c)
{
	int bad = 0;

	for (int v = 0; v < 65536; v++) {
		int e, s, k;
		double pos;

		frexp(v | 15, &e); /* v | 15 = m 2^e, m in [0.5, 1): floor(log2) = e - 1 */
		s = e - 4;
		k = 8 * s + (v >> s);
		pos = (v & ((1 << s) - 1)) * 32768.0 / (1 << s);
		bad += c->lut[v] != (int)(c->base[k] + floor(c->rise[k] * pos / 32768 + 0.5));
	}
	return bad;
}

/* Every code within @bound of the formula, monotonic, exact at the ends. */
static void check_transfer(unsigned transfer, double (*tf)(double), double bound, double *max_err)
{
	static struct cisp_tone_coeffs c;
	struct cisp_tone_params p;
	int bad = 0, nonmono = 0;

	tone_params(&p, transfer);
	cisp_tone_prepare(&c, &p);
	*max_err = 0;
	for (int v = 0; v < 65536; v++) {
		double err = fabs(c.lut[v] - 65535 * tf(v / 65535.0));
		if (err > *max_err)
			*max_err = err;
		bad += err > bound;
		nonmono += v > 0 && c.lut[v] < c.lut[v - 1];
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(nonmono, 0);
	CHECK_EQ(c.lut[0], 0);
	CHECK_EQ(c.lut[65535], 65535);
	CHECK_EQ(tone_direct_mismatches(&c), 0);
	/* At each segment's start the function itself, within the transfer table's 0.54. */
	bad = 0;
	for (int k = 0; k < TONE_SEGMENTS; k++)
		bad += fabs(c.base[k] - 65535 * tf(segment_start(k) / 65535.0)) > 0.55;
	CHECK_EQ(bad, 0);
}

TEST(tone_srgb_formula)
{
	static struct cisp_tone_coeffs c;
	struct cisp_tone_params p;
	double err;

	check_transfer(CISP_TRANSFER_SRGB, srgb, 24, &err);
	CHECK(err < 23.5); /* measured: 23.0, at code 34827 */
	/* Reference points: 18% grey (inside a segment) and 50% linear (a segment's start). */
	tone_params(&p, CISP_TRANSFER_SRGB);
	cisp_tone_prepare(&c, &p);
	CHECK_NEAR(c.lut[11796], 65535 * 0.46135612950044164, 8);
	CHECK_NEAR(c.lut[32768], 65535 * 0.7353606029413635, 1);
	CHECK_EQ(c.lut[100], 1292); /* linear segment: 12.92 * 100 */
}

TEST(tone_bt709_formula)
{
	static struct cisp_tone_coeffs c;
	struct cisp_tone_params p;
	double err;

	check_transfer(CISP_TRANSFER_BT709, bt709, 24.5, &err);
	CHECK(err < 24); /* measured: 23.97, at code 34811 */
	tone_params(&p, CISP_TRANSFER_BT709);
	cisp_tone_prepare(&c, &p);
	CHECK_EQ(c.lut[1000], 4500); /* linear segment */
	CHECK_NEAR(c.lut[11796], 65535 * 0.40901, 9); /* 0.18 -> 0.409 */
}

/* The curve in the linear domain between its nodes, rounded up (docs/stages/tone.md). */
static int curve_value(const uint16_t *curve, int v)
{
	int i = v / 256, f = v % 256;

	return (curve[i] * (256 - f) + curve[i + 1] * f + 255) / 256;
}

TEST(tone_custom_curve)
{
	static struct cisp_tone_coeffs c;
	struct cisp_tone_params p;
	int bad = 0, nonmono = 0;

	/* Node i = i^2 (a gamma of 2 in the linear domain), node 256 = 65535: exact at each segment's start. */
	tone_params(&p, CISP_TRANSFER_LINEAR);
	for (int i = 0; i < 256; i++)
		p.curve[i] = (uint16_t)(i * i);
	p.curve[256] = 65535;
	cisp_tone_prepare(&c, &p);
	for (int k = 0; k < TONE_SEGMENTS; k++)
		bad += c.lut[segment_start(k)] != curve_value(p.curve, segment_start(k));
	CHECK_EQ(bad, 0);
	CHECK_EQ(tone_direct_mismatches(&c), 0);
	/* The last segment reaches the curve's value at 65535 there: 65534. */
	CHECK_EQ(c.lut[65535], curve_value(p.curve, 65535));
	CHECK_EQ(c.lut[65535], 65534);
	/* Inside a segment the line between its ends: within the curve's own bend of it. */
	CHECK_NEAR(c.lut[40960 + 2048], (c.lut[40960] + c.lut[45056] + 1) / 2, 1);

	/* A decreasing curve, the negative image: a straight line but for the last node, so within 1. */
	for (int i = 0; i < CISP_TONE_POINTS; i++)
		p.curve[i] = (uint16_t)(65535 - (i * 256 > 65535 ? 65535 : i * 256));
	cisp_tone_prepare(&c, &p);
	bad = 0;
	for (int v = 0; v < 65536; v++)
		bad += abs(c.lut[v] - curve_value(p.curve, v)) > 1;
	CHECK_EQ(bad, 0);
	CHECK_EQ(c.lut[0], 65535);
	CHECK_EQ(c.lut[65535], 1);

	/* A step of the whole range inside one segment: its rise is clamped to 32767, and the output stays monotonic. */
	for (int i = 0; i < CISP_TONE_POINTS; i++)
		p.curve[i] = i <= 200 ? 0 : 65535;
	cisp_tone_prepare(&c, &p);
	for (int v = 1; v < 65536; v++)
		nonmono += c.lut[v] < c.lut[v - 1];
	CHECK_EQ(nonmono, 0);
	CHECK_EQ(c.lut[0], 0);
	CHECK_EQ(c.lut[65535], 65535);
	CHECK_EQ(tone_direct_mismatches(&c), 0);

	/* Curve then sRGB: at each segment's start the sRGB function of the curve's value. */
	for (int i = 0; i < CISP_TONE_POINTS; i++)
		p.curve[i] = (uint16_t)(i * 200);
	p.transfer = CISP_TRANSFER_SRGB;
	cisp_tone_prepare(&c, &p);
	bad = 0;
	for (int k = 0; k < TONE_SEGMENTS; k++)
		bad += fabs(c.base[k] - 65535 * srgb(curve_value(p.curve, segment_start(k)) / 65535.0)) > 0.55;
	CHECK_EQ(bad, 0);
	CHECK_EQ(tone_direct_mismatches(&c), 0);
}

TEST(tone_rows_and_bands)
{
	static struct cisp_tone_coeffs c;
	struct cisp_tone_params p;
	struct frame in, out;
	int bad = 0;

	tone_params(&p, CISP_TRANSFER_SRGB);
	cisp_tone_prepare(&c, &p);
	frame_alloc(&in, 36, 22, 0, 22);
	frame_alloc(&out, 36, 22, 0, 22);
	frame_random(&in, 16);
	cisp_tone_rows(&c, &in.p, &out.p, 0, 22);
	for (int ch = 0; ch < 3; ch++)
		for (int y = 0; y < 22; y++)
			for (int x = 0; x < 36; x++)
				bad += *px(&out, ch, x, y) != c.lut[*px(&in, ch, x, y)];
	CHECK_EQ(bad, 0);
	check_bands(tone_fn, &c, &in, 0, true);
	frame_free(&in);
	frame_free(&out);
}

/* ---- 3D LUT ---- */

static void lut3d_fn(const void *ctx, const struct rgb16 *in, const struct rgb16 *out, int y0, int y1)
{
	cisp_lut3d_rows(ctx, in, out, y0, y1);
}

/* A table of @n nodes per edge whose output channel c is input channel perm[c]. */
static struct cisp_lut3d_params *lut3d_permutation(int n, const int perm[3])
{
	struct cisp_lut3d_params *p = calloc(1, sizeof(*p));

	p->header = (struct cisp_block_header){ CISP_BLOCK_LUT3D, 0, sizeof(*p) };
	p->size = (uint16_t)n;
	for (int b = 0; b < n; b++)
		for (int g = 0; g < n; g++)
			for (int r = 0; r < n; r++) {
				int node[3] = { r, g, b };
				for (int c = 0; c < 3; c++) /* round(node * 65535 / (n - 1)) */
					p->table[(b * n + g) * n + r][c] =
						(uint16_t)((2 * node[perm[c]] * 65535 + (n - 1)) / (2 * (n - 1)));
			}
	return p;
}

/* Run @p on a 16x16 frame holding @count pixels of @rgb (count <= 256). */
static void lut3d_run(const struct cisp_lut3d_params *p, const uint16_t (*rgb)[3], uint16_t (*res)[3], int count)
{
	struct frame f;

	frame_alloc(&f, 16, 16, 0, 16);
	for (int i = 0; i < count; i++)
		for (int c = 0; c < 3; c++)
			*px(&f, c, i % 16, i / 16) = rgb[i][c];
	cisp_lut3d_rows(p, &f.p, &f.p, 0, 16);
	for (int i = 0; i < count; i++)
		for (int c = 0; c < 3; c++)
			res[i][c] = *px(&f, c, i % 16, i / 16);
	frame_free(&f);
}

TEST(lut3d_identity_every_size)
{
	static const int id[3] = { 0, 1, 2 };
	static uint16_t in[256][3], res[256][3];
	int worst = 0, exact_sizes = 0;

	for (int n = 2; n <= CISP_LUT3D_MAX_SIZE; n++) {
		struct cisp_lut3d_params *p = lut3d_permutation(n, id);
		int size_worst = 0;

		/* Every code on the grey axis, then random colours. */
		for (int v0 = 0; v0 < 65536 + 256 * 8; v0 += 256) {
			for (int i = 0; i < 256; i++)
				for (int c = 0; c < 3; c++)
					in[i][c] = (uint16_t)(v0 < 65536 ? (uint64_t)(v0 + i) : test_rand() >> 48);
			lut3d_run(p, (const uint16_t(*)[3])in, res, 256);
			for (int i = 0; i < 256; i++)
				for (int c = 0; c < 3; c++) {
					int e = abs(res[i][c] - in[i][c]);
					size_worst = e > size_worst ? e : size_worst;
				}
		}
		worst = size_worst > worst ? size_worst : worst;
		/* Sizes whose node spacing 65535 / (n-1) is a whole code reproduce every input. */
		if (65535 % (n - 1) == 0 && n > 2) {
			CHECK_EQ(size_worst, 0);
			exact_sizes++;
		}
		free(p);
	}
	CHECK_EQ(worst, 1);
	CHECK_EQ(exact_sizes, 4); /* 4, 6, 16, 18 */
}

TEST(lut3d_channel_swap)
{
	static const int id[3] = { 0, 1, 2 }, swap[3] = { 2, 0, 1 };
	static uint16_t in[256][3], a[256][3], b[256][3];

	for (int n = 2; n <= CISP_LUT3D_MAX_SIZE; n += 5) {
		struct cisp_lut3d_params *pi = lut3d_permutation(n, id), *ps = lut3d_permutation(n, swap);
		int bad = 0, far = 0;

		for (int i = 0; i < 256; i++)
			for (int c = 0; c < 3; c++)
				in[i][c] = (uint16_t)(test_rand() >> 48);
		in[0][0] = 65535, in[0][1] = 0, in[0][2] = 1000;
		lut3d_run(pi, (const uint16_t(*)[3])in, a, 256);
		lut3d_run(ps, (const uint16_t(*)[3])in, b, 256);
		for (int i = 0; i < 256; i++)
			for (int c = 0; c < 3; c++) {
				/* Bit-exact with the identity's outputs permuted, within 1 of the inputs. */
				bad += b[i][c] != a[i][swap[c]];
				far += abs(b[i][c] - in[i][swap[c]]) > 1;
			}
		CHECK_EQ(bad, 0);
		CHECK_EQ(far, 0);
		CHECK_EQ(b[0][0], 1000);
		CHECK_EQ(b[0][1], 65535);
		CHECK_EQ(b[0][2], 0);
		free(pi);
		free(ps);
	}
}

TEST(lut3d_tetrahedral_weights)
{
	/* Size 2 with only node 111 lit: tetrahedral gives min(r, g, b) (trilinear would give r*g*b). */
	static struct cisp_lut3d_params p = { .size = 2 };
	static const uint16_t in[6][3] = { { 40000, 20000, 10000 }, { 10000, 40000, 20000 }, { 20000, 10000, 40000 },
					   { 65535, 65535, 65535 }, { 65535, 0, 65535 },     { 30000, 30000, 50000 } };
	uint16_t res[6][3];

	p.table[7][0] = 65535; /* (b*2 + g)*2 + r = 7 */
	p.table[7][1] = 32768;
	lut3d_run(&p, in, res, 6);
	for (int i = 0; i < 6; i++) {
		int m = in[i][0] < in[i][1] ? in[i][0] : in[i][1];
		m = m < in[i][2] ? m : in[i][2];
		CHECK_NEAR(res[i][0], m, 1);
		CHECK_NEAR(res[i][1], m / 2.0, 1);
		CHECK_EQ(res[i][2], 0);
	}
	CHECK_EQ(res[3][0], 65535);
	CHECK_EQ(res[3][1], 32768);
	CHECK_EQ(res[4][0], 0);

	/* Node 100 lit: weight (r - max(g, b)) where r is largest, else 0. */
	memset(p.table, 0, sizeof(p.table));
	p.table[1][2] = 65535;
	lut3d_run(&p, in, res, 6);
	CHECK_NEAR(res[0][2], 20000, 1);
	CHECK_EQ(res[1][2], 0);
	CHECK_EQ(res[2][2], 0);
	CHECK_EQ(res[4][2], 0);
}

TEST(lut3d_bands)
{
	static const int perm[3] = { 1, 2, 0 };
	struct cisp_lut3d_params *p = lut3d_permutation(17, perm);
	struct frame in;

	/* Bend the table so the test is not only about linear data. */
	for (int i = 0; i < 17 * 17 * 17; i++)
		for (int c = 0; c < 3; c++)
			p->table[i][c] = (uint16_t)((uint32_t)p->table[i][c] * p->table[i][c] / 65535);
	frame_alloc(&in, 20, 26, 0, 26);
	frame_random(&in, 16);
	check_bands(lut3d_fn, p, &in, 0, true);
	frame_free(&in);
	free(p);
}

/* Tetrahedral interpolation in real numbers, as the document states it. */
static double lut3d_real(const struct cisp_lut3d_params *p, const uint16_t rgb[3], int c)
{
	const int n = p->size;
	double f[3];
	int i[3];

	for (int k = 0; k < 3; k++) {
		double pos = rgb[k] * (n - 1) / 65535.0;
		i[k] = (int)pos < n - 2 ? (int)pos : n - 2;
		f[k] = pos - i[k];
	}
	/* Visit the corners in decreasing order of fraction: each step adds one axis. */
	int order[3] = { 0, 1, 2 };
	for (int a = 0; a < 3; a++)
		for (int b = a + 1; b < 3; b++)
			if (f[order[b]] > f[order[a]]) {
				int t = order[a];
				order[a] = order[b];
				order[b] = t;
			}
	int at[3] = { i[0], i[1], i[2] };
	double prev = 1, sum = 0;
	for (int s = 0; s <= 3; s++) {
		double next = s < 3 ? f[order[s]] : 0;
		sum += (prev - next) * p->table[(at[2] * n + at[1]) * n + at[0]][c];
		if (s < 3)
			at[order[s]]++;
		prev = next;
	}
	return sum;
}

TEST(lut3d_random_against_real)
{
	static uint16_t in[256][3], res[256][3];
	static const int sizes[] = { 2, 3, 9, 17, 33 };

	for (int s = 0; s < 5; s++) {
		struct cisp_lut3d_params *p = calloc(1, sizeof(*p));
		double worst = 0;

		p->size = (uint16_t)sizes[s];
		for (int i = 0; i < sizes[s] * sizes[s] * sizes[s]; i++)
			for (int c = 0; c < 3; c++)
				p->table[i][c] = (uint16_t)(test_rand() >> 48);
		for (int round = 0; round < 40; round++) {
			for (int i = 0; i < 256; i++)
				for (int c = 0; c < 3; c++)
					in[i][c] = (uint16_t)(test_rand() >> 48);
			lut3d_run(p, (const uint16_t(*)[3])in, res, 256);
			for (int i = 0; i < 256; i++)
				for (int c = 0; c < 3; c++) {
					double e = fabs(res[i][c] - lut3d_real(p, in[i], c));
					worst = e > worst ? e : worst;
				}
		}
		/* Bound 3 * 0.5/32768 * 65535 + 0.5 = 3.5 (lut3d.md); about 2 is what random tables reach. */
		CHECK(worst <= 3.5);
		free(p);
	}
}

/* ---- sharpening ---- */

static void sharpen_fn(const void *ctx, const struct rgb16 *in, const struct rgb16 *out, int y0, int y1)
{
	cisp_sharpen_rows(ctx, in, out, y0, y1);
}

static struct cisp_sharpen_params sharpen_params(int strength, int coring, int limit)
{
	return (struct cisp_sharpen_params){ .header = { CISP_BLOCK_SHARPEN, 0, 16 },
					     .strength = (uint16_t)strength,
					     .coring = (uint16_t)coring,
					     .limit = (uint16_t)limit };
}

/* The stage written out directly: 25-tap 2D kernel, 64-bit sums. */
static void sharpen_reference(const struct cisp_sharpen_params *p, const struct frame *in, struct frame *out)
{
	static const int k[5] = { 1, 4, 6, 4, 1 };
	const int w = in->p.c[0].width, h = in->p.c[0].height;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int64_t s = 0, l = 0;
			for (int j = -2; j <= 2; j++)
				for (int i = -2; i <= 2; i++) {
					int xx = x + i < 0 ? -(x + i) : x + i >= w ? 2 * w - 2 - (x + i) : x + i;
					int yy = y + j < 0 ? -(y + j) : y + j >= h ? 2 * h - 2 - (y + j) : y + j;
					int64_t lum = (871 * (int64_t)*px(in, 0, xx, yy) + 2929 * (int64_t)*px(in, 1, xx, yy) +
						       296 * (int64_t)*px(in, 2, xx, yy) + 2048) / 4096;
					s += k[i + 2] * k[j + 2] * lum;
					if (i == 0 && j == 0)
						l = lum;
				}
			int64_t d = l - (s + 128) / 256;
			int64_t a = d < 0 ? -d : d;
			a = a > p->coring ? a - p->coring : 0;
			a = (a * p->strength + 128) / 256;
			a = a < p->limit ? a : p->limit;
			for (int c = 0; c < 3; c++) {
				int64_t v = *px(in, c, x, y) + (d < 0 ? -a : a);
				*px(out, c, x, y) = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
			}
		}
}

TEST(sharpen_flat_field)
{
	struct cisp_sharpen_params p = sharpen_params(2048, 0, 65535);
	struct frame in, out;
	int bad = 0;

	frame_alloc(&in, 24, 18, 0, 18);
	frame_alloc(&out, 24, 18, 0, 18);
	for (int y = 0; y < 18; y++)
		for (int x = 0; x < 24; x++) {
			*px(&in, 0, x, y) = 51000;
			*px(&in, 1, x, y) = 12345;
			*px(&in, 2, x, y) = 777;
		}
	cisp_sharpen_rows(&p, &in.p, &out.p, 0, 18);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 18; y++)
			bad += memcmp(px(&in, c, 0, y), px(&out, c, 0, y), 24 * sizeof(uint16_t)) != 0;
	CHECK_EQ(bad, 0);
	frame_free(&in);
	frame_free(&out);
}

/* A grey vertical edge: 16384 left of column 10, 49152 from it on. */
static void sharpen_edge(const struct cisp_sharpen_params *p, int o[4])
{
	struct frame in, out;

	frame_alloc(&in, 20, 16, 0, 16);
	frame_alloc(&out, 20, 16, 0, 16);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 16; y++)
			for (int x = 0; x < 20; x++)
				*px(&in, c, x, y) = x < 10 ? 16384 : 49152;
	cisp_sharpen_rows(p, &in.p, &out.p, 0, 16);
	for (int i = 0; i < 4; i++) /* columns 8..11 of row 7 */
		o[i] = *px(&out, 1, 8 + i, 7);
	for (int y = 0; y < 16; y++) /* grey stays grey, rows alike, far columns untouched */
		for (int x = 0; x < 20; x++) {
			CHECK_EQ(*px(&out, 0, x, y), *px(&out, 1, x, y));
			CHECK_EQ(*px(&out, 2, x, y), *px(&out, 1, x, y));
			CHECK_EQ(*px(&out, 1, x, y), *px(&out, 1, x, 7));
			if (x < 8 || x > 11)
				CHECK_EQ(*px(&out, 1, x, y), *px(&in, 1, x, y));
		}
	frame_free(&in);
	frame_free(&out);
}

TEST(sharpen_edge_overshoot)
{
	int o[4];

	/*
	 * The blur across the edge at columns 8, 9, 10, 11 is (15D+B)/16,
	 * (11D+5B)/16, (5D+11B)/16, (D+15B)/16, so with B - D = 32768 the
	 * detail is -2048, -10240, +10240, +2048.
	 */
	struct cisp_sharpen_params p = sharpen_params(256, 0, 65535);
	sharpen_edge(&p, o);
	CHECK_EQ(o[0], 16384 - 2048);
	CHECK_EQ(o[1], 16384 - 10240);
	CHECK_EQ(o[2], 49152 + 10240);
	CHECK_EQ(o[3], 49152 + 2048);

	/* The limit caps the overshoot. */
	p = sharpen_params(256, 0, 4096);
	sharpen_edge(&p, o);
	CHECK_EQ(o[0], 16384 - 2048);
	CHECK_EQ(o[1], 16384 - 4096);
	CHECK_EQ(o[2], 49152 + 4096);
	CHECK_EQ(o[3], 49152 + 2048);

	/* Strength 1.5 and coring 1000: (|d| - 1000) * 1.5. */
	p = sharpen_params(384, 1000, 65535);
	sharpen_edge(&p, o);
	CHECK_EQ(o[0], 16384 - 1572);
	CHECK_EQ(o[1], 16384 - 13860);
	CHECK_EQ(o[2], 49152 + 13860);
	CHECK_EQ(o[3], 49152 + 1572);

	/* Strength 0 changes nothing; clamping at white. */
	p = sharpen_params(0, 0, 65535);
	sharpen_edge(&p, o);
	CHECK_EQ(o[1], 16384);
	CHECK_EQ(o[2], 49152);
	p = sharpen_params(2048, 0, 65535);
	sharpen_edge(&p, o);
	CHECK_EQ(o[1], 0);
	CHECK_EQ(o[2], 65535);
}

TEST(sharpen_coring_keeps_noise)
{
	struct cisp_sharpen_params p = sharpen_params(1024, 256, 4096);
	struct frame in, out, ref;
	int bad = 0, changed = 0;

	/* Noise of +-100 around a colour: |detail| <= 200 < coring, nothing moves. */
	frame_alloc(&in, 40, 24, 0, 24);
	frame_alloc(&out, 40, 24, 0, 24);
	frame_alloc(&ref, 40, 24, 0, 24);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 24; y++)
			for (int x = 0; x < 40; x++)
				*px(&in, c, x, y) = (uint16_t)(20000 + 5000 * c + (int)(test_rand() % 201) - 100);
	cisp_sharpen_rows(&p, &in.p, &out.p, 0, 24);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 24; y++)
			bad += memcmp(px(&in, c, 0, y), px(&out, c, 0, y), 40 * sizeof(uint16_t)) != 0;
	CHECK_EQ(bad, 0);

	/* Stronger noise is sharpened, exactly as the direct formula says. */
	frame_random(&in, 16);
	p = sharpen_params(700, 300, 3000);
	cisp_sharpen_rows(&p, &in.p, &out.p, 0, 24);
	sharpen_reference(&p, &in, &ref);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 24; y++)
			for (int x = 0; x < 40; x++) {
				bad += *px(&out, c, x, y) != *px(&ref, c, x, y);
				changed += *px(&out, c, x, y) != *px(&in, c, x, y);
				bad += abs(*px(&out, c, x, y) - *px(&in, c, x, y)) > 3000;
			}
	CHECK_EQ(bad, 0);
	CHECK(changed > 40 * 24 * 3 / 2);
	frame_free(&in);
	frame_free(&out);
	frame_free(&ref);
}

TEST(sharpen_bands)
{
	struct cisp_sharpen_params p = sharpen_params(600, 100, 5000);
	struct frame in, ref;
	int bad = 0;

	/* Wider than one internal column chunk, so chunk seams are covered. */
	frame_alloc(&in, 300, 28, 0, 28);
	frame_alloc(&ref, 300, 28, 0, 28);
	frame_random(&in, 16);
	check_bands(sharpen_fn, &p, &in, CISP_SHARPEN_RADIUS, false);
	cisp_sharpen_rows(&p, &in.p, &ref.p, 0, 28);
	struct frame direct;
	frame_alloc(&direct, 300, 28, 0, 28);
	sharpen_reference(&p, &in, &direct);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 28; y++)
			bad += memcmp(px(&ref, c, 0, y), px(&direct, c, 0, y), 300 * sizeof(uint16_t)) != 0;
	CHECK_EQ(bad, 0);
	frame_free(&in);
	frame_free(&ref);
	frame_free(&direct);
}
