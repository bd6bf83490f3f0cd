/* SPDX-License-Identifier: MIT */
/*
 * Hand shake of the virtual sensor (docs/sensor.md, "Hand shake"): the scene
 * moves across the array along a path made of a slow drift and a
 * physiological tremor, each a sum of sinusoids whose frequencies and phases
 * come from the seed. A rolling shutter reads each row at its own time, so
 * each row has its own offset.
 */
#include <math.h>

#include "vsensor.h"

#define DRIFT_TERMS 3
#define TREMOR_TERMS 3

/* A number in [0, 1) drawn from (@seed, @index). */
static double unit(uint64_t seed, uint64_t index)
{
	return (double)(vs_mix64(seed ^ vs_mix64(index + 0x51A4E)) >> 11) * 0x1p-53;
}

/* One axis: a drift of peak 0.8 @amplitude at 0.5-3.5 Hz, a tremor of peak @amplitude / 5 at 8-12 Hz. */
static double axis(uint64_t seed, unsigned axis_index, double amplitude, double t)
{
	static const double drift_share[DRIFT_TERMS] = { 0.4, 0.25, 0.15 };
	double sum = 0;

	for (unsigned k = 0; k < DRIFT_TERMS; k++) {
		uint64_t i = axis_index * 16 + k;
		double f = 0.5 + 3.0 * unit(seed, 2 * i), phase = 2 * M_PI * unit(seed, 2 * i + 1);

		sum += drift_share[k] * amplitude * sin(2 * M_PI * f * t + phase);
	}
	for (unsigned k = 0; k < TREMOR_TERMS; k++) {
		uint64_t i = axis_index * 16 + 8 + k;
		double f = 8 + 4 * unit(seed, 2 * i), phase = 2 * M_PI * unit(seed, 2 * i + 1);

		sum += amplitude / (5.0 * TREMOR_TERMS) * sin(2 * M_PI * f * t + phase);
	}
	return sum;
}

void vs_shake_offset(uint64_t seed, double amplitude, double t_s, double *dx, double *dy)
{
	*dx = amplitude > 0 ? axis(seed, 0, amplitude, t_s) : 0;
	*dy = amplitude > 0 ? axis(seed, 1, amplitude, t_s) : 0;
}

/* Clamp a same-colour site index to [0, last]. */
static long clamp_site(long i, long last)
{
	return i < 0 ? 0 : i > last ? last : i;
}

void vs_shake_row(const float *clean, uint32_t w, uint32_t h, uint32_t y, double dx, double dy, float *out)
{
	/* Sites of the CFA colour of (x, y) lie every other column and row: interpolate among them. */
	for (uint32_t px = 0; px < 2 && px < w; px++) {
		uint32_t py = y & 1;
		double sx = -dx / 2, sy = ((double)y - dy - py) / 2;
		double fy = sy - floor(sy);
		long j0 = (long)floor(sy), last_j = (long)(h - 1 - py) / 2, last_i = (long)(w - 1 - px) / 2;
		const float *r0 = clean + (size_t)(py + 2 * clamp_site(j0, last_j)) * w + px;
		const float *r1 = clean + (size_t)(py + 2 * clamp_site(j0 + 1, last_j)) * w + px;
		double fx = sx - floor(sx);
		long i0 = (long)floor(sx);

		/*
		 * Column x = px + 2k reads sites i0 + k and i0 + k + 1 with the same weights.
		 * Columns [k0, k1) read inside the row with no clamping: that loop is the
		 * row's bulk, without branches; the few at the edges clamp.
		 */
		long columns = (long)(w - px + 1) / 2;
		long k0 = i0 < 0 ? -i0 : 0, k1 = last_i - i0;

		k0 = k0 < columns ? k0 : columns;
		k1 = k1 < k0 ? k0 : k1 < columns ? k1 : columns;
		for (long k = 0; k < columns; k++) {
			if (k == k0) {
				const float *t = r0 + 2 * (i0 + k0), *b = r1 + 2 * (i0 + k0);

				for (; k < k1; k++, t += 2, b += 2) {
					double top = t[0] + fx * (t[2] - t[0]);
					double bottom = b[0] + fx * (b[2] - b[0]);

					out[px + 2 * k] = (float)(top + fy * (bottom - top));
				}
				if (k == columns)
					break;
			}
			long a = clamp_site(i0 + k, last_i), b = clamp_site(i0 + k + 1, last_i);
			double top = r0[2 * a] + fx * (r0[2 * b] - r0[2 * a]);
			double bottom = r1[2 * a] + fx * (r1[2 * b] - r1[2 * a]);

			out[px + 2 * k] = (float)(top + fy * (bottom - top));
		}
	}
}
