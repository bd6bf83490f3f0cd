/* SPDX-License-Identifier: MIT */
/* Chroma denoise on full-resolution YCbCr, thresholds from the noise profile. */
#ifndef CISP_ISP_CNR_H
#define CISP_ISP_CNR_H

#include <cisp/params.h>

#include "core/plane.h"

struct cisp_cnr_coeffs;

/*
 * What the pipeline does to the noise between the sensor and the CNR stage,
 * for the threshold tables (docs/stages/cnr.md). A NULL pointer is the
 * identity (the stage disabled).
 */
struct cisp_cnr_gains {
	const struct cisp_wb_params *wb;
	const struct cisp_ccm_params *ccm;
	const uint16_t *tone_lut; /* 65536 entries: linear code -> output code */
	const struct cisp_csc_params *csc;
};

/* Build the stage's tables; returns 0 or -ENOMEM. Free with cisp_cnr_free(). */
int cisp_cnr_prepare(struct cisp_cnr_coeffs **c, const struct cisp_cnr_params *p,
		     const struct cisp_noise_params *noise, const struct cisp_cnr_gains *g);
void cisp_cnr_free(struct cisp_cnr_coeffs *c);
/* Rows of vertical support above and below an output row (the radius). */
int cisp_cnr_radius(const struct cisp_cnr_coeffs *c);
/*
 * The derived noise standard deviations, 16-bit units, of Y-code bin @bin
 * (0..31, Y in [bin * 2048, bin * 2048 + 2048)): luma in @sy, chroma in @sc.
 */
void cisp_cnr_sigma(const struct cisp_cnr_coeffs *c, int bin, uint32_t *sy, uint32_t *sc);
/*
 * What the row kernels need (cnr_row.c, the dsp.h entries): whether the
 * stage changes anything, its radius, the per Y-bin (Y >> 11) inverse
 * thresholds of luma and chroma, R[n] (n in 64..(2 * radius + 1) * 64).
 */
struct cisp_cnr_row_tables {
	int enabled, radius;
	const uint16_t *inv_y, *inv_c;
	const uint32_t *recip;
};
void cisp_cnr_tables(const struct cisp_cnr_coeffs *c, struct cisp_cnr_row_tables *t);
/*
 * The weight of a tap (docs/stages/cnr.md): @dy, @dcb, @dcr its distances to
 * the centre, @inv_y and @inv_c the centre's inverse thresholds; each
 * distance in Q7 units of its threshold, u = min(128, d * inv >> 16).
 */
static inline uint32_t cisp_cnr_weight(uint32_t dy, uint32_t dcb, uint32_t dcr, uint32_t inv_y, uint32_t inv_c)
{
	uint32_t uy = (dy * inv_y) >> 16, ub = (dcb * inv_c) >> 16, ur = (dcr * inv_c) >> 16;
	int32_t t;

	uy = uy > 128 ? 128 : uy;
	ub = ub > 128 ? 128 : ub;
	ur = ur > 128 ? 128 : ur;
	t = 16384 - (int32_t)(uy * uy) - (int32_t)(ub * ub) - (int32_t)(ur * ur);
	return t <= 0 ? 0 : ((uint32_t)t * (uint32_t)t) >> 22;
}

/* The weighted mean Σw·v / Σw as (Σw·v · R[Σw] + 2^31) >> 32, at most 65535; @recip: R. */
static inline uint16_t cisp_cnr_mean(const uint32_t *recip, uint32_t sw, uint32_t swv)
{
	uint64_t o = ((uint64_t)swv * recip[sw] + (1u << 31)) >> 32;

	return (uint16_t)(o > 65535 ? 65535 : o);
}

/*
 * Row kernels (cnr_row.c): the horizontal pass of a row (Cb, Cr filtered
 * along the row, Y unchanged), and the vertical pass of a row from the
 * horizontally filtered rows y - radius .. y + radius (reflected), whose
 * middle one (index radius) holds the row's own Y.
 */
void cisp_cnr_h_row_c(const uint16_t *y, const uint16_t *cb, const uint16_t *cr, uint16_t *ocb, uint16_t *ocr, int w,
		      const struct cisp_cnr_row_tables *t);
void cisp_cnr_v_row_c(const uint16_t *const y[], const uint16_t *const cb[], const uint16_t *const cr[],
		      uint16_t *ocb, uint16_t *ocr, int w, const struct cisp_cnr_row_tables *t);
/*
 * Rows [y0, y1) of @out (Y, Cb, Cr) from @in: Y is copied, unless @out's Y
 * plane is @in's (then it is left alone); @out's Cb and Cr planes must not be
 * @in's (bands read rows around them).
 */
void cisp_cnr_rows(const struct cisp_cnr_coeffs *c, const struct rgb16 *in, const struct rgb16 *out, int y0,
		   int y1);

#endif
