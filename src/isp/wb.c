/* SPDX-License-Identifier: MIT */
#include "wb.h"

void cisp_wb_prepare(struct cisp_wb_coeffs *c, const struct cisp_wb_params *p, enum cisp_cfa cfa)
{
	for (int site = 0; site < 4; site++)
		c->gain[site] = p->gain[cisp_cfa_channel(cfa, site & 1, site >> 1)];
}

void cisp_wb_row_c(const uint16_t *s, uint16_t *d, int w, const uint16_t gain[2])
{
	for (int x = 0; x < w; x++) {
		/* 65535 * 65535 + 2048 fits in 32 bits unsigned. */
		uint32_t v = ((uint32_t)s[x] * gain[x & 1] + 2048) >> 12;

		d[x] = (uint16_t)(v > 65535 ? 65535 : v);
	}
}

void cisp_wb_rows(const struct cisp_wb_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		  int y0, int y1)
{
	for (int y = y0; y < y1; y++)
		cisp_wb_row_c(plane_row(in, y), plane_row(out, y), in->width, &c->gain[(y & 1) * 2]);
}
