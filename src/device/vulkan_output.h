/* SPDX-License-Identifier: MIT */
/*
 * The outputs on the GPU (docs/gpu.md, "Crop and scale" and "The outputs in
 * place"): an output that shows a window of the frame, or has another size
 * than the frame, is scaled by shaders/scale.comp from the planes into the
 * RGB side's scaled planes, with the tables of the host's own scaler
 * (src/isp/scale.c), and packed from there; the packing writes into the
 * caller's image where it is when the device can import it, else into the
 * output's own buffer, which the host then copies into the image.
 */
#ifndef CISP_DEVICE_VULKAN_OUTPUT_H
#define CISP_DEVICE_VULKAN_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/image.h>
#include <cisp/params_state.h>

#include "device/vulkan_gpu.h"

struct vk_rgb;
struct vk_rgb_step;

/* The window of the frame an output shows. */
struct vk_output_window {
	uint32_t x, y, width, height;
};

/*
 * Where the packing writes an output: its own buffer (the planes one after
 * the other, rows tightly packed), or the caller's image imported where it is
 * (VK_EXT_external_memory_host).
 */
struct vk_output_place {
	struct vk_buffer imported;     /* the caller's image (none: the output's own buffer) */
	uint32_t offset[3], stride[3]; /* each plane's first byte in the buffer, and its stride, in bytes */
	uint32_t first_word, words;    /* the 32-bit words of the buffer that hold the planes' bytes */
};

/*
 * Where output @index of @rgb goes this frame: into @img where it is when the
 * device imports it, each plane's first byte and the end of its last row on a
 * 4-byte boundary (for an output whose width is a multiple of 8, which the
 * packings of blocks of 8x2 pixels may write, the strides too), the planes
 * apart with less than an import block between them; else into the
 * output's own buffer, which vk_rgb_unload() copies out. Returns 1 (in place),
 * 0 (copied after), or -EINVAL for an image not of the output's format and
 * size. vk_output_release() undoes it once the GPU is done.
 */
int vk_output_place(struct vk_rgb *rgb, int index, const struct cisp_image *img);
/* Release the images a frame's outputs were imported from: the outputs' own buffers again. */
void vk_output_release(struct vk_rgb *rgb);
/* Output @index into its own buffer (the place of a context without imports, and after a release). */
void vk_output_own_buffer(struct vk_rgb *rgb, int index);

/*
 * Words of the tables buffer that an output of @out_w x @out_h needs for any
 * window of a @frame_w x @frame_h frame: per axis of n input and m output
 * samples, m starts and m * taps weights, taps * m below n + 2m.
 */
uint64_t vk_output_table_words(uint32_t frame_w, uint32_t frame_h, uint32_t out_w, uint32_t out_h);

/* Whether output @index of @rgb shows the whole frame at the frame's size under @state: packed straight from the planes. */
bool vk_output_whole(const struct vk_rgb *rgb, const struct cisp_param_state *state, int index);

/*
 * The steps that put output @index of @rgb into its place under @state: its
 * packing, after its crop and scale where the output does not show the whole
 * frame at the frame's size (the tables then written into @rgb's, made again
 * when the window changes), in one dispatch (shaders/pack_scaled.comp) where
 * the output's width is a multiple of 8. Returns the number of steps (1 or 2) or a
 * negative errno (-EINVAL for a window outside the frame); @step has room for two.
 */
int vk_output_steps(struct vk_rgb *rgb, const struct cisp_param_state *state, int index, struct vk_rgb_step *step);

#endif
