/* SPDX-License-Identifier: MIT */
/* YUV-domain and output stages: colour-space conversion, crop and scale, packing. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>

#include "isp/csc.h"
#include "isp/pack.h"
#include "isp/scale.h"
#include "test.h"

/* Three planes holding frame rows [first, first + rows) of a w x h frame. */
struct frame {
	uint16_t *mem;
	struct rgb16 p;
};

static void frame_alloc(struct frame *f, int w, int h, int first, int rows)
{
	ptrdiff_t stride = w + 5; /* not the row length, on purpose */

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

static void frame_random(struct frame *f)
{
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < f->p.c[c].height; y++)
			for (int x = 0; x < f->p.c[c].width; x++)
				*px(f, c, x, y) = (uint16_t)(test_rand() >> 48);
}

static int frames_differ(const struct frame *a, const struct frame *b, int y0, int y1)
{
	int n = 0;

	for (int c = 0; c < 3; c++)
		for (int y = y0; y < y1; y++)
			n += memcmp(px(a, c, 0, y), px(b, c, 0, y), sizeof(uint16_t) * (size_t)a->p.c[c].width) != 0;
	return n;
}

/* ---- colour-space conversion ---- */

static struct cisp_csc_params csc_params(int matrix, int range)
{
	return (struct cisp_csc_params){ .header = { CISP_BLOCK_CSC, 0, 16 },
					 .matrix = (uint16_t)matrix,
					 .range = (uint16_t)range };
}

/* 8-bit Y, Cb, Cr of one 16-bit R, G, B pixel. */
static void csc_pixel8(const struct cisp_csc_params *p, const uint16_t rgb[3], uint8_t ycc[3], uint16_t ycc16[3])
{
	struct frame f;

	frame_alloc(&f, 16, 16, 0, 16);
	for (int c = 0; c < 3; c++)
		*px(&f, c, 9, 4) = rgb[c];
	cisp_csc_rows(p, &f.p, &f.p, 4, 5);
	for (int c = 0; c < 3; c++) {
		ycc16[c] = *px(&f, c, 9, 4);
		ycc[c] = cisp_to8(ycc16[c]);
	}
	frame_free(&f);
}

/*
 * Colour bars, 75% and 100%: white, yellow, cyan, green, magenta, red, blue,
 * black. 8-bit values of ITU-R BT.601, BT.709 and BT.2020 with the exact
 * amplitude (Y' = Kr R' + Kg G' + Kb B'; limited Y = 16 + 219 Y',
 * C = 128 + 224 C'; full Y = 255 Y', C = 128 + 255 C', rounded halves up,
 * clipped to 255).
 */
