/* SPDX-License-Identifier: MIT */
/* The quality Bayer denoise on the Vulkan device (vulkan_bnrq.h, docs/gpu.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "device/vulkan_bnrq.h"
#include "device/vulkan_frame.h"

/* The SPIR-V of shaders/bnrq_*.comp, compiled at build time (src/device/meson.build). */
static const uint32_t spv_bnrq_guide[] =
#include "device/bnrq_guide.spv.h"
	;
static const uint32_t spv_bnrq_patch[] =
#include "device/bnrq_patch.spv.h"
	;
static const uint32_t spv_bnrq_transform[] =
#include "device/bnrq_transform.spv.h"
	;

/* Invocations per workgroup along x (shaders/samples.glsl): a pair of samples, or a 2x2 cell. */
#define GROUP_PAIRS 64

void vk_bnrq_destroy(struct vk_gpu *g, struct vk_bnrq *b)
{
	if (!b)
		return;
	if (b->guide_pipeline)
		vkDestroyPipeline(g->device, b->guide_pipeline, NULL);
	if (b->patch_pipeline)
		vkDestroyPipeline(g->device, b->patch_pipeline, NULL);
	if (b->transform_pipeline)
		vkDestroyPipeline(g->device, b->transform_pipeline, NULL);
	free(b);
}

static int bnrq_create(struct vk_frame *f)
{
	struct vk_gpu *g = f->gpu;
	struct vk_bnrq *b;
	int ret;

	if (!g->int64)
		return cisp_error(-ENOTSUP, "Vulkan device %s has no 64-bit integers (shaderInt64) for the quality Bayer denoise",
				  g->name);
	if ((ret = vk_frame_guide(f)))
		return ret;
	b = calloc(1, sizeof(*b));
	if (!b)
		return cisp_error(-ENOMEM, "out of memory for the quality Bayer denoise");
	ret = vk_pipeline_create(g, spv_bnrq_guide, sizeof(spv_bnrq_guide), &b->guide_pipeline);
	if (!ret)
		ret = vk_pipeline_create(g, spv_bnrq_patch, sizeof(spv_bnrq_patch), &b->patch_pipeline);
	if (!ret)
		ret = vk_pipeline_create(g, spv_bnrq_transform, sizeof(spv_bnrq_transform), &b->transform_pipeline);
	if (ret) {
		vk_bnrq_destroy(g, b);
		return ret;
	}
	f->bnrq = b;
	return 0;
}

int vk_step_bnrq(struct vk_frame *f, const struct cisp_bnr_quality *q, enum vk_bnrq_filters filters,
		 struct vk_step *s)
{
	uint32_t *p = s->push;
	int ret;

	if (!f->bnrq && (ret = bnrq_create(f)))
		return ret;
	/* The layout of shaders/bnrq.glsl's push constants. */
	memset(s, 0, sizeof(*s));
	s->shader = VK_SHADER_BNR;
	s->bnr_quality = true;
	s->rows = f->height;
	p[0] = f->width;
	p[1] = f->height;
	for (int site = 0; site < 4; site++) {
		p[2 + site] = q->a[site];
		p[6 + site] = q->b[site];
		p[11] |= (uint32_t)(q->green[site] != 0) << site;
	}
	p[10] = q->s2;
	p[12] = filters;
	s->push_size = 13 * 4;
	return 0;
}

void vk_bnrq_record(const struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *s, unsigned from,
		    bool after_another)
{
	const struct vk_bnrq *b = f->bnrq;
	const uint32_t groups = (f->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS;

	if (s->push[12] & VK_BNRQ_PATCH) {
		vk_commands_dispatch(cmd, f->gpu, after_another, b->guide_pipeline, f->guide_set[from], s->push,
				     s->push_size, groups, f->height);
		vk_commands_dispatch(cmd, f->gpu, true, b->patch_pipeline, f->guide_set[2 + from], s->push, s->push_size,
				     groups, f->height);
		after_another = true;
	}
	/* One invocation a cell: half the rows. */
	if (s->push[12] & VK_BNRQ_TRANSFORM)
		vk_commands_dispatch(cmd, f->gpu, after_another, b->transform_pipeline, f->guide_set[2 + from], s->push,
				     s->push_size, groups, f->height / 2);
}
