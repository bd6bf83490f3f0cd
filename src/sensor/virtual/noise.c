/* SPDX-License-Identifier: MIT */
/*
 * Noise of the virtual sensor. Per pixel, with m the mean electrons:
 *   e = min(m + sqrt(m) z1, full well)          photon and dark shot noise
 *   v = e * gain + black + read_dn * z2          read and ADC noise
 * (with fixed pattern noise, m is scaled by the pixel's gain error and its
 * offset is added to black)
 *   q = clamp(round(v), 0, white)                quantisation
 *   q = clamp(black + round((q - black) * dgain), 0, white)   digital gain
 * z1, z2 are standard normal numbers drawn from a table of 4096 quantiles
 * (N(0,1) at (i + 0.5) / 4096, rescaled to variance 1) indexed by 12 random
 * bits, so the noise is exactly zero-mean with unit variance and costs a
 * table load. Shot noise is Gaussian with the Poisson variance (not clamped
 * at zero, so means stay unbiased); below about 10 electrons the shape of a
 * real Poisson distribution is not reproduced.
 */
#include <math.h>
#include <pthread.h>

#include "vsensor.h"

#define NORMAL_BITS 12
#define NORMAL_SIZE (1u << NORMAL_BITS)

static float normal[NORMAL_SIZE];
static pthread_once_t normal_once = PTHREAD_ONCE_INIT;

/* The standard normal quantile by bisection on erfc: exact to double precision, no fitted constants. */
static double quantile(double p)
{
	double lo = -10, hi = 10;

	for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
		double mid = (lo + hi) / 2;

		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void make_normal(void)
{
	double q[NORMAL_SIZE], var = 0;

	for (unsigned i = 0; i < NORMAL_SIZE / 2; i++) {
		q[i] = quantile((i + 0.5) / NORMAL_SIZE);
		q[NORMAL_SIZE - 1 - i] = -q[i]; /* exactly symmetric: mean 0 */
	}
	for (unsigned i = 0; i < NORMAL_SIZE; i++)
		var += q[i] * q[i];
	var /= NORMAL_SIZE;
	for (unsigned i = 0; i < NORMAL_SIZE; i++)
		normal[i] = (float)(q[i] / sqrt(var));
}

uint64_t vs_mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static inline uint64_t next(uint64_t *s)
{
	/* xorshift64*: 64-bit state, never zero once seeded non-zero. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

static inline uint16_t quantise(const struct vs_noise_frame *f, float v)
{
	int32_t q = v <= 0.0f ? 0 : (int32_t)(v + 0.5f);

	if (f->dgain != 256) {
		int32_t b = (int32_t)f->black, t = (q - b) * f->dgain;

		q = b + (t >= 0 ? (t + 128) >> 8 : -((-t + 128) >> 8));
		if (q < 0)
			q = 0;
	}
	return (uint16_t)(q > f->white ? f->white : q);
}

float vs_fixed_normal(uint64_t seed, uint32_t x, uint32_t y)
{
	pthread_once(&normal_once, make_normal);
	return normal[vs_mix64(seed ^ vs_mix64(((uint64_t)y << 32) | x)) & (NORMAL_SIZE - 1)];
}

/* One noisy pixel: @z1 and @z2 are its shot and read noise draws. */
static inline uint16_t noisy_pixel(const struct vs_noise_frame *f, const struct vs_noise_pattern *p,
				   const float *clean, float scale, uint32_t x, float z1, float z2)
{
	float m = clean[x] * scale * (p->gain ? p->gain[x] : 1.0f) + f->dark_e;
	float e = m + sqrtf(m) * z1;
	float black = p->black[x & 1] + (p->offset ? p->offset[x] : 0.0f);

	if (e > f->full_well)
		e = f->full_well;
	return quantise(f, e * f->gain + black + f->read_dn * z2);
}

void vs_noise_row(const struct vs_noise_frame *f, const struct vs_noise_pattern *p, const float *clean, float scale,
		  uint64_t seed, uint64_t frame, uint32_t row, uint16_t *out, uint32_t w)
{
	const float gain = f->gain, fw = f->full_well, dark = f->dark_e;
	uint32_t x;
	uint64_t s, r;

	pthread_once(&normal_once, make_normal);
	if (!f->noise) {
		for (x = 0; x < w; x++) {
			float m = clean[x] * scale * (p->gain ? p->gain[x] : 1.0f) + dark;
			float black = p->black[x & 1] + (p->offset ? p->offset[x] : 0.0f);

			out[x] = quantise(f, (m < fw ? m : fw) * gain + black);
		}
		return;
	}
	s = vs_mix64(seed ^ vs_mix64(frame ^ vs_mix64(row))) | 1;
	/* Each 64-bit draw gives four 12-bit table indices: two pixels (the last one alone in an odd row). */
	for (x = 0; x + 1 < w; x += 2) {
		r = next(&s);
		out[x] = noisy_pixel(f, p, clean, scale, x, normal[r & (NORMAL_SIZE - 1)],
				     normal[(r >> 12) & (NORMAL_SIZE - 1)]);
		out[x + 1] = noisy_pixel(f, p, clean, scale, x + 1, normal[(r >> 24) & (NORMAL_SIZE - 1)],
					 normal[(r >> 36) & (NORMAL_SIZE - 1)]);
	}
	if (x < w) {
		r = next(&s);
		out[x] = noisy_pixel(f, p, clean, scale, x, normal[r & (NORMAL_SIZE - 1)],
				     normal[(r >> 12) & (NORMAL_SIZE - 1)]);
	}
}