static const uint8_t bars[3][2][2][8][3] = {
	[CISP_CSC_BT601] = {
		[CISP_RANGE_LIMITED] = {
			{ { 180, 128, 128 }, { 162, 44, 142 }, { 131, 156, 44 }, { 112, 72, 58 },
			  { 84, 184, 198 }, { 65, 100, 212 }, { 35, 212, 114 }, { 16, 128, 128 } },
			{ { 235, 128, 128 }, { 210, 16, 146 }, { 170, 166, 16 }, { 145, 54, 34 },
			  { 106, 202, 222 }, { 81, 90, 240 }, { 41, 240, 110 }, { 16, 128, 128 } },
		},
		[CISP_RANGE_FULL] = {
			{ { 191, 128, 128 }, { 169, 32, 144 }, { 134, 160, 32 }, { 112, 65, 48 },
			  { 79, 191, 208 }, { 57, 96, 224 }, { 22, 224, 112 }, { 0, 128, 128 } },
			{ { 255, 128, 128 }, { 226, 1, 149 }, { 179, 171, 1 }, { 150, 44, 21 },
			  { 105, 212, 235 }, { 76, 85, 255 }, { 29, 255, 107 }, { 0, 128, 128 } },
		},
	},
	[CISP_CSC_BT709] = {
		[CISP_RANGE_LIMITED] = {
			{ { 180, 128, 128 }, { 168, 44, 136 }, { 145, 147, 44 }, { 133, 63, 52 },
			  { 63, 193, 204 }, { 51, 109, 212 }, { 28, 212, 120 }, { 16, 128, 128 } },
			{ { 235, 128, 128 }, { 219, 16, 138 }, { 188, 154, 16 }, { 173, 42, 26 },
			  { 78, 214, 230 }, { 63, 102, 240 }, { 32, 240, 118 }, { 16, 128, 128 } },
		},
		[CISP_RANGE_FULL] = {
			{ { 191, 128, 128 }, { 177, 32, 137 }, { 151, 150, 32 }, { 137, 54, 41 },
			  { 54, 202, 215 }, { 41, 106, 224 }, { 14, 224, 119 }, { 0, 128, 128 } },
			{ { 255, 128, 128 }, { 237, 1, 140 }, { 201, 157, 1 }, { 182, 30, 12 },
			  { 73, 226, 244 }, { 54, 99, 255 }, { 18, 255, 116 }, { 0, 128, 128 } },
		},
	},
	[CISP_CSC_BT2020] = {
		[CISP_RANGE_LIMITED] = {
			{ { 180, 128, 128 }, { 171, 44, 135 }, { 137, 151, 44 }, { 127, 67, 51 },
			  { 69, 189, 205 }, { 59, 105, 212 }, { 26, 212, 121 }, { 16, 128, 128 } },
			{ { 235, 128, 128 }, { 222, 16, 137 }, { 177, 159, 16 }, { 164, 47, 25 },
			  { 87, 209, 231 }, { 74, 97, 240 }, { 29, 240, 119 }, { 16, 128, 128 } },
		},
		[CISP_RANGE_FULL] = {
			{ { 191, 128, 128 }, { 180, 32, 136 }, { 141, 155, 32 }, { 130, 59, 40 },
			  { 62, 197, 216 }, { 50, 101, 224 }, { 11, 224, 120 }, { 0, 128, 128 } },
			{ { 255, 128, 128 }, { 240, 1, 138 }, { 188, 164, 1 }, { 173, 36, 11 },
			  { 82, 220, 245 }, { 67, 92, 255 }, { 15, 255, 118 }, { 0, 128, 128 } },
		},
	},
};

TEST(csc_colour_bars)
{
	static const int on[8][3] = { { 1, 1, 1 }, { 1, 1, 0 }, { 0, 1, 1 }, { 0, 1, 0 },
				      { 1, 0, 1 }, { 1, 0, 0 }, { 0, 0, 1 }, { 0, 0, 0 } };
	static const uint16_t level[2] = { 49151, 65535 }; /* 0.75 and 1.0 */
	int bad = 0;

	for (int m = 0; m < 3; m++)
		for (int r = 0; r < 2; r++) {
			struct cisp_csc_params p = csc_params(m, r);
			for (int a = 0; a < 2; a++)
				for (int i = 0; i < 8; i++) {
					uint16_t rgb[3], ycc16[3];
					uint8_t ycc[3];
					for (int c = 0; c < 3; c++)
						rgb[c] = (uint16_t)(on[i][c] * level[a]);
					csc_pixel8(&p, rgb, ycc, ycc16);
					for (int c = 0; c < 3; c++)
						if (ycc[c] != bars[m][r][a][i][c]) {
							bad++;
							printf("    matrix %d range %d level %d bar %d channel %d: %u, expected %u\n",
							       m, r, a, i, c, ycc[c], bars[m][r][a][i][c]);
						}
				}
		}
	CHECK_EQ(bad, 0);
}

/* The definition in real numbers: Kr, Kb of each matrix. */
static void csc_real(int m, int range, const uint16_t rgb[3], double out16[3])
{
	static const double k[3][2] = { { 0.299, 0.114 }, { 0.2126, 0.0722 }, { 0.2627, 0.0593 } };
	const double kr = k[m][0], kb = k[m][1], kg = 1 - kr - kb;
	const double r = rgb[0] / 65535.0, g = rgb[1] / 65535.0, b = rgb[2] / 65535.0;
	const double y = kr * r + kg * g + kb * b, cb = (b - y) / (2 * (1 - kb)), cr = (r - y) / (2 * (1 - kr));

	if (range == CISP_RANGE_LIMITED) {
		out16[0] = 257 * (16 + 219 * y);
		out16[1] = 257 * (128 + 224 * cb);
		out16[2] = 257 * (128 + 224 * cr);
	} else {
		out16[0] = 65535 * y;
		out16[1] = fmin(65535, 257 * (128 + 255 * cb));
		out16[2] = fmin(65535, 257 * (128 + 255 * cr));
	}
}

