/* SPDX-License-Identifier: MIT */
/*
 * Unpack: any Bayer input format to 16-bit units.
 *
 * A sample of N bits (8, 10, 12, 14, 16; packed or not) is clamped to
 * 2^N - 1 (containers can hold larger values) and shifted left by 16 - N.
 */
#ifndef CISP_ISP_UNPACK_H
#define CISP_ISP_UNPACK_H

#include <cisp/image.h>

#include "core/plane.h"

/* Unpack rows [y0, y1) of @in into @out (same size as @in). */
void cisp_unpack_rows(const struct cisp_image *in, const struct plane16 *out, int y0, int y1);

/* One row of a 16-bit container format of @bits bits (10..16), split out for dsp.h. */
void cisp_unpack16_row_c(const uint8_t *s, uint16_t *d, int w, int bits);
/* One row of 8-bit samples: s << 8 (the dsp.h entry). */
void cisp_unpack8_row_c(const uint8_t *s, uint16_t *d, int w);

#endif
