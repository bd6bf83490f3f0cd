/* SPDX-License-Identifier: MIT */
/*
 * Row kernels of the Bayer denoise (docs/stages/bnr.md), for the dsp.h
 * table and the banded executor: the same arithmetic as cisp_bnr_rows(),
 * on whole rows with reflected columns instead of padded column strips.
 * tests/test_fastpath.c checks them against cisp_bnr_rows() through the
 * pipeline, tests/checkasm the optimised versions against these.
 */
#include "isp/arith.h"
#include "isp/bnr.h"

void cisp_bnr_guide_range_c(const uint16_t *a, const uint16_t *m, const uint16_t *b, uint16_t *d, int w, int x0,
			    int x1)
{
	for (int x = x0; x < x1; x++) {
		int l = mirror(x - 1, w), r = mirror(x + 1, w);

		d[x] = cisp_bnr_guide_at(cisp_bnr_guide_at(a[l], m[l], b[l]), cisp_bnr_guide_at(a[x], m[x], b[x]),
					 cisp_bnr_guide_at(a[r], m[r], b[r]));
	}
}

void cisp_bnr_guide_row_c(const uint16_t *a, const uint16_t *m, const uint16_t *b, uint16_t *d, int w)
{
	cisp_bnr_guide_range_c(a, m, b, d, w, 0, w);
}

void cisp_bnr_range_c(const uint16_t *const r[5], const uint16_t *const g[5], uint16_t *d, int w,
		      const struct cisp_bnr_row_tables *t, int x0, int x1)
{
	for (int x = x0; x < x1; x++) {
		const uint32_t v0 = r[2][x], g0 = g[2][x], inv = t->inv[x & 1][g0 >> 8];
		const int green = t->green[x & 1];
		uint32_t sw = 0, swv = 0;

		if (!t->enabled) {
			d[x] = (uint16_t)v0;
			continue;
		}
		for (int j = 0; j < 5; j += 2)
			for (int i = -2; i <= 2; i += 2) {
				/* Green sites take the diagonals below instead of the corners. */
				if (green && j != 2 && i)
					continue;
				int X = mirror(x + i, w);
				uint32_t v = r[j][X];
				uint32_t wt = cisp_bnr_tap_weight(absdiff_u32(g[j][X], g0), absdiff_u32(v, v0), inv);

				sw += wt;
				swv += wt * v;
			}
		if (green)
			for (int j = 1; j < 5; j += 2)
				for (int i = -1; i <= 1; i += 2) {
					int X = mirror(x + i, w);
					uint32_t v = r[j][X];
					uint32_t wt = cisp_bnr_tap_weight(absdiff_u32(g[j][X], g0), absdiff_u32(v, v0), inv);

					sw += wt;
					swv += wt * v;
				}
		d[x] = cisp_bnr_mean(swv, sw);
	}
}

void cisp_bnr_row_c(const uint16_t *const r[5], const uint16_t *const g[5], uint16_t *d, int w,
		    const struct cisp_bnr_row_tables *t)
{
	cisp_bnr_range_c(r, g, d, w, t, 0, w);
}
