/* SPDX-License-Identifier: MIT */
/*
 * The ISP instance (isp.c) and its two executors: pipeline.c, the
 * reference (each stage over the whole frame, then the next), and
 * pipeline_fused.c, the banded one (row bands that run every stage while
 * the rows are in cache, with the dsp.h row functions). Both run the stages
 * of stage_list.h through their descriptors (stage.h) and give the same
 * bits. isp.c calls them; the banded executor calls the reference one for
 * work over whole frames; both call output.c.
 */
#ifndef CISP_ISP_PIPELINE_INTERNAL_H
#define CISP_ISP_PIPELINE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cisp/isp.h>

#include "isp/dsp.h"
#include "isp/frame.h"
#include "isp/output.h"
#include "core/plane.h"
#include "isp/stage.h"

struct cisp_fused;
struct vendor_instance;

struct cisp_isp {
	struct cisp_isp_config config;
	enum cisp_cfa cfa;
	struct cisp_params_limits limits;
	struct cisp_param_state state;

	void *coeffs[CISP_STAGE_COUNT]; /* each stage's tables, from its prepare() */
	struct output_state out[CISP_MAX_OUTPUTS];
	struct vendor_instance *vendor; /* vendor stages (src/vendor_stage), or NULL */

	/* CISP_FRAME_PLANES frame-sized planes (frame.h), made the first time a frame needs them */
	uint16_t *memory;

	/* execution: cisp_isp_set_exec() */
	bool fused;           /* banded executor where the configuration allows it */
	int band_rows;        /* rows per band of the banded executor */
	const struct cisp_dsp *dsp;
	struct cisp_dsp dsp_level; /* a forced level's table */
	struct cisp_fused *fx;     /* the banded executor's buffers (per worker) */
};

/*
 * How an instance executes. @fused: false runs the reference stage by stage
 * over whole frames with the scalar reference stages. @band_rows: rows per
 * band of the banded executor (even, >= 2; 0: the default). @cpu: a
 * cisp_cpu_level for the row functions, or -1 for cisp_dsp() (the best the
 * CPU has, capped by CISP_CPU). Returns 0 or -EINVAL / -ENOTSUP.
 */
struct cisp_isp_exec {
	bool fused;
	int band_rows;
	int cpu;
};
int cisp_isp_set_exec(struct cisp_isp *isp, const struct cisp_isp_exec *e);
/* Bytes of working memory the instance holds now (frame-sized planes, band buffers). */
size_t cisp_isp_memory(const struct cisp_isp *isp);

/* What stage @index's functions run with on this instance; @dsp NULL for the reference. */
static inline struct stage_ctx cisp_isp_stage_ctx(const struct cisp_isp *isp, unsigned index, const struct cisp_dsp *dsp)
{
	return (struct stage_ctx){ isp->coeffs[index], &isp->state, dsp, (int)isp->config.width, (int)isp->config.height,
				   isp->cfa };
}

/* Whether the instance has YUV outputs (@yuv), or RGB ones. */
static inline bool cisp_isp_has_outputs(const struct cisp_isp *isp, bool yuv)
{
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (isp->out[i].used && isp->out[i].yuv == yuv)
			return true;
	return false;
}

/* ---- the executors ---- */

/*
 * The reference executor, for one frame or a bracket of @count (@exposure
 * as cisp_isp_process_bracket() takes them; unused for one frame).
 */
int cisp_reference_process(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			   unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			   struct cisp_pool *pool);
/* The stages up to the statistics tap, then the tap with @params (NULL: the state's). */
int cisp_reference_statistics(struct cisp_isp *isp, const struct cisp_image *input, const void *params,
			      struct cisp_stats *stats, struct cisp_pool *pool);
/*
 * Stage @index alone over the whole frame by its reference (rows() in bands
 * on @pool, or frame()), from @io->in to @io->out; @dsp as in
 * cisp_isp_stage_ctx(). A tap adds its rows to @stats (may be NULL).
 */
int cisp_reference_stage(struct cisp_isp *isp, unsigned index, const struct cisp_dsp *dsp, const struct stage_io *io,
			 struct cisp_stats *stats, struct cisp_pool *pool);

/* The banded executor, with the arguments of cisp_reference_process(): 1 when it cannot run this configuration. */
int cisp_banded_process(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			struct cisp_pool *pool);
/* Stage @index alone in bands, from frame-sized planes @io->in to @io->out (the stage benchmark); 1 as above. */
int cisp_banded_stage(struct cisp_isp *isp, unsigned index, const struct stage_io *io, struct cisp_stats *stats,
		      struct cisp_pool *pool);
/* The band buffers' bytes, and freeing them. */
size_t cisp_banded_bytes(const struct cisp_isp *isp);
void cisp_banded_free(struct cisp_isp *isp);

#endif
