/* SPDX-License-Identifier: MIT */
/*
 * A ColorChecker Classic in a raw frame: found as `cisp iq --chart` finds one
 * (on the half-size RGB of the mosaic, black taken off and shading
 * flattened when the flats already gave a table), then each patch's central
 * half measured per channel. A chart that is clipped or too dark to measure
 * is refused. The chart's reference is computed from its patches'
 * reflectance spectra (BabelColor's average of 30 charts) under the light's
 * spectrum, so it holds under any light, not only under D50.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cisp/error.h>

#include "calibrate_internal.h"
#include "core/error_internal.h"
#include "core/number.h"
#include "sensor/virtual/spectra.h"

/* The white patch must reach this fraction of the range ... */
#define MIN_WHITE 0.2
/* ... and stay this far below the clip level (fraction of the range). */
#define CLIP_MARGIN 0.005
#define WHITE_PATCH 18
#define NEUTRAL_8 19
#define NEUTRAL_5 21

/*
 * The spectrum of a light: a name the virtual sensor knows, or a colour
 * temperature ("4000K": Planck's law below 5000 K, CIE daylight from there,
 * as colour science usually takes them).
 */
int calib_light_spectrum(const char *name, double spd[VS_BANDS], bool *on_locus)
{
	size_t len = strlen(name);
	char *end;

	if (len > 1 && (name[len - 1] == 'K' || name[len - 1] == 'k')) {
		double k = cisp_strtod(name, &end);

		if (end != name + len - 1 || !(k >= 1000 && k <= 25000))
			return cisp_error(-EINVAL, "light '%s': a colour temperature is 1000K..25000K", name);
		if (k < 5000)
			vs_blackbody(k, spd);
		else
			vs_daylight(k, spd);
		*on_locus = true;
		return 0;
	}
	if (vs_illuminant(name, spd))
		return cisp_error(-EINVAL, "unknown light '%s' (D65, D50, D55, D75, A, F2, F11, LED, or a temperature "
					   "such as 4000K)",
				  name);
	/* Fluorescent and LED lights are lines and bands: their greys lie off a camera's Planckian curve. */
	*on_locus = strncasecmp(name, "F", 1) && strcasecmp(name, "LED");
	return 0;
}

int cisp_calib_illuminant_ct(const char *name, double *ct, bool *on_locus)
{
	/* The CIE's own temperatures for its illuminants (CIE 15:2004); others are computed. */
	static const struct {
		const char *name;
		double ct;
	} nominal[] = { { "A", 2856 }, { "D50", 5003 }, { "D55", 5503 }, { "D65", 6504 }, { "D75", 7504 },
			{ "F2", 4230 }, { "F11", 4000 } };
	double spd[VS_BANDS], xyz[3], x, y, n;
	bool locus = false;
	int ret = calib_light_spectrum(name, spd, &locus);
	char *end;

	if (ret)
		return ret;
	if (on_locus)
		*on_locus = locus;
	for (size_t i = 0; i < sizeof(nominal) / sizeof(nominal[0]); i++)
		if (!strcasecmp(name, nominal[i].name)) {
			*ct = nominal[i].ct;
			return 0;
		}
	/* "blackbody:K", "daylight:K" and "KK" name their temperature. */
	if (strchr(name, ':') || name[strlen(name) - 1] == 'K' || name[strlen(name) - 1] == 'k') {
		*ct = cisp_strtod(strchr(name, ':') ? strchr(name, ':') + 1 : name, &end);
		return 0;
	}
	vs_xyz(spd, NULL, xyz);
	x = xyz[0] / (xyz[0] + xyz[1] + xyz[2]);
	y = xyz[1] / (xyz[0] + xyz[1] + xyz[2]);
	/* McCamy's cubic in (x - 0.3320) / (0.1858 - y): within a few kelvin from 2800 to 6500 K. */
	n = (x - 0.3320) / (0.1858 - y);
	*ct = 449 * n * n * n + 3525 * n * n + 6823.3 * n + 5520.33;
	return 0;
}

int calib_chart_reference(const char *illuminant, double xyz[CISP_IQ_COLORCHECKER_PATCHES][3], double white[3])
{
	double spd[VS_BANDS];
	bool locus = false;
	int ret = calib_light_spectrum(illuminant, spd, &locus);

	if (ret)
		return ret;
	vs_xyz(spd, NULL, white);
	for (int i = 0; i < CISP_IQ_COLORCHECKER_PATCHES; i++) {
		vs_xyz(spd, vs_colorchecker[i].r, xyz[i]);
		for (int c = 0; c < 3; c++)
			xyz[i][c] /= white[1];
	}
	white[0] /= white[1];
	white[2] /= white[1];
	white[1] = 1;
	return 0;
}

