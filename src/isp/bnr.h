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
/* Rows [y0, y1) of @out from @in; @in != @out. */
void cisp_bnr_rows(const struct cisp_bnr_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);

#endif
