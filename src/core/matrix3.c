/* SPDX-License-Identifier: MIT */
/* 3x3 matrices: matrix3.h. */
#include <math.h>

#include "matrix3.h"

double matrix3_invert(const double a[3][3], double out[3][3])
{
	double det = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
		     a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
		     a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);

	if (det == 0 || !isfinite(det))
		return 0;
	/* out[i][j] is the cofactor of a[j][i]: the rows and columns after them, cyclically. */
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;

			out[i][j] = (a[r0][c0] * a[r1][c1] - a[r0][c1] * a[r1][c0]) / det;
		}
	return det;
}
