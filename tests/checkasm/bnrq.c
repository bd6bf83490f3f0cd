/* SPDX-License-Identifier: MIT */
/*
 * checkasm of the quality Bayer denoise's tile filters (dsp.h bnr_patch_tile
 * and bnr_transform_tile): random tiles (1..64 columns, 1..64 rows, anywhere
 * in frames of 8 to 150 samples a side, so mirrored edges too) of random,
 * extreme, flat, smooth and striped frames, profiles from tiny to huge
 * (huge ones send patch tiles to the C version), strengths 0, 1, 1024 and
 * random, green sites of either Bayer layout or any; guard samples around each output tile must stay untouched. Then
 * whole frames through cisp_bnr_quality_rows_dsp().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "isp/bnr_quality.h"
#include "isp/dsp.h"
#include "core/plane.h"

#define MAXS 150
#define DSTRIDE (CISP_BNR_TILE_W + 8)
#define CANARY 0x5AA5

#define rnd32 checkasm_rnd

enum pattern { P_RANDOM, P_EXTREMES, P_ZERO, P_MAX, P_FLAT, P_NOISY, P_STRIPES, P_KINDS };

static void fill_frame(uint16_t *p, int w, int h, enum pattern k)
{
	const uint16_t flat = (uint16_t)rnd32();

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			uint32_t v;

			switch (k) {
			case P_EXTREMES:
				v = rnd32() & 1 ? 65535 : 0;
				break;
			case P_ZERO:
				v = 0;
				break;
			case P_MAX:
				v = 65535;
				break;
			case P_FLAT:
				v = flat;
				break;
			case P_NOISY: /* a ramp with noise of a few hundred: weights between their ends */
				v = (uint32_t)(x * 97 + y * 131 + (x & 1) * 9000 + (y & 1) * 5000) + (rnd32() & 1023);
				v = v > 65535 ? 65535 : v;
				break;
			case P_STRIPES:
				v = ((x / 2 + y) & 1) ? 65535 : (rnd32() & 1023);
				break;
			default:
				v = (uint16_t)rnd32();
			}
			p[(size_t)y * (size_t)w + (size_t)x] = (uint16_t)v;
		}
}

/* A profile: 0 typical, 1 tiny, 2 huge (Q past 2^30), 3 zero; strength 0, 1, 1024 or random. */
static void make_q(struct cisp_bnr_quality *q, int profile)
{
	static const unsigned strengths[] = { 0, 1, 1024, 256 };
	unsigned s = strengths[rnd32() % 4];
	/* Green on sites 1 and 2 (RGGB, BGGR), on 0 and 3, or on any sites (none, all: not a Bayer CFA). */
	const unsigned gr = rnd32() % 3, any = rnd32();

	if (s == 256)
		s = rnd32() % 1025;
	q->s2 = s * s;
	for (int i = 0; i < 4; i++) {
		q->green[i] = (uint8_t)(gr == 2 ? (any >> i) & 1 : gr ? (i == 0 || i == 3) : (i == 1 || i == 2));
		switch (profile) {
		case 1:
			q->a[i] = rnd32() % 256;
			q->b[i] = rnd32() % 256;
			break;
		case 2:
			q->a[i] = rnd32();
			q->b[i] = rnd32();
			break;
		case 3:
			q->a[i] = q->b[i] = 0;
			break;
		default:
			q->a[i] = rnd32() % (1u << 20);
			q->b[i] = rnd32() % (1u << 17);
		}
	}
}

typedef void tile_fn(const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw, int th,
		     uint16_t *dst, int stride);

