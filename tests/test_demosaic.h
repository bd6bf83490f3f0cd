/* SPDX-License-Identifier: MIT */
/* What the demosaic tests share (test_demosaic.c, test_demosaic_quality.c): frames, scenes, comparisons. */
#ifndef CISP_TEST_DEMOSAIC_H
#define CISP_TEST_DEMOSAIC_H

#include <stdint.h>

#include <cisp/format.h>

#include "core/plane.h"

/* A Bayer frame and the R, G, B planes of its demosaic. */
struct frame {
	int w, h;
	uint16_t *mem;
	struct plane16 bayer;
	struct rgb16 rgb;
};

/* Zeroed planes for a @w x @h frame (free f->mem). */
void frame_init(struct frame *f, int w, int h);

static inline uint16_t *px(const struct plane16 *p, int x, int y)
{
	return plane_row(p, y) + x;
}

/* The RGB index (0 R, 1 G, 2 B) of the colour site (x, y) sees. */
static inline int site_rgb(enum cisp_cfa cfa, int x, int y)
{
	enum cisp_channel ch = cisp_cfa_channel(cfa, (unsigned)x, (unsigned)y);

	return ch == CISP_CH_R ? 0 : ch == CISP_CH_B ? 2 : 1;
}

/* Sample a scene of scene[3][h][w] through the CFA into the Bayer plane. */
void mosaic(struct frame *f, enum cisp_cfa cfa, const uint16_t *scene);
/* Random Bayer samples. */
void fill_random(struct frame *f);
/* Largest |output - scene| over every pixel and channel. */
int max_error(const struct frame *f, const uint16_t *scene);
/* Whether two frames' R, G, B planes hold the same samples. */
int same_rgb(const struct frame *a, const struct frame *b);

#endif
