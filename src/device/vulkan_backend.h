/* SPDX-License-Identifier: MIT */
/*
 * The Vulkan backend of the ISP device (docs/gpu.md): contexts of a device
 * made with CISP_ISP=vulkan run the leading stages of the canonical ISP as
 * compute shaders and the rest on the software ISP, bit-exact with it.
 */
#ifndef CISP_DEVICE_VULKAN_BACKEND_H
#define CISP_DEVICE_VULKAN_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include <cisp/device.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>

/* The value of CISP_ISP that picks this backend. */
#define VULKAN_ISP_NAME "vulkan"

extern const struct cisp_device_backend device_backend_vulkan;

/* Which stages a frame runs on the GPU (the others after them run on the CPU). */
struct vulkan_plan {
	bool blc;   /* black level */
	bool dpc;   /* defective pixel correction, dynamic and static */
	bool bnr;   /* Bayer denoise, in either mode */
	bool lsc;   /* lens shading */
	bool stats; /* the statistics (the tap after lens shading) */
	bool wb;    /* white balance */
	bool rgb;   /* and every later stage, to the outputs (vulkan_rgb_covers()) */
};

/*
 * The GPU's part of a frame with parameter @state (@stats: the job asks for
 * statistics): the leading stages the GPU has, as long as running them there
 * leaves the CPU's part exactly the reference's.
 */
struct vulkan_plan vulkan_plan_frame(const struct cisp_param_state *state, bool stats);
/*
 * The same on a device with or without 64-bit integers in shaders (@int64:
 * struct vk_gpu's), which the quality Bayer denoise's shaders need; without,
 * it runs on the CPU and so does every stage after it. vulkan_plan_frame()
 * is this on a device with them.
 */
struct vulkan_plan vulkan_plan_on(const struct cisp_param_state *state, bool stats, bool int64);
/*
 * @plan for a frame handed over to the CPU after the Bayer side even where
 * the GPU has every stage (a context whose outputs the RGB side cannot pack):
 * no RGB side, and white balance left to the CPU where a stage there reads
 * its bit.
 */
struct vulkan_plan vulkan_plan_handed_over(struct vulkan_plan plan, const struct cisp_param_state *state);

/*
 * The stages a context of @config on this device runs on the GPU for frames
 * of @state (@stats: the jobs ask for statistics), as vulkan_create() and
 * vulkan_process() choose them (the device's shaderInt64, an RGB side where
 * the device holds it, CISP_VULKAN_HAND_OVER), in pipeline order,
 * comma-separated: unpack, blc, dpc, bnr, lsc, stats, wb, and where the
 * whole frame stays there highlights, demosaic, ccm, ltm, tone, lut3d,
 * sharpen, csc and cnr (for YCbCr outputs), scale (an output cropped or of
 * another size) and pack, each where it runs; into @buf, cut at @size
 * bytes. 0, or the error of opening the device or an RGB side.
 */
int vulkan_plan_describe(const struct cisp_isp_config *config, const struct cisp_param_state *state, bool stats,
			 char *buf, size_t size);

/* The Bayer shaders, in pipeline order, as vulkan_time_stages() reports them. */
#define VULKAN_STAGE_COUNT 7
extern const char *const vulkan_stage_names[VULKAN_STAGE_COUNT];

/*
 * For benchmarks: every Bayer shader on @input with @state's coefficients
 * (whatever vulkan_plan_frame() would run), in one command buffer, @reps
 * times; the smallest GPU time of each, from the device's timestamps, into
 * @ns. 0, -ENODATA when the device has no timestamps, or an error.
 */
int vulkan_time_stages(const struct cisp_image *input, const struct cisp_param_state *state, int reps,
		       double ns[VULKAN_STAGE_COUNT]);

/*
 * "NAME (DRIVER, Vulkan X.Y.Z, dma-buf import: ...)" of the device the
 * backend would use, into @buf: 0, -ENODEV "no Vulkan device", or -ENOTSUP
 * in a build without Vulkan.
 */
int vulkan_describe(char *buf, size_t size);

#endif
