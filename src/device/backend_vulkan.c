/* SPDX-License-Identifier: MIT */
/*
 * The Vulkan backend (vulkan_backend.h, docs/gpu.md). Each context opens the
 * Vulkan device and keeps a software ISP for the stages the GPU does not run
 * yet. A frame goes:
 *
 *   raw input --copy--> GPU: unpack, black level[, lens shading][, white balance]
 *     --> 16-bit Bayer frame (host-visible) --> software ISP: the rest,
 *
 * or, when the GPU has every stage the frame runs (plan.rgb), on through the
 * RGB side (vulkan_rgb.h) to the outputs, without the software ISP.
 *
 * The software ISP's part reads a 16-bit frame, whose unpack is the
 * identity, with the blocks the GPU ran disabled; since only the unpack
 * reads the input format, and vulkan_plan_frame() keeps white balance on the
 * CPU wherever a later stage reads its enable bit, the outputs and
 * statistics are the software ISP's bit for bit. The GPU's job is submitted
 * with a timeline semaphore the worker waits on; the device signals the
 * job's cisp fence when process() returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/log.h>

#include "core/error_internal.h"
#include "device/vulkan_backend.h"
#include "device/vulkan_frame.h"
#include "device/vulkan_rgb.h"

struct vulkan_instance {
	struct vk_gpu *gpu;
	struct vk_frame *frame;
	struct cisp_isp *cpu; /* the stages after the GPU's, on 16-bit Bayer frames */
	struct vk_rgb *rgb;   /* the stages after white balance, when it packs the outputs (else NULL) */
	enum cisp_cfa cfa;
	uint32_t mid_format;  /* of the frames the GPU hands over */
	struct cisp_params_limits limits;
	struct cisp_param_state state;     /* after every delta the device applied */
	struct cisp_param_state cpu_state; /* what the software ISP holds */
	int logged_plan;                   /* the last plan logged (-1: none) */
};

struct vulkan_plan vulkan_plan_frame(const struct cisp_param_state *s, bool stats)
{
	/* Stages after black level that the GPU does not have yet (no vendor stages: create() refuses them). */
	const uint32_t before_lsc = CISP_BLOCK_BIT(CISP_BLOCK_DPC) | CISP_BLOCK_BIT(CISP_BLOCK_BNR);
	const uint32_t before_wb = before_lsc | (stats ? CISP_BLOCK_BIT(CISP_BLOCK_STATS) : 0);
	/* Stages whose arithmetic reads whether white balance is on (statistics, highlights, chroma denoise). */
	const uint32_t readers = CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) |
				 (stats ? CISP_BLOCK_BIT(CISP_BLOCK_STATS) : 0);
	struct vulkan_plan p = { 0 };

	p.blc = s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BLC);
	p.lsc = (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LSC)) && !(s->enabled & before_lsc);
	p.wb = (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB)) && !(s->enabled & (before_wb | readers));
	p.rgb = vulkan_rgb_covers(s, &p, stats);
	return p;
}

int vulkan_describe(char *buf, size_t size)
{
	struct vk_gpu *gpu;
	int ret = vk_gpu_open(&gpu);

	if (ret)
		return ret;
	vk_gpu_describe(gpu, buf, size);
	vk_gpu_close(gpu);
	return 0;
}

static void vulkan_destroy(void *instance)
{
	struct vulkan_instance *v = instance;

	if (!v)
		return;
	vk_rgb_destroy(v->rgb);
	vk_frame_destroy(v->frame);
	vk_gpu_close(v->gpu);
	cisp_isp_destroy(v->cpu);
	free(v);
}

static int vulkan_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	const struct cisp_format_info *info = cisp_format_info(config->input_format);
	struct cisp_isp_config cpu = *config;
	struct vulkan_instance *v;
	char name[512];
	int ret;

	(void)opaque;
	if (config->vendor)
		return cisp_error(-ENOTSUP, "Vulkan backend: no vendor stages");
	if ((ret = cisp_isp_check_config(config)))
		return ret;
	v = calloc(1, sizeof(*v));
	if (!v)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan context");
	v->cfa = info->cfa;
	v->mid_format = cisp_bayer_format(info->cfa, 16, false);
	cpu.input_format = v->mid_format;
	cisp_param_state_init(&v->state);
	cisp_param_state_init(&v->cpu_state);
	if ((ret = vk_gpu_open(&v->gpu)) ||
	    (ret = vk_frame_create(v->gpu, config->input_format, config->width, config->height, &v->frame)) ||
	    (ret = cisp_isp_create(&v->cpu, &cpu)) ||
	    (ret = vk_rgb_open(v->gpu, v->frame, config, &v->rgb))) {
		vulkan_destroy(v);
		return ret;
	}
	cisp_isp_limits(v->cpu, &v->limits);
	vk_gpu_describe(v->gpu, name, sizeof(name));
	cisp_log(CISP_LOG_INFO, "Vulkan backend on %s", name);
	v->logged_plan = -1;
	*instance = v;
	return 0;
}

