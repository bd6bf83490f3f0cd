/* SPDX-License-Identifier: MIT */
/*
 * The exposure-bracket merge (src/isp/merge.h) on the Vulkan device, for
 * CISP_JOB_MERGE_HDR jobs. The whole bracket is one command buffer: each of
 * its frames, longest exposure first, goes through the exposure stages
 * (unpack, black level) from a raw input of its own (imported where it is,
 * or copied); the first frame's last exposure step writes one of two merge
 * buffers itself, and each merge step (shaders/merge.comp) folds the next
 * frame into the merge so far, reading one merge buffer and writing the
 * other (it reads out of place). The shortest frame's merge reads buffer 0 and
 * writes the other plane, and the frame goes on with the rest of its steps.
 */
#ifndef CISP_DEVICE_VULKAN_MERGE_H
#define CISP_DEVICE_VULKAN_MERGE_H

#include <cisp/device.h>

#include "device/vulkan_gpu.h"
#include "isp/merge.h"

struct vk_frame;
struct vk_step;

/* A bracket's frames before the shortest, each with a raw input of its own. */
#define VK_MERGE_OTHERS (CISP_JOB_MAX_INPUTS - 1)
#define VK_MERGE_SET_LAST 0
#define VK_MERGE_SET_STEP 2
#define VK_MERGE_SET_INPUT 6
#define VK_MERGE_SET_FIRST (VK_MERGE_SET_INPUT + VK_MERGE_OTHERS)
#define VK_MERGE_SETS (VK_MERGE_SET_FIRST + 6)

/*
 * A frame's merge, made at its first bracket: the two merge buffers (16-bit
 * samples as the planes), the descriptor sets (VK_MERGE_SET_*), the merge's
 * pipeline, the other frames' raw inputs, and the bracket to record next.
 */
struct vk_merge {
	struct vk_buffer acc[2];
	VkDescriptorPool descriptors;
	/*
	 * VK_MERGE_SET_LAST + s: plane s and merge buffer 0 into plane 1 - s (the
	 * shortest frame's merge); VK_MERGE_SET_STEP + 2 * a + s: plane s and
	 * merge buffer a into buffer 1 - a; VK_MERGE_SET_INPUT + k: other
	 * frame k's raw input into plane 0 (the unpack's); VK_MERGE_SET_FIRST +
	 * 3 * a + s: the first frame's last exposure step into buffer a, from
	 * plane s, or (s = 2) from its raw input (where the unpack is the last).
	 */
	VkDescriptorSet set[VK_MERGE_SETS];
	VkPipeline pipeline;
	struct vk_buffer raw[VK_MERGE_OTHERS];      /* other frame k copied (made at its first copy) */
	struct vk_buffer imported[VK_MERGE_OTHERS]; /* or imported where it is, until released */
	/*
	 * The bracket vk_frame_merge() set up, until vk_frame_release_input():
	 * its frames before the shortest in the merge's order (0: none), and the
	 * coefficients that merge frame k (k >= 1) into the merge before it.
	 */
	unsigned others;
	const struct cisp_image *other[VK_MERGE_OTHERS];
	struct cisp_merge_coeffs c[VK_MERGE_OTHERS];
};

/* The frame's merge (vk_frame's merge), made once: 0 or a negative errno. */
int vk_frame_merge_open(struct vk_frame *frame);
/* The step that merges the frame its steps made with the merge so far, with @c (vk_frame_merge_open() first). */
void vk_step_merge(const struct vk_frame *frame, const struct cisp_merge_coeffs *c, struct vk_step *step);
/* Record @step's dispatch into @cmd, from plane @from into the other (vk_frame_record()'s business). */
void vk_merge_record(const struct vk_frame *frame, VkCommandBuffer cmd, const struct vk_step *step, unsigned from);
void vk_merge_destroy(struct vk_gpu *gpu, struct vk_merge *merge);

/*
 * Set up the bracket @job for the frame's next record: its frames but the
 * shortest exposure, in the reference's order (cisp_merge_order()), to be
 * recorded before the shortest, *@last, which the caller runs through its
 * exposure steps, then *@merge (the step that merges it) and the rest of its
 * steps. Makes the frame's merge the first time. 0 or a negative errno.
 */
int vk_frame_merge(struct vk_frame *frame, const struct cisp_device_frame *job, struct vk_step *merge,
		   const struct cisp_image **last);
/*
 * Record the bracket vk_frame_merge() set up into @cmd, ahead of its
 * shortest frame: each other frame from its own raw input through @steps
 * (its exposure steps, the first an unpack, each a stage of one dispatch),
 * merged into the merge so far (the first one's last step writes it), which
 * ends in merge buffer 0. Nothing where none is set up: a merge step then
 * merges buffer 0 as it is. 0 or a negative errno.
 */
int vk_merge_record_inputs(struct vk_frame *frame, VkCommandBuffer cmd, const struct vk_step *steps, unsigned count);
/* Release the other frames' imports and forget the bracket (vk_frame_release_input()'s business). */
void vk_merge_release_inputs(struct vk_gpu *gpu, struct vk_merge *merge);

#endif
