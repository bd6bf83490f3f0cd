/* SPDX-License-Identifier: MIT */
/*
 * Exposure-bracket merge: folds black-level-corrected frames of one scene,
 * longest exposure first, into one linear frame at the scale of the
 * shortest exposure. Each step scales the merge so far to the next (shorter)
 * exposure and, where the merge so far nears saturation or disagrees with
 * the new frame (something moved), takes the new frame (docs/stages/merge.md).
 */
#ifndef CISP_ISP_MERGE_H
#define CISP_ISP_MERGE_H

#include <stdint.h>

#include "core/plane.h"

/* Below the knee the longer exposure is kept; from knee + 2^CISP_MERGE_WIDTH_SHIFT the shorter one. */
#define CISP_MERGE_KNEE 57344
#define CISP_MERGE_WIDTH_SHIFT 12
/*
 * Ghosts: where the longer exposure, scaled, differs from the shorter one by
 * more than CISP_MERGE_GHOST_FLOOR + s / 2^CISP_MERGE_GHOST_SHIFT (far beyond
 * noise), the scene moved between them and the shorter frame is taken alone.
 */
#define CISP_MERGE_GHOST_FLOOR 192
#define CISP_MERGE_GHOST_SHIFT 2

struct cisp_merge_coeffs {
	uint16_t scale; /* Q2.14: the shorter exposure over the longer, 64..16384 */
};

/* Coefficients of the step from exposure @longer to @shorter (both > 0, ratio at most 256). */
void cisp_merge_prepare(struct cisp_merge_coeffs *c, uint32_t longer, uint32_t shorter);
/* Indices of @exposure from the longest to the shortest; equal exposures keep their order. */
void cisp_merge_order(const uint32_t *exposure, unsigned count, unsigned *order);
/*
 * Rows [y0, y1): @out = merge of @acc (the merge so far, at the longer
 * exposure) and @frame (the next, shorter one). @out may be @acc.
 */
void cisp_merge_rows(const struct cisp_merge_coeffs *c, const struct plane16 *acc, const struct plane16 *frame,
		     const struct plane16 *out, int y0, int y1);

#endif
