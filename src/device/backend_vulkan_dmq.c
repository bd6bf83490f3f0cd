/* SPDX-License-Identifier: MIT */
/* The quality demosaic on the GPU (vulkan_dmq.h, docs/gpu.md). */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "device/vulkan_dmq.h"

/* The SPIR-V of shaders/dmq_*.comp, compiled at build time (src/device/meson.build). */
static const uint32_t spv_diff[] =
#include "device/dmq_diff.spv.h"
	;
static const uint32_t spv_green[] =
#include "device/dmq_green.spv.h"
	;
static const uint32_t spv_loo[] =
#include "device/dmq_loo.spv.h"
	;
static const uint32_t spv_blend[] =
#include "device/dmq_blend.spv.h"
	;
static const uint32_t spv_kdiff[] =
#include "device/dmq_kdiff.spv.h"
	;
static const uint32_t spv_kgreen[] =
#include "device/dmq_kgreen.spv.h"
	;
static const uint32_t spv_colour[] =
#include "device/dmq_colour.spv.h"
	;

static const struct {
	const uint32_t *code;
	size_t size;
} step_code[VK_DMQ_STEP_COUNT] = {
	[VK_DMQ_DIFF] = { spv_diff, sizeof(spv_diff) },
	[VK_DMQ_GREEN] = { spv_green, sizeof(spv_green) },
	[VK_DMQ_LOO_PASS1] = { spv_loo, sizeof(spv_loo) },
	[VK_DMQ_BLEND] = { spv_blend, sizeof(spv_blend) },
	[VK_DMQ_KDIFF] = { spv_kdiff, sizeof(spv_kdiff) },
	[VK_DMQ_KGREEN] = { spv_kgreen, sizeof(spv_kgreen) },
	[VK_DMQ_COLOUR] = { spv_colour, sizeof(spv_colour) },
};

/* Invocations per workgroup along x (shaders/rgb.glsl). */
#define GROUP_PIXELS 64

int vk_dmq_create(struct vk_gpu *g, const struct vk_frame *bayer, const struct vk_buffer *planes, struct vk_dmq **out)
{
	struct vk_dmq *d = calloc(1, sizeof(*d));
	int ret;

	*out = NULL;
	if (!d)
		return cisp_error(-ENOMEM, "out of memory for the quality demosaic on the GPU");
	d->gpu = g;
	d->width = bayer->width;
	d->height = bayer->height;
	ret = vk_buffer_create(g, (VkDeviceSize)d->width * d->height * 4 * 4, &d->scratch);
	if (!ret) {
		const struct vk_buffer *bindings[2][3] = { { &bayer->plane[0], planes, &d->scratch },
							   { &bayer->plane[1], planes, &d->scratch } };

		ret = vk_sets_create(g, 2, bindings, &d->descriptors, d->set);
	}
	if (!ret)
		ret = vk_commands_create(g, &d->commands, &d->cmd);
	if (ret) {
		vk_dmq_destroy(d);
		return ret;
	}
	*out = d;
	return 0;
}

void vk_dmq_destroy(struct vk_dmq *d)
{
	if (!d)
		return;
	if (d->commands)
		vkDestroyCommandPool(d->gpu->device, d->commands, NULL);
	if (d->descriptors)
		vkDestroyDescriptorPool(d->gpu->device, d->descriptors, NULL);
	for (int s = 0; s < VK_DMQ_STEP_COUNT; s++)
		if (d->pipeline[s])
			vkDestroyPipeline(d->gpu->device, d->pipeline[s], NULL);
	vk_buffer_destroy(d->gpu, &d->scratch);
	free(d);
}

int vk_dmq_record(struct vk_dmq *d, VkCommandBuffer cmd, bool after_another, enum cisp_cfa cfa,
		  unsigned bayer_plane, unsigned false_colour, unsigned first, unsigned last)
{
	/* The push constants of shaders/dmq.glsl: the parities of cisp_dmq_rb_column() and cisp_dmq_red_row(). */
	const uint32_t rx = cfa == CISP_CFA_GRBG || cfa == CISP_CFA_BGGR, ry = cfa == CISP_CFA_GBRG || cfa == CISP_CFA_BGGR;
	uint32_t push[6] = { d->width, d->height, rx + ry, ry, false_colour > 256 ? 256 : false_colour, 0 };

	for (unsigned s = first; s < last && s < VK_DMQ_STEP_COUNT; s++) {
		/* The two error steps are one shader. */
		const unsigned k = s == VK_DMQ_LOO_GREEN ? VK_DMQ_LOO_PASS1 : s;
		int ret;

		if (!d->pipeline[k] &&
		    (ret = vk_pipeline_create(d->gpu, step_code[k].code, step_code[k].size, &d->pipeline[k])))
			return ret;
		/* The errors of pass 2 on pass 1's colour-difference green (plane R), of pass 3 on the green (G). */
		push[5] = s == VK_DMQ_LOO_GREEN;
		vk_commands_dispatch(cmd, d->gpu, after_another || s > first, d->pipeline[k], d->set[bayer_plane ? 1 : 0],
				     push, sizeof(push), (d->width + GROUP_PIXELS - 1) / GROUP_PIXELS, d->height);
	}
	return 0;
}

int vk_dmq_run(struct vk_dmq *d, enum cisp_cfa cfa, unsigned bayer_plane, unsigned false_colour, unsigned first,
	       unsigned last)
{
	int ret = vk_commands_begin(d->cmd);

	if (ret || (ret = vk_dmq_record(d, d->cmd, false, cfa, bayer_plane, false_colour, first, last)) ||
	    (ret = vk_commands_end(d->cmd)))
		return ret;
	return vk_gpu_run(d->gpu, d->cmd);
}
