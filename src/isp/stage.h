/* SPDX-License-Identifier: MIT */
/*
 * A stage of the canonical ISP, described in one place: its descriptor,
 * defined in the stage's own file next to its arithmetic. The executors
 * (pipeline.c, the reference; pipeline_fused.c, the banded one) and the
 * stage benchmark run stages through their descriptors only, in the order
 * of stage_list.h, and name none of them (docs/pipeline.md, "Adding a
 * stage").
 *
 * A descriptor says:
 *  - which params block turns it on, and which blocks its tables read
 *    (prepare() runs again when one of them changes);
 *  - its reference: rows(), the scalar reference arithmetic on rows of
 *    whole-frame planes, which the reference executor runs band by band on
 *    the pool; or frame(), work that needs the whole frame at once;
 *  - its banded form, for the banded executor: point(), one row from the
 *    same row of its input, which runs on the rows the step before it has
 *    just made while they are in cache; or passes(), row functions that
 *    read rows of support above and below. A stage with neither runs
 *    between two runs of bands, on frame-sized planes, by its reference;
 *  - a statistics tap: sums over its input rows, per worker, merged after
 *    the frame into struct cisp_stats.
 */
#ifndef CISP_ISP_STAGE_H
#define CISP_ISP_STAGE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cisp/format.h>
#include <cisp/image.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/stats.h>

#include "core/error_internal.h"
#include "core/plane.h"

struct cisp_dsp;
struct cisp_stage;
struct vendor_instance;

/* What prepare() builds from: the parameter state and the stream. */
struct stage_env {
	const struct cisp_param_state *state;
	uint32_t format; /* of the input frames */
	int width, height;
	enum cisp_cfa cfa;
	struct vendor_instance *vendor; /* the instance's vendor stages, or NULL */
	/* The stages (cisp_stages) and their coefficients, by list index: stage_coeffs(). */
	const struct cisp_stage *const *stages;
	void *const *coeffs;
};

/* What every function of a stage runs with. */
struct stage_ctx {
	void *coeffs;                         /* what its prepare() made (NULL: it has none) */
	const struct cisp_param_state *state; /* the parameter state */
	const struct cisp_dsp *dsp;           /* the row functions; NULL in the reference executor */
	int width, height;
	enum cisp_cfa cfa;
};

/* Rows of whole-frame planes for rows(): 1 (Bayer) or 3 planes each. */
struct stage_io {
	const struct cisp_image *image; /* the input frame (the stage with source()) */
	struct rgb16 in, out;
	struct cisp_pool *pool;         /* frame() only: its workers */
};

/* The pass's input: -1 the stage's input, k >= 0 the rows of its pass k. */
#define STAGE_INPUT (-1)
#define STAGE_MAX_PASSES 3

struct pass_io;

/*
 * One pass of a stage's banded form: rows of @planes planes from the rows
 * of its inputs, each read @radius rows above and below the rows it makes
 * (reflected at the frame edges; the executor holds those rows). rows()
 * makes rows [y0, y1) of io->out and hands each one on, in order, with
 * pass_emit() once it is final.
 */
struct stage_pass {
	int planes;
	int n_in;
	struct {
		int from;
		int radius;
	} in[2];
	bool in_place;  /* may write over the rows of its STAGE_INPUT input, when nothing else reads them */
	size_t scratch; /* bytes of scratch per worker (io->scratch) */
	void (*rows)(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1);
	int min_band; /* the least rows of the banded executor's bands through it (0: any) */
};

struct pass_io {
	struct rgb16 in[2]; /* its inputs' rows, by frame row */
	struct rgb16 out;   /* its rows */
	void *scratch;
	/* The executor's: pass_emit() calls it; @points: point functions run on each row handed on. */
	void (*emit)(const struct pass_io *io, int y, const uint16_t *const row[3]);
	bool points;
	const void *node;
};

/*
 * Row @y is final: @row holds its planes' samples (NULL: out's row @y, the
 * usual case). The point functions after the pass run on it into out's row;
 * without any, a @row elsewhere is copied there.
 */
static inline void pass_emit(const struct pass_io *io, int y, const uint16_t *const row[3])
{
	if (row || io->points)
		io->emit(io, y, row);
}

