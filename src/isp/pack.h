/* SPDX-License-Identifier: MIT */
/*
 * Pack 16-bit planes into an output image: NV12 and I420 (4:2:0 chroma by
 * 2x2 averaging, 8 bits), RGB888 and XBGR32 (8 bits) and RGB48 (16 bits).
 */
#ifndef CISP_ISP_PACK_H
#define CISP_ISP_PACK_H

#include <cisp/image.h>

#include "core/plane.h"

/* 16-bit to 8-bit: round(v * 255 / 65535). */
static inline uint8_t cisp_to8(uint32_t v)
{
	return (uint8_t)((v * 255u + 32767u) / 65535u);
}

/*
 * Row kernels of the 4:2:0 packing (the dsp.h entries): cisp_to8() of each
 * sample, and the chroma of a pair of rows of even width @w, whole 2x2 blocks.
 */
void cisp_to8_row_c(const uint16_t *s, uint8_t *d, int w);
void cisp_chroma420_row_c(const uint16_t *cb0, const uint16_t *cb1, const uint16_t *cr0, const uint16_t *cr1,
			  uint8_t *dcb, uint8_t *dcr, int step, int w);
/* Interleaved 8-bit RGB of a row: cisp_to8() of each sample (the dsp.h entries): R,G,B and B,G,R,255. */
void cisp_rgb888_row_c(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w);
void cisp_xbgr32_row_c(const uint16_t *r, const uint16_t *g, const uint16_t *b, uint8_t *d, int w);
/* Rows [y0, y1) of @out (both even for 4:2:0) from @in at the output's size. */
void cisp_pack_rows(const struct rgb16 *in, const struct cisp_image *out, int y0, int y1);

#endif
