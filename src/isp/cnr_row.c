/* SPDX-License-Identifier: MIT */
/*
 * Row kernels of the chroma denoise (docs/stages/cnr.md), for the dsp.h
 * table and the banded executor: the arithmetic of cisp_cnr_rows() on whole
 * rows with reflected columns instead of padded column strips. The banded
 * executor's tests compare them with cisp_cnr_rows() through the pipeline,
 * checkasm the optimised versions with these.
 */
#include "isp/arith.h"
#include "isp/cnr.h"

void cisp_cnr_h_row_c(const uint16_t *y, const uint16_t *cb, const uint16_t *cr, uint16_t *ocb, uint16_t *ocr, int w,
		      const struct cisp_cnr_row_tables *t)
{
	for (int x = 0; x < w; x++) {
		const uint32_t y0 = y[x], b0 = cb[x], r0 = cr[x];
		const uint32_t iy = t->inv_y[y0 >> 11], ic = t->inv_c[y0 >> 11];
		uint32_t sw = 0, swb = 0, swr = 0;

		if (!t->enabled) {
			ocb[x] = (uint16_t)b0;
			ocr[x] = (uint16_t)r0;
			continue;
		}
		for (int k = -t->radius; k <= t->radius; k++) {
			int X = mirror(x + k, w);
			uint32_t wt = cisp_cnr_weight(absdiff_u32(y[X], y0), absdiff_u32(cb[X], b0), absdiff_u32(cr[X], r0),
						      iy, ic);

			sw += wt;
			swb += wt * cb[X];
			swr += wt * cr[X];
		}
		ocb[x] = cisp_cnr_mean(t->recip, sw, swb);
		ocr[x] = cisp_cnr_mean(t->recip, sw, swr);
	}
}

void cisp_cnr_v_row_c(const uint16_t *const y[], const uint16_t *const cb[], const uint16_t *const cr[],
		      uint16_t *ocb, uint16_t *ocr, int w, const struct cisp_cnr_row_tables *t)
{
	const int r = t->radius;

	for (int x = 0; x < w; x++) {
		const uint32_t yv = y[r][x], b0 = cb[r][x], r0 = cr[r][x];
		const uint32_t iy = t->inv_y[yv >> 11], ic = t->inv_c[yv >> 11];
		uint32_t sw = 0, swb = 0, swr = 0;

		if (!t->enabled) {
			ocb[x] = (uint16_t)b0;
			ocr[x] = (uint16_t)r0;
			continue;
		}
		for (int k = 0; k <= 2 * r; k++) {
			uint32_t wt = cisp_cnr_weight(absdiff_u32(y[k][x], yv), absdiff_u32(cb[k][x], b0),
						      absdiff_u32(cr[k][x], r0), iy, ic);

			sw += wt;
			swb += wt * cb[k][x];
			swr += wt * cr[k][x];
		}
		ocb[x] = cisp_cnr_mean(t->recip, sw, swb);
		ocr[x] = cisp_cnr_mean(t->recip, sw, swr);
	}
}
