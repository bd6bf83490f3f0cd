/* SPDX-License-Identifier: MIT */
/*
 * Demosaic: a Bayer plane to full R, G, B planes.
 *
 * A struct cisp_demosaic holds the scratch memory an algorithm needs for one
 * frame size. cisp_demosaic_run() runs the algorithm's passes over the frame,
 * each pass split into row bands on @pool; the result does not depend on the
 * pool's thread count.
 */
#ifndef CISP_ISP_DEMOSAIC_H
#define CISP_ISP_DEMOSAIC_H

#include <cisp/format.h>
#include <cisp/params.h>
#include <cisp/pool.h>

#include "plane.h"

struct cisp_demosaic;

/* 0, -ENOTSUP for an algorithm this build lacks, or -ENOMEM. */
int cisp_demosaic_create(struct cisp_demosaic **dm, enum cisp_demosaic_algorithm algorithm, int width,
			 int height);
void cisp_demosaic_destroy(struct cisp_demosaic *dm);
/* Bit n set when enum cisp_demosaic_algorithm n is built in. */
unsigned cisp_demosaic_algorithms(void);
void cisp_demosaic_run(struct cisp_demosaic *dm, const struct plane16 *bayer, enum cisp_cfa cfa,
		       const struct cisp_demosaic_params *p, const struct rgb16 *out, struct cisp_pool *pool);

/* The fast algorithm on rows [y0, y1) (reads 2 rows above and below). */
void cisp_demosaic_fast_rows(const struct plane16 *bayer, enum cisp_cfa cfa, const struct rgb16 *out, int y0,
			     int y1);

#endif
