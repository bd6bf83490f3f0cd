/* SPDX-License-Identifier: MIT */
/*
 * The per-pixel parts of the virtual sensor: optics (lens shading and blur),
 * noise (photon shot noise, read noise, quantisation) and readout (rolling
 * shutter flicker, test patterns, writing rows in the output format).
 */
#ifndef CISP_SENSOR_VIRTUAL_VSENSOR_H
#define CISP_SENSOR_VIRTUAL_VSENSOR_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/image.h>
#include <cisp/sensor.h>

/* ---- optics.c ---- */

/*
 * Lens shading: the relative illumination of channel c (R, G, B) at a
 * normalised radius r (0 at the optical centre, 1 in the array's corners)
 * is 1 / (1 + k[c] * r^2)^2, the cos^4 law of a lens whose field angle
 * grows with r, with k chosen per channel so the corner gets corner[c].
 */
void vs_shading_k(const double corner[3], double k[3]);

/*
 * Blur a plane in place with an approximately Gaussian PSF of standard
 * deviation @sigma pixels: three passes of an extended box filter each way
 * (exact variance for any sigma), edges reflected. @tmp holds w * h floats.
 */
void vs_blur(float *plane, uint32_t w, uint32_t h, double sigma, float *tmp);

/* ---- noise.c ---- */

/* What one frame's rows share. Electrons are summed over a binned pixel's n sites. */
struct vs_noise_frame {
	float dark_e;    /* mean dark electrons */
	float gain;      /* codes per summed electron */
	float full_well; /* summed electrons at saturation */
	float read_dn;   /* read + ADC noise, codes rms */
	float black;     /* the black level the mode reports, codes: where digital gain pivots */
	int32_t white;   /* the largest code */
	int32_t dgain;   /* digital gain, 8 fractional bits */
	bool noise;      /* false: the mean only, no randomness */
};

/*
 * What is fixed about one output row of the pixel array: the true pedestal
 * of its even and odd columns (codes), and per pixel the gain and offset
 * errors (photo-response and dark signal non-uniformity; NULL: none).
 */
struct vs_noise_pattern {
	float black[2];
	const float *gain;
	const float *offset;
};

/*
 * One output row: @clean holds mean electron rates, @scale turns them into
 * mean electrons for this row (exposure, flicker, lux, binning). The noise
 * of each row comes from its own generator seeded with (@seed, @frame, @row),
 * so rows can be rendered in any order or in parallel.
 */
void vs_noise_row(const struct vs_noise_frame *f, const struct vs_noise_pattern *p, const float *clean, float scale,
		  uint64_t seed, uint64_t frame, uint32_t row, uint16_t *out, uint32_t w);

/*
 * The fixed pattern noise of the array site (@x, @y): a standard normal
 * number that never changes for a given @seed.
 */
float vs_fixed_normal(uint64_t seed, uint32_t x, uint32_t y);

/* A 64-bit mixing function (splitmix64's finaliser). */
uint64_t vs_mix64(uint64_t x);

/* ---- shake.c ---- */

/*
 * The offset (@dx, @dy), in output pixels, of the scene at time @t_s
 * seconds for hand shake of @amplitude pixels (0: none): a drift at
 * 0.5-3.5 Hz plus a tremor at 8-12 Hz, drawn from @seed.
 */
void vs_shake_offset(uint64_t seed, double amplitude, double t_s, double *dx, double *dy);

/*
 * Row @y of the mosaic @clean (@w x @h electron rates, any CFA) with the
 * scene moved by (@dx, @dy): each pixel interpolated bilinearly among the
 * sites of its own CFA colour, edges repeated. Even whole offsets copy.
 */
void vs_shake_row(const float *clean, uint32_t w, uint32_t h, uint32_t y, double dx, double dy, float *out);

/* ---- gyro.c ---- */

/* What the gyroscope model needs of a virtual sensor's current state. */
struct vs_gyro_source {
	uint64_t seed;
	double amplitude; /* option shake */
	double focal_px;  /* of the current mode (vs_gyro_focal_px()) */
};

/*
 * The gyroscope's source for virtual sensor @s (virtual.c); -ENOTSUP with a
 * message for another sensor.
 */
int vs_gyro_source(struct cisp_sensor *s, struct vs_gyro_source *src);

/* The model's focal length in pixels of a mode binning @binning of an array @array_width wide. */
double vs_gyro_focal_px(uint32_t array_width, unsigned binning);

/* ---- readout.c ---- */

/*
 * Mean light level over one row's exposure, for light modulated as
 * 1 + depth * cos(2 pi * 2 * mains_hz * t): the row's exposure ends at
 * @t_end_ns and lasts @exposure_ns.
 */
double vs_flicker_mean(double depth, unsigned mains_hz, uint64_t t_end_ns, double exposure_ns);

/* One row of a test pattern (enum cisp_sensor_test_pattern), in codes. */
void vs_pattern_row(int pattern, const struct cisp_sensor_mode *mode, uint32_t y, uint16_t *out);

/* Store one row of codes of @bits into @img: unpacked, 16-bit scaled, or CSI-2 packed. */
void vs_write_row(struct cisp_image *img, uint32_t y, const uint16_t *row, unsigned bits);

#endif
