/* SPDX-License-Identifier: MIT */
/* A sensor's black and white levels as the BLC block: sensor_levels.h. */
#include <errno.h>
#include <math.h>

#include <cisp/sensor_levels.h>

#include "core/error_internal.h"

/* The BLC block needs white - black of at least this, in 16-bit units (params.h). */
#define MIN_RANGE 16384

int cisp_blc_from_sensor_levels(struct cisp_blc_params *blc, const double black[4], double white, unsigned bits)
{
	double one, white16, black16[4];

	if (bits < 8 || bits > 16)
		return cisp_error(-EINVAL, "sensor levels: a depth of %u bits is outside 8..16", bits);
	one = (double)(1u << (16 - bits));
	if (!isfinite(white) || white < 0)
		return cisp_error(-EINVAL, "sensor levels: white level %g is not a level", white);
	white16 = fmin(round(white * one), 65535);
	for (int c = 0; c < 4; c++) {
		if (!isfinite(black[c]) || black[c] < 0)
			return cisp_error(-EINVAL, "sensor levels: black level %g is not a level", black[c]);
		black16[c] = round(black[c] * one);
		if (black16[c] + MIN_RANGE > white16)
			return cisp_error(-EINVAL,
					  "black level %g and white level %g leave too small a signal range (white - "
					  "black must be at least a quarter of the %u-bit range)",
					  black[c], white, bits);
	}
	for (int c = 0; c < 4; c++)
		blc->black[c] = (uint16_t)black16[c];
	blc->white = (uint16_t)white16;
	return 0;
}
