/* SPDX-License-Identifier: MIT */
/*
 * Bayer-domain stages: unpack, black level, defective pixels, lens shading,
 * white balance, highlights, Bayer denoise. Known answers on synthetic frames, computed
 * here from the documented arithmetic, and row-band independence.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/params.h>
#include <cisp/params_state.h>
#include <cisp/raster.h>

#include "isp/blc.h"
#include "isp/bnr.h"
#include "isp/dpc.h"
#include "isp/highlights.h"
#include "isp/lsc.h"
#include "isp/unpack.h"
#include "isp/wb.h"

#include "test.h"

/* ---- helpers ---------------------------------------------------------- */

static struct plane16 plane_new(int w, int h)
{
	struct plane16 p = { calloc((size_t)w * h, sizeof(uint16_t)), w, 0, w, h };

	if (!p.base)
		abort();
	return p;
}

static uint16_t *px(const struct plane16 *p, int x, int y)
{
	return plane_row(p, y) + x;
}

/* Channel (0 R, 1 Gr, 2 Gb, 3 B) of pixel (x, y), read from the order's name. */
static int chan(enum cisp_cfa cfa, int x, int y)
{
	static const char *const names[] = { "RGGB", "GRBG", "GBRG", "BGGR" };
	const char *row = names[cfa] + (y & 1) * 2;

	if (row[x & 1] == 'R')
		return 0;
	if (row[x & 1] == 'B')
		return 3;
	return row[0] == 'R' || row[1] == 'R' ? 1 : 2;
}

typedef void (*rows_fn)(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1);

/*
 * Run @fn on the whole frame, then on rows [0, h1) and [h1, H), each band
 * from a buffer that holds only the input rows within @radius of it and into
 * a buffer that holds only its output rows. Returns the pixels that differ.
 */
static long band_mismatch(rows_fn fn, const void *ctx, const struct plane16 *in, int radius, int h1)
{
	int w = in->width, h = in->height;
	struct plane16 full = plane_new(w, h);
	long bad = 0;

	fn(ctx, in, &full, 0, h);
	for (int band = 0; band < 2; band++) {
		int y0 = band ? h1 : 0, y1 = band ? h : h1;
		int lo = y0 - radius < 0 ? 0 : y0 - radius, hi = y1 + radius > h ? h : y1 + radius;
		struct plane16 bi = plane_new(w, hi - lo), bo = plane_new(w, y1 - y0);

		bi.first_row = lo;
		bi.height = h;
		bo.first_row = y0;
		bo.height = h;
		for (int y = lo; y < hi; y++)
			memcpy(plane_row(&bi, y), plane_row(in, y), (size_t)w * 2);
		fn(ctx, &bi, &bo, y0, y1);
		for (int y = y0; y < y1; y++)
			for (int x = 0; x < w; x++)
				bad += *px(&bo, x, y) != *px(&full, x, y);
		free(bi.base);
		free(bo.base);
	}
	free(full.base);
	return bad;
}

/* A frame of pseudo-random samples. */
static struct plane16 random_frame(int w, int h)
{
	struct plane16 p = plane_new(w, h);

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			*px(&p, x, y) = (uint16_t)test_rand();
	return p;
}

/* ---- unpack ------------------------------------------------------------ */

static void unpack_fn(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	(void)in;
	cisp_unpack_rows(ctx, out, y0, y1);
}

static void unpack_bytes(uint32_t format, int w, int h, uint8_t *bytes, size_t size, uint16_t *out)
{
	struct cisp_image img;
	struct plane16 p = { out, w, 0, w, h };

	CHECK_EQ(cisp_image_wrap(&img, format, (uint32_t)w, (uint32_t)h, bytes, size), 0);
	cisp_unpack_rows(&img, &p, 0, h);
}

TEST(unpack_raw10_packed)
{
	/* Samples 0 1 2 3 | 1023 512 1022 5 on row 0, 4 samples of 700 on row 1 then 1 2 3 4. */
	uint8_t bytes[] = {
		0x00, 0x00, 0x00, 0x00, 0xe4, /* high bits 0, low bits 0,1,2,3 -> 0b11100100 */
		0xff, 0x80, 0xff, 0x01, 0x63, /* 1023, 512, 1022, 5: low bits 3,0,2,1 -> 0b01100011 */
		0xaf, 0xaf, 0xaf, 0xaf, 0x00, /* 700 = 0xaf << 2 */
		0x00, 0x00, 0x00, 0x01, 0x39, /* 1, 2, 3, 4: high 0,0,0,1 low 1,2,3,0 -> 0b00111001 */
	};
	static const int want[16] = { 0, 1, 2, 3, 1023, 512, 1022, 5, 700, 700, 700, 700, 1, 2, 3, 4 };
	uint16_t out[16];

	unpack_bytes(CISP_FMT_SGRBG10P, 8, 2, bytes, sizeof(bytes), out);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(out[i], want[i] << 6);
}

TEST(unpack_raw12_packed)
{
	uint8_t bytes[] = {
		0xab, 0x12, 0x3c, /* 0xabc, 0x123 */
		0xff, 0x00, 0x0f, /* 0xfff, 0x000 */
		0x80, 0x7f, 0xf1, /* 0x801, 0x7ff */
		0x00, 0x00, 0x00, 0x12, 0x34, 0x65, 0xff, 0xff, 0xff, 0x01, 0x02, 0xb3,
	};
	static const int want[16] = { 0xabc, 0x123, 0xfff, 0x000, 0x801, 0x7ff, 0, 0, 0x125, 0x346,
				      0xfff, 0xfff, 0x013, 0x02b, 0, 0 };
	uint8_t all[24] = { 0 };
	uint16_t out[16];

	memcpy(all, bytes, sizeof(bytes));
	unpack_bytes(CISP_FMT_SBGGR12P, 8, 2, all, sizeof(all), out);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(out[i], want[i] << 4);
}

TEST(unpack_containers_clamp_and_shift)
{
	/* Little-endian containers; values above 2^N - 1 clamp to it. */
	uint8_t b10[16] = { 0xff, 0x03, 0xdc, 0x05, 0x00, 0x00, 0x01, 0x00 }; /* 1023, 1500, 0, 1 */
	uint8_t b12[16] = { 0x34, 0x02, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x10 }; /* 564, 65535, 4095, 4096 */
	uint8_t b14[16] = { 0xff, 0x3f, 0x00, 0x40, 0x01, 0x00, 0x00, 0x20 }; /* 16383, 16384, 1, 8192 */
	uint8_t b16[16] = { 0xff, 0xff, 0x00, 0x00, 0x34, 0x12, 0x01, 0x80 };
	uint8_t b8[8] = { 0x00, 0x80, 0xff, 0x01 };
	uint16_t out[8];

	unpack_bytes(CISP_FMT_SRGGB10, 4, 2, b10, 16, out);
	CHECK_EQ(out[0], 65472);
	CHECK_EQ(out[1], 65472);
	CHECK_EQ(out[2], 0);
	CHECK_EQ(out[3], 64);
	unpack_bytes(CISP_FMT_SGBRG12, 4, 2, b12, 16, out);
	CHECK_EQ(out[0], 564 << 4);
	CHECK_EQ(out[1], 65520);
	CHECK_EQ(out[2], 65520);
	CHECK_EQ(out[3], 65520);
	unpack_bytes(CISP_FMT_SGRBG14, 4, 2, b14, 16, out);
	CHECK_EQ(out[0], 65532);
	CHECK_EQ(out[1], 65532);
	CHECK_EQ(out[2], 4);
	CHECK_EQ(out[3], 32768);
	unpack_bytes(CISP_FMT_SBGGR16, 4, 2, b16, 16, out);
	CHECK_EQ(out[0], 65535);
	CHECK_EQ(out[1], 0);
	CHECK_EQ(out[2], 0x1234);
	CHECK_EQ(out[3], 0x8001);
	unpack_bytes(CISP_FMT_SRGGB8, 4, 2, b8, 8, out);
	CHECK_EQ(out[0], 0);
	CHECK_EQ(out[1], 0x8000);
	CHECK_EQ(out[2], 0xff00);
	CHECK_EQ(out[3], 0x0100);
}

