/* SPDX-License-Identifier: MIT */
/*
 * A slanted edge in a raw frame, measured as the sharpening stage sees it:
 * through the reference ISP's black level, white balance (from the frame's
 * channel means: the target is neutral) and quality demosaic, in linear
 * luminance, by the ISO 12233 slanted-edge SFR (cisp_iq_sfr()). Without a
 * region, the edge is looked for in a band across the middle of the frame:
 * the columns where the level changes most, tried in turn until one holds a
 * measurable edge. The sharpening default follows from the response.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/sensor_levels.h>

#include "abi/fixed_point.h"
#include "calibrate_internal.h"
#include "core/error_internal.h"

/* The response the sharpening default aims for at a quarter of the sampling rate. */
#define TARGET_MTF 0.6
/* The largest default it proposes. */
#define MAX_SHARPEN 4.0
#define TRIES 6
#define MIN_STEP 0.2

/*
 * The frame through the reference ISP up to the demosaic, as the sharpening
 * stage would see it: black level, white balance from the channels' means
 * (the target is neutral), the quality demosaic, linear RGB (no shading,
 * matrix, tone curve, denoise or sharpening).
 */
static int develop(const struct cisp_image *raw, const struct calib_planes *pl, const double black[4], double white,
		   struct cisp_iq_image *img)
{
	const struct cisp_format_info *fi = cisp_format_info(raw->format);
	struct cisp_isp_config cfg = { .input_format = raw->format, .width = raw->width, .height = raw->height };
	struct cisp_param_state *st = malloc(sizeof(*st));
	struct cisp_image rgb = { 0 };
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { &rgb, NULL };
	struct cisp_isp *isp = NULL;
	double mean[4];
	size_t n = (size_t)pl->w * pl->h;
	int ret = st ? 0 : cisp_error(-ENOMEM, "out of memory");

	for (unsigned c = 0; c < 4 && !ret; c++) {
		double sum = 0;

		for (size_t i = 0; i < n; i++)
			sum += pl->p[c][i];
		mean[c] = sum / (double)n - black[c];
		if (!(mean[c] > 0))
			ret = cisp_error(-EINVAL, "channel %u has no signal", c);
	}
	if (ret) {
		free(st);
		return ret;
	}
	cfg.output[0] = (struct cisp_output_config){ CISP_FMT_RGB48, raw->width, raw->height };
	cisp_param_state_init(st);
	ret = cisp_blc_from_sensor_levels(&st->blc, black, white, fi->bits);
	for (unsigned c = 0; c < 4; c++)
		st->wb.gain[c] = abi_fixed_u16((mean[1] + mean[2]) / 2 / mean[c], 4096);
	st->demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
	st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_WB);
	st->enabled &= ~(CISP_BLOCK_BIT(CISP_BLOCK_TONE) | CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) |
			 CISP_BLOCK_BIT(CISP_BLOCK_LUT3D) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) | CISP_BLOCK_BIT(CISP_BLOCK_BNR) |
			 CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) | CISP_BLOCK_BIT(CISP_BLOCK_DPC));
	if (!ret)
		ret = cisp_isp_create(&isp, &cfg);
	if (!ret)
		ret = cisp_isp_set_state(isp, st, ~0u);
	if (!ret)
		ret = cisp_image_alloc(&rgb, CISP_FMT_RGB48, raw->width, raw->height);
	if (!ret)
		ret = cisp_isp_process(isp, raw, outs, NULL, NULL);
	if (!ret)
		ret = cisp_iq_image_from_cisp(img, &rgb, CISP_TRANSFER_LINEAR);
	cisp_image_free(&rgb);
	cisp_isp_destroy(isp);
	free(st);
	return ret;
}

/* The column of the band [y0, y1) in [x0, x1) where the level changes most, not within @skip of those in @taken. */
static int32_t strongest_column(const struct cisp_iq_image *img, int32_t x0, int32_t x1, int32_t y0, int32_t y1,
				const int32_t *taken, unsigned ntaken, int32_t skip)
{
	double best = 0;
	int32_t at = -1;

	for (int32_t x = x0 + 1; x < x1 - 1; x++) {
		double s = 0;
		bool near = false;

		for (unsigned k = 0; k < ntaken; k++)
			near |= abs(x - taken[k]) < skip;
		if (near)
			continue;
		for (int32_t y = y0; y < y1; y++) {
			const float *p = img->data + (size_t)y * img->stride + (size_t)x * img->channels;

			s += fabs(p[img->channels + 1] - p[-(ptrdiff_t)img->channels + 1]);
		}
		if (s > best) {
			best = s;
			at = x;
		}
	}
	return at;
}

int calib_edge_measure(const struct calib_planes *pl, const struct cisp_calib_capture *cap, const double black[4],
		       double white, struct cisp_calib_sharpness *out)
{
	struct cisp_iq_image img;
	int ret = develop(cap->raw, pl, black, white, &img);
	int32_t w, h, len, thick, taken[TRIES];

	memset(out, 0, sizeof(*out));
	if (ret)
		return cisp_error_prefix(ret, "edge %s", cap->name);
	w = (int32_t)img.width;
	h = (int32_t)img.height;
	if (cap->roi) {
		out->roi = *cap->roi;
		ret = cisp_iq_sfr(&img, &out->roi, -1, &out->sfr);
		if (ret)
			ret = cisp_error_prefix(ret, "edge %s, region %d,%d,%d,%d", cap->name, out->roi.x, out->roi.y,
						out->roi.width, out->roi.height);
	} else {
		/* A band a tenth of the height across the middle; regions a few percent wide around a column. */
		len = h / 10 < 16 ? 16 : h / 10;
		thick = (int32_t)fmax(24, fmin(0.06 * h, 96));
		ret = -ENOENT;
		for (unsigned k = 0; k < TRIES && ret; k++) {
			int32_t x = strongest_column(&img, w / 5, w - w / 5, h / 2 - len / 2, h / 2 + len / 2, taken, k,
						     thick);

			if (x < 0)
				break;
			taken[k] = x;
			out->roi = (struct cisp_iq_rect){ x - thick / 2, h / 2 - len / 2, thick, len };
			ret = cisp_iq_sfr(&img, &out->roi, -1, &out->sfr);
			/* An edge is a step: its two sides differ by a fifth of the brighter at least (a chart's 4:1 by far). */
			if (!ret && !(out->sfr.high - out->sfr.low > MIN_STEP * fmax(out->sfr.high, out->sfr.low)))
				ret = -EINVAL;
		}
		if (ret)
			ret = cisp_error(-EINVAL,
					 "edge %s: no measurable slanted edge across the middle of the frame (give its "
					 "region: FILE@X,Y,W,H)",
					 cap->name);
	}
	cisp_iq_image_free(&img);
	out->valid = !ret;
	return ret;
}

double calib_edge_sharpen(const struct cisp_iq_sfr_result *sfr)
{
	/*
	 * The sharpening stage adds strength x (luma - its 5 x 5 binomial
	 * blur); at a quarter of the sampling rate the blur passes
	 * ((1 + cos(pi / 2)) / 2)^2 = 1/4, so the stage multiplies that
	 * frequency by 1 + 0.75 strength.
	 */
	double m = sfr->mtf_nyq2;

	if (!(m > 0) || m >= TARGET_MTF)
		return 0;
	return fmin((TARGET_MTF / m - 1) / 0.75, MAX_SHARPEN);
}
