/* SPDX-License-Identifier: MIT */
/* Tone curves and automatic exposure of cisp_develop() (docs/raw.md, "Exposure and tone"). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <cisp/error.h>
#include <cisp/format.h>

#include "io/develop_internal.h"
#include "isp/unpack.h"

/* The median luminance the exposure may reach, linear after the curve: sRGB code 137, half a stop over middle grey. */
#define MEDIAN_CAP 0.25
/* The fraction of cells that may clip. */
#define CLIP_FRACTION 0.01
/* The largest automatic gain: 4 stops. */
#define MAX_GAIN 16.0
/* Luminance histogram: 1/32 stop a bin from 2^-24 to 2^8. */
#define BINS_PER_STOP 32
#define LOW_STOP (-24)
#define BINS (32 * BINS_PER_STOP)

/*
 * The curve at linear light @x (0..1), 0..1: (1 + c) u / (1 + c u) of
 * u = x^p, a toe (p > 1) and a shoulder (c), standard p = 1.5, c = 1,
 * filmic p = 1.75, c = 3. Only +, *, / and sqrt() (correctly rounded),
 * written so that no multiply-add can be fused: the same nodes everywhere.
 */
static double tone_at(enum cisp_develop_tone tone, double x)
{
	double r = sqrt(x), u;

	switch (tone) {
	case CISP_DEVELOP_TONE_STANDARD:
		u = x * r;
		return (u + u) / (u + 1);
	case CISP_DEVELOP_TONE_FILMIC:
		u = x * r * sqrt(r);
		return 4 * u / ((u + u + u) + 1);
	default:
		return x;
	}
}

void develop_tone_curve(enum cisp_develop_tone tone, uint16_t curve[257])
{
	for (unsigned i = 0; i <= 256; i++)
		curve[i] = (uint16_t)lround(65535 * tone_at(tone, (i < 256 ? 256 * i : 65535) / 65535.0));
}

/* The input at which the curve reaches @y (it rises monotonically from 0 to 1). */
static double tone_inverse(enum cisp_develop_tone tone, double y)
{
	double lo = 0, hi = 1;

	for (int i = 0; i < 50; i++) {
		double mid = (lo + hi) / 2;
		*(tone_at(tone, mid) < y ? &lo : &hi) = mid;
	}
	return (lo + hi) / 2;
}

static unsigned bin_of(double v)
{
	double b = v > 0 ? (log2(v) - LOW_STOP) * BINS_PER_STOP : 0;

	return b <= 0 ? 0 : b >= BINS - 1 ? BINS - 1 : (unsigned)b;
}

/* The level below which @fraction of @n counts of @hist lie (the bin's upper edge). */
static double percentile(const unsigned long *hist, unsigned long n, double fraction)
{
	unsigned long want = (unsigned long)ceil(fraction * (double)n), total = 0;

	for (unsigned b = 0; b < BINS; b++)
		if ((total += hist[b]) >= want && want)
			return exp2((double)(b + 1) / BINS_PER_STOP + LOW_STOP);
	return INFINITY; /* among the clipped cells */
}

int develop_auto_exposure(const struct cisp_raw_frame *frame, const struct cisp_develop_area *area,
			  const struct cisp_param_state *s, enum cisp_develop_tone tone, double *gain)
{
	const struct cisp_image *img = &frame->image;
	const struct cisp_format_info *fi = cisp_format_info(img->format);
	bool ccm = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM), wb = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB);
	uint64_t cells_total = (uint64_t)(area->width / 2) * (area->height / 2);
	/* About a million cells are enough: every step-th cell in both directions. */
	uint32_t step = 1;
	unsigned long *luma = calloc(2 * BINS, sizeof(unsigned long)), *peak = luma + BINS, n = 0;
	uint16_t *rows = malloc(2 * sizeof(uint16_t) * img->width);
	double median, p_clip, g;

	if (!luma || !rows) {
		free(luma);
		free(rows);
		return cisp_error(-ENOMEM, "develop: out of memory");
	}
	while (cells_total / ((uint64_t)step * step) > 1000000)
		step++;
	for (uint32_t y = area->y; y + 2 <= area->y + area->height; y += 2 * step) {
		struct plane16 p = { rows, (ptrdiff_t)img->width, (int)y, (int)img->width, (int)img->height };

		cisp_unpack_rows(img, &p, (int)y, (int)y + 2);
		for (uint32_t x = area->x; x + 2 <= area->x + area->width; x += 2 * step) {
			double v[4], rgb[3], out[3], lum, top;
			bool clipped = false;

			for (unsigned k = 0; k < 4; k++) {
				unsigned dx = k & 1, dy = k >> 1, c = cisp_cfa_channel(fi->cfa, x + dx, y + dy);
				uint16_t raw = rows[dy * img->width + x + dx];
				double range = (double)s->blc.white - s->blc.black[c];

				clipped |= raw >= s->blc.white;
				v[c] = raw > s->blc.black[c] ? (raw - s->blc.black[c]) / range : 0;
				v[c] *= wb ? s->wb.gain[c] / 4096.0 : 1;
				clipped |= v[c] >= 1;
			}
			rgb[0] = v[CISP_CH_R];
			rgb[1] = (v[CISP_CH_GR] + v[CISP_CH_GB]) / 2;
			rgb[2] = v[CISP_CH_B];
			for (int i = 0; i < 3; i++)
				out[i] = !ccm ? rgb[i]
					      : (s->ccm.coeff[3 * i] * rgb[0] + s->ccm.coeff[3 * i + 1] * rgb[1] +
						 s->ccm.coeff[3 * i + 2] * rgb[2]) / 4096.0 + s->ccm.offset[i] / 65535.0;
			lum = 0.2126 * out[0] + 0.7152 * out[1] + 0.0722 * out[2];
			top = fmax(out[0], fmax(out[1], out[2]));
			/* Clipped cells are brighter than every bin: counted, never binned. */
			n++;
			if (clipped)
				continue;
			luma[bin_of(lum)]++;
			peak[bin_of(top)]++;
		}
	}
	free(rows);
	median = percentile(luma, n, 0.5);
	p_clip = percentile(peak, n, 1 - CLIP_FRACTION);
	free(luma);
	g = fmin(tone_inverse(tone, MEDIAN_CAP) / median, 1 / p_clip);
	*gain = !(g > 1) ? 1 : g > MAX_GAIN ? MAX_GAIN : g;
	return 0;
}