TEST(unpack_every_bayer_format_and_bands)
{
	/* Every Bayer format: pack known samples the way format.h describes, unpack, compare. */
	for (int cfa = 0; cfa < 4; cfa++) {
		static const unsigned bits_list[] = { 8, 10, 12, 14, 16 };

		for (int bi = 0; bi < 5; bi++) {
			for (int packed = 0; packed < 2; packed++) {
				unsigned bits = bits_list[bi];
				uint32_t fmt = cisp_bayer_format(cfa, bits, packed);
				int w = 24, h = 18;
				struct cisp_image img;
				struct plane16 out = plane_new(w, h);
				int *val = malloc(sizeof(int) * w * h);

				if (!fmt) {
					CHECK(packed && bits != 10 && bits != 12);
					free(out.base);
					free(val);
					continue;
				}
				CHECK_EQ(cisp_image_alloc(&img, fmt, w, h), 0);
				for (int y = 0; y < h; y++) {
					uint8_t *r = img.plane[0].data + (size_t)y * img.plane[0].stride;

					for (int x = 0; x < w; x++) {
						int v = (int)(test_rand() & ((1u << bits) - 1));

						val[y * w + x] = v;
						if (packed && bits == 10) {
							r[x / 4 * 5 + x % 4] = (uint8_t)(v >> 2);
							r[x / 4 * 5 + 4] |= (uint8_t)((v & 3) << (2 * (x % 4)));
						} else if (packed) {
							r[x / 2 * 3 + x % 2] = (uint8_t)(v >> 4);
							r[x / 2 * 3 + 2] |= (uint8_t)((v & 15) << (4 * (x % 2)));
						} else if (bits == 8) {
							r[x] = (uint8_t)v;
						} else {
							r[2 * x] = (uint8_t)v;
							r[2 * x + 1] = (uint8_t)(v >> 8);
						}
					}
				}
				cisp_unpack_rows(&img, &out, 0, h);
				long bad = 0;
				for (int y = 0; y < h; y++)
					for (int x = 0; x < w; x++)
						bad += *px(&out, x, y) != val[y * w + x] << (16 - bits);
				CHECK_EQ(bad, 0);
				CHECK_EQ(band_mismatch(unpack_fn, &img, &out, 0, 7), 0);
				cisp_image_free(&img);
				free(out.base);
				free(val);
			}
		}
	}
}

/* ---- black level -------------------------------------------------------- */

static void blc_fn(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	cisp_blc_rows(ctx, in, out, y0, y1);
}

/* params.h's formula, written out in 64-bit arithmetic. */
static int blc_expect(int in, int black, int white)
{
	long long range = white - black, gain = (65535LL * 16384 + range / 2) / range;
	long long v = ((long long)(in - black) * gain + 8192) >> 14;

	if (in >= white)
		return 65535;
	return v < 0 ? 0 : v > 65535 ? 65535 : (int)v;
}

TEST(blc_known_values)
{
	struct cisp_blc_params p = { .black = { 4096, 4096, 4096, 4096 }, .white = 65472 };
	struct cisp_blc_coeffs c;
	struct plane16 f = plane_new(16, 16);

	/* 10-bit black 64, white 1023: gain = 17494 (Q2.14). */
	cisp_blc_prepare(&c, &p, CISP_CFA_RGGB);
	CHECK_EQ(c.gain[0], 17494);
	static const int in[] = { 0, 4095, 4096, 4097, 4096 + 30688, 65472, 65535 };
	static const int want[] = { 0, 0, 0, 1, 32767, 65535, 65535 };
	for (int i = 0; i < 7; i++)
		*px(&f, i, 0) = (uint16_t)in[i];
	cisp_blc_rows(&c, &f, &f, 0, 1); /* in place */
	for (int i = 0; i < 7; i++)
		CHECK_EQ(*px(&f, i, 0), want[i]);

	/* The smallest range gives gain 4.0 minus rounding; nothing overflows. */
	p.black[0] = 0;
	p.white = 16384;
	cisp_blc_prepare(&c, &p, CISP_CFA_RGGB);
	CHECK_EQ(c.gain[0], 65535);
	*px(&f, 0, 0) = 65535;
	*px(&f, 2, 0) = 8192;
	cisp_blc_rows(&c, &f, &f, 0, 1);
	CHECK_EQ(*px(&f, 0, 0), 65535);
	CHECK_EQ(*px(&f, 2, 0), 32768);
	free(f.base);
}

TEST(blc_flat_fields_every_cfa)
{
	static const int black[4] = { 4096, 4160, 3968, 1000 }, level[4] = { 20000, 4100, 65535, 800 };
	struct cisp_blc_params p = { .black = { 4096, 4160, 3968, 1000 }, .white = 60000 };

	for (int cfa = 0; cfa < 4; cfa++) {
		struct cisp_blc_coeffs c;
		struct plane16 in = plane_new(18, 16), out = plane_new(18, 16);
		long bad = 0;

		for (int y = 0; y < 16; y++)
			for (int x = 0; x < 18; x++)
				*px(&in, x, y) = (uint16_t)level[chan(cfa, x, y)];
		cisp_blc_prepare(&c, &p, cfa);
		cisp_blc_rows(&c, &in, &out, 0, 16);
		for (int y = 0; y < 16; y++)
			for (int x = 0; x < 18; x++) {
				int ch = chan(cfa, x, y);
				bad += *px(&out, x, y) != blc_expect(level[ch], black[ch], 60000);
			}
		CHECK_EQ(bad, 0);
		/* R: (20000 - 4096) * 65535 / 55904 = 18643.9 */
		CHECK_NEAR(*px(&out, cfa == 0 || cfa == 2 ? 0 : 1, cfa < 2 ? 0 : 1), 18644, 1);
		free(in.base);
		free(out.base);
	}
}

TEST(blc_bands)
{
	struct cisp_blc_params p = { .black = { 4096, 4160, 3968, 1000 }, .white = 60000 };
	struct cisp_blc_coeffs c;
	struct plane16 in = random_frame(32, 22);

	cisp_blc_prepare(&c, &p, CISP_CFA_GBRG);
	for (int h1 = 1; h1 < 22; h1 += 4)
		CHECK_EQ(band_mismatch(blc_fn, &c, &in, 0, h1), 0);
	free(in.base);
}

/* ---- white balance ------------------------------------------------------ */

static void wb_fn(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	cisp_wb_rows(ctx, in, out, y0, y1);
}

TEST(wb_flat_fields_every_cfa)
{
	/* R x1.5, Gr x1.0, Gb x0.5, B x2.0 */
	struct cisp_wb_params p = { .gain = { 6144, 4096, 2048, 8192 } };
	static const int level[4] = { 40000, 12345, 3, 50000 };
	static const int want[4] = { 60000, 12345, 2, 65535 }; /* 60000.5 rounds down; 1.5 up; clamp */

	for (int cfa = 0; cfa < 4; cfa++) {
		struct cisp_wb_coeffs c;
		struct plane16 f = plane_new(16, 18);
		long bad = 0;

		for (int y = 0; y < 18; y++)
			for (int x = 0; x < 16; x++)
				*px(&f, x, y) = (uint16_t)level[chan(cfa, x, y)];
		cisp_wb_prepare(&c, &p, cfa);
		cisp_wb_rows(&c, &f, &f, 0, 18);
		for (int y = 0; y < 18; y++)
			for (int x = 0; x < 16; x++)
				bad += *px(&f, x, y) != want[chan(cfa, x, y)];
		CHECK_EQ(bad, 0);
		free(f.base);
	}
}

TEST(wb_bands)
{
	struct cisp_wb_params p = { .gain = { 9000, 4096, 4000, 65535 } };
	struct cisp_wb_coeffs c;
	struct plane16 in = random_frame(20, 16);

	cisp_wb_prepare(&c, &p, CISP_CFA_BGGR);
	for (int h1 = 1; h1 < 16; h1 += 2)
		CHECK_EQ(band_mismatch(wb_fn, &c, &in, 0, h1), 0);
	free(in.base);
}

/* ---- defective pixels ----------------------------------------------------- */

static void dpc_fn(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	cisp_dpc_rows(ctx, in, out, y0, y1);
}

/* A smooth 2D ramp: a defect-free frame. */
static int ramp(int x, int y)
{
	return 1000 + 100 * x + 37 * y;
}

static struct cisp_dpc_params *dpc_params(int threshold)
{
	struct cisp_dpc_params *p = calloc(1, sizeof(*p));

	if (!p)
		abort();
	p->threshold = (uint16_t)threshold;
	return p;
}

