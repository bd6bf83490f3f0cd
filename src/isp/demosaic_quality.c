/* SPDX-License-Identifier: MIT */
/*
 * The quality demosaic over a frame: docs/stages/demosaic_quality.md defines
 * it; demosaic_quality_row.c holds its three passes on chunks of rows (the
 * reference), and dsp.h their optimised versions. This file runs the passes
 * over bands of the frame on the pool, with scratch per worker thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "isp/demosaic.h"
#include "isp/demosaic_quality.h"
#include "isp/dsp.h"

/*
 * Rows the C passes compute at a time within a band, to keep their scratch
 * small; the vector passes keep rings of rows and take whole bands (less
 * of the rows above and below recomputed).
 */
#define CHUNK_ROWS 32

/*
 * Bands a thread of the vector passes takes on average: each band computes
 * about 10 rows above and below it again, and the last band of a pass may
 * leave the other threads waiting, so a few bands a thread, not one.
 */
#define VECTOR_BANDS_PER_THREAD 8

struct cisp_demosaic_quality {
	int width, height;
	unsigned workers; /* scratch areas allocated */
	void **scratch;   /* one per worker thread */
};

static int grow_scratch(struct cisp_demosaic_quality *q, unsigned workers)
{
	void **s;

	if (workers <= q->workers)
		return 0;
	s = realloc(q->scratch, workers * sizeof(*s));
	if (!s)
		return -ENOMEM;
	q->scratch = s;
	while (q->workers < workers) {
		s[q->workers] = malloc(cisp_dmq_scratch_size(q->width, CHUNK_ROWS));
		if (!s[q->workers])
			return -ENOMEM;
		q->workers++;
	}
	return 0;
}

int cisp_demosaic_quality_create(struct cisp_demosaic_quality **out, int width, int height)
{
	struct cisp_demosaic_quality *q = calloc(1, sizeof(*q));

	*out = NULL;
	if (!q)
		return cisp_error(-ENOMEM, "out of memory for the quality demosaic");
	q->width = width;
	q->height = height;
	if (grow_scratch(q, 1)) {
		cisp_demosaic_quality_destroy(q);
		return cisp_error(-ENOMEM, "out of memory for the quality demosaic of a %dx%d frame", width, height);
	}
	*out = q;
	return 0;
}

void cisp_demosaic_quality_destroy(struct cisp_demosaic_quality *q)
{
	if (!q)
		return;
	for (unsigned i = 0; i < q->workers; i++)
		free(q->scratch[i]);
	free(q->scratch);
	free(q);
}

struct quality_job {
	struct cisp_demosaic_quality *q;
	const struct plane16 *bayer;
	enum cisp_cfa cfa;
	unsigned false_colour;
	const struct rgb16 *out;
	const struct cisp_dsp *dsp; /* the passes' functions */
	int band;                   /* rows of a band */
	int chunk;                  /* rows a call of a pass computes */
};

static void band_rows(const struct quality_job *j, unsigned band, int *y0, int *y1)
{
	const int height = j->q->height;

	*y0 = (int)band * j->band;
	*y1 = *y0 + j->band < height ? *y0 + j->band : height;
}

/*
 * Pass 1 leaves its two greens in the red and blue planes, which pass 2
 * reads (rows of the neighbouring bands too) to write the green plane, which
 * pass 3 reads to write red and blue.
 */
static void green_task(void *opaque, unsigned band, unsigned worker)
{
	const struct quality_job *j = opaque;
	int y0, y1;

	band_rows(j, band, &y0, &y1);
	for (int y = y0; y < y1; y += j->chunk)
		j->dsp->dmq_green_rows(j->bayer, j->cfa, &j->out->c[0], &j->out->c[2], y,
				    y + j->chunk < y1 ? y + j->chunk : y1, j->q->scratch[worker]);
}

static void blend_task(void *opaque, unsigned band, unsigned worker)
{
	const struct quality_job *j = opaque;
	int y0, y1;

	band_rows(j, band, &y0, &y1);
	for (int y = y0; y < y1; y += j->chunk)
		j->dsp->dmq_blend_rows(j->bayer, &j->out->c[0], &j->out->c[2], j->cfa, &j->out->c[1], y,
				    y + j->chunk < y1 ? y + j->chunk : y1, j->q->scratch[worker]);
}

static void colour_task(void *opaque, unsigned band, unsigned worker)
{
	const struct quality_job *j = opaque;
	int y0, y1;

	band_rows(j, band, &y0, &y1);
	for (int y = y0; y < y1; y += j->chunk)
		j->dsp->dmq_colour_rows(j->bayer, &j->out->c[1], j->cfa, j->false_colour, j->out, y,
				     y + j->chunk < y1 ? y + j->chunk : y1, j->q->scratch[worker]);
}

void cisp_demosaic_quality_run(struct cisp_demosaic_quality *q, const struct plane16 *bayer, enum cisp_cfa cfa,
			       const struct cisp_demosaic_params *p, const struct rgb16 *out,
			       struct cisp_pool *pool, const struct cisp_dsp *dsp)
{
	struct cisp_dsp c;
	struct quality_job job = { q, bayer, cfa, p->false_colour, out, dsp, CISP_DEMOSAIC_BAND_ROWS,
				   CISP_DEMOSAIC_BAND_ROWS };
	unsigned threads = cisp_pool_threads(pool);

	if (!dsp) {
		cisp_dsp_init(&c, CISP_CPU_SCALAR);
		job.dsp = &c;
	}
	/* Scratch is per worker thread; without enough of it, run on the caller alone (same result). */
	if (grow_scratch(q, threads)) {
		pool = NULL;
		threads = 1;
	}
	if (job.dsp->dmq_green_rows == cisp_dmq_green_rows || job.dsp->dmq_blend_rows == cisp_dmq_blend_rows ||
	    job.dsp->dmq_colour_rows == cisp_dmq_colour_rows) {
		job.chunk = CHUNK_ROWS;
	} else {
		/* bands of an even number of rows, at least CISP_DEMOSAIC_BAND_ROWS: the results do not depend on them */
		int rows = (int)(((unsigned)q->height + VECTOR_BANDS_PER_THREAD * threads - 1) /
				 (VECTOR_BANDS_PER_THREAD * threads));

		rows += rows & 1;
		job.band = job.chunk = rows > CISP_DEMOSAIC_BAND_ROWS ? rows : CISP_DEMOSAIC_BAND_ROWS;
	}
	unsigned bands = (unsigned)((q->height + job.band - 1) / job.band);

	/* Each pass reads rows of neighbouring bands: the one before finishes the whole frame first. */
	cisp_pool_run(pool, bands, green_task, &job);
	cisp_pool_run(pool, bands, blend_task, &job);
	cisp_pool_run(pool, bands, colour_task, &job);
}
