/* SPDX-License-Identifier: MIT */
/*
 * The virtual sensor's gyroscope (docs/sensor.md, "Gyroscope"): samples of
 * the angular rate of the hand shake that shake.c renders, plus a constant
 * bias and white noise, both drawn from the seed. A sample is the mean rate
 * over its interval, so integrating the samples gives back the rendered path
 * (but for the bias and noise) exactly.
 */
#include <errno.h>
#include <math.h>

#include <cisp/gyro.h>

#include "core/error_internal.h"
#include "vsensor.h"

#define GYRO_PERIOD_NS 2500000 /* 400 Hz */
#define GYRO_FIELD_OF_VIEW_DEG 70.0
#define DEG (M_PI / 180)
#define GYRO_NOISE_DENSITY (0.007 * DEG) /* rad/s per root Hz */
#define GYRO_BIAS_MAX (0.2 * DEG)        /* rad/s */

double vs_gyro_focal_px(uint32_t array_width, unsigned binning)
{
	return array_width / 2.0 / tan(GYRO_FIELD_OF_VIEW_DEG / 2 * DEG) / (binning ? binning : 1);
}

/* A number in (0, 1) drawn from (@seed, @index). */
static double open_unit(uint64_t seed, uint64_t index)
{
	return ((double)(vs_mix64(seed ^ vs_mix64(index ^ 0x6A09E667F3BCC908ull)) >> 11) + 0.5) * 0x1p-53;
}

/* A standard normal number drawn from (@seed, @index) (Box-Muller). */
static double normal(uint64_t seed, uint64_t index)
{
	return sqrt(-2 * log(open_unit(seed, 2 * index))) * cos(2 * M_PI * open_unit(seed, 2 * index + 1));
}

/* The angles (about x, y) of the shake at @t_ns. */
static void angles(const struct vs_gyro_source *src, double t_ns, double a[2])
{
	double dx, dy;

	vs_shake_offset(src->seed, src->amplitude, t_ns * 1e-9, &dx, &dy);
	a[0] = dy / src->focal_px;
	a[1] = dx / src->focal_px;
}

static void sample(const struct vs_gyro_source *src, uint64_t k, struct cisp_gyro_sample *out)
{
	double t = (double)k * GYRO_PERIOD_NS, a0[2], a1[2], sigma = GYRO_NOISE_DENSITY * sqrt(0.5e9 / GYRO_PERIOD_NS);

	angles(src, t - GYRO_PERIOD_NS, a0);
	angles(src, t, a1);
	out->timestamp_ns = k * GYRO_PERIOD_NS;
	for (unsigned axis = 0; axis < 3; axis++) {
		double truth = axis < 2 ? (a1[axis] - a0[axis]) / (GYRO_PERIOD_NS * 1e-9) : 0; /* no roll is rendered */
		double bias = GYRO_BIAS_MAX * (2 * open_unit(src->seed ^ 0xB1A5, axis) - 1);

		out->rate[axis] = truth + bias + sigma * normal(src->seed ^ 0x9E7, 3 * k + axis);
	}
}

int cisp_sensor_gyro_info(struct cisp_sensor *s, struct cisp_gyro_info *info)
{
	struct vs_gyro_source src;
	int r = vs_gyro_source(s, &src);

	if (r)
		return r;
	*info = (struct cisp_gyro_info){ GYRO_PERIOD_NS, src.focal_px, GYRO_NOISE_DENSITY, GYRO_BIAS_MAX };
	return 0;
}

int cisp_sensor_gyro(struct cisp_sensor *s, uint64_t from_ns, uint64_t to_ns, struct cisp_gyro_sample *samples,
		     unsigned max)
{
	struct vs_gyro_source src;
	uint64_t first, last;
	int r = vs_gyro_source(s, &src);

	if (r)
		return r;
	if (to_ns < from_ns)
		return cisp_error(-EINVAL, "gyroscope: interval ends at %llu ns, before its start at %llu ns",
				  (unsigned long long)to_ns, (unsigned long long)from_ns);
	first = from_ns / GYRO_PERIOD_NS + 1; /* samples end in (from, to] */
	last = to_ns / GYRO_PERIOD_NS;
	if (last < first)
		return 0;
	if (last - first >= CISP_GYRO_MAX_SAMPLES)
		return cisp_error(-EINVAL, "gyroscope: %llu samples asked for, more than %d",
				  (unsigned long long)(last - first + 1), CISP_GYRO_MAX_SAMPLES);
	for (uint64_t k = first; k <= last && k - first < max; k++)
		sample(&src, k, &samples[k - first]);
	return (int)(last - first + 1);
}
