/* SPDX-License-Identifier: MIT */
/* Work on whole frames: the frame-sized planes of an instance, and row bands on the pool. */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "isp/frame.h"
#include "isp/pipeline_internal.h"

int cisp_isp_frame_memory(struct cisp_isp *isp)
{
	const size_t n = (size_t)isp->config.width * isp->config.height;

	if (!isp->memory && !(isp->memory = malloc(n * CISP_FRAME_PLANES * sizeof(uint16_t))))
		return cisp_error(-ENOMEM, "out of memory for the working planes of a %ux%u frame", isp->config.width,
				  isp->config.height);
	return 0;
}

struct plane16 cisp_isp_frame_plane(const struct cisp_isp *isp, int index)
{
	const int w = (int)isp->config.width, h = (int)isp->config.height;

	return (struct plane16){ isp->memory + (size_t)w * h * index, w, 0, w, h };
}

bool cisp_frame_planes_take(unsigned *used, int n, int index[3])
{
	unsigned taken = 0;
	int k = 0;

	for (int i = 0; i < CISP_FRAME_PLANES && k < n; i++) {
		if (!((*used | taken) & (1u << i))) {
			taken |= 1u << i;
			index[k++] = i;
		}
	}
	if (k < n)
		return false;
	*used |= taken;
	return true;
}

struct bands {
	int height, count;
	void (*fn)(void *ctx, unsigned worker, int y0, int y1);
	void *ctx;
};

static void band_task(void *opaque, unsigned task, unsigned worker)
{
	const struct bands *b = opaque;
	/* Bands start and end on even rows: 4:2:0 packing and 2x2 statistics cells need it. */
	int band = ((b->height + b->count - 1) / b->count + 1) & ~1;
	int y0 = (int)task * band, y1 = y0 + band < b->height ? y0 + band : b->height;

	if (y0 < y1)
		b->fn(b->ctx, worker, y0, y1);
}

void cisp_frame_bands(struct cisp_pool *pool, int height, void (*fn)(void *ctx, unsigned worker, int y0, int y1),
		      void *ctx)
{
	unsigned threads = cisp_pool_threads(pool);
	struct bands b = { height, threads > 1 ? (int)threads * 4 : 1, fn, ctx };

	if (b.count > height / 2)
		b.count = height / 2;
	cisp_pool_run(pool, (unsigned)b.count, band_task, &b);
}
