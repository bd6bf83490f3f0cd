/* SPDX-License-Identifier: MIT */
#include <stdbool.h>

#include "isp/stage.h"
#include "merge.h"

void cisp_merge_prepare(struct cisp_merge_coeffs *c, uint32_t longer, uint32_t shorter)
{
	c->scale = (uint16_t)(((uint64_t)shorter * 16384 + longer / 2) / longer);
}

void cisp_merge_order(const uint32_t *exposure, unsigned count, unsigned *order)
{
	/* Insertion sort, stable: a bracket has a handful of frames. */
	for (unsigned i = 0; i < count; i++) {
		unsigned j = i;

		for (; j > 0 && exposure[order[j - 1]] < exposure[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* Column p of a row of width @w reflected into it keeping its colour (Bayer columns alternate). */
static inline int same_colour(int p, int w)
{
	p = p < 0 ? -p : p >= w ? 2 * (w - 1) - p : p;
	return p < 0 || p >= w ? -1 : p;
}

/*
 * Whether column @x of the row disagrees beyond noise: the scaled longer frame minus the
 * shorter one, smoothed over 5 same-colour columns, against 192 + s/4. Columns left of @now
 * are read from @orig (acc before this row's merge wrote over it).
 */
static bool ghost_at(const struct cisp_merge_coeffs *c, const uint16_t *a, const uint16_t *s,
		     const uint16_t *orig, int x, int now, int w)
{
	static const int tap[5] = { -4, -2, 0, 2, 4 }, weight[5] = { 1, 2, 2, 2, 1 };
	int32_t sum = 0, limit = 8 * (CISP_MERGE_GHOST_FLOOR + (s[x] >> CISP_MERGE_GHOST_SHIFT));

	for (int k = 0; k < 5; k++) {
		int p = same_colour(x + tap[k], w);
		int32_t ap;

		p = p < 0 ? x : p;
		ap = p < now ? orig[p & 3] : a[p];
		/* A sample near saturation says nothing about motion. */
		if (ap < CISP_MERGE_KNEE)
			sum += weight[k] * ((((int32_t)ap * c->scale + 8192) >> 14) - s[p]);
	}
	/* |sum| <= 8 * 65535. */
	return sum > limit || -sum > limit;
}

void cisp_merge_rows(const struct cisp_merge_coeffs *c, const struct plane16 *acc, const struct plane16 *frame,
		     const struct plane16 *out, int y0, int y1)
{
	const int width = 1 << CISP_MERGE_WIDTH_SHIFT, w = acc->width;

	for (int y = y0; y < y1; y++) {
		const uint16_t *a = plane_row(acc, y), *s = plane_row(frame, y);
		uint16_t *d = plane_row(out, y);
		uint16_t orig[4] = { 0 }; /* acc at x-4..x-1, by x & 3: @out may be @acc */
		bool ghost = false;

		for (int x = 0; x < w; x++) {
			/* 65535 * 16384 + 8192 < 2^31; 65535 * 4096 * 2 < 2^31. */
			int32_t scaled = ((int32_t)a[x] * c->scale + 8192) >> 14;
			int32_t t = a[x] - CISP_MERGE_KNEE;

			/* One decision for the two colours of a column pair, so that a pixel does not change colour. */
			if (!(x & 1))
				ghost = ghost_at(c, a, s, orig, x, x, w) || (x + 1 < w && ghost_at(c, a, s, orig, x + 1, x, w));
			t = t < 0 ? 0 : t > width ? width : t;
			if (ghost)
				t = width; /* the frames disagree: the shorter one alone */
			orig[x & 3] = a[x];
			d[x] = (uint16_t)((scaled * (width - t) + s[x] * t + width / 2) >> CISP_MERGE_WIDTH_SHIFT);
		}
	}
}

/* ---- the stage (stage.h): the executors fold a bracket's frames with it ---- */

static void merge_step(uint32_t longer, uint32_t shorter, const struct plane16 *acc, const struct plane16 *frame,
		       int y0, int y1)
{
	struct cisp_merge_coeffs c;

	cisp_merge_prepare(&c, longer, shorter);
	cisp_merge_rows(&c, acc, frame, acc, y0, y1);
}

static const struct stage_merge merge_face = { cisp_merge_order, merge_step };

const struct cisp_stage cisp_stage_merge = {
	.name = "merge",
	.flags = STAGE_ALWAYS,
	.planes_in = 1,
	.planes_out = 1,
	.merge = &merge_face,
};