TEST(dpc_ramp_hot_cold_static)
{
	int w = 40, h = 32;
	struct plane16 in = plane_new(w, h), out = plane_new(w, h);
	struct cisp_dpc_params *p = dpc_params(1000);
	struct cisp_dpc_coeffs c;
	long changed = 0;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			*px(&in, x, y) = (uint16_t)ramp(x, y);
	*px(&in, 10, 10) = 60000; /* hot */
	*px(&in, 21, 14) = 0;     /* cold */
	*px(&in, 1, 0) = 50000;   /* hot, next to the frame's corner */
	*px(&in, 39, 31) = 1;     /* cold, in the opposite corner */
	*px(&in, 30, 20) += 900;  /* under the threshold: kept ... */
	*px(&in, 16, 20) += 900;  /* ... unless listed */
	*px(&in, 25, 5) += 1001;  /* just over the threshold above the ramp's largest neighbour */
	p->count = 2;
	p->pixels[0] = (struct cisp_dpc_pixel){ 16, 20 };
	p->pixels[1] = (struct cisp_dpc_pixel){ 7, 30 }; /* a good pixel in the list is replaced too */
	cisp_dpc_prepare(&c, p);
	cisp_dpc_rows(&c, &in, &out, 0, h);

	/*
	 * Inside the frame the replacement is the mean of the middle two of the
	 * four orthogonal same-colour neighbours: v -+ 200 across, v -+ 74 down,
	 * so on the ramp it gives the ramp value back exactly.
	 */
	CHECK_EQ(*px(&out, 10, 10), ramp(10, 10));
	CHECK_EQ(*px(&out, 21, 14), ramp(21, 14));
	CHECK_EQ(*px(&out, 16, 20), ramp(16, 20));
	/* Row 30 of 32 reflects its lower neighbour to row 28: both vertical ones are v - 74. */
	CHECK_EQ(*px(&out, 7, 30), ramp(7, 28));
	CHECK_EQ(*px(&out, 30, 20), ramp(30, 20) + 900);
	/* (25, 5): largest neighbour is (27, 7) = v + 274; 1001 - 274 = 727 is not over 1000. */
	CHECK_EQ(*px(&out, 25, 5), ramp(25, 5) + 1001);
	/*
	 * Column 1 reflects its left neighbour to column 3 and row 0 its upper
	 * one to row 2: up = down = (1, 2), left = right = (3, 0).
	 */
	CHECK_EQ(*px(&out, 1, 0), (ramp(1, 2) + ramp(3, 0) + 1) / 2);
	CHECK_EQ(*px(&out, 39, 31), (ramp(39, 29) + ramp(37, 31) + 1) / 2);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			changed += *px(&out, x, y) != *px(&in, x, y);
	CHECK_EQ(changed, 6);

	/* Threshold 0: dynamic detection off, only the list. */
	p->threshold = 0;
	cisp_dpc_prepare(&c, p);
	cisp_dpc_rows(&c, &in, &out, 0, h);
	changed = 0;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			changed += *px(&out, x, y) != *px(&in, x, y);
	CHECK_EQ(changed, 2);
	CHECK_EQ(*px(&out, 10, 10), 60000);
	free(in.base);
	free(out.base);
	free(p);
}

TEST(dpc_comparisons_on_input)
{
	/* A hot pixel whose neighbour is also replaced: each decision uses the input only. */
	int w = 16, h = 16;
	struct plane16 in = plane_new(w, h), out = plane_new(w, h);
	struct cisp_dpc_params *p = dpc_params(100);
	struct cisp_dpc_coeffs c;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			*px(&in, x, y) = 5000;
	*px(&in, 6, 6) = 9000;
	*px(&in, 8, 6) = 200; /* cold, right next to the hot one in the same colour */
	cisp_dpc_prepare(&c, p);
	cisp_dpc_rows(&c, &in, &out, 0, h);
	/* (6,6): neighbours 5000 x6, 200 ... max 5000 -> hot; middle two of 5000,5000,5000,200 -> 5000. */
	CHECK_EQ(*px(&out, 6, 6), 5000);
	/* (8,6): min neighbour 5000 -> cold; orthogonal 9000,5000,5000,5000 -> 5000. */
	CHECK_EQ(*px(&out, 8, 6), 5000);
	free(in.base);
	free(out.base);
	free(p);
}

TEST(dpc_bands)
{
	struct plane16 in = random_frame(24, 20);
	struct cisp_dpc_params *p = dpc_params(20000);
	struct cisp_dpc_coeffs c;

	p->count = 4;
	p->pixels[0] = (struct cisp_dpc_pixel){ 0, 0 };
	p->pixels[1] = (struct cisp_dpc_pixel){ 5, 7 };
	p->pixels[2] = (struct cisp_dpc_pixel){ 6, 7 };
	p->pixels[3] = (struct cisp_dpc_pixel){ 23, 19 };
	cisp_dpc_prepare(&c, p);
	for (int h1 = 1; h1 < 20; h1 += 2)
		CHECK_EQ(band_mismatch(dpc_fn, &c, &in, 2, h1), 0);
	free(in.base);
	free(p);
}

/* ---- lens shading ----------------------------------------------------------- */

static void lsc_fn(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	cisp_lsc_rows(ctx, in, out, y0, y1);
}

static struct cisp_lsc_params *lsc_params(int gw, int gh)
{
	struct cisp_lsc_params *p = calloc(1, sizeof(*p));

	if (!p)
		abort();
	p->grid_w = (uint16_t)gw;
	p->grid_h = (uint16_t)gh;
	return p;
}

TEST(lsc_flat_fields_every_cfa)
{
	/* Constant grids per channel: R x2, Gr x1, Gb x1.25, B x0.75. */
	static const int gain[4] = { 8192, 4096, 5120, 3072 };
	static const int want[4] = { 20000, 10000, 12500, 7500 };
	struct cisp_lsc_params *p = lsc_params(5, 4);

	for (int ch = 0; ch < 4; ch++)
		for (int i = 0; i < 20; i++)
			p->gain[ch * 20 + i] = (uint16_t)gain[ch];
	for (int cfa = 0; cfa < 4; cfa++) {
		struct cisp_lsc_coeffs *c;
		struct plane16 f = plane_new(22, 18);
		long bad = 0;

		for (int y = 0; y < 18; y++)
			for (int x = 0; x < 22; x++)
				*px(&f, x, y) = 10000;
		*px(&f, 4, 4) = 60000; /* clamps whatever the channel gains above 1.1 */
		CHECK_EQ(cisp_lsc_prepare(&c, p, cfa, 22, 18), 0);
		cisp_lsc_rows(c, &f, &f, 0, 18);
		for (int y = 0; y < 18; y++)
			for (int x = 0; x < 22; x++)
				if (x != 4 || y != 4)
					bad += *px(&f, x, y) != want[chan(cfa, x, y)];
		CHECK_EQ(bad, 0);
		CHECK_EQ(*px(&f, 4, 4), chan(cfa, 4, 4) == 0 || chan(cfa, 4, 4) == 2 ? 65535
				       : (60000 * gain[chan(cfa, 4, 4)] + 2048) >> 12);
		cisp_lsc_free(c);
		free(f.base);
	}
	free(p);
}

TEST(lsc_bilinear_between_nodes)
{
	/* 4x3 nodes over 34x32 pixels: node columns at x = 0, 11, 22, 33 exactly (33 / 3 = 11). */
	int w = 34, h = 32, gw = 4, gh = 3;
	struct cisp_lsc_params *p = lsc_params(gw, gh);
	struct cisp_lsc_coeffs *c;
	struct plane16 in = plane_new(w, h), out = plane_new(w, h);
	double worst = 0;

	for (int ch = 0; ch < 4; ch++)
		for (int j = 0; j < gh; j++)
			for (int i = 0; i < gw; i++)
				p->gain[(ch * gh + j) * gw + i] = (uint16_t)(4096 + 700 * i + 900 * j + 300 * ch +
									   (i * j == 2 ? 1500 : 0));
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			*px(&in, x, y) = 4096;
	CHECK_EQ(cisp_lsc_prepare(&c, p, CISP_CFA_GRBG, w, h), 0);
	cisp_lsc_rows(c, &in, &out, 0, h);
	/* An input of 4096 times a Q4.12 gain shows the gain itself. */
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			int ch = chan(CISP_CFA_GRBG, x, y);
			double u = x * (gw - 1.0) / (w - 1), v = y * (gh - 1.0) / (h - 1);
			int i = u >= gw - 1 ? gw - 2 : (int)u, j = v >= gh - 1 ? gh - 2 : (int)v;
			double fu = u - i, fv = v - j;
			const uint16_t *g = p->gain + ch * gw * gh;
			double gain = (g[j * gw + i] * (1 - fu) + g[j * gw + i + 1] * fu) * (1 - fv) +
				      (g[(j + 1) * gw + i] * (1 - fu) + g[(j + 1) * gw + i + 1] * fu) * fv;
			double e = fabs(*px(&out, x, y) - gain);

			worst = e > worst ? e : worst;
		}
	}
	/*
	 * Q10 weights are within 1/2048 of a cell (node steps here are at most
	 * 2200, so 1.1 per direction) and each of the two interpolations rounds.
	 */
	printf("    largest gain error %.3f\n", worst);
	CHECK(worst <= 3.2);
	/* On a node the gain is the node's exactly: x = 11 is node column 1, y = 31 node row 2. */
	CHECK_EQ(*px(&out, 11, 0), 4096 + 700 + 300 * chan(CISP_CFA_GRBG, 11, 0));
	CHECK_EQ(*px(&out, 11, 31), 4096 + 700 + 1800 + 300 * chan(CISP_CFA_GRBG, 11, 31) + 1500);
	CHECK_EQ(*px(&out, 33, 31), 4096 + 2100 + 1800 + 300 * chan(CISP_CFA_GRBG, 33, 31));
	for (int h1 = 1; h1 < h; h1 += 6)
		CHECK_EQ(band_mismatch(lsc_fn, c, &in, 0, h1), 0);
	cisp_lsc_free(c);
	free(in.base);
	free(out.base);
	free(p);
}