static void vulkan_limits(void *instance, struct cisp_params_limits *limits)
{
	*limits = ((struct vulkan_instance *)instance)->limits;
}

static int vulkan_check_params(void *instance, const void *buf, size_t size)
{
	return cisp_params_validate(buf, size, &((struct vulkan_instance *)instance)->limits);
}

static int vulkan_set_params(void *instance, const void *buf, size_t size)
{
	struct vulkan_instance *v = instance;

	return cisp_param_state_apply(&v->state, buf, size, &v->limits);
}

/* The software ISP's state for a frame whose @plan ran on the GPU: the state less those blocks. */
static int sync_cpu(struct vulkan_instance *v, const struct vulkan_plan *plan)
{
	struct cisp_param_state want = v->state;
	uint32_t changed;
	int ret;

	if (plan->blc)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_BLC);
	if (plan->lsc)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_LSC);
	if (plan->wb)
		want.enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_WB);
	changed = cisp_params_diff(&v->cpu_state, &want);
	if (!changed)
		return 0;
	if ((ret = cisp_isp_set_state(v->cpu, &want, changed)))
		return cisp_error_prefix(ret, "Vulkan backend: the software ISP's state");
	v->cpu_state = want;
	return 0;
}

static int vulkan_process(void *instance, struct cisp_device_frame *f)
{
	struct vulkan_instance *v = instance;
	const struct vulkan_plan plan = vulkan_plan_frame(&v->state, f->stats != NULL);
	struct vk_step steps[4];
	unsigned n = 0;
	const uint16_t *samples;
	struct cisp_image mid;
	int ret;

	if (v->logged_plan != (plan.blc | plan.lsc << 1 | plan.wb << 2)) {
		v->logged_plan = plan.blc | plan.lsc << 1 | plan.wb << 2;
		cisp_log(CISP_LOG_DEBUG, "Vulkan backend: the GPU runs unpack%s%s%s, the CPU the rest",
			 plan.blc ? ", blc" : "", plan.lsc ? ", lsc" : "", plan.wb ? ", wb" : "");
	}
	vk_step_unpack(v->frame, &steps[n++]);
	if (plan.blc) {
		struct cisp_blc_coeffs c;

		cisp_blc_prepare(&c, &v->state.blc, v->cfa);
		vk_step_blc(v->frame, &c, &steps[n++]);
	}
	if (plan.lsc) {
		struct cisp_lsc_coeffs *c;

		if ((ret = cisp_lsc_prepare(&c, &v->state.lsc, v->cfa, (int)v->frame->width, (int)v->frame->height)))
			return ret;
		vk_step_lsc(v->frame, c, &steps[n++]);
		cisp_lsc_free(c);
	}
	if (plan.wb) {
		struct cisp_wb_coeffs c;

		cisp_wb_prepare(&c, &v->state.wb, v->cfa);
		vk_step_wb(v->frame, &c, &steps[n++]);
	}
	if (plan.rgb && v->rgb)
		return vk_rgb_process(v->rgb, v->frame, v->cfa, &v->state, f->input[0], steps, n, f->output);
	if ((ret = sync_cpu(v, &plan)) || (ret = vk_frame_run(v->frame, f->input[0], steps, n, &samples)))
		return ret;
	ret = cisp_image_wrap(&mid, v->mid_format, v->frame->width, v->frame->height, (void *)samples,
			      (size_t)v->frame->width * v->frame->height * 2);
	return ret ? ret : cisp_isp_process(v->cpu, &mid, f->output, f->stats, f->pool);
}

const struct cisp_device_backend device_backend_vulkan = {
	.name = VULKAN_ISP_NAME,
	.create = vulkan_create,
	.destroy = vulkan_destroy,
	.check_params = vulkan_check_params,
	.set_params = vulkan_set_params,
	.process = vulkan_process,
	.limits = vulkan_limits,
};
