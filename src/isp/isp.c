/* SPDX-License-Identifier: MIT */
/*
 * The ISP instance (include/cisp/isp.h): its configuration, its parameter
 * state and the stages' tables built from it, and the choice of executor
 * for each frame. The pipeline itself is the list of stages (stage_list.h)
 * that the executors run (pipeline.c, pipeline_fused.c).
 *
 * A stage's tables are rebuilt when a params buffer changes its block or a
 * block they read, never per frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/isp.h>

#include "core/error_internal.h"
#include "isp/pipeline_internal.h"
#include "isp/statistics.h"
#include "vendor_stage/vendor_internal.h"

/* ---- configuration ---- */

static int check_output(const struct cisp_output_config *o, int index)
{
	const struct cisp_format_info *f = cisp_format_info(o->format);

	if (!f || (f->kind != CISP_KIND_YUV && f->kind != CISP_KIND_RGB))
		return cisp_error(-EINVAL,
				  "output %d: format %s is not an ISP output (use NV12, YUV420, RGB24, RGB48 or XBGR32)",
				  index, cisp_format_name(o->format));
	if (o->width < 2 || o->height < 2 || o->width > CISP_MAX_DIMENSION || o->height > CISP_MAX_DIMENSION)
		return cisp_error(-EINVAL, "output %d: size %ux%u is outside 2x2..%ux%u", index, o->width, o->height,
				  CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (f->kind == CISP_KIND_YUV && (o->width % 2 || o->height % 2))
		return cisp_error(-EINVAL, "output %d: %s size %ux%u must be even", index, f->name, o->width,
				  o->height);
	return 0;
}

int cisp_isp_check_config(const struct cisp_isp_config *c)
{
	const struct cisp_format_info *f = cisp_format_info(c->input_format);
	int ret;

	if (!f || f->kind != CISP_KIND_BAYER)
		return cisp_error(-EINVAL, "input format %s is not a Bayer format", cisp_format_name(c->input_format));
	if (c->width < 16 || c->height < 16 || c->width > CISP_MAX_DIMENSION || c->height > CISP_MAX_DIMENSION ||
	    c->width % 2 || c->height % 2)
		return cisp_error(-EINVAL, "input size %ux%u must be even and within 16x16..%ux%u", c->width,
				  c->height, CISP_MAX_DIMENSION, CISP_MAX_DIMENSION);
	if (f->packed && f->bits == 10 && c->width % 4)
		return cisp_error(-EINVAL, "input width %u of %s must be a multiple of 4", c->width, f->name);
	if (!c->output[0].format)
		return cisp_error(-EINVAL, "output 0 (main) must be configured");
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		if (c->output[i].format && (ret = check_output(&c->output[i], i)))
			return ret;
	}
	return 0;
}

/* ---- the parameter cache ---- */

/* Rebuild the tables of the stages that read a block in @changed (CISP_BLOCK_BIT mask), in list order. */
static int update_coeffs(struct cisp_isp *isp, uint32_t changed)
{
	const struct stage_env env = { &isp->state, isp->config.input_format, (int)isp->config.width,
				       (int)isp->config.height, isp->cfa, isp->vendor, cisp_stages, isp->coeffs };
	int ret;

	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++) {
		const struct cisp_stage *s = cisp_stages[i];

		if (s->prepare && (changed & (CISP_BLOCK_BIT(s->block) | s->reads)) &&
		    (ret = s->prepare(&isp->coeffs[i], &env)))
			return ret;
	}
	if (changed & CISP_BLOCK_BIT(CISP_BLOCK_CROP))
		for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
			if ((ret = cisp_output_update(isp, i)))
				return ret;
	return 0;
}

