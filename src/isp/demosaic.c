/* SPDX-License-Identifier: MIT */
/*
 * Demosaic: choose the algorithm, hold its scratch memory, split its passes
 * into row bands on the worker pool.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "isp/demosaic.h"

struct cisp_demosaic {
	enum cisp_demosaic_algorithm algorithm;
	int width, height;
	uint16_t *halo; /* fast: 2 rows of green per band */
	struct cisp_demosaic_quality *quality;
};

int cisp_demosaic_band_count(int height)
{
	return (height + CISP_DEMOSAIC_BAND_ROWS - 1) / CISP_DEMOSAIC_BAND_ROWS;
}

struct bands {
	int height;
	cisp_demosaic_band_fn fn;
	void *ctx;
};

static void band_task(void *opaque, unsigned task, unsigned worker)
{
	const struct bands *b = opaque;
	int y0 = (int)task * CISP_DEMOSAIC_BAND_ROWS;
	int y1 = y0 + CISP_DEMOSAIC_BAND_ROWS < b->height ? y0 + CISP_DEMOSAIC_BAND_ROWS : b->height;

	(void)worker;
	b->fn(b->ctx, (int)task, y0, y1);
}

void cisp_demosaic_bands(struct cisp_pool *pool, int height, cisp_demosaic_band_fn fn, void *ctx)
{
	struct bands b = { height, fn, ctx };

	cisp_pool_run(pool, (unsigned)cisp_demosaic_band_count(height), band_task, &b);
}

unsigned cisp_demosaic_algorithms(void)
{
	unsigned set = 1u << CISP_DEMOSAIC_FAST;

#ifdef HAVE_DEMOSAIC_QUALITY
	set |= 1u << CISP_DEMOSAIC_QUALITY;
#endif
	return set;
}

int cisp_demosaic_create(struct cisp_demosaic **out, enum cisp_demosaic_algorithm algorithm, int width,
			 int height)
{
	struct cisp_demosaic *dm;

	*out = NULL;
	if (width < 16 || height < 16 || (width | height) & 1)
		return cisp_error(-EINVAL, "cannot demosaic a %dx%d frame: width and height must be even and at least 16",
				  width, height);
	if (algorithm != CISP_DEMOSAIC_FAST && algorithm != CISP_DEMOSAIC_QUALITY)
		return cisp_error(-EINVAL, "unknown demosaic algorithm %d (0 fast, 1 quality)", (int)algorithm);
	if (!(cisp_demosaic_algorithms() & (1u << algorithm)))
		return cisp_error(-ENOTSUP, "the quality demosaic is not part of this build");
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return cisp_error(-ENOMEM, "out of memory for a demosaic");
	dm->algorithm = algorithm;
	dm->width = width;
	dm->height = height;
	if (algorithm == CISP_DEMOSAIC_FAST) {
		dm->halo = malloc((size_t)cisp_demosaic_band_count(height) * 2 * (size_t)width * sizeof(uint16_t));
		if (!dm->halo) {
			free(dm);
			return cisp_error(-ENOMEM, "out of memory for the demosaic of a %dx%d frame", width, height);
		}
	}
#ifdef HAVE_DEMOSAIC_QUALITY
	if (algorithm == CISP_DEMOSAIC_QUALITY) {
		int ret = cisp_demosaic_quality_create(&dm->quality, width, height);

		if (ret) {
			free(dm);
			return ret;
		}
	}
#endif
	*out = dm;
	return 0;
}

void cisp_demosaic_destroy(struct cisp_demosaic *dm)
{
	if (!dm)
		return;
#ifdef HAVE_DEMOSAIC_QUALITY
	cisp_demosaic_quality_destroy(dm->quality);
#endif
	free(dm->halo);
	free(dm);
}

struct fast_job {
	const struct cisp_demosaic *dm;
	const struct plane16 *bayer;
	enum cisp_cfa cfa;
	const struct rgb16 *out;
};

static void fast_band(void *ctx, int band, int y0, int y1)
{
	const struct fast_job *j = ctx;

	cisp_demosaic_fast_rows(j->bayer, j->cfa, j->out, y0, y1, j->dm->halo + (size_t)band * 2 * j->dm->width);
}

void cisp_demosaic_run(struct cisp_demosaic *dm, const struct plane16 *bayer, enum cisp_cfa cfa,
		       const struct cisp_demosaic_params *p, const struct rgb16 *out, struct cisp_pool *pool)
{
	cisp_demosaic_run_dsp(dm, bayer, cfa, p, out, pool, NULL);
}

void cisp_demosaic_run_dsp(struct cisp_demosaic *dm, const struct plane16 *bayer, enum cisp_cfa cfa,
			   const struct cisp_demosaic_params *p, const struct rgb16 *out, struct cisp_pool *pool,
			   const struct cisp_dsp *dsp)
{
	struct fast_job job = { dm, bayer, cfa, out };

#ifdef HAVE_DEMOSAIC_QUALITY
	if (dm->algorithm == CISP_DEMOSAIC_QUALITY) {
		cisp_demosaic_quality_run(dm->quality, bayer, cfa, p, out, pool, dsp);
		return;
	}
#endif
	(void)p;
	(void)dsp;
	cisp_demosaic_bands(pool, dm->height, fast_band, &job);
}