TEST(csc_random_against_formula)
{
	struct frame in, out;
	double worst = 0;
	int greys = 0, range8 = 0;

	frame_alloc(&in, 64, 16, 0, 16);
	frame_alloc(&out, 64, 16, 0, 16);
	for (int m = 0; m < 3; m++)
		for (int r = 0; r < 2; r++) {
			struct cisp_csc_params p = csc_params(m, r);
			frame_random(&in);
			for (int x = 0; x < 64; x++) /* row 0: greys */
				for (int c = 0; c < 3; c++)
					*px(&in, c, x, 0) = (uint16_t)(x * 1040);
			cisp_csc_rows(&p, &in.p, &out.p, 0, 16);
			for (int y = 0; y < 16; y++)
				for (int x = 0; x < 64; x++) {
					uint16_t rgb[3] = { *px(&in, 0, x, y), *px(&in, 1, x, y), *px(&in, 2, x, y) };
					double e[3];
					csc_real(m, r, rgb, e);
					for (int c = 0; c < 3; c++) {
						double d = fabs(*px(&out, c, x, y) - e[c]);
						worst = d > worst ? d : worst;
						int v8 = cisp_to8(*px(&out, c, x, y));
						if (r == CISP_RANGE_LIMITED)
							range8 += v8 < 16 || v8 > (c ? 240 : 235);
					}
					if (y == 0) /* a grey has no chroma, and full-range Y is the input */
						greys += *px(&out, 1, x, 0) != CISP_CSC_CHROMA_ZERO ||
							 *px(&out, 2, x, 0) != CISP_CSC_CHROMA_ZERO ||
							 (r == CISP_RANGE_FULL && *px(&out, 0, x, 0) != rgb[0]);
				}
		}
	CHECK(worst < 2.5); /* Q15 coefficients: 2.09 codes of 65535 at worst over 2^20 random pixels */
	CHECK_EQ(greys, 0);
	CHECK_EQ(range8, 0);
	frame_free(&in);
	frame_free(&out);
}

TEST(csc_bands_and_in_place)
{
	struct cisp_csc_params p = csc_params(CISP_CSC_BT709, CISP_RANGE_LIMITED);
	struct frame in, whole, band, inplace;

	frame_alloc(&in, 30, 25, 0, 25);
	frame_alloc(&whole, 30, 25, 0, 25);
	frame_alloc(&inplace, 30, 25, 0, 25);
	frame_random(&in);
	cisp_csc_rows(&p, &in.p, &whole.p, 0, 25);
	for (int y0 = 0, s = 1; y0 < 25; y0 += s, s += 2) {
		int y1 = y0 + s > 25 ? 25 : y0 + s;
		frame_alloc(&band, 30, 25, y0, y1 - y0);
		cisp_csc_rows(&p, &in.p, &band.p, y0, y1);
		CHECK_EQ(frames_differ(&band, &whole, y0, y1), 0);
		frame_free(&band);
	}
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 25; y++)
			memcpy(px(&inplace, c, 0, y), px(&in, c, 0, y), 30 * sizeof(uint16_t));
	cisp_csc_rows(&p, &inplace.p, &inplace.p, 0, 25);
	CHECK_EQ(frames_differ(&inplace, &whole, 0, 25), 0);
	frame_free(&in);
	frame_free(&whole);
	frame_free(&inplace);
}

/* round(num / den) with halves up, den > 0, exact for any sign. */
static int64_t round_half_up(int64_t num, int64_t den)
{
	int64_t n = 2 * num + den, d = 2 * den;
	return n >= 0 ? n / d : -((-n + d - 1) / d);
}

