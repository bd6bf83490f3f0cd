/* SPDX-License-Identifier: MIT */
/* Bayer-domain denoise, thresholds from the noise profile. */
#ifndef CISP_ISP_BNR_H
#define CISP_ISP_BNR_H

#include <cisp/format.h>
#include <cisp/params.h>

#include "plane.h"

struct cisp_bnr_coeffs;

/* Build the stage's tables; returns 0 or -ENOMEM. Free with cisp_bnr_free(). */
int cisp_bnr_prepare(struct cisp_bnr_coeffs **c, const struct cisp_bnr_params *p,
		     const struct cisp_noise_params *noise, enum cisp_cfa cfa);
void cisp_bnr_free(struct cisp_bnr_coeffs *c);
/* Rows of vertical support above and below an output row. */
int cisp_bnr_radius(const struct cisp_bnr_coeffs *c);
/*
 * 2^24 / (6 * sigma * strength / 256), rounded, at most 65535, where sigma^2 =
 * a * level / 2^16 + b (docs/stages/bnr.md): the scale of the tap weights.
 */
uint16_t cisp_bnr_inv_sigma(uint32_t a, uint32_t b, uint16_t strength, uint32_t level);
/* Rows [y0, y1) of @out from @in; @in != @out. */
void cisp_bnr_rows(const struct cisp_bnr_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);

#endif
