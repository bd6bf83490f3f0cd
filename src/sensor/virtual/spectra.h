/* SPDX-License-Identifier: MIT */
/*
 * Spectra of the virtual sensor: published tables (spectra_data.c), the
 * illuminants, and the sums that turn a spectrum into CIE XYZ or a camera
 * response. Every spectrum is sampled at VS_BANDS wavelengths, 380 to 730 nm
 * every 10 nm.
 */
#ifndef CISP_SENSOR_VIRTUAL_SPECTRA_H
#define CISP_SENSOR_VIRTUAL_SPECTRA_H

#include <stdbool.h>

#define VS_BANDS 36
#define VS_LAMBDA0 380.0
#define VS_LAMBDA_STEP 10.0
#define VS_CC_PATCHES 24

/* A ColorChecker patch: its name and reflectance. */
struct vs_patch {
	const char *name;
	double r[VS_BANDS];
};

extern const double vs_cie1931[VS_BANDS][3];
extern const double vs_d65[VS_BANDS];
extern const double vs_daylight_s[VS_BANDS][3];
extern const double vs_f2_5nm[81];
extern const double vs_f11_5nm[81];
extern const struct vs_patch vs_colorchecker[VS_CC_PATCHES];

/* Camera spectral sensitivities: relative quantum efficiency of R, G, B. */
struct vs_camera {
	double q[3][VS_BANDS];
};

/* Wavelength of band @i in nm. */
static inline double vs_lambda(int i)
{
	return VS_LAMBDA0 + VS_LAMBDA_STEP * i;
}

/*
 * Fill @spd with an illuminant by name (see cisp_sensor_set_option()), scaled
 * to 100 at 560 nm. Return 0 or -EINVAL with a message.
 */
int vs_illuminant(const char *name, double spd[VS_BANDS]);
/* Planck's law at @kelvin, 100 at 560 nm. */
void vs_blackbody(double kelvin, double spd[VS_BANDS]);
/* CIE daylight of correlated colour temperature @kelvin (4000..25000 K), 100 at 560 nm. */
void vs_daylight(double kelvin, double spd[VS_BANDS]);

/* CIE XYZ of @spd reflected by @refl (NULL: a perfect white), unnormalised sums. */
void vs_xyz(const double spd[VS_BANDS], const double *refl, double xyz[3]);
/*
 * Camera R, G, B photo-electron rates (relative) of @spd reflected by @refl
 * (NULL: perfect white): sum of refl * spd * q * lambda (photons, not energy).
 */
void vs_camera_rgb(const struct vs_camera *cam, const double spd[VS_BANDS], const double *refl, double rgb[3]);
/* The luminance sum of @spd: sum of spd * ybar. */
double vs_luminance(const double spd[VS_BANDS]);

/*
 * Smooth reflectance spectra of the linear sRGB primaries: under D65 a
 * surface w0 * basis[0] + w1 * basis[1] + w2 * basis[2] has the linear sRGB
 * colour (w0, w1, w2) (relative to a perfect white), and (1, 1, 1) is a flat
 * reflectance of 1.
 */
const double (*vs_srgb_basis(void))[VS_BANDS];

/* Index of a ColorChecker patch by name (case-insensitive), or -1. */
int vs_patch_index(const char *name);

#endif