TEST(lsc_bad_grid)
{
	struct cisp_lsc_params *p = lsc_params(1, 4);
	struct cisp_lsc_coeffs *c = (void *)1;

	CHECK_ERR(cisp_lsc_prepare(&c, p, CISP_CFA_RGGB, 64, 48), -EINVAL, "LSC grid 1x4");
	CHECK(c == NULL);
	p->grid_w = 65;
	CHECK_ERR(cisp_lsc_prepare(&c, p, CISP_CFA_RGGB, 64, 48), -EINVAL, "LSC grid 65x4");
	free(p);
}

/* ---- Bayer denoise ------------------------------------------------------------- */

static void bnr_fn(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	cisp_bnr_rows(ctx, in, out, y0, y1);
}

static const struct cisp_noise_params default_noise = {
	.a = { 4 << 16, 4 << 16, 4 << 16, 4 << 16 },
	.b = { 64, 64, 64, 64 },
};

/* A normal deviate (Box-Muller on the test's generator). */
static double gauss(void)
{
	double u = ((test_rand() >> 11) + 0.5) / 9007199254740992.0;
	double v = ((test_rand() >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static int clamp16(double v)
{
	return v < 0 ? 0 : v > 65535 ? 65535 : (int)lround(v);
}

/* Standard deviation of one CFA site's samples in columns [x0, x1). */
static double site_std(const struct plane16 *p, int site, int x0, int x1, double *mean)
{
	double s = 0, s2 = 0;
	long n = 0;

	for (int y = site >> 1; y < p->height; y += 2)
		for (int x = x0 + (site & 1); x < x1; x += 2) {
			double v = *px(p, x, y);

			s += v;
			s2 += v * v;
			n++;
		}
	*mean = s / n;
	return sqrt(s2 / n - *mean * *mean);
}

/*
 * The arithmetic of docs/stages/bnr.md written the plain way: every tap read
 * through mirror(), the guide recomputed per tap. The stage must match it
 * bit for bit.
 */
static int half_up(int a, int b)
{
	return (a + b + 1) / 2;
}

/* The 1 2 1 filter down the rows, then across: (a + c) / 2, then with b, each halving rounded up. */
static int bnr_guide(const struct plane16 *p, int x, int y)
{
	int w = p->width, h = p->height, col[3];

	for (int i = -1; i <= 1; i++) {
		int X = mirror(x + i, w);

		col[i + 1] = half_up(half_up(*px(p, X, mirror(y - 1, h)), *px(p, X, mirror(y + 1, h))), *px(p, X, y));
	}
	return half_up(half_up(col[0], col[2]), col[1]);
}

static uint16_t bnr_reference(const struct plane16 *p, enum cisp_cfa cfa, const struct cisp_noise_params *n,
			      int strength, int x, int y)
{
	int w = p->width, h = p->height, ch = chan(cfa, x, y), green = ch == 1 || ch == 2;
	int v0 = *px(p, x, y), g0 = bnr_guide(p, x, y);
	/* The noise scale at the centre of the guide level's bin of 2048. */
	uint32_t inv = cisp_bnr_inv_sigma(n->a[ch], n->b[ch], (uint16_t)strength, (uint32_t)(g0 >> 11) * 2048 + 1024);
	uint64_t sw = 0, swv = 0;

	if (strength == 0)
		return (uint16_t)v0;
	for (int j = -2; j <= 2; j++)
		for (int i = -2; i <= 2; i++) {
			/* The 8 nearest samples of the centre's colour (and the centre). */
			if ((i & 1) != (j & 1) || ((i & 1) && !green) || (green && i * i + j * j > 4))
				continue;
			int xx = mirror(x + i, w), yy = mirror(y + j, h);
			int v = *px(p, xx, yy), g = bnr_guide(p, xx, yy);
			/* A tent: 64 less 16 per scaled sigma of the guide's difference, 8 per one of the sample's. */
			int64_t u = (((int64_t)abs(g - g0) * (3 * inv / 8)) >> 16) + (((int64_t)abs(v - v0) * (3 * inv / 16)) >> 16);
			uint64_t wt = u < 64 ? (uint64_t)(64 - u) : 0;

			sw += wt;
			swv += wt * (uint64_t)v;
		}
	/* The mean in single precision: float(Σw·v) / float(Σw) + 0.5, truncated. */
	float q = (float)swv / (float)sw;
	uint64_t o = (uint64_t)(q + 0.5f);

	return (uint16_t)(o > 65535 ? 65535 : o);
}

TEST(bnr_guide_is_the_binomial_or_one_more)
{
	/* The averages' rounding: never below the exact rounded 1 2 1 x 1 2 1 mean, at most 1 above. */
	int lo = 1, hi = 0;

	for (int it = 0; it < 200000; it++) {
		uint32_t v[9], s;
		int g, e;

		for (int i = 0; i < 9; i++)
			v[i] = it & 1 ? test_rand() & 0xffff : 30000 + (test_rand() & 7);
		s = 4 * v[4] + 2 * (v[1] + v[3] + v[5] + v[7]) + v[0] + v[2] + v[6] + v[8];
		e = (int)((s + 8) >> 4);
		g = cisp_bnr_guide_at(cisp_bnr_guide_at(v[0], v[3], v[6]), cisp_bnr_guide_at(v[1], v[4], v[7]),
				      cisp_bnr_guide_at(v[2], v[5], v[8]));
		lo = g - e < lo ? g - e : lo;
		hi = g - e > hi ? g - e : hi;
	}
	CHECK_EQ(lo, 0);
	CHECK_EQ(hi, 1);
}

TEST(bnr_inv_sigma_table)
{
	/* a = 4.0, b = 64 at level 20000: variance 80064; 6 sigma at strength 256 is floor(sqrt(80064 * 36)) = 1697. */
	CHECK_EQ(cisp_bnr_inv_sigma(4 << 16, 64, 256, 20000), ((1 << 24) + 1697 / 2) / 1697);
	/* Strength 512 doubles the scale: floor(sqrt(80064 * 36 * 4)) = 3395. */
	CHECK_EQ(cisp_bnr_inv_sigma(4 << 16, 64, 512, 20000), ((1 << 24) + 3395 / 2) / 3395);
	/* A noiseless profile clamps at 65535 rather than dividing by zero. */
	CHECK_EQ(cisp_bnr_inv_sigma(0, 0, 256, 1000), 65535);
	CHECK_EQ(cisp_bnr_inv_sigma(4 << 16, 64, 0, 1000), 65535);
	/* The largest profile stays in range: variance 2^32 * 65535 / 2^16 + 2^32 - 1. */
	CHECK(cisp_bnr_inv_sigma(0xffffffffu, 0xffffffffu, 1024, 65535) >= 1);
}

TEST(bnr_matches_reference_every_cfa)
{
	static const int sizes[][2] = { { 16, 16 }, { 38, 22 }, { 300, 18 } }; /* 300: two column strips */
	const struct cisp_noise_params strong = { .a = { 300 << 16, 200 << 16, 200 << 16, 500 << 16 },
						  .b = { 9000, 8000, 8000, 20000 } };

	for (int cfa = 0; cfa < 4; cfa++)
		for (int k = 0; k < 3; k++) {
			int w = sizes[k][0], h = sizes[k][1];
			struct plane16 in = plane_new(w, h), out = plane_new(w, h);
			struct cisp_bnr_params p = { .strength = (uint16_t)(k == 2 ? 1024 : 200 + 100 * cfa) };
			struct cisp_bnr_coeffs *c;
			long bad = 0;

			/* A noisy ramp with a step, and a few random samples. */
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					double s = 8000 + 150 * x + (x > w / 2 ? 20000 : 0);

					*px(&in, x, y) = (uint16_t)clamp16(s + gauss() * sqrt(300 * s + 9000));
					if (test_rand() % 17 == 0)
						*px(&in, x, y) = (uint16_t)test_rand();
				}
			CHECK_EQ(cisp_bnr_prepare(&c, &p, &strong, (enum cisp_cfa)cfa), 0);
			CHECK_EQ(cisp_bnr_radius(c), 3);
			cisp_bnr_rows(c, &in, &out, 0, h);
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
					bad += *px(&out, x, y) !=
					       bnr_reference(&in, (enum cisp_cfa)cfa, &strong, p.strength, x, y);
			CHECK_EQ(bad, 0);
			for (int h1 = 1; h1 < h; h1 += 5)
				CHECK_EQ(band_mismatch(bnr_fn, c, &in, cisp_bnr_radius(c), h1), 0);
			cisp_bnr_free(c);
			free(in.base);
			free(out.base);
		}
}

TEST(bnr_flat_exact_and_strength_zero_identity)
{
	struct plane16 in = plane_new(32, 20), out = plane_new(32, 20), rnd = random_frame(32, 20);
	struct cisp_bnr_params p = { .strength = 1024 };
	struct cisp_bnr_coeffs *c;

	/* Every weight equal on a flat field: the mean is the value, exactly, at any level. */
	for (int v = 0; v <= 65535; v += 13107) {
		for (int y = 0; y < 20; y++)
			for (int x = 0; x < 32; x++)
				*px(&in, x, y) = (uint16_t)v;
		CHECK_EQ(cisp_bnr_prepare(&c, &p, &default_noise, CISP_CFA_GRBG), 0);
		cisp_bnr_rows(c, &in, &out, 0, 20);
		CHECK_EQ(memcmp(in.base, out.base, 32 * 20 * 2), 0);
		cisp_bnr_free(c);
	}
	p.strength = 0;
	CHECK_EQ(cisp_bnr_prepare(&c, &p, &default_noise, CISP_CFA_RGGB), 0);
	cisp_bnr_rows(c, &rnd, &out, 0, 20);
	CHECK_EQ(memcmp(rnd.base, out.base, 32 * 20 * 2), 0);
	cisp_bnr_free(c);
	free(in.base);
	free(out.base);
	free(rnd.base);
}

TEST(bnr_noisy_flat_and_step_edge)
{
	/* Flat 20000 on the left half, 30000 on the right; noise from the profile. */
	int w = 128, h = 96, edge = 64;
	struct plane16 in = plane_new(w, h), out = plane_new(w, h);

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double s = x < edge ? 20000 : 30000;

			*px(&in, x, y) = (uint16_t)clamp16(s + gauss() * sqrt(4 * s + 64));
		}
	static const int strengths[3] = { 128, 256, 512 };
	static const double min_gain[3] = { 1.4, 2.2, 2.5 }; /* std before / after; measured 1.49, 2.46, 2.81 at worst */
	for (int k = 0; k < 3; k++) {
		struct cisp_bnr_params p = { .strength = (uint16_t)strengths[k] };
		struct cisp_bnr_coeffs *c;

		CHECK_EQ(cisp_bnr_prepare(&c, &p, &default_noise, CISP_CFA_GBRG), 0);
		cisp_bnr_rows(c, &in, &out, 0, h);
		for (int site = 0; site < 4; site++) {
			double m0, m1, s0 = site_std(&in, site, 4, edge - 4, &m0), s1 = site_std(&out, site, 4, edge - 4, &m1);

			printf("    strength %d site %d: std %.1f -> %.1f (x%.2f), mean %.1f -> %.1f\n", strengths[k], site, s0,
			       s1, s0 / s1, m0, m1);
			CHECK(s0 / s1 >= min_gain[k]);
			/* 15 is two standard errors of the input's own mean (1344 samples, std 283). */
			CHECK_NEAR(m1, m0, 15);
		}
		/* The step (10000, about 35 sigma) keeps its height: mean of the two columns each side of it. */
		double left = 0, right = 0, left_in = 0, right_in = 0;
		for (int y = 0; y < h; y++) {
			left += *px(&out, edge - 2, y) + *px(&out, edge - 1, y);
			right += *px(&out, edge, y) + *px(&out, edge + 1, y);
			left_in += *px(&in, edge - 2, y) + *px(&in, edge - 1, y);
			right_in += *px(&in, edge, y) + *px(&in, edge + 1, y);
		}
		printf("    strength %d: step %.1f -> %.1f\n", strengths[k], (right_in - left_in) / (2 * h),
		       (right - left) / (2 * h));
		CHECK_NEAR((right - left) / (2 * h), (right_in - left_in) / (2 * h), 60);
		cisp_bnr_free(c);
	}
	free(in.base);
	free(out.base);
}

/* ---- highlights ------------------------------------------------------------ */

static void highlights_fn(const void *ctx, const struct plane16 *in, const struct plane16 *out, int y0, int y1)
{
	cisp_highlights_rows(ctx, in, out, y0, y1);
}

/* @mode, white 65535, knee 0.9 (the defaults: clip level 65535, knee 58975). */
static struct cisp_highlights_coeffs highlights_coeffs(unsigned mode, const struct cisp_wb_params *wb,
						       enum cisp_cfa cfa)
{
	struct cisp_highlights_params p = { .mode = (uint16_t)mode, .white = 65535, .knee = 3686 };
	struct cisp_highlights_coeffs c;

	cisp_highlights_prepare(&c, &p, wb, cfa);
	return c;
}

/* A 16x16 frame of (r, g, b) by CFA colour; its output in @out. */
static void highlights_flat(const struct cisp_highlights_coeffs *c, enum cisp_cfa cfa, const int rgb[3],
			    struct plane16 *out)
{
	struct plane16 in = plane_new(16, 16);

	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 16; x++) {
			int ch = chan(cfa, x, y);

			*px(&in, x, y) = (uint16_t)rgb[ch == 0 ? 0 : ch == 3 ? 2 : 1];
		}
	*out = plane_new(16, 16);
	cisp_highlights_rows(c, &in, out, 0, 16);
	free(in.base);
}

