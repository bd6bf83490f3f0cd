/* SPDX-License-Identifier: MIT */
/* Least-squares plane through samples: plane_fit.h. */
#include <math.h>

#include "core/matrix3.h"
#include "plane_fit.h"

double plane_fit_at_origin(const struct plane_fit *f)
{
	double m[3][3] = { { f->n, f->sx, f->sy }, { f->sx, f->sxx, f->sxy }, { f->sy, f->sxy, f->syy } }, mi[3][3];
	double scale = 0;

	if (f->n == 0)
		return 0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			scale = fmax(scale, fabs(m[i][j]));
	/* a is the first row of the inverse of the normal matrix times the right-hand side. */
	if (fabs(matrix3_invert(m, mi)) >= 1e-12 * scale * scale * scale)
		return mi[0][0] * f->sv + mi[0][1] * f->svx + mi[0][2] * f->svy;
	return f->sv / f->n;
}
