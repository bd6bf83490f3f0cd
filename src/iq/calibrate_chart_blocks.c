/* SPDX-License-Identifier: MIT */
/*
 * A chart frame as blocks: per block the robust mean of each channel (which
 * dust and defective pixels do not move), whether it is uniform and
 * whether it is clipped; and the channels' clip points. A block is uniform
 * when the green medians of its four quarters agree with the block's to
 * within four standard errors (and 0.25 % of the white level, for the
 * print's texture): an edge or a gradient steeper than the noise shows as
 * quarters that disagree, whatever the level.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_chart_blocks.h"
#include "core/error_internal.h"

void chart_clip_levels(const struct calib_planes *pl, double white, double clip[4], double fraction[4], bool found[4])
{
	size_t n = (size_t)pl->w * pl->h;
	/* Bins of 0.5 % of the white level: a pile-up spread by read noise after the full well spans one or two. */
	double window = fmax(1, 0.005 * white);
	unsigned bins = (unsigned)ceil(white / window) + 2;
	size_t *count = calloc(bins, sizeof(size_t));
	double top_sum;

	for (int c = 0; c < 4; c++) {
		const float *p = pl->p[c];
		size_t above = 0;
		unsigned b;

		if (!count) {
			/* Out of memory: the largest sample, no pile-up. */
			clip[c] = 0;
			for (size_t i = 0; i < n; i++)
				clip[c] = fmax(clip[c], p[i]);
			fraction[c] = 0;
			found[c] = false;
			continue;
		}
		memset(count, 0, bins * sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			count[(unsigned)fmin(fmax(p[i] / window, 0), bins - 1)]++;
		/* The highest bin holding 0.1 % of the samples (defective pixels are fewer). */
		for (b = bins - 1; b > 0 && (double)count[b] < 1e-3 * (double)n; b--)
			;
		for (unsigned k = b; k < bins; k++)
			above += count[k];
		found[c] = b >= 3 && count[b] + count[b - 1] >= 4 * (count[b - 2] + count[b - 3]) + 1;
		/* A pile-up's level: the mean of its top bin's samples; else that bin's upper edge. */
		top_sum = 0;
		for (size_t i = 0; found[c] && i < n; i++)
			if ((unsigned)fmin(fmax(p[i] / window, 0), bins - 1) == b)
				top_sum += p[i];
		clip[c] = found[c] ? top_sum / (double)count[b] : fmin((b + 1) * window, white);
		fraction[c] = (double)above / (double)n;
	}
	free(count);
}

/*
 * The mean of the samples within 4 robust standard deviations of the
 * median @m (and at least one code): as robust as the median against a
 * defective pixel, and not stuck on the codes of a quantised frame.
 */
static double trimmed_mean(const struct calib_planes *pl, unsigned c, unsigned x0, unsigned x1, unsigned y0,
			   unsigned y1, double m, double sigma)
{
	double sum = 0, reach = fmax(4 * sigma, 1);
	size_t n = 0;

	for (unsigned y = y0; y < y1; y++)
		for (unsigned x = x0; x < x1; x++) {
			float v = pl->p[c][(size_t)y * pl->w + x];

			if (fabs(v - m) <= reach) {
				sum += v;
				n++;
			}
		}
	return n ? sum / (double)n : m;
}

/*
 * The robust mean (trimmed_mean()) of the block's channel-@c samples in [x0, x1) x [y0, y1),
 * copied into @tmp; its robust sigma in @sigma; whether more than 2 % of
 * them (not a defective pixel or two) reach @clip in @clipped.
 */
static double block_median(const struct calib_planes *pl, unsigned c, unsigned x0, unsigned x1, unsigned y0,
			   unsigned y1, float *tmp, double *sigma, double clip, bool *clipped)
{
	size_t n = 0, high = 0;
	double m, s;

	for (unsigned y = y0; y < y1; y++)
		for (unsigned x = x0; x < x1; x++) {
			float v = pl->p[c][(size_t)y * pl->w + x];

			tmp[n++] = v;
			high += v >= clip;
		}
	*clipped = high > 2 && (double)high > 0.02 * (double)n;
	calib_median_mad(tmp, n, &m, &s);
	if (sigma)
		*sigma = s;
	return trimmed_mean(pl, c, x0, x1, y0, y1, m, s);
}

int chart_blocks_of(const struct calib_planes *pl, const double clip[4], double white, struct chart_blocks *out)
{
	unsigned side = (pl->w < pl->h ? pl->w : pl->h) / 24;
	float *tmp;

	memset(out, 0, sizeof(*out));
	out->side = side < 4 ? 4 : side;
	out->gw = pl->w / out->side;
	out->gh = pl->h / out->side;
	out->b = calloc((size_t)out->gw * out->gh, sizeof(*out->b));
	tmp = malloc((size_t)out->side * out->side * sizeof(float));
	if (!out->b || !tmp) {
		free(tmp);
		chart_blocks_free(out);
		return cisp_error(-ENOMEM, "out of memory for a chart's blocks");
	}
	for (unsigned j = 0; j < out->gh; j++)
		for (unsigned i = 0; i < out->gw; i++) {
			struct chart_block *b = &out->b[(size_t)j * out->gw + i];
			unsigned x0 = i * out->side, y0 = j * out->side, half = out->side / 2, s = out->side;
			double worst = 0;
			bool clipped;

			for (unsigned c = 0; c < 4; c++) {
				b->level[c] = block_median(pl, c, x0, x0 + s, y0, y0 + s, tmp, c == 1 ? &b->sigma : NULL,
							   clip[c] - 0.01 * white, &clipped);
				b->clipped |= clipped;
			}
			for (unsigned q = 0; q < 4; q++) {
				unsigned qx = x0 + (q & 1) * half, qy = y0 + (q >> 1) * half;

				worst = fmax(worst, fabs(block_median(pl, 1, qx, qx + half, qy, qy + half, tmp, NULL, INFINITY,
								      &clipped) -
							 b->level[1]));
			}
			/* A quarter's median has a standard error of about 1.25 sigma / sqrt(samples). */
			b->uniform = worst <= 4 * 1.25 * b->sigma / half + 0.0025 * white;
			b->x = 2.0 * (x0 + s / 2.0);
			b->y = 2.0 * (y0 + s / 2.0);
		}
	free(tmp);
	return 0;
}

void chart_blocks_free(struct chart_blocks *b)
{
	free(b->b);
	b->b = NULL;
}
