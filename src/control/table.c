/* SPDX-License-Identifier: MIT */
/* Tuning tables by colour temperature or gain: table.h. */
#include "table.h"

struct bracket table_bracket(const double *keys, size_t stride, unsigned n, double x, bool mired)
{
	struct bracket b = { 0, 0, 0 };
#define KEY(i) (*(const double *)((const char *)keys + (i) * stride))
	if (n <= 1 || x <= KEY(0))
		return b;
	if (x >= KEY(n - 1)) {
		b.i0 = b.i1 = n - 1;
		return b;
	}
	for (b.i1 = 1; b.i1 < n - 1 && KEY(b.i1) < x; b.i1++)
		;
	b.i0 = b.i1 - 1;
	if (mired)
		b.f = (1 / KEY(b.i0) - 1 / x) / (1 / KEY(b.i0) - 1 / KEY(b.i1));
	else
		b.f = (x - KEY(b.i0)) / (KEY(b.i1) - KEY(b.i0));
#undef KEY
	return b;
}

double table_lerp(double a, double b, double f)
{
	return a + f * (b - a);
}