/* The half-size linear RGB of a frame (fraction of the range above black), shading flattened when a table is given. */
static int half_rgb(const struct calib_planes *pl, const double black[4], double range,
		    const struct cisp_calib_shading_table *shading, struct cisp_iq_image *img)
{
	int ret = cisp_iq_image_alloc(img, pl->w, pl->h, 3);

	for (uint32_t y = 0; !ret && y < pl->h; y++)
		for (uint32_t x = 0; x < pl->w; x++) {
			size_t i = (size_t)y * pl->w + x;
			double v[4];

			for (unsigned c = 0; c < 4; c++) {
				v[c] = (pl->p[c][i] - black[c]) / range;
				if (shading)
					v[c] *= calib_shading_gain(shading, 2 * pl->w, 2 * pl->h, c, 2.0 * x + pl->ox[c],
								   2.0 * y + pl->oy[c]);
			}
			img->data[3 * i] = (float)v[0];
			img->data[3 * i + 1] = (float)((v[1] + v[2]) / 2);
			img->data[3 * i + 2] = (float)v[3];
		}
	return ret;
}

/* Samples of channel @c inside a half-size rectangle, into @out; their count. */
static size_t samples(const struct calib_planes *pl, unsigned c, const struct cisp_iq_rect *r, float *out)
{
	size_t n = 0;

	for (int32_t y = r->y; y < r->y + r->height; y++)
		for (int32_t x = r->x; x < r->x + r->width; x++)
			out[n++] = pl->p[c][(size_t)y * pl->w + x];
	return n;
}

/* Mean and standard deviation of @n samples within 5 robust deviations of their median (defects left out). */
static void robust_mean(float *v, size_t n, double *mean, double *sd)
{
	double med, sigma, s = 0, s2 = 0, lim;
	size_t k = 0;
	float *copy = malloc(n * sizeof(float));

	if (!copy) {
		*mean = *sd = 0;
		return;
	}
	memcpy(copy, v, n * sizeof(float));
	calib_median_mad(copy, n, &med, &sigma);
	free(copy);
	lim = fmax(5 * sigma, 1);
	for (size_t i = 0; i < n; i++)
		if (fabs(v[i] - med) <= lim) {
			s += v[i];
			s2 += (double)v[i] * v[i];
			k++;
		}
	*mean = k ? s / (double)k : med;
	*sd = k > 1 ? sqrt(fmax(0, (s2 - s * s / (double)k) / (double)(k - 1))) : 0;
}

int calib_chart_measure(const struct calib_planes *pl, const struct cisp_calib_capture *cap, const double black[4],
			double clip, double white, const struct cisp_calib_shading_table *shading,
			struct calib_chart_shot *out)
{
	double range = white - (black[1] + black[2]) / 2, score = 0, sd[CISP_IQ_COLORCHECKER_PATCHES][4];
	struct cisp_iq_rect rects[CISP_IQ_COLORCHECKER_PATCHES];
	struct cisp_iq_image img;
	float *buf = NULL;
	double xyz[CISP_IQ_COLORCHECKER_PATCHES][3], wxyz[3];
	int ret;

