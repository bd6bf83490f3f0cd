/* SPDX-License-Identifier: MIT */
/*
 * The quality demosaic on the RGB side of the Vulkan backend (docs/gpu.md,
 * "The quality demosaic"): its three passes as shaders/dmq_*.comp, from the
 * Bayer frame into the RGB side's planes, with four scratch planes of its own
 * on the device for the intermediate rows of the C passes
 * (src/isp/demosaic_quality_row.c), which define the numbers.
 */
#ifndef CISP_DEVICE_VULKAN_DMQ_H
#define CISP_DEVICE_VULKAN_DMQ_H

#include <stdbool.h>

#include <cisp/format.h>

#include "device/vulkan_frame.h"
#include "device/vulkan_gpu.h"

/* The dispatches, in order; each reads what those before it wrote. */
enum vk_dmq_step {
	VK_DMQ_DIFF,       /* pass 1: dh and dv into the scratch */
	VK_DMQ_GREEN,      /* pass 1: the two greens into planes R and B */
	VK_DMQ_LOO_PASS1,  /* the leave-one-out errors on pass 1's colour-difference green */
	VK_DMQ_BLEND,      /* pass 2: the green into plane G */
	VK_DMQ_LOO_GREEN,  /* the leave-one-out errors on the green */
	VK_DMQ_KDIFF,      /* pass 3: the colour differences on red and blue sites */
	VK_DMQ_KGREEN,     /* pass 3: the colour differences on green sites */
	VK_DMQ_COLOUR,     /* pass 3: red and blue into planes R and B */
	VK_DMQ_STEP_COUNT
};

/* Scratch planes (int32, width x height each, in this order): dh, dv, then KR, KB; e_cd, e_own. */
enum vk_dmq_scratch { VK_DMQ_DH, VK_DMQ_DV, VK_DMQ_ECD, VK_DMQ_EOWN };
#define VK_DMQ_KR VK_DMQ_DH
#define VK_DMQ_KB VK_DMQ_DV

struct vk_dmq {
	struct vk_gpu *gpu;
	uint32_t width, height;
	VkPipeline pipeline[VK_DMQ_STEP_COUNT]; /* each made when first recorded; the error steps share one */
	struct vk_buffer scratch;               /* 4 x width x height words */
	VkDescriptorPool descriptors;
	VkDescriptorSet set[2]; /* the Bayer frame's plane 0 or 1, the planes, the scratch */
	VkCommandPool commands; /* for vk_dmq_run() */
	VkCommandBuffer cmd;
};

/*
 * The quality demosaic of @bayer's frames into @planes (the RGB side's:
 * three planes of width x height words) in *@dmq: 0, or a negative errno.
 * Its scratch is as big as @planes, which the RGB side has checked against
 * the device's largest storage buffer.
 */
int vk_dmq_create(struct vk_gpu *gpu, const struct vk_frame *bayer, const struct vk_buffer *planes,
		  struct vk_dmq **dmq);
void vk_dmq_destroy(struct vk_dmq *dmq);

/*
 * Record steps [@first, @last) into @cmd for a frame of CFA order @cfa in the
 * Bayer frame's plane @bayer_plane, with false-colour suppression
 * @false_colour (Q8.8, above 256 as 256); @after_another as
 * vk_commands_dispatch(): 0 or a negative errno.
 */
int vk_dmq_record(struct vk_dmq *dmq, VkCommandBuffer cmd, bool after_another, enum cisp_cfa cfa,
		  unsigned bayer_plane, unsigned false_colour, unsigned first, unsigned last);

/* Steps [@first, @last) alone, in a command buffer of their own, waiting for them (tests): 0 or a negative errno. */
int vk_dmq_run(struct vk_dmq *dmq, enum cisp_cfa cfa, unsigned bayer_plane, unsigned false_colour, unsigned first,
	       unsigned last);

#endif
