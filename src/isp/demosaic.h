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

#include "core/plane.h"

struct cisp_demosaic;

/* 0, -ENOTSUP for an algorithm this build lacks, or -ENOMEM. */
int cisp_demosaic_create(struct cisp_demosaic **dm, enum cisp_demosaic_algorithm algorithm, int width,
			 int height);
void cisp_demosaic_destroy(struct cisp_demosaic *dm);
/* Bit n set when enum cisp_demosaic_algorithm n is built in. */
unsigned cisp_demosaic_algorithms(void);
void cisp_demosaic_run(struct cisp_demosaic *dm, const struct plane16 *bayer, enum cisp_cfa cfa,
		       const struct cisp_demosaic_params *p, const struct rgb16 *out, struct cisp_pool *pool);
/* The same with the optimised functions of @dsp (dsp.h) where the algorithm has them; NULL: the C ones. */
struct cisp_dsp;
void cisp_demosaic_run_dsp(struct cisp_demosaic *dm, const struct plane16 *bayer, enum cisp_cfa cfa,
			   const struct cisp_demosaic_params *p, const struct rgb16 *out, struct cisp_pool *pool,
			   const struct cisp_dsp *dsp);

/*
 * Row bands: cisp_demosaic_bands() runs @fn over rows [0, height) split into
 * cisp_demosaic_band_count(height) bands, band b covering rows
 * [b * CISP_DEMOSAIC_BAND_ROWS, min((b + 1) * CISP_DEMOSAIC_BAND_ROWS, height)).
 * The split depends on the height only, so per-band scratch can be sized at
 * create time and results never depend on the thread count.
 */
#define CISP_DEMOSAIC_BAND_ROWS 64
typedef void (*cisp_demosaic_band_fn)(void *ctx, int band, int y0, int y1);
int cisp_demosaic_band_count(int height);
void cisp_demosaic_bands(struct cisp_pool *pool, int height, cisp_demosaic_band_fn fn, void *ctx);

/*
 * The fast algorithm on rows [y0, y1): reads Bayer rows [y0 - 3, y1 + 3)
 * (reflected at the frame edges) and @halo, two rows of width samples it
 * overwrites (the green of the rows just outside the band).
 */
void cisp_demosaic_fast_rows(const struct plane16 *bayer, enum cisp_cfa cfa, const struct rgb16 *out, int y0,
			     int y1, uint16_t *halo);

/*
 * The fast algorithm's row kernels (the dsp.h entries), split out of it:
 * green of a row from Bayer rows r[0..4] (y-2..y+2), red and blue of a row
 * from Bayer rows b[0..2] (y-1..y+1) and their green g[0..2]; nx is the
 * row's first red or blue column (cisp_demosaic_first_colour()), and
 * cisp_demosaic_red_first() says whether that colour is red. The _range
 * versions compute columns [x0, x1) only, reflecting at the edges.
 */
int cisp_demosaic_first_colour(enum cisp_cfa cfa, int y);
int cisp_demosaic_red_first(enum cisp_cfa cfa, int y);
void cisp_demosaic_green_row_c(const uint16_t *const r[5], uint16_t *dst, int w, int nx);
void cisp_demosaic_green_range_c(const uint16_t *const r[5], uint16_t *dst, int w, int nx, int x0, int x1);
void cisp_demosaic_rb_row_c(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c,
			    uint16_t *other_c, int w, int nx);
void cisp_demosaic_rb_range_c(const uint16_t *const b[3], const uint16_t *const g[3], uint16_t *row_c,
			      uint16_t *other_c, int w, int nx, int x0, int x1);

/*
 * The quality algorithm, in demosaic_quality.c; cisp_demosaic_*() call it only
 * when the build defines HAVE_DEMOSAIC_QUALITY (set by src/isp/meson.build when
 * that file exists). Its state holds the scratch it needs for one frame size;
 * run() runs its passes over the whole frame on @pool (with cisp_demosaic_bands()).
 */
struct cisp_demosaic_quality;
/* 0 or -ENOMEM. */
int cisp_demosaic_quality_create(struct cisp_demosaic_quality **q, int width, int height);
void cisp_demosaic_quality_destroy(struct cisp_demosaic_quality *q);
/* @dsp: the table whose dmq_* entries run the passes; NULL for the C ones. */
void cisp_demosaic_quality_run(struct cisp_demosaic_quality *q, const struct plane16 *bayer, enum cisp_cfa cfa,
			       const struct cisp_demosaic_params *p, const struct rgb16 *out,
			       struct cisp_pool *pool, const struct cisp_dsp *dsp);

#endif