/* One tile of @fn against @ref; 1 when they agree and the guards hold. */
static int check_tile(tile_fn *ref, tile_fn *fn, const char *name, const char *level,
		      const struct cisp_bnr_quality *q, const struct plane16 *in, int x0, int y0, int tw, int th,
		      int kind)
{
	uint16_t a[CISP_BNR_TILE_H_MAX + 1][DSTRIDE], b[CISP_BNR_TILE_H_MAX + 1][DSTRIDE];

	for (int j = 0; j <= CISP_BNR_TILE_H_MAX; j++)
		for (int i = 0; i < DSTRIDE; i++)
			a[j][i] = b[j][i] = CANARY;
	ref(q, in, x0, y0, tw, th, &a[0][0], DSTRIDE);
	fn(q, in, x0, y0, tw, th, &b[0][0], DSTRIDE);
	for (int j = 0; j <= CISP_BNR_TILE_H_MAX; j++)
		for (int i = 0; i < DSTRIDE; i++)
			if (a[j][i] != b[j][i] || ((j >= th || i >= tw) && b[j][i] != CANARY)) {
				printf("FAIL %s %s frame %dx%d tile %d,%d %dx%d pattern %d s2 %u: row %d column %d: C %u, %s %u\n",
				       name, level, in->width, in->height, x0, y0, tw, th, kind, q->s2, j, i, a[j][i],
				       level, b[j][i]);
				return 0;
			}
	return 1;
}

static int check_frame(const struct cisp_dsp *t, const char *level, uint16_t *src,
		       int w, int h, int kind, const struct cisp_bnr_quality *q)
{
	static uint16_t oa[MAXS * MAXS], ob[MAXS * MAXS];
	struct plane16 in = { src, w, 0, w, h }, pa = { oa, w, 0, w, h }, pb = { ob, w, 0, w, h };
	int y1 = 1 + (int)(rnd32() % (unsigned)h), y0 = (int)(rnd32() % (unsigned)y1);

	/* The reference rows (other transform tiles than the dsp rows: the same bytes). */
	cisp_bnr_quality_rows(q, &in, &pa, y0, y1);
	cisp_bnr_quality_rows_dsp(t, q, &in, &pb, y0, y1);
	if (memcmp(oa + (size_t)y0 * w, ob + (size_t)y0 * w, (size_t)(y1 - y0) * w * sizeof(*oa))) {
		printf("FAIL bnrq rows %s frame %dx%d rows %d..%d pattern %d\n", level, w, h, y0, y1, kind);
		return 0;
	}
	return 1;
}

/*
 * ns per sample of the whole denoise through cisp_bnr_quality_rows_dsp() with
 * the tile functions of @d (their own tile widths) over the same frame in
 * bands of CISP_BNR_TILE_H_MAX rows, as the banded executor asks (best of 5).
 */
static double bench_rows(const struct cisp_dsp *d, const struct cisp_bnr_quality *q, uint16_t *mem)
{
	static uint16_t out[1024 * 64];
	const int w = 1024, h = 64;
	struct plane16 in = { mem, w, 0, w, h }, o = { out, w, 0, w, h };
	double best = 1e30;

	for (int r = 0; r < 5; r++) {
		double t0 = checkasm_now();

		for (int y = 0; y < h; y += CISP_BNR_TILE_H_MAX)
			cisp_bnr_quality_rows_dsp(d, q, &in, &o, y, y + CISP_BNR_TILE_H_MAX);
		t0 = checkasm_now() - t0;
		best = t0 < best ? t0 : best;
	}
	return best * 1e9 / (double)(w * h);
}

/* ns per sample of @fn over a noisy 1024x64 frame in whole tiles (best of 5). */
static double bench_tiles(tile_fn *fn, const struct cisp_bnr_quality *q, uint16_t *mem)
{
	const int w = 1024, h = 64;
	struct plane16 in = { mem, w, 0, w, h };
	uint16_t out[CISP_BNR_TILE_H_MAX][CISP_BNR_TILE_W];
	double best = 1e30;

	for (int r = 0; r < 5; r++) {
		double t0 = checkasm_now();

		for (int y = 0; y < h; y += CISP_BNR_TILE_H_MAX)
			for (int x = 0; x < w; x += CISP_BNR_TILE_W)
				fn(q, &in, x, y, CISP_BNR_TILE_W, CISP_BNR_TILE_H_MAX, &out[0][0], CISP_BNR_TILE_W);
		t0 = checkasm_now() - t0;
		best = t0 < best ? t0 : best;
	}
	return best * 1e9 / (double)(w * h);
}

