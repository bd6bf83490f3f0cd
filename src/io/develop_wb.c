/* SPDX-License-Identifier: MIT */
/* White balance of cisp_develop() by mode: daylight, a colour temperature, multipliers, a neutral box. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>

#include "io/develop_internal.h"
#include "isp/unpack.h"

/* XYZ to linear sRGB (D65): the camera of a frame without a colour matrix. */
static const float xyz_to_srgb[9] = { 3.2404542f, -1.5371385f, -0.4985314f, -0.9692660f, 1.8760108f,
				      0.0415560f, 0.0556434f,  -0.2040259f, 1.0572252f };

#define MIN_KELVIN 2000
#define MAX_KELVIN 25000
#define MAX_TINT 100

bool develop_temperature_valid(double kelvin, double tint)
{
	return kelvin >= MIN_KELVIN && kelvin <= MAX_KELVIN && fabs(tint) <= MAX_TINT;
}

/* The Planckian locus at @t kelvin, CIE 1931 xy: the cubic spline of Kim et al. (2002), 1667..25000 K. */
static void planck_xy(double t, double *x, double *y)
{
	double it = 1e3 / t, it2 = it * it, it3 = it2 * it;

	*x = t <= 4000 ? -0.2661239 * it3 - 0.2343589 * it2 + 0.8776956 * it + 0.179910
		       : -3.0258469 * it3 + 2.1070379 * it2 + 0.2226347 * it + 0.240390;
	if (t <= 2222)
		*y = -1.1063814 * *x * *x * *x - 1.34811020 * *x * *x + 2.18555832 * *x - 0.20219683;
	else if (t <= 4000)
		*y = -0.9549476 * *x * *x * *x - 1.37418593 * *x * *x + 2.09137015 * *x - 0.16748867;
	else
		*y = 3.0817580 * *x * *x * *x - 5.87338670 * *x * *x + 3.75112997 * *x - 0.37001483;
}

/* CIE 1960 uv of xy. */
static void xy_to_uv(double x, double y, double *u, double *v)
{
	double d = -2 * x + 12 * y + 3;

	*u = 4 * x / d;
	*v = 6 * y / d;
}

/* The white of @kelvin and @tint as XYZ (Y = 1): the locus moved across by -tint/3000 in uv. */
static void temperature_xyz(double kelvin, double tint, double xyz[3])
{
	double x, y, u, v, x1, y1, u1, v1, du, dv, len, d, duv = -tint / 3000;

	planck_xy(kelvin, &x, &y);
	planck_xy(kelvin * 1.01 > MAX_KELVIN ? kelvin * 0.99 : kelvin * 1.01, &x1, &y1);
	xy_to_uv(x, y, &u, &v);
	xy_to_uv(x1, y1, &u1, &v1);
	/* The locus's normal, pointing to +v (greener): the tangent turned by 90 degrees. */
	du = u1 - u;
	dv = v1 - v;
	len = hypot(du, dv);
	if (du < 0) {
		du = -du;
		dv = -dv;
	}
	u += duv * -dv / len;
	v += duv * du / len;
	d = 2 * u - 8 * v + 4;
	x = 3 * u / d;
	y = 2 * v / d;
	xyz[0] = x / y;
	xyz[1] = 1;
	xyz[2] = (1 - x - y) / y;
}

/* The gains that make white @xyz neutral in the frame's camera RGB. */
static int gains_for_white(const struct cisp_raw_frame *frame, const double xyz[3], const char *what, double gains[3])
{
	const float *m = frame->has_matrix ? frame->xyz_to_cam : xyz_to_srgb;
	double cam[3];

	for (int i = 0; i < 3; i++) {
		cam[i] = m[3 * i] * xyz[0] + m[3 * i + 1] * xyz[1] + m[3 * i + 2] * xyz[2];
		if (!(cam[i] > 1e-6))
			return cisp_error(-EINVAL, "develop: the colour matrix gives no positive camera response to %s",
					  what);
	}
	for (int i = 0; i < 3; i++)
		gains[i] = cam[1] / cam[i];
	return 0;
}