TEST(csc_coefficients_from_kr_kb)
{
	/* Kr, Kb in 1/10000; scales of Y and C over 255 per range. */
	static const int64_t k[3][2] = { { 2990, 1140 }, { 2126, 722 }, { 2627, 593 } };
	static const int64_t sy[2] = { 219, 255 }, sc[2] = { 224, 255 };

	for (int m = 0; m < 3; m++)
		for (int r = 0; r < 2; r++) {
			const int64_t kr = k[m][0], kb = k[m][1], kg = 10000 - kr - kb;
			int64_t want[9];
			want[0] = round_half_up(32768 * sy[r] * kr, 255 * 10000);
			want[2] = round_half_up(32768 * sy[r] * kb, 255 * 10000);
			want[1] = round_half_up(32768 * sy[r], 255) - want[0] - want[2];
			want[3] = round_half_up(-32768 * sc[r] * kr, 255 * 2 * (10000 - kb));
			want[4] = round_half_up(-32768 * sc[r] * kg, 255 * 2 * (10000 - kb));
			want[5] = -(want[3] + want[4]);
			want[7] = round_half_up(-32768 * sc[r] * kg, 255 * 2 * (10000 - kr));
			want[8] = round_half_up(-32768 * sc[r] * kb, 255 * 2 * (10000 - kr));
			want[6] = -(want[7] + want[8]);

			/* An input of 32768 (0.5 in Q16) on one channel shows that column's coefficients. */
			struct cisp_csc_params p = csc_params(m, r);
			for (int col = 0; col < 3; col++) {
				uint16_t rgb[3] = { 0, 0, 0 }, ycc16[3];
				uint8_t ycc[3];
				rgb[col] = 32768;
				csc_pixel8(&p, rgb, ycc, ycc16);
				CHECK_EQ(ycc16[0] - (r == CISP_RANGE_LIMITED ? 4112 : 0), want[col]);
				CHECK_EQ(ycc16[1] - CISP_CSC_CHROMA_ZERO, want[3 + col]);
				CHECK_EQ(ycc16[2] - CISP_CSC_CHROMA_ZERO, want[6 + col]);
			}
		}
}

/* ---- crop and scale ---- */

/* Scale the @iw x @ih rectangle at (@x, @y) of @in into @out (allocated here). */
static void scale(const struct frame *in, int x, int y, int iw, int ih, struct frame *out, int ow, int oh)
{
	struct cisp_scaler *s;

	CHECK_EQ(cisp_scaler_create(&s, iw, ih, ow, oh), 0);
	frame_alloc(out, ow, oh, 0, oh);
	cisp_scale_rows(s, &in->p, x, y, &out->p, 0, oh);
	cisp_scaler_free(s);
}

TEST(scale_bad_sizes)
{
	struct cisp_scaler *s = (struct cisp_scaler *)&s;

	CHECK_ERR(cisp_scaler_create(&s, 0, 10, 10, 10), -EINVAL, "0x10 to 10x10");
	CHECK(s == NULL);
	CHECK_ERR(cisp_scaler_create(&s, 10, 10, 10, CISP_MAX_DIMENSION + 1), -EINVAL, "outside");
	CHECK_ERR(cisp_scaler_create(&s, 10, -2, 10, 10), -EINVAL, "10x-2");
	cisp_scaler_free(NULL);
}

TEST(scale_known_weights)
{
	struct frame in, out;

	/* 3 -> 2 across: each output covers 1.5 inputs, weights 2/3 and 1/3. */
	frame_alloc(&in, 3, 1, 0, 1);
	*px(&in, 0, 0, 0) = 300, *px(&in, 0, 1, 0) = 600, *px(&in, 0, 2, 0) = 900;
	*px(&in, 1, 0, 0) = 0, *px(&in, 1, 1, 0) = 1, *px(&in, 1, 2, 0) = 65535;
	scale(&in, 0, 0, 3, 1, &out, 2, 1);
	CHECK_EQ(*px(&out, 0, 0, 0), 400);
	CHECK_EQ(*px(&out, 0, 1, 0), 800);
	/*
	 * 1/3 and (1 + 2 * 65535) / 3 = 43690.33: the Q14 weights (10923, 5461)
	 * and the Q1 intermediate put these extremes 0.67 and 1.67 codes off.
	 */
	CHECK_EQ(*px(&out, 1, 0, 0), 1);
	CHECK_EQ(*px(&out, 1, 1, 0), 43692);
	frame_free(&out);
	frame_free(&in);

	/* 2 -> 4 across: linear, centres aligned: a, (3a+b)/4, (a+3b)/4, b. */
	frame_alloc(&in, 2, 1, 0, 1);
	*px(&in, 0, 0, 0) = 1000, *px(&in, 0, 1, 0) = 2002;
	scale(&in, 0, 0, 2, 1, &out, 4, 1);
	CHECK_EQ(*px(&out, 0, 0, 0), 1000);
	CHECK_EQ(*px(&out, 0, 1, 0), 1251); /* 1250.5 rounds up */
	CHECK_EQ(*px(&out, 0, 2, 0), 1752); /* 1751.5 */
	CHECK_EQ(*px(&out, 0, 3, 0), 2002);
	frame_free(&out);
	frame_free(&in);

	/* 4 -> 3 down: output j covers [4j/3, 4(j+1)/3). */
	frame_alloc(&in, 1, 4, 0, 4);
	for (int y = 0; y < 4; y++)
		*px(&in, 2, 0, y) = (uint16_t)(3000 * (y + 1));
	scale(&in, 0, 0, 1, 4, &out, 1, 3);
	CHECK_EQ(*px(&out, 2, 0, 0), 3750); /* (3 * 3000 + 6000) / 4 */
	CHECK_EQ(*px(&out, 2, 0, 1), 7500); /* (2 * 6000 + 2 * 9000) / 4 */
	CHECK_EQ(*px(&out, 2, 0, 2), 11250);
	frame_free(&out);
	frame_free(&in);
}

