/* SPDX-License-Identifier: MIT */
/* Defective pixel correction: a static list plus dynamic detection. */
#ifndef CISP_ISP_DPC_H
#define CISP_ISP_DPC_H

#include <cisp/params.h>

#include "plane.h"

struct cisp_dpc_coeffs {
	uint16_t threshold;                 /* 0: dynamic detection off */
	const struct cisp_dpc_pixel *pixels; /* sorted static list (points into the params state) */
	unsigned count;
};

void cisp_dpc_prepare(struct cisp_dpc_coeffs *c, const struct cisp_dpc_params *p);
/* Rows [y0, y1) of @out from @in (reads 2 rows above and below); @in != @out. */
void cisp_dpc_rows(const struct cisp_dpc_coeffs *c, const struct plane16 *in, const struct plane16 *out,
		   int y0, int y1);

#endif