void checkasm_bnrq(const struct cisp_dsp *ref, const struct cisp_dsp levels[], const int have[], int bench,
		   unsigned *passed, unsigned *failed)
{
	static uint16_t frame[1024 * 64];
	static const char *const names[2] = { "bnrq patch", "bnrq transform" };

	for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
		const char *level = cisp_cpu_name((enum cisp_cpu_level)l);
		tile_fn *fr[2] = { ref->bnr_patch_tile, ref->bnr_transform_tile };
		tile_fn *ft[2] = { levels[l].bnr_patch_tile, levels[l].bnr_transform_tile };

		if (!have[l])
			continue;
		for (int f = 0; f < 2; f++) {
			int ok = 1;

			if (ft[f] == fr[f])
				continue;
			for (int n = 0; ok && n < 600; n++) {
				const int kind = n % P_KINDS, profile = (n / P_KINDS) % 4;
				const int w = 8 + 2 * (int)(rnd32() % ((MAXS - 8) / 2 + 1));
				const int h = 8 + 2 * (int)(rnd32() % ((MAXS - 8) / 2 + 1));
				struct cisp_bnr_quality q;
				struct plane16 in = { frame, w, 0, w, h };

				make_q(&q, profile);
				fill_frame(frame, w, h, (enum pattern)kind);
				for (int k = 0; ok && k < 4; k++) {
					/* Every fourth tile a tiny one at a frame corner. */
					int x0 = k == 3 ? (w - 2) & ~1 : 2 * (int)(rnd32() % (unsigned)(w / 2));
					int y0 = k == 3 ? h - 1 : (int)(rnd32() % (unsigned)h);
					int tw = 1 + (int)(rnd32() % CISP_BNR_TILE_W), th = 1 + (int)(rnd32() % CISP_BNR_TILE_H_MAX);

					tw = tw < w - x0 ? tw : w - x0;
					th = th < h - y0 ? th : h - y0;
					ok = check_tile(fr[f], ft[f], names[f], level, &q, &in, x0, y0, tw, th, kind);
				}
				if (ok && n % 8 == 0)
					ok = check_frame(&levels[l], level, frame, w, h, kind, &q);
			}
			if (ok)
				(*passed)++;
			else
				(*failed)++;
			printf("%s %-14s %s\n", ok ? "ok  " : "FAIL", names[f], level);
		}
	}
	if (bench) {
		struct cisp_bnr_quality q = { .a = { 400000, 300000, 300000, 400000 },
					      .b = { 20000, 15000, 15000, 20000 },
					      .green = { 0, 1, 1, 0 },
					      .s2 = 256 * 256 };

		fill_frame(frame, 1024, 64, P_NOISY);
		for (int f = 0; f < 2; f++) {
			double c = bench_tiles(f ? ref->bnr_transform_tile : ref->bnr_patch_tile, &q, frame);

			printf("%s%-14s %8.3f", f ? "" : "\n", names[f], c);
			for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++) {
				tile_fn *fn = f ? levels[l].bnr_transform_tile : levels[l].bnr_patch_tile;

				if (!have[l])
					continue;
				if (fn != (f ? ref->bnr_transform_tile : ref->bnr_patch_tile)) {
					double v = bench_tiles(fn, &q, frame);

					printf(" %7.3f %5.1fx", v, c / v);
				} else {
					printf(" %14s", "(C)");
				}
			}
			printf("\n");
		}
		printf("%-14s %8s", "bnrq rows", "");
		for (int l = CISP_CPU_SCALAR + 1; l < CISP_CPU_LEVELS; l++)
			if (have[l])
				printf(" %7.3f %6s", bench_rows(&levels[l], &q, frame), "");
		printf("\n");
	}
}
