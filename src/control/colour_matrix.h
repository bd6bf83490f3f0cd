/* SPDX-License-Identifier: MIT */
/*
 * The colour matrix for a light (colour_matrix.c; docs/tuning.md, "ccm"):
 * the loop runs it as colour_matrix_algorithm; this is its core, for tests.
 */
#ifndef CISP_CONTROL_COLOUR_MATRIX_H
#define CISP_CONTROL_COLOUR_MATRIX_H

#include "tuning.h"

/*
 * The matrix (white-balanced camera RGB to linear sRGB) of @t for a light
 * AWB places at colour temperature @ct on the curve and @tint off it
 * (awb_curve_tint()), into @m.
 */
void colour_matrix_at(const struct cisp_tuning *t, double ct, double tint, double m[3][3]);

#endif /* CISP_CONTROL_COLOUR_MATRIX_H */
