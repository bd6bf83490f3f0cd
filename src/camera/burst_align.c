/* SPDX-License-Identifier: MIT */
/*
 * Burst alignment (docs/burst.md, "Alignment"): each frame becomes a
 * pyramid of grey images, the first a 2x2 average of the mosaic (one grey
 * pixel per CFA quad) and each next a 2x2 average of the one before. Tiles
 * of 16x16 grey pixels, starting every 8, are aligned from the coarsest
 * level down: a tile starts from twice the offset of the nearest tile of
 * the level above and searches a small window around it for the least sum
 * of absolute differences. One grey pixel of level 0 is two mosaic pixels,
 * so the offsets are even in the mosaic and keep its CFA phase.
 */
#include <stdlib.h>

#include "burst.h"

/* Search radius per level, grey pixels: wide at the coarsest, one pixel below (the level above's guess is within it). */
static int search_radius(const struct burst *b, unsigned level)
{
	return level + 1 == b->levels ? 4 : 1;
}

static uint32_t clamp_index(int64_t v, uint32_t n)
{
	return v < 0 ? 0 : v >= n ? n - 1 : (uint32_t)v;
}

void burst_pyramid(struct burst *b, unsigned z)
{
	const struct cisp_image *f = b->config->frame[z];
	struct burst_grey *g = &b->grey[z][0];

	for (uint32_t y = 0; y < g->height; y++) {
		const uint16_t *r0 = (const uint16_t *)(f->plane[0].data + (size_t)2 * y * f->plane[0].stride);
		const uint16_t *r1 = (const uint16_t *)((const uint8_t *)r0 + f->plane[0].stride);
		uint16_t *out = g->data + (size_t)y * g->width;

		for (uint32_t x = 0; x < g->width; x++)
			out[x] = (uint16_t)((r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1] + 2) >> 2);
	}
	for (unsigned l = 1; l < b->levels; l++) {
		const struct burst_grey *s = &b->grey[z][l - 1];

		g = &b->grey[z][l];
		for (uint32_t y = 0; y < g->height; y++) {
			/* An odd last row or column of the level below is repeated. */
			const uint16_t *r0 = s->data + (size_t)clamp_index(2 * (int64_t)y, s->height) * s->width;
			const uint16_t *r1 = s->data + (size_t)clamp_index(2 * (int64_t)y + 1, s->height) * s->width;
			uint16_t *out = g->data + (size_t)y * g->width;

			for (uint32_t x = 0; x < g->width; x++) {
				uint32_t x1 = clamp_index(2 * (int64_t)x + 1, s->width);

				out[x] = (uint16_t)((r0[2 * x] + r0[x1] + r1[2 * x] + r1[x1] + 2) >> 2);
			}
		}
	}
}

/* Sum of |@r[x] - @a[x]| for x in [@from, @to): a loop the compiler vectorises. */
static uint32_t row_sad(const uint16_t *r, const uint16_t *a, int64_t from, int64_t to)
{
	uint32_t sum = 0;

	for (int64_t x = from; x < to; x++)
		sum += (uint32_t)abs(r[x] - a[x]);
	return sum;
}

/*
 * Sum of absolute differences of a tile of @ref against @alt moved by (@dx,
 * @dy), edges repeated; once it reaches @limit the rest is not added (the
 * candidate has lost already).
 */
static uint64_t tile_cost(const struct burst_grey *ref, const struct burst_grey *alt, int64_t x0, int64_t y0,
			  int64_t dx, int64_t dy, uint64_t limit)
{
	int64_t from = x0 < 0 ? 0 : x0, to = x0 + BURST_GREY_TILE < ref->width ? x0 + BURST_GREY_TILE : ref->width;
	/* Columns whose match lies inside @alt: [lo, hi); those left and right of it read its edge. */
	int64_t lo = from > -dx ? from : -dx, hi = to < (int64_t)alt->width - dx ? to : (int64_t)alt->width - dx;
	uint64_t sum = 0;

	if (lo > to)
		lo = to;
	if (hi < lo)
		hi = lo;
	for (int64_t y = y0 < 0 ? 0 : y0; y < y0 + BURST_GREY_TILE && y < ref->height; y++) {
		const uint16_t *r = ref->data + (size_t)y * ref->width;
		const uint16_t *a = alt->data + (size_t)clamp_index(y + dy, alt->height) * alt->width;

		for (int64_t x = from; x < lo; x++)
			sum += (uint64_t)abs(r[x] - a[0]);
		sum += row_sad(r + lo, a + lo + dx, 0, hi - lo);
		for (int64_t x = hi; x < to; x++)
			sum += (uint64_t)abs(r[x] - a[alt->width - 1]);
		if (sum >= limit)
			break;
	}
	return sum;
}

void burst_align_row(struct burst *b, unsigned z, unsigned j)
{
	unsigned l = b->level;
	const struct burst_grey *ref = &b->grey[0][l], *alt = &b->grey[z][l];
	int radius = search_radius(b, l);

	for (unsigned i = 0; i < b->tiles_x[l]; i++) {
		int32_t *best = b->offset[l][burst_tile_index(b, l, z, i, j)];
		int64_t x0 = (int64_t)i * (BURST_GREY_TILE / 2) - BURST_GREY_TILE / 2;
		int64_t y0 = (int64_t)j * (BURST_GREY_TILE / 2) - BURST_GREY_TILE / 2;
		int32_t gx = 0, gy = 0;
		uint64_t best_cost;

		if (l + 1 < b->levels) {
			/* The tile of the level above whose centre is nearest this tile's centre. */
			unsigned pi = (i + 1) / 2, pj = (j + 1) / 2;
			const int32_t *up;

			pi = pi < b->tiles_x[l + 1] ? pi : b->tiles_x[l + 1] - 1;
			pj = pj < b->tiles_y[l + 1] ? pj : b->tiles_y[l + 1] - 1;
			up = b->offset[l + 1][burst_tile_index(b, l + 1, z, pi, pj)];
			gx = 2 * up[0];
			gy = 2 * up[1];
		}
		best[0] = gx;
		best[1] = gy;
		best_cost = tile_cost(ref, alt, x0, y0, gx, gy, UINT64_MAX);
		/* Raster order, a strictly lower cost wins: the same answer on every run. */
		for (int dy = -radius; dy <= radius; dy++)
			for (int dx = -radius; dx <= radius; dx++) {
				uint64_t c = tile_cost(ref, alt, x0, y0, gx + dx, gy + dy, best_cost);

				if (c < best_cost) {
					best_cost = c;
					best[0] = gx + dx;
					best[1] = gy + dy;
				}
			}
	}
}
