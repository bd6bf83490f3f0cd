/* SPDX-License-Identifier: MIT */
/* Patch statistics, SNR per grey step and dynamic range. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/iq_noise.h>

#include "core/error_internal.h"
#include "iq_internal.h"

/* The signals measured: R, G, B (or grey), Y, Cb, Cr. */
#define SIGNALS 6

static void pixel_signals(const struct cisp_iq_image *img, int x, int y, double s[SIGNALS])
{
	const float *p = img->data + (size_t)y * img->stride + (size_t)x * img->channels;

	if (img->channels == 1) {
		s[0] = s[3] = p[0];
		s[1] = s[2] = s[4] = s[5] = 0;
		return;
	}
	s[0] = p[0];
	s[1] = p[1];
	s[2] = p[2];
	s[3] = IQ_KR * p[0] + IQ_KG * p[1] + IQ_KB * p[2];
	s[4] = (p[2] - s[3]) / 1.8556;
	s[5] = (p[0] - s[3]) / 1.5748;
}

int cisp_iq_patch_stats(const struct cisp_iq_image *img, const struct cisp_iq_rect *r, bool detrend,
			struct cisp_iq_patch_stats *st)
{
	double sum[SIGNALS] = { 0 }, sx[SIGNALS] = { 0 }, sy[SIGNALS] = { 0 }, sq[SIGNALS] = { 0 };
	double ax[SIGNALS] = { 0 }, ay[SIGNALS] = { 0 }, var[SIGNALS];
	double n, xc, yc, sxx = 0, syy = 0;
	unsigned clipped = 0, zeros = 0, negative = 0;
	int ret;

	memset(st, 0, sizeof(*st));
	ret = iq_image_check(img, "patch image");
	if (ret)
		return ret;
	ret = cisp_iq_rect_check(img, r, 4, "patch");
	if (ret)
		return ret;
	n = (double)r->width * r->height;
	xc = (r->width - 1) / 2.0;
	yc = (r->height - 1) / 2.0;
	/* First pass: means and, for the detrending plane, the slopes along x and y. */
	for (int y = 0; y < r->height; y++)
		for (int x = 0; x < r->width; x++) {
			double s[SIGNALS];

			pixel_signals(img, r->x + x, r->y + y, s);
			for (int k = 0; k < SIGNALS; k++) {
				sum[k] += s[k];
				sx[k] += (x - xc) * s[k];
				sy[k] += (y - yc) * s[k];
			}
		}
	for (int x = 0; x < r->width; x++)
		sxx += (x - xc) * (x - xc) * r->height;
	for (int y = 0; y < r->height; y++)
		syy += (y - yc) * (y - yc) * r->width;
	for (int k = 0; k < SIGNALS; k++) {
		sum[k] /= n;
		if (detrend) {
			ax[k] = sx[k] / sxx;
			ay[k] = sy[k] / syy;
		}
	}
	/* Second pass: squared deviations from the mean (or the plane). */
	for (int y = 0; y < r->height; y++)
		for (int x = 0; x < r->width; x++) {
			double s[SIGNALS];
			const float *p = img->data + (size_t)(r->y + y) * img->stride + (size_t)(r->x + x) * img->channels;
			bool high = false, zero = false;

			for (unsigned c = 0; c < img->channels; c++) {
				high |= p[c] >= 0.999f;
				zero |= p[c] == 0.0f;
				negative += p[c] < 0.0f;
			}
			clipped += high;
			zeros += zero && !high;
			pixel_signals(img, r->x + x, r->y + y, s);
			for (int k = 0; k < SIGNALS; k++) {
				double d = s[k] - sum[k] - ax[k] * (x - xc) - ay[k] * (y - yc);

				sq[k] += d * d;
			}
		}
	for (int k = 0; k < SIGNALS; k++)
		var[k] = n > 1 ? sq[k] / (n - 1 - (detrend ? 2 : 0)) : 0;
	st->pixels = (unsigned)n;
	for (unsigned c = 0; c < img->channels; c++) {
		st->mean[c] = sum[c];
		st->sd[c] = sqrt(var[c]);
	}
	st->mean_y = sum[3];
	st->sd_y = sqrt(var[3]);
	st->sd_chroma = img->channels == 3 ? sqrt(var[4] + var[5]) : 0;
	/* Exact zeros mean clamping only where nothing is below zero (signed data is not clamped). */
	st->clipped = (clipped + (negative ? 0 : zeros)) / n;
	return 0;
}

static double snr(double mean, double sd)
{
	if (sd <= 0 || mean / sd > CISP_IQ_SNR_MAX)
		return CISP_IQ_SNR_MAX;
	return mean > 0 ? mean / sd : 0;
}

void cisp_iq_dynamic_range(const struct cisp_iq_noise_step *steps, unsigned count, double threshold,
			   struct cisp_iq_dynamic_range *dr)
{
	int order[CISP_IQ_MAX_STEPS], n = 0;
	double top;

	memset(dr, 0, sizeof(*dr));
	dr->threshold = threshold;
	for (unsigned i = 0; i < count && i < CISP_IQ_MAX_STEPS; i++)
		if (!steps[i].clipped && steps[i].level > 0)
			order[n++] = (int)i;
	/* Brightest first. */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && steps[order[j]].level > steps[order[j - 1]].level; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (n == 0)
		return;
	for (int i = 0; i < n; i++)
		dr->steps += steps[order[i]].snr_y >= threshold;
	top = steps[order[0]].level;
	if (steps[order[0]].snr_y < threshold)
		return;
	for (int i = 1; i < n; i++) {
		const struct cisp_iq_noise_step *a = &steps[order[i - 1]], *b = &steps[order[i]];

		if (b->snr_y < threshold) {
			/* log SNR is close to linear in log level between neighbouring steps. */
			double la = log(a->level), lb = log(b->level);
			double sa = log(a->snr_y), sb = log(b->snr_y > 0 ? b->snr_y : 1e-6);
			double t = (log(threshold) - sa) / (sb - sa);

			dr->ev = (log(top) - (la + t * (lb - la))) / log(2.0);
			return;
		}
	}
	dr->ev = log2(top / steps[order[n - 1]].level);
	dr->lower_bound = true;
}

int cisp_iq_noise(const struct cisp_iq_image *img, const struct cisp_iq_rect *rects, const double *levels,
		  unsigned count, bool detrend, struct cisp_iq_noise_result *res)
{
	memset(res, 0, sizeof(*res));
	if (count == 0 || count > CISP_IQ_MAX_STEPS)
		return cisp_error(-EINVAL, "%u steps; a noise measurement takes 1..%d", count, CISP_IQ_MAX_STEPS);
	for (unsigned i = 0; i < count; i++) {
		struct cisp_iq_noise_step *s = &res->step[i];
		int ret;

		if (!(levels[i] > 0))
			return cisp_error(-EINVAL, "step %u: level %g is not positive", i, levels[i]);
		ret = cisp_iq_patch_stats(img, &rects[i], detrend, &s->stats);
		if (ret)
			return cisp_error_prefix(ret, "step %u", i);
		s->level = levels[i];
		s->snr_y = snr(s->stats.mean_y, s->stats.sd_y);
		s->snr_c = img->channels == 3 ? snr(s->stats.mean_y, s->stats.sd_chroma) : CISP_IQ_SNR_MAX;
		s->clipped = s->stats.clipped > 0.02;
	}
	res->count = count;
	cisp_iq_dynamic_range(res->step, count, 1.0, &res->dr[0]);
	cisp_iq_dynamic_range(res->step, count, 10.0, &res->dr[1]);
	return 0;
}
