/* SPDX-License-Identifier: MIT */
/*
 * Crop and scale of the outputs on the GPU (docs/gpu.md, "Crop and scale"):
 * an output that shows a window of the frame, or has another size than the
 * frame, is scaled by shaders/scale.comp from the planes into the RGB side's
 * scaled planes, with the tables of the host's own scaler (src/isp/scale.c),
 * and packed from there.
 */
#ifndef CISP_DEVICE_VULKAN_OUTPUT_H
#define CISP_DEVICE_VULKAN_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/params_state.h>

struct vk_rgb;
struct vk_rgb_step;

/* The window of the frame an output shows. */
struct vk_output_window {
	uint32_t x, y, width, height;
};

/*
 * Words of the tables buffer that an output of @out_w x @out_h needs for any
 * window of a @frame_w x @frame_h frame: per axis of n input and m output
 * samples, m starts and m * taps weights, taps * m below n + 2m.
 */
uint64_t vk_output_table_words(uint32_t frame_w, uint32_t frame_h, uint32_t out_w, uint32_t out_h);

/* Whether output @index of @rgb shows the whole frame at the frame's size under @state: packed straight from the planes. */
bool vk_output_whole(const struct vk_rgb *rgb, const struct cisp_param_state *state, int index);

/*
 * The steps that put output @index of @rgb into its buffer under @state: its
 * packing, after its crop and scale where the output does not show the whole
 * frame at the frame's size (the tables then written into @rgb's, made again
 * when the window changes). Returns the number of steps (1 or 2) or a
 * negative errno (-EINVAL for a window outside the frame); @step has room for two.
 */
int vk_output_steps(struct vk_rgb *rgb, const struct cisp_param_state *state, int index, struct vk_rgb_step *step);

#endif
