/* SPDX-License-Identifier: MIT */
/*
 * Bayer-domain stages: unpack, black level, defective pixels, lens shading,
 * white balance, Bayer denoise. Known answers on synthetic frames, computed
 * here from the documented arithmetic, and row-band independence.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/params.h>

#include "isp/blc.h"
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
	static const int want[] = { 0, 0, 0, 1, 32767, 65534, 65535 };
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
