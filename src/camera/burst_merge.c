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

		int64_t from = x0 < 0 ? 0 : x0, to = x0 + CISP_BURST_TILE < b->width ? x0 + CISP_BURST_TILE : b->width;
		/* Columns whose match lies inside the frame, [lo, hi): a plain loop; the others clamped. */
		int64_t lo = from > -dx ? from : -dx, hi = to < (int64_t)b->width - dx ? to : (int64_t)b->width - dx;

		lo = lo < to ? lo : to;
		hi = hi > lo ? hi : lo;
		for (int64_t y = y0 < 0 ? 0 : y0; y < y0 + CISP_BURST_TILE && y < b->height; y++) {
			const uint16_t *r = row_of(ref, (uint32_t)y), *a = row_of(alt, clamp_phase(y + dy, b->height));
			uint32_t row_sum = 0;
			uint64_t row_sq = 0;

			for (int64_t x = lo; x < hi; x++) {
				int32_t d = (int32_t)r[x] - a[x + dx];

				row_sum += r[x];
				row_sq += (uint64_t)((int64_t)d * d);
			}
			for (int64_t x = from; x < to; x++) {
				if (x >= lo && x < hi)
					continue;
				int64_t d = (int64_t)r[x] - a[clamp_phase(x + dx, b->width)];

				row_sum += r[x];
				row_sq += (uint64_t)(d * d);
			}
			sum += row_sum;
			sum_sq += row_sq;
			count += (uint64_t)(to - from);
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

/* A tile's merged pixels over a row segment [@x0, @x0 + @n) of row @y, times frames * 256: the mean of (alt + A (ref - alt)). */
static void tile_segment(const struct burst *b, unsigned i, unsigned j, uint32_t y, uint32_t x0, unsigned n,
			 const uint16_t *ref, int32_t *m)
{
	int32_t ref_share = BURST_ONE;

	for (unsigned z = 1; z < b->frames; z++)
		ref_share += b->reject[burst_tile_index(b, 0, z, i, j)];
	for (unsigned k = 0; k < n; k++)
		m[k] = ref_share * ref[x0 + k];
	for (unsigned z = 1; z < b->frames; z++) {
		size_t t = burst_tile_index(b, 0, z, i, j);
		const int32_t *off = b->offset[0][t];
		const uint16_t *row = row_of(b->config->frame[z], clamp_phase(y + 2 * (int64_t)off[1], b->height));
		int64_t dx = 2 * (int64_t)off[0];
		int32_t keep = BURST_ONE - b->reject[t]; /* the share of the frame's own sample */

		if (x0 + dx >= 0 && x0 + dx + n <= b->width) {
			const uint16_t *a = row + x0 + dx;

			for (unsigned k = 0; k < n; k++)
				m[k] += keep * a[k];
		} else {
			for (unsigned k = 0; k < n; k++)
				m[k] += keep * row[clamp_phase(x0 + k + dx, b->width)];
		}
	}
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
		int32_t wy[2] = { (int32_t)window(vy + half), (int32_t)window(vy) };

		/* Segments of half a tile: columns in the second half of tile column s and the first of s + 1. */
		for (uint32_t s = 0, x0 = 0; x0 < b->width; s++, x0 += half) {
			unsigned n = b->width - x0 < half ? b->width - x0 : half;
			int64_t acc[CISP_BURST_TILE / 2] = { 0 };
			int32_t m[CISP_BURST_TILE / 2];

			for (unsigned ky = 0; ky < 2; ky++)
				for (unsigned kx = 0; kx < 2; kx++) {
					tile_segment(b, s + kx, band + ky, y, x0, n, ref, m);
					for (unsigned k = 0; k < n; k++)
						acc[k] += (int64_t)(window(kx ? k : k + half) * wy[ky]) * m[k];
				}
			for (unsigned k = 0; k < n; k++)
				dst[x0 + k] = (uint16_t)((acc[k] + round) / scale);
		}
	}
}