TEST(scale_flat_field)
{
	static const int sizes[][4] = { { 4000, 16, 1920, 16 }, { 1280, 20, 1920, 30 }, { 16, 4000, 16, 1080 },
					{ 37, 23, 5, 61 },     { 100, 100, 1, 1 },    { 3, 5, 300, 2 } };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const int *s = sizes[i];
		struct frame in, out;
		int bad = 0;

		frame_alloc(&in, s[0] + 6, s[1] + 4, 0, s[1] + 4);
		for (int c = 0; c < 3; c++)
			for (int y = 0; y < s[1] + 4; y++)
				for (int x = 0; x < s[0] + 6; x++) /* a different border around the crop */
					*px(&in, c, x, y) = (uint16_t)(x < 4 || y < 2 || x >= s[0] + 4 || y >= s[1] + 2
									   ? 1
									   : 65535 - 20000 * c);
		scale(&in, 4, 2, s[0], s[1], &out, s[2], s[3]);
		for (int c = 0; c < 3; c++)
			for (int y = 0; y < s[3]; y++)
				for (int x = 0; x < s[2]; x++)
					bad += *px(&out, c, x, y) != 65535 - 20000 * c;
		CHECK_EQ(bad, 0);
		frame_free(&in);
		frame_free(&out);
	}
}

TEST(scale_half_is_2x2_mean)
{
	struct frame in, out;
	int bad = 0;

	frame_alloc(&in, 64, 40, 0, 40);
	frame_random(&in);
	scale(&in, 0, 0, 64, 40, &out, 32, 20);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 20; y++)
			for (int x = 0; x < 32; x++) {
				uint32_t s = *px(&in, c, 2 * x, 2 * y) + *px(&in, c, 2 * x + 1, 2 * y) +
					     *px(&in, c, 2 * x, 2 * y + 1) + *px(&in, c, 2 * x + 1, 2 * y + 1);
				bad += *px(&out, c, x, y) != (s + 2) / 4;
			}
	CHECK_EQ(bad, 0);
	frame_free(&in);
	frame_free(&out);
}

/* The exact value of output @x when a row of @n samples v(i) = k * i is scaled to @m. */
static double ramp_expect(int n, int m, int k, int x)
{
	if (m < n) { /* area: the mean over [x n/m, (x+1) n/m) of the staircase */
		double lo = (double)x * n / m, hi = (double)(x + 1) * n / m, sum = 0;
		for (int i = (int)lo; i < hi; i++)
			sum += (fmin(hi, i + 1) - fmax(lo, i)) * k * i;
		return sum / (hi - lo);
	}
	/* linear between sample centres, clamped at the ends */
	double c = (x + 0.5) * n / m - 0.5;
	return k * (c < 0 ? 0 : c > n - 1 ? n - 1 : c);
}