int cisp_isp_create(struct cisp_isp **out, const struct cisp_isp_config *config)
{
	struct cisp_isp *isp;
	const char *exec_env;
	int ret;

	if ((ret = cisp_isp_check_config(config)))
		return ret;
	isp = calloc(1, sizeof(*isp));
	if (!isp)
		return cisp_error(-ENOMEM, "out of memory for an ISP instance");
	isp->config = *config;
	isp->cfa = cisp_format_info(config->input_format)->cfa;
	isp->limits.width = config->width;
	isp->limits.height = config->height;
	isp->limits.blocks = 0;
	for (unsigned t = 1; t < CISP_BLOCK_TYPE_COUNT; t++)
		isp->limits.blocks |= CISP_BLOCK_BIT(t);
	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++)
		if (cisp_stages[i]->limits)
			cisp_stages[i]->limits(&isp->limits);
	cisp_param_state_init(&isp->state);
	/* CISP_EXEC=reference selects the reference executor for every instance (tests of correctness do). */
	exec_env = getenv("CISP_EXEC");
	cisp_isp_set_exec(isp, &(struct cisp_isp_exec){ !(exec_env && !strcmp(exec_env, "reference")), 0, -1 });

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		const struct cisp_output_config *oc = &config->output[i];
		struct output_state *o = &isp->out[i];

		if (!oc->format)
			continue;
		o->used = true;
		o->yuv = cisp_format_info(oc->format)->kind == CISP_KIND_YUV;
	}
	/* The vendor stages first: the stages at their taps hold the instance. */
	ret = vendor_instance_create(&isp->vendor, config->vendor, config->width, config->height, isp->cfa);
	if (!ret)
		ret = update_coeffs(isp, ~0u);
	if (ret) {
		cisp_isp_destroy(isp);
		return ret;
	}
	vendor_instance_limits(isp->vendor, &isp->limits);
	*out = isp;
	return 0;
}

void cisp_isp_destroy(struct cisp_isp *isp)
{
	if (!isp)
		return;
	for (unsigned i = 0; i < CISP_STAGE_COUNT; i++)
		if (cisp_stages[i]->release)
			cisp_stages[i]->release(isp->coeffs[i]);
	vendor_instance_destroy(isp->vendor);
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		cisp_output_free(&isp->out[i]);
	free(isp->memory);
	cisp_banded_free(isp);
	free(isp);
}

void cisp_isp_limits(const struct cisp_isp *isp, struct cisp_params_limits *limits)
{
	*limits = isp->limits;
}

const struct cisp_param_state *cisp_isp_params(const struct cisp_isp *isp)
{
	return &isp->state;
}

/* Block types present in a buffer that has passed validation. */
static uint32_t blocks_in(const void *buf, size_t size)
{
	const uint8_t *p = buf;
	size_t off = sizeof(struct cisp_params_header);
	uint32_t mask = 0;

	while (off + sizeof(struct cisp_block_header) <= size) {
		struct cisp_block_header h;

		memcpy(&h, p + off, sizeof(h));
		if (h.size < sizeof(h))
			break;
		if (h.type < 32)
			mask |= CISP_BLOCK_BIT(h.type);
		off += h.size;
	}
	return mask;
}

int cisp_isp_set_params(struct cisp_isp *isp, const void *buf, size_t size)
{
	int ret = cisp_param_state_apply(&isp->state, buf, size, &isp->limits);

	if (ret)
		return ret;
	vendor_instance_apply(isp->vendor, buf, size);
	return update_coeffs(isp, blocks_in(buf, size));
}

int cisp_isp_set_state(struct cisp_isp *isp, const struct cisp_param_state *state, uint32_t blocks)
{
	int ret = cisp_param_state_copy(&isp->state, state, blocks, &isp->limits);

	if (ret)
		return ret;
	return update_coeffs(isp, blocks);
}

/* ---- execution ---- */

int cisp_isp_set_exec(struct cisp_isp *isp, const struct cisp_isp_exec *e)
{
	if (e->band_rows < 0 || e->band_rows % 2 || e->band_rows > 4096)
		return cisp_error(-EINVAL, "band of %d rows: it must be even, 2..4096 (0 for the default)",
				  e->band_rows);
	if (e->cpu >= 0) {
		if (cisp_dsp_init(&isp->dsp_level, (enum cisp_cpu_level)e->cpu))
			return cisp_error(-ENOTSUP, "CPU level %s is not available on this machine or build",
					  cisp_cpu_name((enum cisp_cpu_level)e->cpu));
		isp->dsp = &isp->dsp_level;
	} else {
		isp->dsp = cisp_dsp();
	}
	isp->fused = e->fused;
	isp->band_rows = e->band_rows ? e->band_rows : 16;
	return 0;
}

size_t cisp_isp_memory(const struct cisp_isp *isp)
{
	size_t bytes = sizeof(*isp) + cisp_output_bytes(isp) + cisp_banded_bytes(isp);

	if (isp->memory)
		bytes += (size_t)isp->config.width * isp->config.height * CISP_FRAME_PLANES * sizeof(uint16_t);
	return bytes;
}