	memset(out, 0, sizeof(*out));
	if (!cap->illuminant || !cap->illuminant[0])
		return cisp_error(-EINVAL, "chart %s: its light is not given (FILE@ILLUMINANT)", cap->name);
	ret = calib_chart_reference(cap->illuminant, xyz, wxyz);
	if (ret)
		return cisp_error_prefix(ret, "chart %s", cap->name);
	snprintf(out->name, sizeof(out->name), "%s", cap->name);
	snprintf(out->illuminant, sizeof(out->illuminant), "%s", cap->illuminant);
	out->lux = cap->lux;
	out->exposure_s = cap->exposure_s;
	out->gain = cap->gain > 0 ? cap->gain : 1;
	/* Too dark to find or measure: the chart's white patch, the brightest part of the frame, is under MIN_WHITE. */
	buf = malloc((size_t)pl->w * pl->h * sizeof(float));
	if (!buf)
		return cisp_error(-ENOMEM, "out of memory");
	memcpy(buf, pl->p[1], (size_t)pl->w * pl->h * sizeof(float));
	out->white_level = (calib_quantile(buf, (size_t)pl->w * pl->h, 0.995) - black[1]) / range;
	if (out->white_level < MIN_WHITE) {
		free(buf);
		return cisp_error(-EINVAL,
				  "chart %s is underexposed: its brightest part is at %.1f%% of the range (the white patch "
				  "needs %.0f%%; expose it to 50..85%%)",
				  cap->name, 100 * out->white_level, 100 * MIN_WHITE);
	}
	ret = half_rgb(pl, black, range, shading, &img);
	if (!ret) {
		ret = cisp_iq_find_colorchecker(&img, out->corners, &score);
		if (ret)
			ret = cisp_error(-EINVAL, "chart %s: no ColorChecker found; it must be upright, whole and at least a "
						  "seventh of the frame high",
					 cap->name);
	}
	cisp_iq_image_free(&img);
	if (ret) {
		free(buf);
		return ret;
	}
	cisp_iq_chart_patches((const double(*)[2])out->corners, 6, 4, 0.5, rects);
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 2; i++)
			out->corners[k][i] *= 2;
	for (int i = 0; i < CISP_IQ_COLORCHECKER_PATCHES; i++) {
		for (unsigned c = 0; c < 4; c++)
			robust_mean(buf, samples(pl, c, &rects[i], buf), &out->patch[i][c], &sd[i][c]);
		out->centre[i][0] = 2 * (rects[i].x + rects[i].width / 2.0);
		out->centre[i][1] = 2 * (rects[i].y + rects[i].height / 2.0);
	}
	/*
	 * The white patch: not clipped (below the clip level; as much brighter
	 * than neutral 5 as the chart says, which a sensor that saturates below
	 * white would not let it be; not flattened), bright enough.
	 */
	for (unsigned c = 0; c < 4 && !ret; c++) {
		size_t n = samples(pl, c, &rects[WHITE_PATCH], buf);
		double top = calib_quantile(buf, n, 0.99), w = out->patch[WHITE_PATCH][c] - black[c];
		double n5 = out->patch[NEUTRAL_5][c] - black[c], n8 = out->patch[NEUTRAL_8][c] - black[c];
		/* Without the flats' table the lens's falloff between the two patches is not known: a wider margin. */
		double expected = xyz[WHITE_PATCH][1] / xyz[NEUTRAL_5][1] * (shading ? 0.9 : 0.75);

		if (shading)
			n5 *= calib_shading_gain(shading, 2 * pl->w, 2 * pl->h, c, out->centre[NEUTRAL_5][0],
						 out->centre[NEUTRAL_5][1]) /
			      calib_shading_gain(shading, 2 * pl->w, 2 * pl->h, c, out->centre[WHITE_PATCH][0],
						 out->centre[WHITE_PATCH][1]);

		if (top >= clip - CLIP_MARGIN * range)
			ret = cisp_error(-EINVAL,
					 "chart %s is clipped: its white patch reaches %.1f%% of the range in channel %u "
					 "(expose it less)",
					 cap->name, 100 * (top - black[c]) / range, c);
		else if (n5 > 0 && w < expected * n5)
			ret = cisp_error(-EINVAL,
					 "chart %s is clipped: its white patch is %.2f times neutral 5 in channel %u, the "
					 "chart %.2f (the sensor saturates there; expose it less)",
					 cap->name, w / n5, c, xyz[WHITE_PATCH][1] / xyz[NEUTRAL_5][1]);
		else if (n8 > 0 && sd[NEUTRAL_8][c] > 0 && w > n8 &&
			 sd[WHITE_PATCH][c] < 0.35 * sd[NEUTRAL_8][c] * sqrt(w / n8))
			ret = cisp_error(-EINVAL,
					 "chart %s is clipped: its white patch is flat-topped in channel %u (noise %.2f "
					 "codes against %.2f expected: the sensor saturates there; expose it less)",
					 cap->name, c, sd[WHITE_PATCH][c], sd[NEUTRAL_8][c] * sqrt(w / n8));
	}
	out->white_level = (out->patch[WHITE_PATCH][1] + out->patch[WHITE_PATCH][2]) / 2 - (black[1] + black[2]) / 2;
	out->white_level /= range;
	if (!ret && out->white_level < MIN_WHITE)
		ret = cisp_error(-EINVAL,
				 "chart %s is underexposed: its white patch is at %.1f%% of the range (it needs %.0f%%; "
				 "expose it to 50..85%%)",
				 cap->name, 100 * out->white_level, 100 * MIN_WHITE);
	/* The frame's mean green above black, shading flattened: what AE's statistics see. */
	for (uint32_t y = 0; !ret && y < pl->h; y++)
		for (uint32_t x = 0; x < pl->w; x++)
			for (unsigned c = 1; c <= 2; c++)
				out->green_mean += (pl->p[c][(size_t)y * pl->w + x] - black[c]) *
						   (shading ? calib_shading_gain(shading, 2 * pl->w, 2 * pl->h, c,
										 2.0 * x + pl->ox[c], 2.0 * y + pl->oy[c])
							    : 1) /
						   (2.0 * pl->w * pl->h);
	free(buf);
	return ret;
}