/* A ramp across, scaled n -> m, stays a ramp: monotonic and within 1 code of the exact value. */
static void check_ramp(int n, int m, int k)
{
	struct frame in, out;
	int far = 0, nonmono = 0;

	frame_alloc(&in, n, 16, 0, 16);
	for (int y = 0; y < 16; y++)
		for (int x = 0; x < n; x++)
			for (int c = 0; c < 3; c++)
				*px(&in, c, x, y) = (uint16_t)(k * x);
	scale(&in, 0, 0, n, 16, &out, m, 16);
	for (int x = 0; x < m; x++) {
		far += fabs(*px(&out, 1, x, 7) - ramp_expect(n, m, k, x)) > 1.0;
		nonmono += x > 0 && *px(&out, 1, x, 7) < *px(&out, 1, x - 1, 7);
	}
	CHECK_EQ(far, 0);
	CHECK_EQ(nonmono, 0);
	frame_free(&in);
	frame_free(&out);
}

TEST(scale_ramp_stays_ramp)
{
	check_ramp(4000, 1920, 16);
	check_ramp(1280, 1920, 51);
	check_ramp(1920, 1280, 34);
	check_ramp(640, 1920, 102);
	check_ramp(100, 7, 600);
}

TEST(scale_crop_offset)
{
	struct frame in, crop, a, b;

	/* Scaling a rectangle at (x, y) equals scaling a copy of that rectangle. */
	frame_alloc(&in, 50, 40, 0, 40);
	frame_alloc(&crop, 30, 22, 0, 22);
	frame_random(&in);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < 22; y++)
			memcpy(px(&crop, c, 0, y), px(&in, c, 12, 10 + y), 30 * sizeof(uint16_t));
	scale(&in, 12, 10, 30, 22, &a, 17, 13);
	scale(&crop, 0, 0, 30, 22, &b, 17, 13);
	CHECK_EQ(frames_differ(&a, &b, 0, 13), 0);
	frame_free(&a);
	frame_free(&b);
	/* The same size is a plain copy of the rectangle. */
	scale(&in, 12, 10, 30, 22, &a, 30, 22);
	CHECK_EQ(frames_differ(&a, &crop, 0, 22), 0);
	frame_free(&a);
	frame_free(&in);
	frame_free(&crop);
}

TEST(scale_bands)
{
	static const int sizes[][4] = { { 400, 300, 192, 108 }, { 128, 72, 192, 108 }, { 60, 50, 37, 91 } };

	for (int i = 0; i < 3; i++) {
		const int *s = sizes[i];
		struct cisp_scaler *sc;
		struct frame in, whole, band;

		frame_alloc(&in, s[0] + 2, s[1] + 2, 0, s[1] + 2);
		frame_random(&in);
		CHECK_EQ(cisp_scaler_create(&sc, s[0], s[1], s[2], s[3]), 0);
		frame_alloc(&whole, s[2], s[3], 0, s[3]);
		cisp_scale_rows(sc, &in.p, 2, 2, &whole.p, 0, s[3]);
		for (int y0 = 0, n = 1; y0 < s[3]; y0 += n, n = n % 9 + 2) {
			int y1 = y0 + n > s[3] ? s[3] : y0 + n;
			frame_alloc(&band, s[2], s[3], y0, y1 - y0);
			cisp_scale_rows(sc, &in.p, 2, 2, &band.p, y0, y1);
			CHECK_EQ(frames_differ(&band, &whole, y0, y1), 0);
			frame_free(&band);
		}
		cisp_scaler_free(sc);
		frame_free(&in);
		frame_free(&whole);
	}
}

/* ---- packing ---- */

TEST(pack_to8_exhaustive)
{
	int bad = 0;

	for (uint32_t v = 0; v < 65536; v++) {
		/* v / 257 is never exactly half way, so rounding to nearest is unambiguous. */
		bad += cisp_to8(v) != (uint8_t)floor(v * 255.0 / 65535.0 + 0.5);
		bad += cisp_to8(v) != (v * 510 + 65535) / 131070;
	}
	CHECK_EQ(bad, 0);
	for (uint32_t k = 0; k < 256; k++)
		CHECK_EQ(cisp_to8(k * 257), k);
}

/* Planes whose values are easy to follow: Y = 257 * (x + 10 y), chroma patterns. */
static void pack_input(struct frame *f, int w, int h)
{
	frame_alloc(f, w, h, 0, h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			*px(f, 0, x, y) = (uint16_t)(257 * ((x + 10 * y) % 256));
			*px(f, 1, x, y) = (uint16_t)(1000 * x + 7 * y + 3);
			*px(f, 2, x, y) = (uint16_t)(65535 - 900 * y - 11 * x);
		}
}

