/* SPDX-License-Identifier: MIT */
/* Luma sharpening with noise coring and an overshoot limit. */
#ifndef CISP_ISP_SHARPEN_H
#define CISP_ISP_SHARPEN_H

#include <cisp/params.h>

#include "core/plane.h"

/* Rows of vertical support above and below an output row. */
#define CISP_SHARPEN_RADIUS 2

/* Rows [y0, y1) of @out from @in; @in and @out must not overlap. */
void cisp_sharpen_rows(const struct cisp_sharpen_params *p, const struct rgb16 *in, const struct rgb16 *out,
		       int y0, int y1);
/*
 * Split per row (the dsp.h entries): the luma of a row of R, G, B, and one
 * output row from the luma of rows y-2..y+2 and the row's R, G, B; @tmp holds
 * w + 4 int32. Same bits as cisp_sharpen_rows().
 */
void cisp_sharpen_luma_row_c(const uint16_t *const rgb[3], uint16_t *out, int w);
void cisp_sharpen_row_c(const uint16_t *const luma[5], const uint16_t *const mid[3], uint16_t *const out[3], int w,
			int coring, int strength, int limit, int32_t *tmp);

#endif
