/* SPDX-License-Identifier: MIT */
/*
 * Burst merge (docs/burst.md, "Merge"). Per tile and frame a weight A (Q8)
 * says how much of that frame's tile is replaced by the reference's: from
 * the tile's mean squared difference to the reference D2 and the noise
 * variance s2 the model predicts at the reference tile's mean,
 *   E = max(0, D2 - 2 s2)        (the difference the noise of two frames
 *                                 does not explain)
 *   A = 256 * E / (E + k * s2)   (k: the rejection setting)
 * a Wiener-style shrinkage of the difference, as in HDR+'s merge, in the
 * pixel domain and per tile. A tile's merged pixel is the mean over the
 * frames of (alt + A * (ref - alt)); tiles overlap by half and are blended
 * with a raised-cosine window whose weights sum to one exactly.
 */
#include "burst.h"

/* sin^2(pi (u + 1/2) / 32) in Q8 for u = 0..15; u + 16 takes 256 minus it, so halves sum to 256. */
static const uint16_t window_rise[CISP_BURST_TILE / 2] = {
	1, 6, 15, 29, 47, 68, 91, 115, 141, 165, 188, 209, 227, 241, 250, 255,
};

static uint32_t window(unsigned u)
{
	return u < CISP_BURST_TILE / 2 ? window_rise[u] : BURST_ONE - window_rise[u - CISP_BURST_TILE / 2];
}

static const uint16_t *row_of(const struct cisp_image *img, uint32_t y)
{
	return (const uint16_t *)(img->plane[0].data + (size_t)y * img->plane[0].stride);
}

/* A coordinate moved outside [0, n) comes back to the nearest one of the same CFA phase (n even). */
static uint32_t clamp_phase(int64_t v, uint32_t n)
{
	if (v < 0)
		return (uint32_t)(v & 1);
	if (v >= n)
		return n - 2 + (uint32_t)(v & 1);
	return (uint32_t)v;
}

void burst_weigh_row(struct burst *b, unsigned z, unsigned j)
{
	const struct cisp_image *ref = b->config->frame[0], *alt = b->config->frame[z];
	int64_t y0 = (int64_t)j * (CISP_BURST_TILE / 2) - CISP_BURST_TILE / 2;

	for (unsigned i = 0; i < b->tiles_x[0]; i++) {
		size_t t = burst_tile_index(b, 0, z, i, j);
		const int32_t *off = b->offset[0][t];
		int64_t x0 = (int64_t)i * (CISP_BURST_TILE / 2) - CISP_BURST_TILE / 2, dx = 2 * off[0], dy = 2 * off[1];
		uint64_t sum = 0, sum_sq = 0, count = 0;
		int64_t mean, s2, d2, excess, ks2;

		for (int64_t y = y0 < 0 ? 0 : y0; y < y0 + CISP_BURST_TILE && y < b->height; y++) {
			const uint16_t *r = row_of(ref, (uint32_t)y), *a = row_of(alt, clamp_phase(y + dy, b->height));

			for (int64_t x = x0 < 0 ? 0 : x0; x < x0 + CISP_BURST_TILE && x < b->width; x++) {
				int64_t d = (int64_t)r[x] - a[clamp_phase(x + dx, b->width)];

				sum += r[x];
				sum_sq += (uint64_t)(d * d);
				count++;
			}
		}
		/* Q16 codes: the mean, its noise variance, the mean squared difference. */
		mean = (int64_t)(sum / count);
		mean = mean > b->config->black_level ? mean - b->config->black_level : 0;
		s2 = b->noise_a * mean + b->noise_b;
		d2 = (int64_t)((sum_sq << 16) / count);
		excess = d2 - 2 * s2;
		if (excess <= 0) {
			b->reject[t] = 0;
			continue;
		}
		/* Both terms are below 2^54 (burst.c limits the model); scaled down alike to keep 256 * E in range. */
		ks2 = (b->rejection * s2) >> 8;
		while (excess > (INT64_C(1) << 40) || ks2 > (INT64_C(1) << 40)) {
			excess >>= 1;
			ks2 >>= 1;
		}
		b->reject[t] = (uint16_t)((BURST_ONE * excess) / (excess + ks2 > 0 ? excess + ks2 : 1));
	}
}

/* What a row segment needs of one tile: per frame after the first, its row of samples, offset and weight. */
struct tile_view {
	const uint16_t *row[CISP_BURST_MAX_FRAMES];
	int64_t dx[CISP_BURST_MAX_FRAMES];
	int64_t keep[CISP_BURST_MAX_FRAMES]; /* 256 - A: the share of the frame's own sample */
	int64_t ref;                          /* 256 + sum of A: the reference's share */
};

static void view_tile(const struct burst *b, unsigned i, unsigned j, uint32_t y, struct tile_view *v)
{
	v->ref = BURST_ONE;
	for (unsigned z = 1; z < b->frames; z++) {
		size_t t = burst_tile_index(b, 0, z, i, j);
		const int32_t *off = b->offset[0][t];

		v->row[z] = row_of(b->config->frame[z], clamp_phase(y + 2 * (int64_t)off[1], b->height));
		v->dx[z] = 2 * (int64_t)off[0];
		v->keep[z] = BURST_ONE - b->reject[t];
		v->ref += b->reject[t];
	}
}

/* A tile's merged pixel at column @x, times frames * 256: the mean of (alt + A (ref - alt)) over the frames. */
static int64_t tile_pixel(const struct burst *b, const struct tile_view *v, uint32_t x, int64_t r)
{
	int64_t m = v->ref * r;

	for (unsigned z = 1; z < b->frames; z++)
		m += v->keep[z] * v->row[z][clamp_phase(x + v->dx[z], b->width)];
	return m;
}

void burst_merge_band(const struct burst *b, struct cisp_image *out, unsigned band)
{
	const unsigned half = CISP_BURST_TILE / 2;
	const int64_t scale = (int64_t)b->frames * BURST_ONE * BURST_ONE * BURST_ONE, round = scale / 2;

	for (uint32_t y = band * half; y < (band + 1) * half && y < b->height; y++) {
		const uint16_t *ref = row_of(b->config->frame[0], y);
		uint16_t *dst = (uint16_t *)(out->plane[0].data + (size_t)y * out->plane[0].stride);
		/* Row y lies in the second half of tile row `band` and the first half of tile row band + 1. */
		unsigned vy = y - band * half;
		int64_t wy[2] = { window(vy + half), window(vy) };

		/* Segments of half a tile: columns in the second half of tile column s and the first of s + 1. */
		for (unsigned s = 0; s * half < b->width; s++) {
			struct tile_view v[2][2];

			for (unsigned ky = 0; ky < 2; ky++)
				for (unsigned kx = 0; kx < 2; kx++)
					view_tile(b, s + kx, band + ky, y, &v[ky][kx]);
			for (uint32_t x = s * half; x < (s + 1) * half && x < b->width; x++) {
				unsigned vx = x - s * half;
				int64_t wx[2] = { window(vx + half), window(vx) }, r = ref[x], acc = 0;

				for (unsigned ky = 0; ky < 2; ky++)
					for (unsigned kx = 0; kx < 2; kx++)
						acc += wx[kx] * wy[ky] * tile_pixel(b, &v[ky][kx], x, r);
				dst[x] = (uint16_t)((acc + round) / scale);
			}
		}
	}
}
