/* SPDX-License-Identifier: MIT */
/*
 * The default backend: the canonical software ISP (isp.h). One struct
 * cisp_isp per context holds its configuration and parameter state.
 */
#include <cisp/isp.h>
#include <cisp/params_state.h>

#include "device/device_internal.h"
#include "device/select.h"

static int isp_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	(void)opaque;
	return cisp_isp_create((struct cisp_isp **)instance, config);
}

static void isp_destroy(void *instance)
{
	cisp_isp_destroy(instance);
}

/* Called on the submitting thread: only the limits fixed at creation are read. */
static int isp_check_params(void *instance, const void *buf, size_t size)
{
	struct cisp_params_limits limits;

	cisp_isp_limits(instance, &limits);
	return cisp_params_validate(buf, size, &limits);
}

static void isp_limits(void *instance, struct cisp_params_limits *limits)
{
	cisp_isp_limits(instance, limits);
}

static int isp_set_params(void *instance, const void *buf, size_t size)
{
	return cisp_isp_set_params(instance, buf, size);
}

static int isp_process(void *instance, struct cisp_device_frame *f)
{
	struct cisp_isp *isp = instance;

	switch (f->mode) {
	case CISP_JOB_SELECT_SHARPEST:
		return device_select_sharpest(isp, f);
	case CISP_JOB_MERGE_HDR:
		return cisp_isp_process_bracket(isp, f->input, f->exposure, f->num_inputs, f->output, f->stats, f->pool);
	default:
		return cisp_isp_process(isp, f->input[0], f->output, f->stats, f->pool);
	}
}

const struct cisp_device_backend device_backend_isp = {
	.name = "isp",
	.create = isp_create,
	.destroy = isp_destroy,
	.check_params = isp_check_params,
	.set_params = isp_set_params,
	.process = isp_process,
	.modes = (1u << CISP_JOB_SELECT_SHARPEST) | (1u << CISP_JOB_MERGE_HDR),
	.limits = isp_limits,
};
