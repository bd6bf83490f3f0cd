/* SPDX-License-Identifier: MIT */
/* Clipped highlights on the GPU (vulkan_highlights.h, docs/gpu.md). */
#include <errno.h>

#include "core/error_internal.h"
#include "device/vulkan_highlights.h"

/* The SPIR-V of shaders/highlights.comp, compiled at build time (src/device/meson.build). */
static const uint32_t spv_highlights[] =
#include "device/highlights.spv.h"
	;

/* Invocations per workgroup along x (shaders/samples.glsl): each makes a pair of samples. */
#define GROUP_PAIRS 64

/* The push constants of shaders/highlights.comp: 16 words, VK_PUSH_MAX. */
enum { PUSH_WORDS = 16 };

static void push_constants(const struct cisp_highlights_coeffs *c, uint32_t width, uint32_t height,
			   uint32_t push[PUSH_WORDS])
{
	push[0] = width;
	push[1] = height;
	push[2] = c->mode;
	for (int site = 0; site < 4; site++)
		push[2] |= (uint32_t)c->colour[site] << (16 + 2 * site);
	push[3] = c->white | (uint32_t)c->knee << 16;
	for (int k = 0; k < 3; k++) {
		push[4 + k] = c->clip[k] | (uint32_t)c->knees[k] << 16;
		push[7 + k] = c->floors[k];
		push[10 + k] = c->ramp[k];
		push[13 + k] = c->framp[k];
	}
}

int vk_highlights_record(struct vk_rgb *r, const struct vk_frame *frame, const struct cisp_highlights_coeffs *c,
			 unsigned *plane)
{
	VkPipeline *pipeline = &r->pipeline[VK_RGB_HIGHLIGHTS];
	uint32_t push[PUSH_WORDS];
	int ret;

	if (frame->width != r->width || frame->height != r->height)
		return cisp_error(-EINVAL, "Vulkan backend: highlights of a %ux%u frame on a %ux%u RGB side",
				  frame->width, frame->height, r->width, r->height);
	if (!*pipeline && (ret = vk_pipeline_create(r->gpu, spv_highlights, sizeof(spv_highlights), pipeline)))
		return ret;
	push_constants(c, frame->width, frame->height, push);
	/* The frame's sets 1 and 2: plane 0 into plane 1, plane 1 into plane 0 (vulkan_frame.h). */
	vk_commands_dispatch(r->cmd, r->gpu, true, *pipeline, frame->set[1 + *plane], push, sizeof(push),
			     (frame->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS, frame->height);
	*plane ^= 1;
	return 0;
}

int vk_highlights_record_state(struct vk_rgb *r, const struct vk_frame *frame, enum cisp_cfa cfa,
			       const struct cisp_param_state *s, unsigned *plane)
{
	struct cisp_highlights_coeffs c;

	/* As the reference's highlights_prepare(): the gains only where white balance is on. */
	cisp_highlights_prepare(&c, &s->highlights, s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &s->wb : NULL, cfa);
	return vk_highlights_record(r, frame, &c, plane);
}
