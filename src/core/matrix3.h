/* SPDX-License-Identifier: MIT */
/* 3x3 matrices of doubles: colour matrices and small least-squares systems. */
#ifndef CISP_CORE_MATRIX3_H
#define CISP_CORE_MATRIX3_H

/*
 * Invert @a by its cofactors over its determinant and return the
 * determinant, or 0 when that is zero or not finite (then @out is left as
 * it was). Callers judge how near singular a matrix they accept by comparing
 * the returned value with their own tolerance.
 */
double matrix3_invert(const double a[3][3], double out[3][3]);

#endif /* CISP_CORE_MATRIX3_H */
