/* SPDX-License-Identifier: MIT */
/* Real numbers into unsigned fixed-point fields: fixed_point.h. */
#include <math.h>

#include "fixed_point.h"

uint16_t abi_fixed_u16(double value, double one)
{
	double q = round(value * one);

	if (!(q > 0)) /* also NaN */
		return 0;
	return (uint16_t)(q > 65535 ? 65535 : q);
}
