/* SPDX-License-Identifier: MIT */
/*
 * A Bayer frame on the Vulkan device and the stage shaders run on it
 * (docs/gpu.md). The raw input is imported by its fd (a dma-buf import)
 * where an fd-backed buffer holds it, else where it is, or copied into a
 * host-visible buffer where the device cannot import it; the
 * stages run one dispatch each, ping-ponging between two frame-sized
 * buffers of 16-bit samples, in one command buffer per frame that signals
 * the device's timeline semaphore.
 */
#ifndef CISP_DEVICE_VULKAN_FRAME_H
#define CISP_DEVICE_VULKAN_FRAME_H

#include <cisp/image.h>

#include "device/vulkan_bnrq.h"
#include "device/vulkan_gpu.h"
#include "device/vulkan_merge.h"
#include "isp/blc.h"
#include "isp/bnr.h"
#include "isp/dpc.h"
#include "isp/lsc.h"
#include "isp/statistics.h"
#include "isp/wb.h"

/* One dispatch: a shader, its push constants and its rows of workgroups (of 64 invocations). */
struct vk_step {
	enum vk_shader shader;
	uint32_t push[VK_PUSH_MAX / 4];
	uint32_t push_size;
	uint32_t rows;
	bool bnr_quality; /* the quality Bayer denoise's step: its own dispatches (vulkan_bnrq.h) */
	bool merge;       /* a bracket's merge step: its own pipeline (vulkan_merge.h) */
};

/* The statistics' sums on the device, in 32-bit words (shaders/stats.comp). */
#define VK_STATS_HIST 0
#define VK_STATS_ZONES 256 /* 8 words a zone: r, g, b (low and high words), count, total */
#define VK_STATS_AF (VK_STATS_ZONES + CISP_STATS_MAX_ZONES * CISP_STATS_MAX_ZONES * 8) /* 4 a window */
#define VK_STATS_ROWS (VK_STATS_AF + CISP_STATS_MAX_AF * 4)                          /* 2 a row group */
#define VK_STATS_WORDS (VK_STATS_ROWS + CISP_STATS_MAX_ROWS * 2)

struct vk_frame {
	struct vk_gpu *gpu;
	uint32_t format, width, height;
	uint32_t row_bytes; /* of the raw input, tightly packed */
	struct vk_buffer raw;
	/*
	 * The input of the frame being run, imported where it is (none: copied
	 * into raw); released after the run. import_input: try that (the device
	 * offers it; a test turns it off to run the copy). imports: inputs
	 * imported by their address so far. import_fd: an input in an
	 * fd-backed buffer is imported by its fd (the device offers dma-buf
	 * import; a test turns it off to run the address import); fd_imports:
	 * inputs imported so.
	 */
	struct vk_buffer imported;
	bool import_input;
	unsigned long imports;
	bool import_fd;
	unsigned long fd_imports;
	struct vk_buffer plane[2];
	/*
	 * The stages' tables: lens shading's (shaders/lsc.comp), then from word
	 * dpc_base defect correction's (dpc.comp), from stats_base the AF windows
	 * of the statistics (stats.comp).
	 */
	struct vk_buffer tables;
	uint32_t dpc_base, stats_base;
	struct vk_buffer sums; /* the statistics' sums (VK_STATS_*) */
	uint32_t lsc_cells; /* of the lens shading tables held (0: none yet) */
	/*
	 * The Bayer denoise's, made at its first step (in either mode): the guide
	 * plane (16-bit samples as the planes), then the fast filter's tables;
	 * from plane s, guide_set[s] reads it into the guide, guide_set[2 + s]
	 * reads it and the guide into plane 1 - s; the fast guide's pipeline.
	 */
	struct vk_buffer guide;
	VkDescriptorPool guide_descriptors;
	VkDescriptorSet guide_set[4];
	VkPipeline guide_pipeline;
	struct vk_bnrq *bnrq; /* the quality filter's pipelines (NULL until its first step) */
	struct vk_merge *merge; /* a bracket's merge (NULL until the first bracket) */
	VkDescriptorPool descriptors;
	VkDescriptorSet set[5]; /* raw -> plane 0, plane 0 -> 1, plane 1 -> 0, plane 0 -> sums, plane 1 -> sums */
	VkCommandPool commands;
	VkCommandBuffer cmd;
	VkQueryPool timestamps;          /* one before the steps and one after each (none: not offered) */
	double step_ns[VK_SHADER_COUNT]; /* the GPU time of each step of the last run (0: not measured) */
};

/* Buffers for frames of @format (a Bayer format), @width x @height: 0 or a negative errno. */
int vk_frame_create(struct vk_gpu *gpu, uint32_t format, uint32_t width, uint32_t height, struct vk_frame **frame);
void vk_frame_destroy(struct vk_frame *frame);

