/* SPDX-License-Identifier: MIT */
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

void cisp_merge_rows(const struct cisp_merge_coeffs *c, const struct plane16 *acc, const struct plane16 *frame,
		     const struct plane16 *out, int y0, int y1)
{
	const int width = 1 << CISP_MERGE_WIDTH_SHIFT;

	for (int y = y0; y < y1; y++) {
		const uint16_t *a = plane_row(acc, y), *s = plane_row(frame, y);
		uint16_t *d = plane_row(out, y);

		for (int x = 0; x < acc->width; x++) {
			/* 65535 * 16384 + 8192 < 2^31; 65535 * 4096 * 2 < 2^31. */
			int32_t scaled = ((int32_t)a[x] * c->scale + 8192) >> 14;
			int32_t t = a[x] - CISP_MERGE_KNEE;

			t = t < 0 ? 0 : t > width ? width : t;
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