/* Pixels of @p that are not @v. */
static int count_not(const struct plane16 *p, int v)
{
	int bad = 0;

	for (int y = 0; y < p->height; y++)
		for (int x = 0; x < p->width; x++)
			bad += *px(p, x, y) != v;
	return bad;
}

/* Hue angle in degrees of (r, g, b): atan2(sqrt(3) (g - b), 2 r - g - b). */
static double hue_deg(double r, double g, double b)
{
	return atan2(sqrt(3.0) * (g - b), 2 * r - g - b) * 180 / M_PI;
}

/* |a - b| of two angles in degrees, the short way round. */
static double angle_diff(double a, double b)
{
	double d = fabs(a - b);

	return d > 180 ? 360 - d : d;
}

/*
 * Saturated colours that clip in one channel after the WB gains (R 2.0,
 * B 1.5: the sensor white 60000 is 60000 in green, the clip level W, and
 * above 65535 in red and blue), on a grey background, in a brightness ramp
 * from left to right so that the clipped channel crosses the knee and the
 * clip level inside the patch. Every output pixel of the patch (colours as
 * a bilinear demosaic would see them: the 2x2 cell's R, mean G and B) keeps
 * the sign of each channel against the cell's mean and its hue within 8
 * degrees of the input's, in every mode and CFA order; every channel ends
 * at its own clip level at most (65535 in red and blue).
 */
