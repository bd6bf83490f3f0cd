/* SPDX-License-Identifier: MIT */
/* Bayer-domain denoise, thresholds from the noise profile. */
#ifndef CISP_ISP_BNR_H
#define CISP_ISP_BNR_H

#include <cisp/format.h>
#include <cisp/params.h>

#include "core/plane.h"

struct cisp_bnr_coeffs;
struct cisp_bnr_quality;

/* Build the stage's tables; returns 0 or -ENOMEM. Free with cisp_bnr_free(). */
int cisp_bnr_prepare(struct cisp_bnr_coeffs **c, const struct cisp_bnr_params *p,
		     const struct cisp_noise_params *noise, enum cisp_cfa cfa);
void cisp_bnr_free(struct cisp_bnr_coeffs *c);
/* Rows of vertical support above and below an output row (3, or 7 in CISP_BNR_QUALITY). */
int cisp_bnr_radius(const struct cisp_bnr_coeffs *c);
/* The filter (enum cisp_bnr_mode); the row kernels below are CISP_BNR_FAST's. */
int cisp_bnr_mode(const struct cisp_bnr_coeffs *c);
/*
 * 2^24 / (6 * sigma * strength / 256), rounded, at most 65535, where sigma^2 =
 * a * level / 2^16 + b (docs/stages/bnr.md): the scale of the tap weights.
 */
uint16_t cisp_bnr_inv_sigma(uint32_t a, uint32_t b, uint16_t strength, uint32_t level);
/*
 * The noise scale is taken at CISP_BNR_BINS levels, one for each guide level >> CISP_BNR_BIN_SHIFT;
 * the tables below keep an entry for each level >> 8 (what every implementation indexes), equal in
 * runs of 2^(CISP_BNR_BIN_SHIFT - 8), so that a vector level can hold a site's scales in one register.
 */
#define CISP_BNR_BIN_SHIFT 11
#define CISP_BNR_BINS (65536 >> CISP_BNR_BIN_SHIFT)
/*
 * What one row's kernel needs (bnr_row.c, the dsp.h entries): inv of the
 * row's even and odd columns by guide level >> 8, whether they are green
 * sites, and whether the stage changes anything (strength > 0).
 */
struct cisp_bnr_row_tables {
	const uint16_t *inv[2];
	uint8_t green[2];
	int enabled;
};
void cisp_bnr_tables(const struct cisp_bnr_coeffs *c, int y, struct cisp_bnr_row_tables *t);

/*
 * The guide's 1 2 1 filter of @a, @b, @c (@b the middle one): two halvings
 * rounded up, as the SIMD average instructions do them; the guide of a
 * pixel is this across the columns of this down the rows.
 */
static inline uint16_t cisp_bnr_guide_at(uint32_t a, uint32_t b, uint32_t c)
{
	return (uint16_t)((((a + c + 1) >> 1) + b + 1) >> 1);
}

/* @v rounded to the 24 significant bits of a single-precision float, ties to even. */
static inline uint64_t cisp_bnr_round24(uint64_t v)
{
	const int drop = 64 - __builtin_clzll(v | 1) - 24;
	uint64_t keep, rest, half;

	if (drop <= 0)
		return v;
	keep = v >> drop;
	rest = v & ((1ull << drop) - 1);
	half = 1ull << (drop - 1);
	if (rest > half || (rest == half && (keep & 1)))
		keep++;
	return keep << drop;
}

/*
 * The scales of a tap's guide and sample distances from the centre's
 * cisp_bnr_inv_sigma() @inv: 3/8 and 3/16 of it, so that the distances
 * below reach 64 at 4 and 8 scaled sigmas.
 */
static inline uint32_t cisp_bnr_guide_scale(uint32_t inv)
{
	return (inv * 3) >> 3;
}

static inline uint32_t cisp_bnr_sample_scale(uint32_t inv)
{
	return (inv * 3) >> 4;
}

/*
 * The weight of one tap (docs/stages/bnr.md), 0..64, a tent falling with the
 * sum of the two distances: @dg and @dv are the absolute differences of its
 * guide and its sample to the centre's, @inv the centre's cisp_bnr_inv_sigma().
 */
static inline uint32_t cisp_bnr_tap_weight(uint32_t dg, uint32_t dv, uint32_t inv)
{
	const uint32_t u = ((dg * cisp_bnr_guide_scale(inv)) >> 16) + ((dv * cisp_bnr_sample_scale(inv)) >> 16);

	return u >= 64 ? 0 : 64 - u;
}

/*
 * The weighted mean Σw·v / Σw of a pixel (Σw 64..576, Σw·v < 2^26), rounded
 * as single precision rounds (uint32_t)((float)swv / (float)sw + 0.5f), each
 * step to nearest even: the bits every SIMD level's division (div_round32())
 * gives. Computed here in integers so that the reference has no floating
 * point (the kernel module runs it). With a = swv rounded to 24 bits (as the
 * conversion to float does), the float mean is R0 = floor((2a + sw) / 2sw),
 * the exact a / sw rounded half up, except where the float quotient rounds
 * up onto R0 + 1/2: only there, from below, by at most half its unit
 * 2^(e-23), e = floor(log2(R0)); a / sw steps by 1/sw >= 1/576 > 2^-10, so
 * that needs e >= 14. Then the result is R0 + 1 when (2sw - rem) / 2sw, the
 * distance to the next half, is at most 2^(e-24). Checked once against the
 * float formula for every Σw and every Σw·v <= 65535 Σw (beyond, both give
 * 65535: a >= 65535 Σw - 2); test_freestanding.c samples those boundaries.
 */
static inline uint16_t cisp_bnr_mean(uint32_t swv, uint32_t sw)
{
	const uint32_t a = (uint32_t)cisp_bnr_round24(swv), n = 2 * a + sw, d = 2 * sw;
	uint32_t r0 = n / d;
	const uint32_t below = d - (n - r0 * d); /* 1..d: from the quotient to the next half */

	if ((r0 >= 32768 && below * 512 <= d) || (r0 >= 16384 && r0 < 32768 && below * 1024 <= d))
		r0++;
	return (uint16_t)(r0 > 65535 ? 65535 : r0);
}
/*
 * Row kernels (bnr_row.c): the guide of a row from the input rows above
 * (a), at (m) and below (b) it; one output row from input rows r[0..4]
 * (y-2..y+2) and their guide rows g[0..4], all reflected rows of the frame.
 * The _range versions compute columns [x0, x1) only.
 */
void cisp_bnr_guide_row_c(const uint16_t *a, const uint16_t *m, const uint16_t *b, uint16_t *d, int w);
void cisp_bnr_guide_range_c(const uint16_t *a, const uint16_t *m, const uint16_t *b, uint16_t *d, int w, int x0,
			    int x1);
void cisp_bnr_row_c(const uint16_t *const r[5], const uint16_t *const g[5], uint16_t *d, int w,
		    const struct cisp_bnr_row_tables *t);
void cisp_bnr_range_c(const uint16_t *const r[5], const uint16_t *const g[5], uint16_t *d, int w,
		      const struct cisp_bnr_row_tables *t, int x0, int x1);
/* CISP_BNR_QUALITY's parameters (bnr_quality.h), or NULL in the fast mode or at strength 0. */
const struct cisp_bnr_quality *cisp_bnr_quality_params(const struct cisp_bnr_coeffs *c);
/* Rows [y0, y1) of @out from @in, in either mode; @in != @out. */
void cisp_bnr_rows(const struct cisp_bnr_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);

#endif
