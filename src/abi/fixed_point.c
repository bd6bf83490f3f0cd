/* SPDX-License-Identifier: MIT */
/* Real numbers into unsigned fixed-point fields: fixed_point.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "fixed_point.h"

uint16_t abi_fixed_u16(double value, double one)
{
	double q = round(value * one);

	if (!(q > 0)) /* also NaN */
		return 0;
	return (uint16_t)(q > 65535 ? 65535 : q);
}

int abi_fixed_ccm_row(const double row[3], int diag, bool keep_white, long q[3])
{
	const double limit = 1 << 30; /* far beyond int16, and safe to sum and scale in a long */
	long sum = 0, magnitude = 0;
	bool fits = true;

	for (int j = 0; j < 3; j++) {
		double v = row[j] * 4096;

		if (!(fabs(v) <= limit)) {
			v = isnan(v) ? 0 : v < 0 ? -limit : limit;
			fits = false;
		}
		q[j] = lround(v);
		sum += q[j];
	}
	if (keep_white)
		q[diag] += 4096 - sum;
	for (int j = 0; j < 3; j++)
		magnitude += labs(q[j]);
	return fits && magnitude <= 32767 ? 0 : -ERANGE;
}