TEST(highlights_saturated_colours_keep_their_hue)
{
	/* WB'd colours at the ramp's brightest (x 1.0), the clipped channel above W = 60000. */
	static const struct {
		const char *name;
		int rgb[3];
	} colours[] = {
		{ "red", { 80000, 12000, 8000 } },  { "yellow", { 75000, 50000, 6000 } },
		{ "cyan", { 7000, 70000, 45000 } }, { "magenta", { 46000, 9000, 78000 } },
		{ "blue", { 9000, 14000, 90000 } }, { "green", { 12000, 72000, 20000 } },
	};
	struct cisp_wb_params wb = { .gain = { 8192, 4096, 4096, 6144 } };
	struct cisp_highlights_params hp = { .mode = 0, .white = 60000, .knee = 3686 };
	const int w = 48, h = 16;
	double worst = 0;

	for (unsigned k = 0; k < sizeof(colours) / sizeof(colours[0]); k++) {
		for (int cfa = 0; cfa < 4; cfa++) {
			struct plane16 in = plane_new(w, h), out = plane_new(w, h);

			/* Columns 8..39 the colour at 0.6 .. 1.0 of its brightest, grey 20000 around. */
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					int ch = chan(cfa, x, y), c = ch == 0 ? 0 : ch == 3 ? 2 : 1;
					double f = 0.6 + 0.4 * (x - 8) / 31.0;
					double v = x >= 8 && x < 40 ? colours[k].rgb[c] * f : 20000;

					*px(&in, x, y) = (uint16_t)(v > 65535 ? 65535 : v);
				}
			for (unsigned mode = 0; mode < 3; mode++) {
				struct cisp_highlights_coeffs c;

				hp.mode = (uint16_t)mode;
				cisp_highlights_prepare(&c, &hp, &wb, cfa);
				CHECK_EQ(c.white, 60000);
				CHECK_EQ(c.clip[HL_RED], 65535);
				CHECK_EQ(c.clip[HL_GREEN], 60000);
				CHECK_EQ(c.clip[HL_BLUE], 65535);
				cisp_highlights_rows(&c, &in, &out, 0, h);
				/* The 2x2 cells well inside the patch (2 columns from its edges). */
				for (int y = 0; y < h; y += 2)
					for (int x = 10; x < 38; x += 2) {
						double rgb_in[3] = { 0, 0, 0 }, rgb_out[3] = { 0, 0, 0 }, mi = 0, mo = 0;

						for (int i = 0; i < 4; i++) {
							int ch = chan(cfa, x + (i & 1), y + (i >> 1));
							int col = ch == 0 ? 0 : ch == 3 ? 2 : 1;
							double scale = col == 1 ? 0.5 : 1.0;
							/* The input as the sensor gives it: no higher than its channel's clip level. */
							double vi = *px(&in, x + (i & 1), y + (i >> 1)), clip = col == 1 ? 60000 : 65535;

							rgb_in[col] += scale * (vi < clip ? vi : clip);
							rgb_out[col] += scale * *px(&out, x + (i & 1), y + (i >> 1));
							if (*px(&out, x + (i & 1), y + (i >> 1)) > clip)
								test_fail(__FILE__, __LINE__, "%s above its clip level",
									  colours[k].name);
						}
						for (int i = 0; i < 3; i++) {
							mi += rgb_in[i] / 3;
							mo += rgb_out[i] / 3;
						}
						for (int i = 0; i < 3; i++)
							if ((rgb_in[i] > mi) != (rgb_out[i] > mo))
								test_fail(__FILE__, __LINE__,
									  "%s, cfa %d, mode %u, (%d, %d): channel %d changed side",
									  colours[k].name, cfa, mode, x, y, i);
						double d = angle_diff(hue_deg(rgb_in[0], rgb_in[1], rgb_in[2]),
								      hue_deg(rgb_out[0], rgb_out[1], rgb_out[2]));

						worst = d > worst ? d : worst;
						if (d > 8)
							test_fail(__FILE__, __LINE__, "%s, cfa %d, mode %u, (%d, %d): hue moved %.1f degrees",
								  colours[k].name, cfa, mode, x, y, d);
					}
			}
			free(in.base);
			free(out.base);
		}
	}
	printf("  saturated colours clipped in one channel: hue moved at most %.2f degrees\n", worst);
}

/*
 * A yellow clipped in red and green (no WB: every clip level 65535, floor
 * 16384, twice the floor 32768, floor slope 1024). Blue above half its clip
 * level: clipped light, white in clip and reconstruct (nothing unclipped
 * around to measure), the neutral of its level in blend. Blue at 3/8 of it:
 * half way (bright (8192 * 1024 + 256) >> 9 = 16384), blue 24576 +
 * ((40959 * 16384 + 16384) >> 15) = 45056 in clip. Blue below a quarter: a
 * saturated yellow, every mode leaves it as it is.
 */
TEST(highlights_colour_clipped_in_two_channels_every_mode)
{
	static const struct {
		int blue, want[3][2]; /* per mode: red and green, blue */
	} cases[] = {
		/* blend: (65535 + 2 * 65535 + 40000 + 2) >> 2 = 59151 */
		{ 40000, { { 65535, 65535 }, { 59151, 59151 }, { 65535, 65535 } } },
		/* blend: towards the level (3 * 65535 + 24576 + 2) >> 2 = 55295 by 16384, half way rounded down */
		{ 24576, { { 65535, 45056 }, { 60415, 39936 }, { 65535, 45056 } } },
		{ 12000, { { 65535, 12000 }, { 65535, 12000 }, { 65535, 12000 } } },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const int yellow[3] = { 65535, 65535, cases[i].blue };

		for (int cfa = 0; cfa < 4; cfa++) {
			for (unsigned mode = 0; mode < 3; mode++) {
				struct cisp_highlights_coeffs c = highlights_coeffs(mode, NULL, cfa);
				struct plane16 out;

				CHECK_EQ(c.white, 65535);
				CHECK_EQ(c.knee, 58975); /* (65535 * 3686 + 2048) >> 12 */
				CHECK_EQ(c.floors[HL_BLUE], 16384);
				CHECK_EQ(c.framp[HL_BLUE], 1024);
				highlights_flat(&c, cfa, yellow, &out);
				for (int y = 0; y < 16; y++)
					for (int x = 0; x < 16; x++)
						CHECK_EQ(*px(&out, x, y), cases[i].want[mode][chan(cfa, x, y) == 3]);
				free(out.base);
			}
		}
	}
}

TEST(highlights_fully_clipped_comes_out_neutral_every_mode)
{
	/* The sensor's white in every channel; after gains R 2.0, B 0.5 they stand at 65535, 60000, 30000. */
	struct cisp_wb_params wb = { .gain = { 8192, 4096, 4096, 2048 } };
	struct cisp_highlights_params p = { .mode = 0, .white = 60000, .knee = 3686 };
	static const int clipped[3] = { 65535, 60000, 30000 };

	for (int cfa = 0; cfa < 4; cfa++) {
		for (unsigned mode = 0; mode < 3; mode++) {
			struct cisp_highlights_coeffs c;
			struct plane16 out;

			p.mode = (uint16_t)mode;
			cisp_highlights_prepare(&c, &p, &wb, cfa);
			CHECK_EQ(c.white, 30000); /* blue's: (60000 * 2048 + 2048) >> 12 */
			highlights_flat(&c, cfa, clipped, &out);
			CHECK_EQ(count_not(&out, 30000), 0);
			free(out.base);
		}
	}
}

TEST(highlights_clip_level_follows_the_wb_gains)
{
	/* Blue at 0.5: a sensor white of 65535 is 32768 after the gains, the lowest clip level. */
	struct cisp_wb_params wb = { .gain = { 8192, 4096, 4096, 2048 } };
	static const int clipped[3] = { 65535, 65535, 32768 };
	struct cisp_highlights_coeffs c = highlights_coeffs(CISP_HIGHLIGHTS_CLIP, &wb, CISP_CFA_GBRG);
	struct plane16 out;

	CHECK_EQ(c.white, 32768);
	CHECK_EQ(c.knee, 29488); /* (32768 * 3686 + 2048) >> 12 */
	highlights_flat(&c, CISP_CFA_GBRG, clipped, &out);
	CHECK_EQ(count_not(&out, 32768), 0);
	free(out.base);
}

TEST(highlights_roll_off_known_answers)
{
	/*
	 * Every colour above the knee 58975, the highest (red) by 3000: amount
	 * (3000 * 2558 + 256) >> 9 = 14988 (Q15), 2558 = ceil(2^24 / 6560).
	 * Every colour above half its clip level: the pixel goes towards a
	 * neutral by that amount.
	 */
	static const int warm[3] = { 58975 + 3000, 58975 + 2000, 58975 + 1000 };
	static const int want_warm[3][3] = {
		/* clip, towards the brightest 61975: green 60975 + ((1000 * 14988 + 16384) >> 15), blue + 2000's */
		{ 61975, 61432, 60890 },
		/* blend, towards the level (61975 + 2 * 60975 + 59975 + 2) >> 2 = 60975 */
		{ 61975 + ((-1000 * 14988 + 16384) >> 15), 60975, 60432 },
		/* reconstruct: no colour below the knee around, so as clip */
		{ 61975, 61432, 60890 },
	};
	/*
	 * Red and blue above the knee (blue by 3000, amount 14988), green below
	 * it but above half its clip level: a pale magenta, towards a neutral by
	 * 14988 too (clip: green 40000 + ((21975 * 14988 + 16384) >> 15)).
	 */
	static const int cool[3] = { 58975 + 1000, 40000, 58975 + 3000 };
	static const int want_cool[3][3] = {
		{ 60890, 50051, 61975 },
		/* blend: towards (59975 + 2 * 40000 + 61975 + 2) >> 2 = 50488 */
		{ 55636, 44797, 56721 },
		/* reconstruct: no red below the knee around, so as clip */
		{ 60890, 50051, 61975 },
	};
	/* Green below a quarter of its clip level: a saturated magenta, left as it is. */
	static const int magenta[3] = { 58975 + 1000, 12000, 58975 + 3000 };
	struct plane16 out;

	for (unsigned mode = 0; mode < 3; mode++) {
		struct cisp_highlights_coeffs c = highlights_coeffs(mode, NULL, CISP_CFA_RGGB);

		for (int k = 0; k < 3; k++)
			CHECK_EQ(c.ramp[k], 2558);
		highlights_flat(&c, CISP_CFA_RGGB, warm, &out);
		CHECK_EQ(*px(&out, 4, 4), want_warm[mode][0]);
		CHECK_EQ(*px(&out, 5, 4), want_warm[mode][1]);
		CHECK_EQ(*px(&out, 4, 5), want_warm[mode][1]);
		CHECK_EQ(*px(&out, 5, 5), want_warm[mode][2]);
		free(out.base);
		highlights_flat(&c, CISP_CFA_RGGB, cool, &out);
		CHECK_EQ(*px(&out, 4, 4), want_cool[mode][0]);
		CHECK_EQ(*px(&out, 5, 4), want_cool[mode][1]);
		CHECK_EQ(*px(&out, 5, 5), want_cool[mode][2]);
		free(out.base);
		highlights_flat(&c, CISP_CFA_RGGB, magenta, &out);
		CHECK_EQ(*px(&out, 4, 4), magenta[0]);
		CHECK_EQ(*px(&out, 5, 4), magenta[1]);
		CHECK_EQ(*px(&out, 5, 5), magenta[2]);
		free(out.base);
	}
}

