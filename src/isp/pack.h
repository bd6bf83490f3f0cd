/* SPDX-License-Identifier: MIT */
/*
 * Pack 16-bit planes into an output image: NV12 and I420 (4:2:0 chroma by
 * 2x2 averaging, 8 bits), RGB888 (8 bits) and RGB48 (16 bits).
 */
#ifndef CISP_ISP_PACK_H
#define CISP_ISP_PACK_H

#include <cisp/image.h>

#include "plane.h"

/* 16-bit to 8-bit: round(v * 255 / 65535). */
static inline uint8_t cisp_to8(uint32_t v)
{
	return (uint8_t)((v * 255u + 32767u) / 65535u);
}

/* Rows [y0, y1) of @out (both even for 4:2:0) from @in at the output's size. */
void cisp_pack_rows(const struct rgb16 *in, const struct cisp_image *out, int y0, int y1);

#endif
