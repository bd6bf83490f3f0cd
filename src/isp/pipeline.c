/* SPDX-License-Identifier: MIT */
/*
 * The reference executor: every stage of stage_list.h over the whole frame,
 * one after the other, by its reference (its scalar rows() split into row
 * bands on the pool, or its frame()), in the instance's frame-sized planes.
 *
 * A bracket's frames each go through the stages marked STAGE_EXPOSURE,
 * longest exposure first, and are merged into the first by the stage with
 * the merge. A stage writes over its input's planes where its in_place bits
 * allow, else into planes that are free. The RGB outputs are made before the
 * first STAGE_YUV stage, the YUV outputs after the last stage.
 */
#include <errno.h>

#include "core/error_internal.h"
#include "isp/pipeline_internal.h"

/* The image a frame has reached: @n frame-sized planes of the instance, by index. */
struct image {
	int n;
	int index[3];
	struct rgb16 planes;
};

/* Give back the planes of @img that @keep does not hold too. */
static void give_back(unsigned *used, const struct image *img, const struct image *keep)
{
	for (int p = 0; p < img->n; p++) {
		bool kept = false;

		for (int q = 0; q < keep->n; q++)
			kept |= keep->index[q] == img->index[p];
		if (!kept)
			*used &= ~(1u << img->index[p]);
	}
}

/* ---- one stage over the whole frame ---- */

struct job {
	const struct cisp_stage *stage;
	struct stage_ctx ctx;
	const struct stage_io *io;
	uint32_t longer, shorter; /* merge */
};

static void rows_band(void *opaque, unsigned worker, int y0, int y1)
{
	const struct job *j = opaque;

	(void)worker;
	j->stage->rows(&j->ctx, j->io, y0, y1);
}

static void tap_band(void *opaque, unsigned worker, int y0, int y1)
{
	const struct job *j = opaque;

	j->stage->tap->rows(&j->ctx, worker, &j->io->in.c[0], y0, y1);
}

static void merge_band(void *opaque, unsigned worker, int y0, int y1)
{
	const struct job *j = opaque;

	(void)worker;
	j->stage->merge->rows(j->longer, j->shorter, &j->io->out.c[0], &j->io->in.c[0], y0, y1);
}

/* Stage @index's tap over @io->in with @params (NULL: the state's), into @stats. */
static int run_tap(struct cisp_isp *isp, unsigned index, const struct cisp_dsp *dsp, const struct stage_io *io,
		   const void *params, struct cisp_stats *stats, struct cisp_pool *pool)
{
	const struct job j = { cisp_stages[index], cisp_isp_stage_ctx(isp, index, dsp), io, 0, 0 };
	const unsigned workers = cisp_pool_threads(pool);
	int ret = j.stage->tap->begin(&j.ctx, params, workers);

	if (ret)
		return ret;
	cisp_frame_bands(pool, (int)isp->config.height, tap_band, (void *)&j);
	if (stats)
		j.stage->tap->finish(&j.ctx, workers, stats);
	return 0;
}

int cisp_reference_stage(struct cisp_isp *isp, unsigned index, const struct cisp_dsp *dsp, const struct stage_io *io,
			 struct cisp_stats *stats, struct cisp_pool *pool)
{
	const struct cisp_stage *s = cisp_stages[index];
	struct stage_io whole = *io;
	const struct job j = { s, cisp_isp_stage_ctx(isp, index, dsp), &whole, 0, 0 };

	whole.pool = pool;
	if (s->tap)
		return run_tap(isp, index, dsp, io, NULL, stats, pool);
	if (s->frame)
		return s->frame(&j.ctx, &whole);
	cisp_frame_bands(pool, (int)isp->config.height, rows_band, (void *)&j);
	return 0;
}

/* ---- a frame ---- */

struct run {
	struct cisp_isp *isp;
	struct cisp_pool *pool;
	unsigned used; /* frame planes lent */
	struct image cur;
};

/* Stage @index on the current image, into its own planes where it may, else into free ones. */
static int run_stage(struct run *r, unsigned index, const struct cisp_image *input)
{
	const struct cisp_stage *s = cisp_stages[index];
	struct image out = { .n = s->planes_out };
	int fresh[3], n_fresh = 0, ret;

	for (int p = 0; p < out.n; p++) {
		if (p < r->cur.n && (s->in_place & (1u << p))) {
			out.index[p] = r->cur.index[p];
			out.planes.c[p] = r->cur.planes.c[p];
		} else {
			out.index[p] = -1;
			n_fresh++;
		}
	}
	if (!cisp_frame_planes_take(&r->used, n_fresh, fresh))
		return cisp_error(-ENOMEM, "stage %s: no free frame-sized plane", s->name);
	for (int p = 0, k = 0; p < out.n; p++) {
		if (out.index[p] < 0) {
			out.index[p] = fresh[k++];
			out.planes.c[p] = cisp_isp_frame_plane(r->isp, out.index[p]);
		}
	}
	ret = cisp_reference_stage(r->isp, index, NULL,
				   &(struct stage_io){ .image = input, .in = r->cur.planes, .out = out.planes }, NULL,
				   r->pool);
	give_back(&r->used, &r->cur, &out);
	r->cur = out;
	return ret;
}

