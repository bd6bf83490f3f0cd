/* SPDX-License-Identifier: MIT */
/*
 * Work on whole frames: an instance's frame-sized working planes, which
 * the executors lend out by index for one frame, and the split of a frame's
 * rows into bands on the worker pool.
 */
#ifndef CISP_ISP_FRAME_H
#define CISP_ISP_FRAME_H

#include <stdbool.h>

#include <cisp/pool.h>

#include "core/plane.h"

struct cisp_isp;

/* Frame-sized 16-bit planes an instance holds at the most (made on first use, then kept). */
#define CISP_FRAME_PLANES 8

/* Make the instance's frame-sized planes if they are not made yet; 0 or -ENOMEM. */
int cisp_isp_frame_memory(struct cisp_isp *isp);
/* Frame-sized plane @index (< CISP_FRAME_PLANES; the memory is made). */
struct plane16 cisp_isp_frame_plane(const struct cisp_isp *isp, int index);
/* Lend @n planes of those free in *@used: their indices into @index[0..n); false (none lent) when too few are free. */
bool cisp_frame_planes_take(unsigned *used, int n, int index[3]);

/*
 * Run @fn over rows [0, @height) in bands of even rows on @pool (NULL: on
 * this thread), several per worker; @worker is the pool's worker index.
 */
void cisp_frame_bands(struct cisp_pool *pool, int height, void (*fn)(void *ctx, unsigned worker, int y0, int y1),
		      void *ctx);

#endif