/* The 8-bit mean of the 16-bit samples of block (cx, cy) inside the w x h frame. */
static uint8_t mean420(const struct frame *f, int c, int w, int h, int cx, int cy)
{
	uint32_t sum = 0, n = 0;

	for (int y = 2 * cy; y < 2 * cy + 2 && y < h; y++)
		for (int x = 2 * cx; x < 2 * cx + 2 && x < w; x++)
			sum += *px(f, c, x, y), n++;
	return cisp_to8((uint32_t)floor((double)sum / n + 0.5));
}

/*
 * Pack into a tightly packed buffer in bands of 2, 4, 6 ... rows (bands
 * start on even rows), and check that one call for the whole frame writes
 * the same bytes.
 */
static uint8_t *pack(const struct frame *in, uint32_t format, int w, int h, size_t *size)
{
	struct cisp_image img, whole_img;
	uint8_t *buf, *whole;

	*size = cisp_image_packed_size(format, (uint32_t)w, (uint32_t)h);
	buf = malloc(*size);
	whole = malloc(*size);
	memset(buf, 0xEE, *size);
	memset(whole, 0x11, *size);
	CHECK_EQ(cisp_image_wrap(&img, format, (uint32_t)w, (uint32_t)h, buf, *size), 0);
	CHECK_EQ(cisp_image_wrap(&whole_img, format, (uint32_t)w, (uint32_t)h, whole, *size), 0);
	for (int y0 = 0, n = 2; y0 < h; y0 += n, n += 2)
		cisp_pack_rows(&in->p, &img, y0, y0 + n > h ? h : y0 + n);
	cisp_pack_rows(&in->p, &whole_img, 0, h);
	CHECK(!memcmp(buf, whole, *size));
	free(whole);
	return buf;
}

static void check_yuv420(uint32_t format, int w, int h)
{
	const int cw = (w + 1) / 2, ch = (h + 1) / 2;
	struct frame in;
	size_t size, i = 0;
	int bad = 0;

	pack_input(&in, w, h);
	uint8_t *buf = pack(&in, format, w, h, &size);
	CHECK_EQ(size, (size_t)w * h + 2 * (size_t)cw * ch);
	for (int y = 0; y < h; y++) /* luma plane, row after row */
		for (int x = 0; x < w; x++)
			bad += buf[i++] != (x + 10 * y) % 256;
	if (format == CISP_FMT_NV12) { /* Cb, Cr interleaved */
		for (int y = 0; y < ch; y++)
			for (int x = 0; x < cw; x++) {
				bad += buf[i++] != mean420(&in, 1, w, h, x, y);
				bad += buf[i++] != mean420(&in, 2, w, h, x, y);
			}
	} else { /* Cb plane, then Cr plane */
		for (int c = 1; c < 3; c++)
			for (int y = 0; y < ch; y++)
				for (int x = 0; x < cw; x++)
					bad += buf[i++] != mean420(&in, c, w, h, x, y);
	}
	CHECK_EQ(i, size);
	CHECK_EQ(bad, 0);
	free(buf);
	frame_free(&in);
}

TEST(pack_nv12_i420_layout)
{
	static const int sizes[][2] = { { 16, 16 }, { 6, 4 }, { 5, 3 }, { 7, 8 }, { 1, 1 } };

	for (int i = 0; i < 5; i++) {
		check_yuv420(CISP_FMT_NV12, sizes[i][0], sizes[i][1]);
		check_yuv420(CISP_FMT_I420, sizes[i][0], sizes[i][1]);
	}
}

