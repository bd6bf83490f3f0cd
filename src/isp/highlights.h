/* SPDX-License-Identifier: MIT */
/* Clipped highlights after white balance, in the Bayer domain (docs/stages/highlights.md). */
#ifndef CISP_ISP_HIGHLIGHTS_H
#define CISP_ISP_HIGHLIGHTS_H

#include <stdint.h>

#include <cisp/format.h>
#include <cisp/params.h>

#include "core/plane.h"

/* Colours of the CFA sites, as the stage groups them (both greens are green). */
enum { HL_RED, HL_GREEN, HL_BLUE };

struct cisp_highlights_coeffs {
	uint16_t mode;      /* enum cisp_highlights_mode */
	uint16_t white;     /* W: the lowest of the colours' clip levels */
	uint16_t knee;      /* the lowest of the colours' knees: below it nothing moves */
	uint16_t clip[3];   /* C[k]: where colour k clips after its white-balance gain */
	uint16_t knees[3];  /* K[k]: where colour k's roll-off starts */
	uint32_t ramp[3];   /* 2^24 / max(C[k] - K[k], 1) rounded up: colour k's roll-off slope */
	uint16_t floors[3]; /* F[k] = C[k] / 4: below it colour k makes the light a saturated colour */
	uint32_t framp[3];  /* 2^24 / max(C[k] / 2 - F[k], 1) rounded up: from F[k] to C[k] / 2 */
	uint8_t colour[4];  /* HL_* per CFA site, index (y & 1) * 2 + (x & 1) */
};

/* The tables for @p, after the gains @wb (NULL: white balance is off). */
void cisp_highlights_prepare(struct cisp_highlights_coeffs *c, const struct cisp_highlights_params *p,
			     const struct cisp_wb_params *wb, enum cisp_cfa cfa);
/* Rows of support the stage reads above and below each row in @mode. */
int cisp_highlights_radius(unsigned mode);
/*
 * Row @y of @w samples into @out, from @rows: the input rows y - 2 .. y + 2,
 * reflected at the frame edges (rows[2] is row y; rows[0] and rows[4] are
 * read only in reconstruct). The reference of dsp.h's highlights_row.
 */
void cisp_highlights_row_c(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], uint16_t *out,
			   int w, int y);
/* Columns [x0, x1) of that row: what the optimised rows leave to C. */
void cisp_highlights_span_c(const struct cisp_highlights_coeffs *c, const uint16_t *const rows[5], uint16_t *out,
			    int w, int y, int x0, int x1);
/* Rows [y0, y1) of @out from @in (whole-frame planes, not the same). */
void cisp_highlights_rows(const struct cisp_highlights_coeffs *c, const struct plane16 *in,
			  const struct plane16 *out, int y0, int y1);

#endif
