/* SPDX-License-Identifier: MIT */
/*
 * A Bayer frame on the Vulkan device and the stage shaders run on it
 * (docs/gpu.md). The raw input is copied into a host-visible buffer; the
 * stages run one dispatch each, ping-ponging between two frame-sized
 * buffers of 16-bit samples, in one command buffer per frame that signals
 * the device's timeline semaphore.
 */
#ifndef CISP_DEVICE_VULKAN_FRAME_H
#define CISP_DEVICE_VULKAN_FRAME_H

#include <cisp/image.h>

#include "device/vulkan_gpu.h"
#include "isp/blc.h"
#include "isp/lsc.h"
#include "isp/wb.h"

/* One dispatch: a shader and its push constants. */
struct vk_step {
	enum vk_shader shader;
	uint32_t push[VK_PUSH_MAX / 4];
	uint32_t push_size;
};

struct vk_frame {
	struct vk_gpu *gpu;
	uint32_t format, width, height;
	uint32_t row_bytes; /* of the raw input, tightly packed */
	struct vk_buffer raw;
	struct vk_buffer plane[2];
	struct vk_buffer tables; /* a stage's tables: lens shading's (shaders/lsc.comp) */
	VkDescriptorPool descriptors;
	VkDescriptorSet set[3]; /* raw -> plane 0, plane 0 -> 1, plane 1 -> 0 */
	VkCommandBuffer cmd;
};

/* Buffers for frames of @format (a Bayer format), @width x @height: 0 or a negative errno. */
int vk_frame_create(struct vk_gpu *gpu, uint32_t format, uint32_t width, uint32_t height, struct vk_frame **frame);
void vk_frame_destroy(struct vk_frame *frame);

/* The steps of the stages, from the reference's own coefficients. */
void vk_step_unpack(const struct vk_frame *frame, struct vk_step *step);
void vk_step_blc(const struct vk_frame *frame, const struct cisp_blc_coeffs *c, struct vk_step *step);
/* Lens shading: also fills the frame's tables, which the frame's next run reads. */
void vk_step_lsc(struct vk_frame *frame, const struct cisp_lsc_coeffs *c, struct vk_step *step);
void vk_step_wb(const struct vk_frame *frame, const struct cisp_wb_coeffs *c, struct vk_step *step);

/*
 * Copy @input (the frame's format and size) in, run @steps (the first an
 * unpack) and point *@result at the 16-bit samples made, rows of @width
 * samples, valid until the next run.
 */
int vk_frame_run(struct vk_frame *frame, const struct cisp_image *input, const struct vk_step *steps, unsigned count,
		 const uint16_t **result);
/*
 * The same into @cmd, a command buffer being recorded, for more dispatches
 * to follow in it (vulkan_rgb.h): copy @input in, record @steps, and set
 * *@result_plane to the plane (0 or 1) the samples will be in.
 */
int vk_frame_record(struct vk_frame *frame, const struct cisp_image *input, const struct vk_step *steps,
		    unsigned count, VkCommandBuffer cmd, unsigned *result_plane);

#endif
