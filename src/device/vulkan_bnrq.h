/* SPDX-License-Identifier: MIT */
/*
 * The quality Bayer denoise (CISP_BNR_QUALITY, src/isp/bnr_quality.h) on the
 * Vulkan device, one step of the Bayer side (vulkan_frame.h) in three
 * dispatches: the patch filter's guide into a plane of its own
 * (shaders/bnrq_guide.comp), the patch filter into the next plane
 * (bnrq_patch.comp), and the transform shrinkage, which replaces it with
 * the mean of the two (bnrq_transform.comp). The shaders take 64-bit
 * integers: a device without shaderInt64 leaves the stage to the CPU.
 */
#ifndef CISP_DEVICE_VULKAN_BNRQ_H
#define CISP_DEVICE_VULKAN_BNRQ_H

#include "device/vulkan_gpu.h"
#include "isp/bnr_quality.h"

struct vk_frame;
struct vk_step;

/* What a step runs: the stage (both filters and their mean), or for the tests one filter alone. */
enum vk_bnrq_filters {
	VK_BNRQ_PATCH = 1,
	VK_BNRQ_TRANSFORM = 2,
	VK_BNRQ_BOTH = 3,
};

/* A frame's pipelines for the stage, made at its first step; it runs on the frame's guide (vulkan_frame.h). */
struct vk_bnrq {
	VkPipeline guide_pipeline, patch_pipeline, transform_pipeline;
};

/*
 * The step of the quality Bayer denoise with @q (cisp_bnr_quality_params()
 * of the host's cisp_bnr_prepare()) on @frame, making the frame's guide
 * and the pipelines for it the first time: 0, -ENOTSUP where the device has no
 * 64-bit integers, or another negative errno.
 */
int vk_step_bnrq(struct vk_frame *frame, const struct cisp_bnr_quality *q, enum vk_bnrq_filters filters,
		 struct vk_step *step);
/* Record @step's dispatches into @cmd, from plane @from into the other (vk_frame_record()'s business). */
void vk_bnrq_record(const struct vk_frame *frame, VkCommandBuffer cmd, const struct vk_step *step, unsigned from,
		    bool after_another);
void vk_bnrq_destroy(struct vk_gpu *gpu, struct vk_bnrq *bnrq);

#endif
