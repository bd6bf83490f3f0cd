/* SPDX-License-Identifier: MIT */
/*
 * Demosaic: choose the algorithm, hold its scratch memory, split its passes
 * into row bands on the worker pool.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "isp/demosaic.h"
#include "isp/dsp.h"
#include "isp/stage.h"

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

/* ---- the stage (stage.h) ---- */

struct demosaic_stage {
	struct cisp_demosaic *dm;
	int algorithm;
};

/* A demosaic for the algorithm the state asks for, made when it changes. */
static int demosaic_prepare(void **coeffs, const struct stage_env *env)
{
	struct demosaic_stage *s;
	struct cisp_demosaic *dm;
	int algorithm = env->state->demosaic.algorithm, ret = stage_alloc(coeffs, sizeof(*s), "demosaic");

	if (ret)
		return ret;
	s = *coeffs;
	if (s->dm && s->algorithm == algorithm)
		return 0;
	ret = cisp_demosaic_create(&dm, (enum cisp_demosaic_algorithm)algorithm, env->width, env->height);
	if (ret)
		return ret;
	cisp_demosaic_destroy(s->dm);
	s->dm = dm;
	s->algorithm = algorithm;
	return 0;
}

static void demosaic_release(void *coeffs)
{
	struct demosaic_stage *s = coeffs;

	if (s)
		cisp_demosaic_destroy(s->dm);
	free(s);
}

static void demosaic_limits(struct cisp_params_limits *limits)
{
	limits->demosaic_algorithms = cisp_demosaic_algorithms();
}

/* The whole frame, each pass in bands on the pool: the reference, and the quality algorithm's banded form. */
static int demosaic_frame(const struct stage_ctx *c, const struct stage_io *io)
{
	const struct demosaic_stage *s = c->coeffs;

	cisp_demosaic_run_dsp(s->dm, &io->in.c[0], c->cfa, &c->state->demosaic, &io->out, io->pool, c->dsp);
	return 0;
}

/* The fast algorithm's green of each row (cisp_demosaic_green_row_c()). */
static void green_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct plane16 *in = &io->in[0].c[0];

	for (int y = y0; y < y1; y++) {
		const uint16_t *r[5];

		for (int k = 0; k < 5; k++)
			r[k] = plane_row(in, mirror(y + k - 2, c->height));
		c->dsp->green_row(r, plane_row(&io->out.c[0], y), c->width, cisp_demosaic_first_colour(c->cfa, y));
		pass_emit(io, y, NULL);
	}
}

/*
 * Its red and blue of each row (cisp_demosaic_rb_row_c()). The row handed
 * on takes its green from the green pass's row: what comes next (the colour
 * matrix) reads it there, or it is copied.
 */
static void rb_pass(const struct stage_ctx *c, const struct pass_io *io, int y0, int y1)
{
	const struct plane16 *in = &io->in[0].c[0], *green = &io->in[1].c[0];

	for (int y = y0; y < y1; y++) {
		const uint16_t *b[3], *g[3];
		uint16_t *o[3] = { plane_row(&io->out.c[0], y), plane_row(&io->out.c[1], y), plane_row(&io->out.c[2], y) };
		int own = cisp_demosaic_red_first(c->cfa, y) ? 0 : 2; /* the row's own colour */

		for (int k = 0; k < 3; k++) {
			b[k] = plane_row(in, mirror(y + k - 1, c->height));
			g[k] = plane_row(green, mirror(y + k - 1, c->height));
		}
		c->dsp->rb_row(b, g, o[own], o[2 - own], c->width, cisp_demosaic_first_colour(c->cfa, y));
		pass_emit(io, y, (const uint16_t *const[3]){ o[0], g[1], o[2] });
	}
}

/* The fast algorithm in bands; the quality one needs the whole frame (frame()). */
static int demosaic_passes(const struct stage_ctx *c, struct stage_pass pass[STAGE_MAX_PASSES])
{
	const struct demosaic_stage *s = c->coeffs;

	if (s->algorithm != CISP_DEMOSAIC_FAST)
		return 0;
	pass[0] = (struct stage_pass){ .planes = 1, .n_in = 1, .in = { { STAGE_INPUT, 2 } }, .rows = green_pass };
	pass[1] = (struct stage_pass){ .planes = 3, .n_in = 2, .in = { { STAGE_INPUT, 1 }, { 0, 1 } }, .rows = rb_pass };
	return 2;
}

const struct cisp_stage cisp_stage_demosaic = {
	.name = "demosaic",
	.block = CISP_BLOCK_DEMOSAIC,
	.flags = STAGE_ALWAYS,
	.planes_in = 1,
	.planes_out = 3,
	.prepare = demosaic_prepare,
	.release = demosaic_release,
	.limits = demosaic_limits,
	.frame = demosaic_frame,
	.passes = demosaic_passes,
};