/* The outputs of one kind (@yuv) from the current image. */
static int finish_outputs(struct run *r, bool yuv, struct cisp_image *const output[CISP_MAX_OUTPUTS])
{
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		int ret;

		if (r->isp->out[i].used && r->isp->out[i].yuv == yuv &&
		    (ret = cisp_output_finish(r->isp, i, &r->cur.planes, output[i], r->pool)))
			return ret;
	}
	return 0;
}

/*
 * The exposure stages on each frame of a bracket, longest exposure first,
 * each frame after the first merged into it; then the current image.
 */
static int run_exposures(struct run *r, const struct cisp_image *const input[], const uint32_t exposure[],
			 unsigned count)
{
	const struct cisp_stage *merge = NULL;
	unsigned order[CISP_BRACKET_MAX_FRAMES] = { 0 };
	struct image first = { 0 };
	int ret = 0;

	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++)
		merge = cisp_stages[i]->merge ? cisp_stages[i] : merge;
	if (count > 1)
		merge->merge->order(exposure, count, order);
	for (unsigned k = 0; k < count && !ret; k++) {
		struct image frame;

		r->cur = (struct image){ 0 }; /* the first exposure stage reads the input frame */
		for (unsigned i = 0; i < CISP_STAGE_COUNT && !ret; i++) {
			struct stage_ctx ctx = cisp_isp_stage_ctx(r->isp, i, NULL);

			if ((cisp_stages[i]->flags & STAGE_EXPOSURE) && stage_active(cisp_stages[i], &ctx))
				ret = run_stage(r, i, input[order[k]]);
		}
		if (k == 0) {
			first = r->cur;
			continue;
		}
		frame = r->cur;
		cisp_frame_bands(r->pool, (int)r->isp->config.height, merge_band,
				 &(struct job){ .stage = merge,
						.io = &(struct stage_io){ .in = frame.planes, .out = first.planes },
						.longer = exposure[order[k - 1]],
						.shorter = exposure[order[k]] });
		give_back(&r->used, &frame, &(struct image){ 0 });
		r->cur = first;
	}
	return ret;
}

/*
 * One frame or bracket through every stage, the outputs made from the
 * planes of the stages' results. @stats_only: stop after the statistics tap,
 * run with @stats_params whatever its enable bit says.
 */
static int run_frame(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
		     unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
		     const void *stats_params, bool stats_only, struct cisp_pool *pool)
{
	struct run r = { isp, pool, 0, { 0 } };
	bool rgb_done = !cisp_isp_has_outputs(isp, false);
	int ret;

	if ((ret = cisp_isp_frame_memory(isp)) || (ret = run_exposures(&r, input, exposure, count)))
		return ret;
	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++) {
		const struct cisp_stage *s = cisp_stages[i];
		struct stage_ctx ctx = cisp_isp_stage_ctx(isp, i, NULL);

		if ((s->flags & STAGE_EXPOSURE) || s->merge)
			continue;
		if (s->tap) {
			if (stats_only || (stats && stage_active(s, &ctx)))
				ret = run_tap(isp, i, NULL, &(struct stage_io){ .in = r.cur.planes }, stats_params, stats,
					      pool);
			if (ret || stats_only)
				return ret;
			continue;
		}
		if (!stage_active(s, &ctx) || ((s->flags & STAGE_YUV) && !cisp_isp_has_outputs(isp, true)))
			continue;
		/* The RGB outputs take the rows that the YUV ones go on from. */
		if ((s->flags & STAGE_YUV) && !rgb_done) {
			if ((ret = finish_outputs(&r, false, output)))
				return ret;
			rgb_done = true;
		}
		if ((ret = run_stage(&r, i, NULL)))
			return ret;
	}
	if (stats_only)
		return 0; /* no statistics tap */
	if (!rgb_done && (ret = finish_outputs(&r, false, output)))
		return ret;
	return finish_outputs(&r, true, output);
}

int cisp_reference_process(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			   unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			   struct cisp_pool *pool)
{
	return run_frame(isp, input, exposure, count, output, stats, NULL, false, pool);
}

int cisp_reference_statistics(struct cisp_isp *isp, const struct cisp_image *input, const void *params,
			      struct cisp_stats *stats, struct cisp_pool *pool)
{
	return run_frame(isp, &input, NULL, 1, NULL, stats, params, true, pool);
}