static int check_image(const struct cisp_image *img, uint32_t format, uint32_t width, uint32_t height,
		       const char *what)
{
	int ret = cisp_image_check(img, what);

	if (ret)
		return ret;
	if (img->format != format || img->width != width || img->height != height)
		return cisp_error(-EINVAL, "%s is %ux%u %s but the ISP is configured for %ux%u %s", what, img->width,
				  img->height, cisp_format_name(img->format), width, height,
				  cisp_format_name(format));
	return 0;
}

/* Check the inputs of a frame or bracket against the configuration. */
static int check_inputs(const struct cisp_isp *isp, const struct cisp_image *const input[], unsigned count)
{
	const struct cisp_isp_config *cfg = &isp->config;

	for (unsigned k = 0; k < count; k++) {
		char what[24];
		int ret;

		snprintf(what, sizeof(what), count > 1 ? "input %u" : "input", k);
		if ((ret = check_image(input[k], cfg->input_format, cfg->width, cfg->height, what)))
			return ret;
	}
	return 0;
}

/* One frame, or a bracket of @count frames merged first: by the banded executor where it can. */
static int process_frames(struct cisp_isp *isp, const struct cisp_image *const input[], const uint32_t exposure[],
			  unsigned count, struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			  struct cisp_pool *pool)
{
	const struct cisp_isp_config *cfg = &isp->config;
	int ret;

	if ((ret = check_inputs(isp, input, count)))
		return ret;
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		char what[16];

		if (!isp->out[i].used)
			continue;
		snprintf(what, sizeof(what), "output %d", i);
		ret = check_image(output ? output[i] : NULL, cfg->output[i].format, cfg->output[i].width,
				  cfg->output[i].height, what);
		if (ret)
			return ret;
	}
	if (stats)
		cisp_stats_header(stats, cfg->width, cfg->height);
	if (isp->fused && (ret = cisp_banded_process(isp, input, exposure, count, output, stats, pool)) <= 0)
		return ret;
	return cisp_reference_process(isp, input, exposure, count, output, stats, pool);
}

int cisp_isp_process(struct cisp_isp *isp, const struct cisp_image *input,
		     struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
		     struct cisp_pool *pool)
{
	return process_frames(isp, &input, NULL, 1, output, stats, pool);
}

int cisp_isp_process_bracket(struct cisp_isp *isp, const struct cisp_image *const input[],
			     const uint32_t exposure[], unsigned count,
			     struct cisp_image *const output[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
			     struct cisp_pool *pool)
{
	uint32_t lo = UINT32_MAX, hi = 0;

	if (count < 1 || count > CISP_BRACKET_MAX_FRAMES)
		return cisp_error(-EINVAL, "a bracket has 1..%d frames, not %u", CISP_BRACKET_MAX_FRAMES, count);
	for (unsigned k = 0; k < count; k++) {
		if (!exposure[k])
			return cisp_error(-EINVAL, "bracket exposure %u is 0; exposures must be > 0", k);
		lo = exposure[k] < lo ? exposure[k] : lo;
		hi = exposure[k] > hi ? exposure[k] : hi;
	}
	if ((uint64_t)hi > (uint64_t)lo * CISP_BRACKET_MAX_RATIO)
		return cisp_error(-EINVAL, "bracket exposures %u..%u span more than the ratio %d", lo, hi,
				  CISP_BRACKET_MAX_RATIO);
	return process_frames(isp, input, exposure, count, output, stats, pool);
}

/* A caller's statistics configuration gets the checks it would get in a params buffer. */
static int check_stats_config(const struct cisp_isp *isp, const struct cisp_stats_params *config)
{
	struct {
		struct cisp_params_header h;
		struct cisp_stats_params s;
	} buf = { .h = { .magic = CISP_PARAMS_MAGIC, .version = CISP_PARAMS_VERSION, .total_size = sizeof(buf) } };

	buf.s = *config;
	buf.s.header = (struct cisp_block_header){ CISP_BLOCK_STATS, CISP_BLOCK_FL_ENABLE, sizeof(buf.s) };
	return cisp_params_validate(&buf, sizeof(buf), &isp->limits);
}

int cisp_isp_statistics(struct cisp_isp *isp, const struct cisp_image *input, const struct cisp_stats_params *config,
			struct cisp_stats *stats, struct cisp_pool *pool)
{
	int ret;

	if ((ret = check_inputs(isp, &input, 1)) || (config && (ret = check_stats_config(isp, config))))
		return ret;
	cisp_stats_header(stats, isp->config.width, isp->config.height);
	return cisp_reference_statistics(isp, input, config, stats, pool);
}
