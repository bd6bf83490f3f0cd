/* SPDX-License-Identifier: MIT */
/* 3A convergence: frames to settle within a tolerance, and the final error. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <cisp/iq_converge.h>

#include "core/error_internal.h"

int cisp_iq_convergence(const double *values, unsigned count, double target, double tolerance,
			struct cisp_iq_convergence *res)
{
	memset(res, 0, sizeof(*res));
	if (count == 0 || count > CISP_IQ_MAX_FRAMES)
		return cisp_error(-EINVAL, "%u frames; a convergence record holds 1..%d", count, CISP_IQ_MAX_FRAMES);
	if (!(tolerance >= 0) || !isfinite(target))
		return cisp_error(-EINVAL, "tolerance %g or target %g is not usable", tolerance, target);
	res->count = count;
	res->target = target;
	res->tolerance = tolerance;
	memcpy(res->value, values, count * sizeof(double));
	res->frames = -1;
	/* Walk back from the end while the frames are within tolerance. */
	for (int i = (int)count - 1; i >= 0; i--) {
		if (!(fabs(values[i] - target) <= tolerance))
			break;
		res->frames = i;
	}
	res->converged = res->frames >= 0;
	res->final_error = fabs(values[count - 1] - target);
	return 0;
}
