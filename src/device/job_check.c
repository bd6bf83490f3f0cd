/* SPDX-License-Identifier: MIT */
/*
 * Validation of a job description against its context, before anything is
 * queued: every buffer present and of the configured format and size, a
 * well-formed params delta, in-fences that exist. Whatever a caller passes,
 * the answer is an error code and a message, never a crash later on a
 * worker.
 */
#include <errno.h>

#include <cisp/format.h>
#include <cisp/params.h>

#include "core/error_internal.h"
#include "device/device_internal.h"
#include "device/job_check.h"

const char *job_mode_name(uint32_t mode)
{
	switch (mode) {
	case CISP_JOB_SINGLE:
		return "single";
	case CISP_JOB_SELECT_SHARPEST:
		return "select-sharpest";
	case CISP_JOB_MERGE_HDR:
		return "merge-hdr";
	default:
		return "unknown";
	}
}

/* Names for messages, made once: submission formats nothing unless it fails. */
static const char *const input_name[CISP_JOB_MAX_INPUTS] = {
	"job input 0", "job input 1", "job input 2", "job input 3",
	"job input 4", "job input 5", "job input 6", "job input 7",
};
static const char *const output_name[CISP_MAX_OUTPUTS] = { "job output 0", "job output 1" };
_Static_assert(CISP_JOB_MAX_INPUTS == 8 && CISP_MAX_OUTPUTS == 2, "one name per input and output");

static int check_image(const struct cisp_context *ctx, const struct cisp_image *img, uint32_t format,
		       uint32_t width, uint32_t height, const char *what)
{
	int ret = cisp_image_check(img, what);

	if (ret)
		return ret;
	if (img->format != format || img->width != width || img->height != height)
		return cisp_error(-EINVAL, "%s is %ux%u %s but context '%s' takes %ux%u %s", what, img->width,
				  img->height, cisp_format_name(img->format), ctx->name, width, height,
				  cisp_format_name(format));
	return 0;
}

static int check_inputs(const struct cisp_context *ctx, const struct cisp_job *job)
{
	const struct cisp_isp_config *c = &ctx->config.isp;
	unsigned min = job->mode == CISP_JOB_SINGLE ? 1 : 2, max = job->mode == CISP_JOB_SINGLE ? 1 : CISP_JOB_MAX_INPUTS;
	uint32_t lo = UINT32_MAX, hi = 0;
	int ret;

	if (job->mode > CISP_JOB_MERGE_HDR)
		return cisp_error(-EINVAL, "job mode %u is not single (0), select-sharpest (1) or merge-hdr (2)",
				  job->mode);
	if (job->mode != CISP_JOB_SINGLE && !(ctx->backend->modes & (1u << job->mode)))
		return cisp_error(-ENOTSUP, "context '%s' (backend %s) cannot run %s jobs", ctx->name,
				  ctx->backend->name, job_mode_name(job->mode));
	if (job->num_inputs < min || job->num_inputs > max)
		return cisp_error(-EINVAL, "a %s job takes %u..%u inputs, not %u", job_mode_name(job->mode), min, max,
				  job->num_inputs);
	for (unsigned i = 0; i < CISP_JOB_MAX_INPUTS; i++) {
		const char *what = input_name[i];

		if (i >= job->num_inputs) {
			if (job->input[i])
				return cisp_error(-EINVAL, "%s is set but num_inputs is %u", what, job->num_inputs);
			continue;
		}
		if (!job->input[i])
			return cisp_error(-EINVAL, "%s is missing (NULL) while num_inputs is %u", what, job->num_inputs);
		if ((ret = check_image(ctx, job->input[i], c->input_format, c->width, c->height, what)))
			return ret;
		if (job->mode == CISP_JOB_MERGE_HDR) {
			if (!job->exposure[i])
				return cisp_error(-EINVAL, "job exposure %u is 0; a merge-hdr job needs every exposure > 0", i);
			lo = job->exposure[i] < lo ? job->exposure[i] : lo;
			hi = job->exposure[i] > hi ? job->exposure[i] : hi;
		}
	}
	if (job->mode == CISP_JOB_MERGE_HDR && (uint64_t)hi > (uint64_t)lo * CISP_JOB_MAX_EXPOSURE_RATIO)
		return cisp_error(-EINVAL, "job exposures span %u..%u, more than the ratio %u a merge-hdr job allows",
				  lo, hi, CISP_JOB_MAX_EXPOSURE_RATIO);
	return 0;
}

static int check_outputs(const struct cisp_context *ctx, const struct cisp_job *job)
{
	int ret;

	for (unsigned i = 0; i < CISP_MAX_OUTPUTS; i++) {
		const struct cisp_output_config *o = &ctx->config.isp.output[i];
		const char *what = output_name[i];

		if (!o->format) {
			if (job->output[i])
				return cisp_error(-EINVAL, "%s is set but context '%s' has no output %u", what, ctx->name, i);
			continue;
		}
		if (!job->output[i])
			return cisp_error(-EINVAL, "%s is missing (NULL); context '%s' configures it as %ux%u %s", what,
					  ctx->name, o->width, o->height, cisp_format_name(o->format));
		if ((ret = check_image(ctx, job->output[i], o->format, o->width, o->height, what)))
			return ret;
	}
	return 0;
}

static int check_params(const struct cisp_context *ctx, const struct cisp_job *job)
{
	int ret;

	if (!job->params != !job->params_size)
		return cisp_error(-EINVAL, "job params is %s but params_size is %zu", job->params ? "set" : "NULL",
				  job->params_size);
	if (!job->params)
		return 0;
	if (job->params_size > CISP_PARAMS_MAX_SIZE)
		return cisp_error(-EMSGSIZE, "job params_size %zu is over the largest params buffer (%u bytes)",
				  job->params_size, CISP_PARAMS_MAX_SIZE);
	if (!ctx->backend->check_params)
		return cisp_error(-ENOTSUP, "context '%s' (backend %s) takes no params", ctx->name, ctx->backend->name);
	if ((ret = ctx->backend->check_params(ctx->instance, job->params, job->params_size)))
		return cisp_error_prefix(ret, "job params");
	return 0;
}

static int check_fences(const struct cisp_job *job)
{
	if (job->num_in_fences > CISP_JOB_MAX_IN_FENCES)
		return cisp_error(-EINVAL, "job num_in_fences %u is over %u", job->num_in_fences, CISP_JOB_MAX_IN_FENCES);
	if (job->num_in_fence_fds > CISP_JOB_MAX_IN_FENCES)
		return cisp_error(-EINVAL, "job num_in_fence_fds %u is over %u", job->num_in_fence_fds,
				  CISP_JOB_MAX_IN_FENCES);
	for (unsigned i = 0; i < job->num_in_fences; i++)
		if (!job->in_fence[i])
			return cisp_error(-EINVAL, "job in-fence %u is NULL while num_in_fences is %u", i,
					  job->num_in_fences);
	return 0;
}

int job_check(const struct cisp_context *ctx, const struct cisp_job *job)
{
	int ret;

	if ((ret = check_inputs(ctx, job)) || (ret = check_outputs(ctx, job)) || (ret = check_params(ctx, job)) ||
	    (ret = check_fences(job)))
		return ret;
	return 0;
}