/* A statistics tap: integer sums over rows, per worker, merged after the frame (order does not matter). */
struct stage_tap {
	int radius; /* rows read above and below the rows given */
	/* Zeroed sums for @workers workers; @params: the block to use instead of the state's (or NULL). */
	int (*begin)(const struct stage_ctx *c, const void *params, unsigned workers);
	/* Add rows [y0, y1) (even bounds) of @in; the dsp row functions when c->dsp is set. */
	void (*rows)(const struct stage_ctx *c, unsigned worker, const struct plane16 *in, int y0, int y1);
	/* Merge the workers' sums and write them into @stats. */
	void (*finish)(const struct stage_ctx *c, unsigned workers, struct cisp_stats *stats);
};

/* A bracket's merge: frames folded longest exposure first (docs/stages/merge.md). */
struct stage_merge {
	/* Indices of @exposure from the longest to the shortest. */
	void (*order)(const uint32_t *exposure, unsigned count, unsigned *order);
	/* Rows [y0, y1) of @acc (at exposure @longer) merged with @frame (at @shorter), into @acc. */
	void (*rows)(uint32_t longer, uint32_t shorter, const struct plane16 *acc, const struct plane16 *frame, int y0,
		     int y1);
};

/* cisp_stage.flags */
#define STAGE_ALWAYS (1u << 0)   /* runs whatever its block's enable bit says (or it has no block) */
#define STAGE_EXPOSURE (1u << 1) /* runs on each frame of a bracket, before the merge */
#define STAGE_YUV (1u << 2)      /* runs for YUV outputs only, after the RGB outputs took their rows */

struct cisp_stage {
	const char *name;   /* as docs/pipeline.md names it */
	unsigned block;     /* its params block (enum cisp_block_type; 0: none) */
	uint32_t reads;     /* CISP_BLOCK_BIT()s of other blocks its prepare() reads */
	unsigned flags;     /* STAGE_* */
	int planes_in, planes_out;

	/* Build or update *coeffs for @env (*coeffs is NULL the first time); 0 or a negative errno. */
	int (*prepare)(void **coeffs, const struct stage_env *env);
	void (*release)(void *coeffs);
	/* Whether it runs this frame, where its block's enable bit does not say all (NULL: it does). */
	bool (*active)(const struct stage_ctx *c);
	/* What it adds to what the instance accepts (NULL: nothing). */
	void (*limits)(struct cisp_params_limits *limits);

	/* The reference: rows() on rows of whole-frame planes, or frame() on the whole frame. */
	void (*rows)(const struct stage_ctx *c, const struct stage_io *io, int y0, int y1);
	int (*frame)(const struct stage_ctx *c, const struct stage_io *io);
	/*
	 * Bit p: plane p of its output may be its input's (the executors make
	 * it so where they can); a frame() with every bit set works in place.
	 */
	uint8_t in_place;

	/* The banded form: a point function of one row (@in may be @out), or passes (0: none this frame). */
	void (*point)(const struct stage_ctx *c, const uint16_t *const in[3], uint16_t *const out[3], int y);
	int (*passes)(const struct stage_ctx *c, struct stage_pass pass[STAGE_MAX_PASSES]);

	/* The stage that reads the input frame: row @y of @image into @row (16-bit units). */
	void (*source)(const struct stage_ctx *c, const struct cisp_image *image, int y, uint16_t *row);
	const struct stage_tap *tap;
	const struct stage_merge *merge;
};

/* The stages in pipeline order (stage_list.h), and their number. */
enum {
#define STAGE(name) CISP_STAGE_INDEX_##name,
#include "isp/stage_list.h"
#undef STAGE
	CISP_STAGE_COUNT
};
extern const struct cisp_stage *const cisp_stages[CISP_STAGE_COUNT];

/*
 * The coefficients @stage's prepare() made, for a stage whose tables read
 * another's (it comes earlier in the list, so they are made first).
 */
static inline const void *stage_coeffs(const struct stage_env *env, const struct cisp_stage *stage)
{
	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++)
		if (env->stages[i] == stage)
			return env->coeffs[i];
	return NULL;
}

/* *coeffs, or a new zeroed block of @size bytes there (prepare()'s start); 0 or -ENOMEM. */
static inline int stage_alloc(void **coeffs, size_t size, const char *what)
{
	if (!*coeffs && !(*coeffs = calloc(1, size)))
		return cisp_error(-ENOMEM, "out of memory for the %s tables", what);
	return 0;
}

/* Whether @s runs on this frame by its enable bit and active(). */
bool stage_active(const struct cisp_stage *s, const struct stage_ctx *c);

#define STAGE(name) extern const struct cisp_stage cisp_stage_##name;
#include "isp/stage_list.h"
#undef STAGE

#endif
