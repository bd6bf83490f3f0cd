/* SPDX-License-Identifier: MIT */
/*
 * Clipped highlights on the GPU (shaders/highlights.comp, docs/gpu.md): the
 * stage on the Bayer frame after white balance, before the demosaic, in the
 * command buffer of a whole frame on the GPU (vk_rgb_process()).
 */
#ifndef CISP_DEVICE_VULKAN_HIGHLIGHTS_H
#define CISP_DEVICE_VULKAN_HIGHLIGHTS_H

#include <cisp/params_state.h>

#include "device/vulkan_frame.h"
#include "device/vulkan_rgb.h"
#include "isp/highlights.h"

/*
 * Record into @rgb's command buffer (being recorded, after the Bayer side's
 * steps) the stage with coefficients @c, reading @frame's plane *@plane and
 * writing the other one, which *@plane then names. The pipeline is made on
 * first use: 0 or a negative errno.
 */
int vk_highlights_record(struct vk_rgb *rgb, const struct vk_frame *frame, const struct cisp_highlights_coeffs *c,
			 unsigned *plane);
/*
 * The same with the coefficients of parameter state @state for CFA order
 * @cfa, as the reference's stage prepares them (white balance's gains where
 * it is on).
 */
int vk_highlights_record_state(struct vk_rgb *rgb, const struct vk_frame *frame, enum cisp_cfa cfa,
			       const struct cisp_param_state *state, unsigned *plane);

#endif
