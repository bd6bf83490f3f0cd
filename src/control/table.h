/* SPDX-License-Identifier: MIT */
/*
 * Tuning tables by colour temperature or gain: the two entries around a value
 * and the fraction between them, for linear interpolation (in mired, 10^6 /
 * kelvin, for colour temperatures), clamped to the end entries outside.
 */
#ifndef CISP_CONTROL_TABLE_H
#define CISP_CONTROL_TABLE_H

#include <stdbool.h>
#include <stddef.h>

/* Entries i0 and i1 (equal at and beyond the ends) and the fraction f of the way from i0 to i1. */
struct bracket {
	unsigned i0, i1;
	double f;
};

/*
 * The bracket of @x in a table of @n entries sorted by a double key: the
 * first at @keys, each next @stride bytes further; linear in 1 / key when
 * @mired.
 */
struct bracket table_bracket(const double *keys, size_t stride, unsigned n, double x, bool mired);

/* a + f (b - a). */
double table_lerp(double a, double b, double f);

#endif /* CISP_CONTROL_TABLE_H */
