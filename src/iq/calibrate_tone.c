/* SPDX-License-Identifier: MIT */
/*
 * The tone response from grey steps (docs/calibrate.md, "A chart frame
 * instead of flats"). Steps are regions of uniform blocks of one level:
 * neighbours join when their green medians differ by less than 2 % of the
 * level and four standard errors. Regions over a tenth of the frame are
 * background, not steps.
 *
 * Without the steps' densities the frame still tells the black offset: a
 * neutral step of luminance L gives each channel k_c L + black, so red and
 * blue are straight lines in green, R = k (G - black) + black, and each
 * line's intercept d = black (1 - k) gives black = d / (1 - k) when the
 * channels' gains differ (an as-shot white balance far from 1). Flare adds
 * luminance, not a channel offset, so it does not move the estimate. How
 * far the steps depart from those lines is the channels' consistency: a
 * curve shared by all channels (a pure power law) does not show there;
 * only steps of known luminance (cisp_calib_tone_curve()) show it.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/calibrate_chart_frame.h>

#include "calibrate_chart_blocks.h"
#include "core/error_internal.h"

/* Neighbouring blocks of one step: green medians within this share of their level (and their noise). */
#define SAME_STEP 0.02
/* A step spans at least this many blocks; a region over this share of the frame is background. */
#define MIN_BLOCKS 3
#define MAX_SHARE 0.10

static bool same_level(const struct chart_block *a, const struct chart_block *b, unsigned side)
{
	double noise = 4 * 1.25 * sqrt(a->sigma * a->sigma + b->sigma * b->sigma) / side;

	return fabs(a->level[1] - b->level[1]) <= SAME_STEP * fmax(a->level[1], b->level[1]) + noise;
}

/* Flood the region of block @seed through same-level uniform neighbours; its blocks get @label. */
static unsigned flood(const struct chart_blocks *bl, int *label, size_t *stack, size_t seed, int id)
{
	size_t top = 0;
	unsigned count = 0;

	label[seed] = id;
	stack[top++] = seed;
	while (top) {
		size_t k = stack[--top];
		unsigned i = (unsigned)(k % bl->gw), j = (unsigned)(k / bl->gw);
		size_t next[4];
		unsigned n = 0;

		count++;
		if (i > 0)
			next[n++] = k - 1;
		if (i + 1 < bl->gw)
			next[n++] = k + 1;
		if (j > 0)
			next[n++] = k - bl->gw;
		if (j + 1 < bl->gh)
			next[n++] = k + bl->gw;
		for (unsigned m = 0; m < n; m++)
			if (label[next[m]] < 0 && bl->b[next[m]].uniform &&
			    same_level(&bl->b[k], &bl->b[next[m]], bl->side)) {
				label[next[m]] = id;
				stack[top++] = next[m];
			}
	}
	return count;
}

static int by_level(const void *a, const void *b)
{
	const struct cisp_calib_step *p = a, *q = b;

	return p->level[1] > q->level[1] ? -1 : p->level[1] < q->level[1];
}