/* The mean of each colour over the unclipped 2x2 cells of @box (16-bit units, black subtracted). */
static int box_gains(const struct cisp_raw_frame *frame, const struct cisp_develop_area *box,
		     const struct cisp_param_state *s, double gains[3])
{
	const struct cisp_image *img = &frame->image;
	const struct cisp_format_info *fi = cisp_format_info(img->format);
	uint32_t x0 = box->x & ~1u, y0 = box->y & ~1u, x1 = (box->x + box->width + 1) & ~1u;
	uint32_t y1 = (box->y + box->height + 1) & ~1u;
	uint16_t *rows = malloc(2 * sizeof(uint16_t) * img->width);
	double sum[4] = { 0, 0, 0, 0 };
	unsigned long cells = 0;

	if (!rows)
		return cisp_error(-ENOMEM, "develop: out of memory");
	x1 = x1 > img->width ? img->width : x1;
	y1 = y1 > img->height ? img->height : y1;
	for (uint32_t y = y0; y < y1; y += 2) {
		struct plane16 p = { rows, (ptrdiff_t)img->width, (int)y, (int)img->width, (int)img->height };
		cisp_unpack_rows(img, &p, (int)y, (int)y + 2);
		for (uint32_t x = x0; x < x1; x += 2) {
			double v[4];
			bool clipped = false;

			for (unsigned k = 0; k < 4; k++) {
				unsigned dx = k & 1, dy = k >> 1, c = cisp_cfa_channel(fi->cfa, x + dx, y + dy);
				uint16_t raw = rows[dy * img->width + x + dx];
				clipped |= raw >= s->blc.white;
				v[c] = raw > s->blc.black[c] ? raw - s->blc.black[c] : 0;
			}
			if (clipped)
				continue;
			for (unsigned c = 0; c < 4; c++)
				sum[c] += v[c];
			cells++;
		}
	}
	free(rows);
	if (!cells || sum[CISP_CH_R] <= 0 || sum[CISP_CH_B] <= 0 || sum[CISP_CH_GR] + sum[CISP_CH_GB] <= 0)
		return cisp_error(-EINVAL, "develop: the white-balance box %ux%u at (%u, %u) has no unclipped sample "
				  "above black in some colour", box->width, box->height, box->x, box->y);
	gains[0] = (sum[CISP_CH_GR] + sum[CISP_CH_GB]) / 2 / sum[CISP_CH_R];
	gains[1] = 1;
	gains[2] = (sum[CISP_CH_GR] + sum[CISP_CH_GB]) / 2 / sum[CISP_CH_B];
	return 0;
}

int develop_wb_gains(const struct cisp_raw_frame *frame, const struct cisp_develop_options *opt,
		     const struct cisp_develop_area *box, const struct cisp_param_state *s, double gains[3])
{
	static const double d65[3] = { 0.95047, 1.0, 1.08883 };
	double xyz[3];

	switch (opt->awb) {
	case CISP_DEVELOP_AWB_DAYLIGHT:
		return gains_for_white(frame, d65, "daylight (D65)", gains);
	case CISP_DEVELOP_AWB_TEMPERATURE:
		temperature_xyz(opt->wb_kelvin, opt->wb_tint, xyz);
		return gains_for_white(frame, xyz, "that colour temperature", gains);
	case CISP_DEVELOP_AWB_GAINS:
		for (int c = 0; c < 3; c++)
			gains[c] = opt->wb_gains[c] / opt->wb_gains[1];
		return 0;
	case CISP_DEVELOP_AWB_BOX:
		return box_gains(frame, box, s, gains);
	default:
		return cisp_error(-EINVAL, "develop: white balance %u is not computed here", opt->awb);
	}
}