/* The steps of the stages, from the reference's own coefficients. */
void vk_step_unpack(const struct vk_frame *frame, struct vk_step *step);
void vk_step_blc(const struct vk_frame *frame, const struct cisp_blc_coeffs *c, struct vk_step *step);
/* Defect correction: also fills the frame's list of static defects, which the frame's next run reads. */
void vk_step_dpc(struct vk_frame *frame, const struct cisp_dpc_coeffs *c, struct vk_step *step);
/*
 * Lens shading: vk_frame_lsc_tables() fills the frame's tables, which the
 * frame's runs read until the next call; vk_step_lsc() is the step that uses
 * them (the tables must be there).
 */
/*
 * The fast Bayer denoise (CISP_BNR_FAST's filter, or either mode's copy at
 * strength 0), two dispatches: the guide (shaders/bnr_guide.comp), then the
 * filter (bnr.comp). Also fills its tables, which the frame's next run reads,
 * making the frame's guide the first time: 0 or a negative errno. The
 * quality filter's step is vk_step_bnrq() (vulkan_bnrq.h).
 */
int vk_step_bnr(struct vk_frame *frame, const struct cisp_bnr_coeffs *c, struct vk_step *step);
/* The guide plane, its tables and descriptor sets (vk_frame's guide*), made once: 0 or a negative errno. */
int vk_frame_guide(struct vk_frame *frame);
void vk_frame_lsc_tables(struct vk_frame *frame, const struct cisp_lsc_coeffs *c);
void vk_step_lsc(const struct vk_frame *frame, struct vk_step *step);
void vk_step_wb(const struct vk_frame *frame, const struct cisp_wb_coeffs *c, struct vk_step *step);
/*
 * The statistics tap with layout @l (cisp_stats_acc_layout()): also writes
 * the AF windows into the frame's tables and zeroes its sums, which
 * vk_frame_stats_sums() reads after the run.
 */
void vk_step_stats(struct vk_frame *frame, const struct cisp_stats_layout *l, struct vk_step *step);
void vk_frame_stats_sums(const struct vk_frame *frame, const struct cisp_stats_layout *l, struct cisp_stats_sums *sums);

/*
 * Take @input (the frame's format and size) in, run @steps (the first an
 * unpack; a tap reads the frame as the steps before it left it) and point
 * *@result at the 16-bit samples made, rows of @width samples, valid until
 * the next run. Where the device has timestamps, the GPU time of each of the
 * first VK_SHADER_COUNT steps goes into step_ns[].
 */
int vk_frame_run(struct vk_frame *frame, const struct cisp_image *input, const struct vk_step *steps, unsigned count,
		 const uint16_t **result);
/*
 * The same into @cmd, a command buffer being recorded, for more dispatches
 * to follow in it (vulkan_rgb.h): take @input in, record @steps (a
 * bracket's merge step among them: the bracket's other frames first,
 * vk_merge_record_inputs()), and set
 * *@result_plane to the plane (0 or 1) the samples will be in; @timed: with
 * the frame's timestamps around each step (the frame has them). @input may
 * be imported where it is: it must stay valid until the caller has waited
 * for the command buffer and called vk_frame_release_input().
 */
int vk_frame_record(struct vk_frame *frame, const struct cisp_image *input, const struct vk_step *steps,
		    unsigned count, VkCommandBuffer cmd, bool timed, unsigned *result_plane);
/*
 * Release the inputs a record imported (none: nothing to do), a bracket's
 * other frames' included, once the GPU is done with them; the bracket is
 * then recorded (vk_frame_merge()).
 */
void vk_frame_release_input(struct vk_frame *frame);

/*
 * Where the unpack reads @input: imported into @imported (the one there
 * released first) by its fd where an fd-backed buffer (core/buffer_fd.h)
 * holds it and the device can, else by its address where the device can
 * (@unpack's push constants then take its stride and offset), else its rows
 * tightly packed into @raw
 * (made at the first copy where it is not yet); @set's input binding then
 * names the one used. The frame's own input is raw, imported and set[0]; a
 * bracket's other frames have theirs (vulkan_merge.h). 0 or a negative errno
 * (-EINVAL: the input runs past its fd-backed buffer or what the fd holds).
 */
int vk_frame_load(struct vk_frame *frame, const struct cisp_image *input, struct vk_buffer *raw,
		  struct vk_buffer *imported, VkDescriptorSet set, struct vk_step *unpack);
/*
 * Record @steps into @cmd, the unpack @unpack (in place of steps[0]) reading
 * through @raw_set (vk_frame_load()); @after_another: the first dispatch
 * behind a barrier too (dispatches before it use the planes); @timed: with
 * the frame's timestamps around each step. The plane (0 or 1) the samples
 * will be in.
 */
unsigned vk_frame_record_steps(struct vk_frame *frame, VkCommandBuffer cmd, VkDescriptorSet raw_set,
			       const struct vk_step *unpack, const struct vk_step *steps, unsigned count,
			       bool after_another, bool timed);

#endif