/*
 * White 40000 and gains R 1.5, B 1.25: clip levels R 60000, G 40000, B 50000,
 * knees 53994, 35996, 44995, green's ramp ceil(2^24 / 4004) = 4191. Each case
 * is a flat frame (R, G, B after WB); the output at a red, green and blue
 * site in each mode.
 */
TEST(highlights_per_colour_clip_levels_known_answers)
{
	struct cisp_wb_params wb = { .gain = { 6144, 4096, 4096, 5120 } };
	struct cisp_highlights_params p = { .mode = 0, .white = 40000, .knee = 3686 };
	static const struct {
		int in[3], out[3][3];
	} cases[] = {
		/* Every colour below its own knee: unchanged (one clip level for all would give R 40000). */
		{ { 52000, 35000, 44000 }, { { 52000, 35000, 44000 }, { 52000, 35000, 44000 }, { 52000, 35000, 44000 } } },
		/*
		 * Green clipped, red and blue above half their clip levels:
		 * clipped light, white at the lowest clip level (clip, and
		 * reconstruct, which finds no green below its knee around), the
		 * neutral of its level (45000 + 80000 + 30000 + 2) >> 2 = 38750
		 * (blend).
		 */
		{ { 45000, 40000, 30000 }, { { 40000, 40000, 40000 }, { 38750, 38750, 38750 }, { 40000, 40000, 40000 } } },
		/*
		 * Green between knee and clip: a[G] = (3004 * 4191 + 256) >> 9 =
		 * 24589 limits red to 45000 - ((5000 * 24589 + 16384) >> 15) =
		 * 41248, then every colour goes towards the white 40000 (clip) or
		 * the level 38250 (blend) by 24589.
		 */
		{ { 45000, 39000, 30000 }, { { 40312, 39750, 37504 }, { 38998, 38437, 36191 }, { 40312, 39750, 37504 } } },
		/* Every colour at its clip level: white at the lowest, 40000. */
		{ { 60000, 40000, 50000 }, { { 40000, 40000, 40000 }, { 40000, 40000, 40000 }, { 40000, 40000, 40000 } } },
		/* Green clipped, blue below a quarter of its clip level (12500): a saturated colour, only red limited. */
		{ { 45000, 40000, 10000 }, { { 40000, 40000, 10000 }, { 40000, 40000, 10000 }, { 40000, 40000, 10000 } } },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (unsigned mode = 0; mode < 3; mode++) {
			struct cisp_highlights_coeffs c;
			struct plane16 out;

			p.mode = (uint16_t)mode;
			cisp_highlights_prepare(&c, &p, &wb, CISP_CFA_RGGB);
			CHECK_EQ(c.clip[HL_RED], 60000);
			CHECK_EQ(c.clip[HL_GREEN], 40000);
			CHECK_EQ(c.clip[HL_BLUE], 50000);
			CHECK_EQ(c.knees[HL_GREEN], 35996);
			CHECK_EQ(c.ramp[HL_GREEN], 4191);
			CHECK_EQ(c.floors[HL_BLUE], 12500);
			highlights_flat(&c, CISP_CFA_RGGB, cases[i].in, &out);
			CHECK_EQ(*px(&out, 4, 4), cases[i].out[mode][0]);
			CHECK_EQ(*px(&out, 5, 4), cases[i].out[mode][1]);
			CHECK_EQ(*px(&out, 5, 5), cases[i].out[mode][2]);
			free(out.base);
		}
	}
}

TEST(highlights_reconstruct_takes_the_colour_of_unclipped_neighbours)
{
	/*
	 * RGGB; G 12000, B 14000 (below a quarter of their clip level: a
	 * saturated red); R 58000 (below the knee) on rows 0, 4, 8, .., clipped
	 * on rows 2, 6, ...
	 */
	struct plane16 in = plane_new(16, 16), out = plane_new(16, 16);
	static const int at_gr[3] = { 12000, 12000, 12942 }, at_r[3] = { 65535, 65535, 62553 };

	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 16; x++) {
			int ch = chan(CISP_CFA_RGGB, x, y);

			*px(&in, x, y) = (uint16_t)(ch == 0 ? (y % 4 ? 65535 : 58000) : ch == 3 ? 14000 : 12000);
		}
	for (unsigned mode = 0; mode < 3; mode++) {
		struct cisp_highlights_coeffs c = highlights_coeffs(mode, NULL, CISP_CFA_RGGB);

		cisp_highlights_rows(&c, &in, &out, 0, 16);
		/*
		 * Gr at (5, 6) between two clipped reds: R 65535, G 12000, B 14000,
		 * level (65535 + 24000 + 14000 + 2) >> 2 = 25884. clip and blend
		 * leave it (green and blue far below the knee, and below their
		 * floors: no pull towards a neutral). reconstruct, amount 1.0
		 * from red: the 5x5 means below the knee are R 58000, G 12000,
		 * B 14000, so 25884 * 4 * 12000 / 96000 = 12942 and for the
		 * clipped red at (6, 6) 25884 * 4 * 58000 / 96000 = 62553: the
		 * colour of the reds that did not clip.
		 */
		CHECK_EQ(*px(&out, 5, 6), at_gr[mode]);
		CHECK_EQ(*px(&out, 6, 6), at_r[mode]);
		/* Row 4's reds are below the knee, and so is every colour of their 3x3 neighbourhood: unchanged. */
		CHECK_EQ(*px(&out, 4, 4), 58000);
	}
	free(in.base);
	free(out.base);
}

TEST(highlights_below_the_knee_unchanged_and_bands)
{
	struct plane16 in = random_frame(22, 18), low = plane_new(22, 18), out = plane_new(22, 18);
	long changed = 0;

	for (int y = 0; y < 18; y++)
		for (int x = 0; x < 22; x++)
			*px(&low, x, y) = (uint16_t)(*px(&in, x, y) % 58976);
	for (unsigned mode = 0; mode < 3; mode++) {
		for (int cfa = 0; cfa < 4; cfa++) {
			struct cisp_highlights_coeffs c = highlights_coeffs(mode, NULL, cfa);

			cisp_highlights_rows(&c, &low, &out, 0, 18);
			for (int y = 0; y < 18; y++)
				changed += memcmp(plane_row(&low, y), plane_row(&out, y), 22 * 2) != 0;
			for (int h1 = 1; h1 < 18; h1 += 3)
				CHECK_EQ(band_mismatch(highlights_fn, &c, &in, cisp_highlights_radius(mode), h1), 0);
		}
	}
	CHECK_EQ(changed, 0);
	free(in.base);
	free(low.base);
	free(out.base);
}

/* A params buffer of one highlights block; cisp_params_validate()'s result. */
static int highlights_validate(uint16_t mode, uint16_t white, uint16_t knee, uint16_t reserved)
{
	struct {
		struct cisp_params_header h;
		struct cisp_highlights_params p;
	} buf = { { CISP_PARAMS_MAGIC, CISP_PARAMS_VERSION, 0, sizeof(buf), 0 },
		  { { CISP_BLOCK_HIGHLIGHTS, CISP_BLOCK_FL_ENABLE, 16 }, mode, white, knee, reserved } };
	struct cisp_param_state s, before;
	int ret = cisp_params_validate(&buf, sizeof(buf), NULL);

	cisp_param_state_init(&s);
	before = s;
	CHECK_EQ(cisp_param_state_apply(&s, &buf, sizeof(buf), NULL), ret);
	if (ret)
		CHECK(!memcmp(&s, &before, sizeof(s)));
	else
		CHECK(s.enabled & CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS));
	return ret;
}