/* The steps of the blocks into @out (brightest first). */
static int find_steps(const struct chart_blocks *bl, struct cisp_calib_tone *out)
{
	size_t nb = (size_t)bl->gw * bl->gh;
	int *label = malloc(nb * sizeof(int));
	size_t *stack = malloc(nb * sizeof(size_t));
	int regions = 0;

	if (!label || !stack) {
		free(label);
		free(stack);
		return cisp_error(-ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < nb; k++)
		label[k] = -1;
	for (size_t k = 0; k < nb; k++) {
		struct cisp_calib_step s = { 0 };
		unsigned count;

		if (label[k] >= 0 || !bl->b[k].uniform)
			continue;
		count = flood(bl, label, stack, k, regions);
		if (count < MIN_BLOCKS || count > MAX_SHARE * (double)nb) {
			regions++;
			continue;
		}
		for (size_t m = 0; m < nb; m++)
			if (label[m] == regions) {
				for (int c = 0; c < 4; c++)
					s.level[c] += bl->b[m].level[c] / count;
				s.x += bl->b[m].x / count;
				s.y += bl->b[m].y / count;
				s.clipped |= bl->b[m].clipped;
			}
		s.blocks = count;
		regions++;
		if (out->count < CISP_CALIB_MAX_STEPS) {
			out->step[out->count++] = s;
		} else {
			/* Keep the largest steps. */
			unsigned smallest = 0;

			for (unsigned i = 1; i < out->count; i++)
				if (out->step[i].blocks < out->step[smallest].blocks)
					smallest = i;
			if (out->step[smallest].blocks < s.blocks)
				out->step[smallest] = s;
		}
	}
	free(label);
	free(stack);
	qsort(out->step, out->count, sizeof(out->step[0]), by_level);
	return 0;
}

/* A straight line y = k x + d through the neutral steps' channel @c against green; false with fewer than 3. */
static bool channel_line(const struct cisp_calib_tone *t, int c, double *k, double *d)
{
	double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (unsigned i = 0; i < t->count; i++) {
		const struct cisp_calib_step *s = &t->step[i];
		double g = (s->level[1] + s->level[2]) / 2;

		if (!s->neutral)
			continue;
		n++;
		sx += g;
		sy += s->level[c];
		sxx += g * g;
		sxy += g * s->level[c];
	}
	if (n < 3 || !(n * sxx - sx * sx > 0))
		return false;
	*k = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*d = (sy - *k * sx) / n;
	return true;
}

/*
 * The neutral steps: the unclipped ones, less those whose red or blue
 * departs from the lines through the others by more than the median
 * departure plus 3 robust standard deviations (at least 2 % of the
 * level): colour patches, or steps too dark for their quantisation.
 */
static void find_neutral(struct cisp_calib_tone *t)
{
	for (unsigned i = 0; i < t->count; i++)
		t->step[i].neutral = !t->step[i].clipped;
	for (int round = 0; round < 5; round++) {
		double k[2], d[2], e[CISP_CALIB_MAX_STEPS], sigma, median;
		float tmp[CISP_CALIB_MAX_STEPS];
		unsigned n = 0, dropped = 0;

		if (!channel_line(t, 0, &k[0], &d[0]) || !channel_line(t, 3, &k[1], &d[1]))
			return;
		for (unsigned i = 0; i < t->count; i++) {
			const struct cisp_calib_step *s = &t->step[i];
			double g = (s->level[1] + s->level[2]) / 2;

			e[i] = fmax(fabs(s->level[0] - k[0] * g - d[0]), fabs(s->level[3] - k[1] * g - d[1])) / fmax(g, 1);
			if (s->neutral)
				tmp[n++] = (float)e[i];
		}
		calib_median_mad(tmp, n, &median, &sigma);
		for (unsigned i = 0; i < t->count; i++)
			if (t->step[i].neutral && e[i] > median + fmax(3 * sigma, 0.02)) {
				t->step[i].neutral = false;
				dropped++;
			}
		if (!dropped)
			return;
	}
}

int cisp_calib_tone_from_steps(const struct cisp_image *raw, double white, struct cisp_calib_tone *out)
{
	struct calib_planes pl;
	struct chart_blocks bl = { 0 };
	double k[2], d[2], black[2], weight[2];
	int ret;

	memset(out, 0, sizeof(*out));
	if (!raw || !(white > 0))
		return cisp_error(-EINVAL, "grey steps: no frame, or white level %g", white);
	ret = calib_planes_from(&pl, raw);
	if (ret)
		return ret;
	chart_clip_levels(&pl, white, out->clip, out->clip_fraction, out->clip_found);
	ret = chart_blocks_of(&pl, out->clip, white, &bl);
	if (!ret)
		ret = find_steps(&bl, out);
	if (!ret && out->count < 3)
		ret = cisp_error(-EINVAL, "grey steps: %u uniform regions found (at least 3): is there a step chart in view?",
				 out->count);
	if (!ret) {
		find_neutral(out);
		if (channel_line(out, 0, &k[0], &d[0]) && channel_line(out, 3, &k[1], &d[1])) {
			double sum = 0, wsum = 0;

			out->channel_ratio[0] = k[0];
			out->channel_ratio[1] = k[1];
			for (int c = 0; c < 2; c++) {
				/* An estimate's error grows as 1 / (1 - k): channels of equal gain tell nothing. */
				weight[c] = fabs(1 - k[c]) >= 0.1 ? (1 - k[c]) * (1 - k[c]) : 0;
				black[c] = weight[c] > 0 ? d[c] / (1 - k[c]) : 0;
				sum += weight[c] * black[c];
				wsum += weight[c];
			}
			if (wsum > 0) {
				out->black_found = true;
				out->black = sum / wsum;
				out->black_spread = weight[0] > 0 && weight[1] > 0 ? fabs(black[0] - black[1]) / 2 : 0;
			}
			/* The neutral steps' departure from the lines, where they are 2 % of the range above black. */
			for (unsigned i = 0; i < out->count; i++) {
				const struct cisp_calib_step *s = &out->step[i];
				double g = (s->level[1] + s->level[2]) / 2, b = out->black;

				if (!s->neutral || g - b < 0.02 * (white - b))
					continue;
				for (int c = 0; c < 2; c++) {
					double fit = k[c] * g + d[c];

					out->linearity_pct = fmax(out->linearity_pct,
								  100 * fabs(s->level[c ? 3 : 0] - fit) / fmax(fit - b, 1e-9));
				}
			}
		}
	}
	chart_blocks_free(&bl);
	calib_planes_free(&pl);
	return ret;
}

int cisp_calib_tone_curve(const struct cisp_calib_tone *tone, const double *luminance,
			  struct cisp_calib_tone_curve *out)
{
	/* Least squares relative to each step's level (weights 1 / G^2): dark and bright steps count alike. */
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, det, range;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < tone->count; i++) {
		const struct cisp_calib_step *s = &tone->step[i];
		double g = (s->level[1] + s->level[2]) / 2, w;

		if (s->clipped || !(luminance[i] >= 0) || !(g > 0))
			continue;
		w = 1 / (g * g);
		sw += w;
		sx += w * luminance[i];
		sy += w * g;
		sxx += w * luminance[i] * luminance[i];
		sxy += w * luminance[i] * g;
		out->steps++;
	}
	det = sw * sxx - sx * sx;
	if (out->steps < 3 || !(det > 0))
		return cisp_error(-EINVAL, "tone curve: %u unclipped steps of known luminance (at least 3)", out->steps);
	out->gain = (sw * sxy - sx * sy) / det;
	out->offset = (sy - out->gain * sx) / sw;
	range = (tone->clip[1] + tone->clip[2]) / 2 - out->offset;
	for (unsigned i = 0; i < tone->count; i++) {
		const struct cisp_calib_step *s = &tone->step[i];
		double g = (s->level[1] + s->level[2]) / 2, fit = out->gain * luminance[i];

		if (s->clipped || !(luminance[i] >= 0) || fit < 0.02 * range)
			continue;
		out->linearity_pct = fmax(out->linearity_pct, 100 * fabs(g - out->offset - fit) / fit);
	}
	return 0;
}
