/* SPDX-License-Identifier: MIT */
/*
 * The exposure-bracket merge (src/isp/merge.h) on the Vulkan device, for
 * CISP_JOB_MERGE_HDR jobs. Each frame of the bracket goes through the
 * exposure stages (unpack, black level) on the GPU, longest exposure first,
 * one command buffer per frame (the frame's raw buffer holds one input);
 * the merge so far is kept in a buffer of its own, and the merge step
 * (shaders/merge.comp) folds the next frame into it. The shortest frame's
 * command buffer goes on with the rest of the frame's steps.
 */
#ifndef CISP_DEVICE_VULKAN_MERGE_H
#define CISP_DEVICE_VULKAN_MERGE_H

#include <cisp/device.h>

#include "device/vulkan_gpu.h"
#include "isp/merge.h"

struct vk_frame;
struct vk_step;

/*
 * A frame's merge, made at its first bracket: the merge so far (16-bit
 * samples as the planes), sets reading plane s and it into plane 1 - s, the
 * merge's pipeline.
 */
struct vk_merge {
	struct vk_buffer acc;
	VkDescriptorPool descriptors;
	VkDescriptorSet set[2];
	VkPipeline pipeline;
};

/* The frame's merge (vk_frame's merge), made once: 0 or a negative errno. */
int vk_frame_merge_open(struct vk_frame *frame);
/* The step that merges the frame its steps made with the merge so far, with @c (vk_frame_merge_open() first). */
void vk_step_merge(const struct vk_frame *frame, const struct cisp_merge_coeffs *c, struct vk_step *step);
/* Record @step's dispatch into @cmd, from plane @from into the other (vk_frame_record()'s business). */
void vk_merge_record(const struct vk_frame *frame, VkCommandBuffer cmd, const struct vk_step *step, unsigned from);
void vk_merge_destroy(struct vk_gpu *gpu, struct vk_merge *merge);

/*
 * The frames of the bracket @job but its shortest exposure: each through
 * @steps (its exposure stages, the first an unpack), merged in the
 * reference's order (cisp_merge_order()) into the merge so far, making the
 * frame's merge the first time. Then *@merge is the step that merges the
 * shortest frame, *@last, which the caller runs through @steps, *@merge and
 * the rest of its steps. 0 or a negative errno.
 */
int vk_frame_merge(struct vk_frame *frame, const struct cisp_device_frame *job, const struct vk_step *steps,
		   unsigned count, struct vk_step *merge, const struct cisp_image **last);

#endif
