/* SPDX-License-Identifier: MIT */
/*
 * A chart frame as a grid of blocks, each with its robust level per
 * channel, its uniformity and whether it touches the clip point: what the
 * flat-from-chart (calibrate_chart_flat.c) and grey-step
 * (calibrate_tone.c) estimators look for white areas and steps in.
 */
#ifndef CISP_IQ_CALIBRATE_CHART_BLOCKS_H
#define CISP_IQ_CALIBRATE_CHART_BLOCKS_H

#include <stdbool.h>

#include "calibrate_internal.h"

struct chart_block {
	double level[4]; /* robust mean per channel R, Gr, Gb, B, codes (defective pixels left out) */
	double sigma;    /* the green samples' robust standard deviation, codes */
	double x, y;     /* centre, frame pixels */
	bool uniform;    /* its quarters' green medians agree within their noise: no edge crosses it */
	bool clipped;    /* over 2 % of a channel's samples reach within 1 % of the white level of its clip point */
};

struct chart_blocks {
	unsigned gw, gh;
	unsigned side; /* samples of a channel plane per block side */
	struct chart_block *b; /* gw x gh, row-major */
};

/*
 * The clip point per channel: in a histogram of bins 0.5 % of the white
 * level wide, the highest bin holding 0.1 % of the samples; the samples
 * pile up there when it and the bin below hold 4 times as many as the two
 * bins below those (@found; @clip is then the mean of the bin's samples,
 * else its upper edge). @fraction: the share of samples from that bin up.
 */
void chart_clip_levels(const struct calib_planes *pl, double white, double clip[4], double fraction[4],
		       bool found[4]);

/* The blocks of @pl (about 24 along the shorter side) against the clip points @clip; -ENOMEM. */
int chart_blocks_of(const struct calib_planes *pl, const double clip[4], double white, struct chart_blocks *out);
void chart_blocks_free(struct chart_blocks *b);

#endif /* CISP_IQ_CALIBRATE_CHART_BLOCKS_H */