TEST(highlights_hostile_params_refused)
{
	static const struct {
		uint16_t mode, white, knee, reserved;
		const char *needle;
	} bad[] = {
		{ 3, 65535, 3686, 0, "(highlights) at offset 16: mode = 3 is not a known value (0..2)" },
		{ 0xffff, 65535, 3686, 0, "(highlights) at offset 16: mode = 65535 is not a known value" },
		{ 0, 1023, 3686, 0, "(highlights) at offset 16: white = 1023 is out of range 1024..65535" },
		{ 0, 0, 3686, 0, "(highlights) at offset 16: white = 0 is out of range" },
		{ 1, 65535, 2047, 0, "(highlights) at offset 16: knee = " },
		{ 2, 65535, 4033, 0, "(highlights) at offset 16: knee = " },
		{ 2, 65535, 0xffff, 0, "(highlights) at offset 16: knee = " },
		{ 0, 65535, 3686, 1, "(highlights) at offset 16: reserved" },
	};

	CHECK_EQ(highlights_validate(CISP_HIGHLIGHTS_RECONSTRUCT, 1024, 2048, 0), 0);
	CHECK_EQ(highlights_validate(CISP_HIGHLIGHTS_BLEND, 65535, 4032, 0), 0);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(highlights_validate(bad[i].mode, bad[i].white, bad[i].knee, bad[i].reserved), -EINVAL);
		if (!strstr(cisp_last_error(), bad[i].needle))
			test_fail(__FILE__, __LINE__, "'%s' lacks '%s'", cisp_last_error(), bad[i].needle);
	}
}

/* Mean and largest max - min of the @w x @h RGB pixels of @path where @clipped is set. */
static void clipped_chroma(const char *path, uint32_t w, uint32_t h, const uint8_t *clipped, double *mean, int *worst)
{
	struct cisp_raster r;
	long sum = 0, n = 0;

	*mean = -1;
	*worst = -1;
	if (cisp_raster_read(path, &r)) {
		test_fail(__FILE__, __LINE__, "%s", cisp_last_error());
		return;
	}
	CHECK(r.width == w && r.height == h && r.channels == 3);
	for (size_t i = 0; r.width == w && r.height == h && i < (size_t)w * h; i++) {
		const uint16_t *p = &r.data[3 * i];
		int hi = p[0] > p[1] ? p[0] : p[1], lo = p[0] < p[1] ? p[0] : p[1];

		hi = hi > p[2] ? hi : p[2];
		lo = lo < p[2] ? lo : p[2];
		if (clipped[i]) {
			sum += hi - lo;
			n++;
			*worst = hi - lo > *worst ? hi - lo : *worst;
		}
	}
	*mean = n ? (double)sum / (double)n : -1;
	cisp_raster_free(&r);
}

/*
 * A calloc'ed map of the samples of the @w x @h headerless raw @path
 * (little-endian words) at @white or above; *@n of them.
 */
static uint8_t *raw_clipped(const char *path, int w, int h, unsigned white, int *n)
{
	uint8_t *clipped = calloc((size_t)w * h, 1), *words = malloc((size_t)w * h * 2);
	FILE *f = fopen(path, "rb");

	if (!clipped || !words)
		abort();
	*n = 0;
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ(fread(words, 2, (size_t)w * h, f), (size_t)w * h);
		fclose(f);
		for (size_t i = 0; i < (size_t)w * h; i++)
			*n += clipped[i] = words[2 * i] + 256u * words[2 * i + 1] >= white;
	}
	free(words);
	return clipped;
}

/* cisp develop's output of @raw with @opts, --highlights @mode and --wb @wb; its clipped pixels' chroma. */
static void develop_chroma(const char *raw, const char *opts, uint32_t w, uint32_t h, const uint8_t *clipped,
			   const char *mode, const char *wb, double *mean, int *worst)
{
	char args[2000], out[4096], path[700];

	snprintf(path, sizeof(path), "%s/clipped-%s.ppm", test_tmp_dir(), mode);
	snprintf(args, sizeof(args), "develop '%s' %s --highlights %s --wb %s --tone linear --no-auto-exposure -o '%s' "
		 "--depth 16 --force", raw, opts, mode, wb, path);
	CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 0);
	clipped_chroma(path, w, h, clipped, mean, worst);
}

/*
 * The rose's clipped samples are nearly all green (487 of 517); red stands
 * at about 0.65 of the sensor's white around them, blue at about 0.7.
 * Under grey world (red's gain about 0.74, blue's 2.06) green is at its
 * clip level, blue at the WB stage's 65535, red at 0.65 of its own clip
 * level: cyan as clipped. Green's clip says the light is at least as bright
 * as the sensor's white, and no colour is below a quarter of its clip
 * level: clipped light, neutral in every mode and in other balances too.
 * dcraw_emu -6 -w -H 0 gives those pixels a mean chroma of 8522, -H 2 21
 * (docs/raw.md).
 */
TEST(highlights_rose_clipped_pixels)
{
	static const char *const modes[] = { "none", "clip", "blend", "reconstruct" };
	static const char *const wbs[] = { "2.0,1,1.6", "daylight" };
	static const char opts[] = "--size 768x512 --format SRGGB14 --black 600 --white 15520";
	char raw[600], args[2000], out[4096], path[700];
	uint8_t *clipped;
	double mean[4];
	int worst[4], n = 0;

	snprintf(raw, sizeof(raw), "%s/raw/nikon_rose_768x512_rggb14.raw", test_data_dir());
	clipped = raw_clipped(raw, 768, 512, 15520, &n);
	CHECK_EQ(n, 517);
	for (int m = 0; m < 4; m++) {
		develop_chroma(raw, opts, 768, 512, clipped, modes[m], "auto", &mean[m], &worst[m]);
		printf("  rose, the 517 clipped pixels, --highlights %-11s: chroma (max - min of 16-bit sRGB) mean %.0f, "
		       "largest %d\n",
		       modes[m], mean[m], worst[m]);
	}
	CHECK(mean[0] > 10000);
	for (int m = 1; m < 4; m++)
		CHECK(mean[m] >= 0 && mean[m] < 2500);
	/* Other balances: a camera's (red and blue gains above 1) and daylight; clip and reconstruct. */
	for (unsigned i = 0; i < sizeof(wbs) / sizeof(wbs[0]); i++) {
		for (int m = 1; m < 4; m += 2) {
			double mn;
			int wst;

			develop_chroma(raw, opts, 768, 512, clipped, modes[m], wbs[i], &mn, &wst);
			printf("  rose, --wb %-9s --highlights %-11s: mean %.0f, largest %d\n", wbs[i], modes[m], mn, wst);
			CHECK(mn >= 0 && mn < 2500);
		}
	}
	/* A bad mode: exit status 2, a message, no file. */
	snprintf(path, sizeof(path), "%s/rose-bad.ppm", test_tmp_dir());
	snprintf(args, sizeof(args), "develop '%s' --size 768x512 --format SRGGB14 --highlights pink -o '%s'", raw, path);
	CHECK_EQ(test_run_cisp(args, out, sizeof(out)), 2);
	CHECK(strstr(out, "--highlights takes clip, blend, reconstruct or none, not 'pink'") != NULL);
	CHECK(access(path, F_OK) != 0);
	free(clipped);
}

/*
 * A second set: the 1080p chart frame's clipped white (10-bit, 1020 its
 * largest sample), under daylight balance. Before the raw clip counted as
 * clipped light, clip left a mean chroma of 6962 there (none: 7012).
 */
TEST(highlights_chart_frame_clipped_white)
{
	static const char opts[] = "--size 1920x1080 --format SRGGB10 --black 0 --white 1020";
	char raw[600];
	uint8_t *clipped;
	double none, clip;
	int worst_none, worst_clip, n;

	snprintf(raw, sizeof(raw), "%s/raw/openisp_1920x1080_rggb10.raw", test_data_dir());
	clipped = raw_clipped(raw, 1920, 1080, 1020, &n);
	CHECK(n > 100000);
	develop_chroma(raw, opts, 1920, 1080, clipped, "none", "daylight", &none, &worst_none);
	develop_chroma(raw, opts, 1920, 1080, clipped, "clip", "daylight", &clip, &worst_clip);
	printf("  chart frame, %d clipped samples, --wb daylight: chroma mean %.0f (largest %d) as clipped, %.0f (%d) "
	       "with --highlights clip\n", n, none, worst_none, clip, worst_clip);
	CHECK(none > 5000);
	CHECK(clip >= 0 && clip < 500);
	free(clipped);
}