TEST(pack_nv12_bytes)
{
	/* A 4x2 NV12 image written out by hand. */
	struct frame in;
	size_t size;
	static const uint16_t y16[2][4] = { { 0, 257, 65535, 128 }, { 129, 32896, 1000, 2000 } };
	static const uint16_t cb[2][4] = { { 100, 101, 101, 200 }, { 102, 102, 65535, 65535 } };
	static const uint16_t cr[2][4] = { { 385, 0, 4112, 4112 }, { 0, 0, 4112, 4113 } };

	frame_alloc(&in, 4, 2, 0, 2);
	for (int y = 0; y < 2; y++)
		for (int x = 0; x < 4; x++)
			*px(&in, 0, x, y) = y16[y][x], *px(&in, 1, x, y) = cb[y][x], *px(&in, 2, x, y) = cr[y][x];
	uint8_t *buf = pack(&in, CISP_FMT_NV12, 4, 2, &size);
	static const uint8_t want[12] = {
		0, 1, 255, 0,  /* 128 / 257 = 0.498 rounds down */
		1, 128, 4, 8,  /* 129 / 257 = 0.502 rounds up; 1000 / 257 = 3.89 */
		0, 0,          /* Cb mean 101.25 -> 101 -> 0.39; Cr mean 96.25 -> 96 -> 0.37 */
		128, 16,       /* Cb (200 + 101 + 2 * 65535 + 2) / 4 = 32843 -> 127.8; Cr 4112.25 -> 16 */
	};
	for (size_t i = 0; i < 12; i++)
		CHECK_EQ(buf[i], want[i]);
	CHECK_EQ(size, 12);
	free(buf);
	frame_free(&in);
}

TEST(pack_rgb888_rgb48)
{
	struct frame in;
	size_t size, i = 0;
	int bad = 0;

	frame_alloc(&in, 7, 5, 0, 5);
	frame_random(&in);
	*px(&in, 0, 0, 0) = 0x1234, *px(&in, 1, 0, 0) = 0xABCD, *px(&in, 2, 0, 0) = 128;
	uint8_t *buf = pack(&in, CISP_FMT_RGB888, 7, 5, &size);
	CHECK_EQ(size, 7 * 5 * 3);
	CHECK_EQ(buf[0], 18);  /* 4660 / 257 = 18.13 */
	CHECK_EQ(buf[1], 171); /* 43981 / 257 = 171.13 */
	CHECK_EQ(buf[2], 0);   /* 128 / 257 = 0.498 */
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 7; x++)
			for (int c = 0; c < 3; c++)
				bad += buf[i++] != (uint8_t)floor(*px(&in, c, x, y) / 257.0 + 0.5);
	CHECK_EQ(bad, 0);
	free(buf);

	buf = pack(&in, CISP_FMT_RGB48, 7, 5, &size);
	CHECK_EQ(size, 7 * 5 * 6);
	static const uint8_t first[6] = { 0x34, 0x12, 0xCD, 0xAB, 0x80, 0x00 };
	CHECK(!memcmp(buf, first, 6));
	i = 0;
	for (int y = 0; y < 5; y++)
		for (int x = 0; x < 7; x++)
			for (int c = 0; c < 3; c++, i += 2)
				bad += buf[i] + 256 * buf[i + 1] != *px(&in, c, x, y);
	CHECK_EQ(bad, 0);
	free(buf);
	frame_free(&in);
}

TEST(pack_strided_rows_only)
{
	/* Padded rows: only the rows asked for are written, and no byte past a row. */
	struct cisp_image img;
	struct frame in;

	pack_input(&in, 18, 16);
	CHECK_EQ(cisp_image_alloc(&img, CISP_FMT_NV12, 18, 16), 0);
	for (int p = 0; p < 2; p++)
		memset(img.plane[p].data, 0x55, img.plane[p].stride * (p ? 8 : 16));
	cisp_pack_rows(&in.p, &img, 4, 10);
	for (int y = 0; y < 16; y++)
		for (size_t x = 0; x < img.plane[0].stride; x++) {
			bool written = y >= 4 && y < 10 && x < 18;
			uint8_t v = img.plane[0].data[y * img.plane[0].stride + x];
			CHECK(written ? v == (x + 10 * y) % 256 : v == 0x55);
		}
	for (int y = 0; y < 8; y++)
		for (size_t x = 0; x < img.plane[1].stride; x++) {
			bool written = y >= 2 && y < 5 && x < 18;
			uint8_t v = img.plane[1].data[y * img.plane[1].stride + x];
			CHECK(written ? v == mean420(&in, 1 + (int)(x & 1), 18, 16, (int)x / 2, y) : v == 0x55);
		}
	cisp_image_free(&img);
	frame_free(&in);
}
