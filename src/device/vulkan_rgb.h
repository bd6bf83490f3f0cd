/* SPDX-License-Identifier: MIT */
/*
 * The RGB side of the Vulkan backend (docs/gpu.md, "The RGB side"): the
 * stages after white balance as compute shaders (the fast demosaic, colour
 * correction, local and global tone, the conversion to YCbCr and the packing into the
 * output formats, the 3D LUT, sharpening and chroma denoise), so that a frame whose every stage the GPU has goes from
 * the raw input to its outputs without the software ISP.
 *
 * A frame on this side is three planes of one 32-bit word per sample in one
 * buffer, and a fourth for a stage's scratch (shaders/rgb.glsl); each output is packed into the caller's image
 * where the device imports it, else into a buffer of its own, then copied into the image (vulkan_output.h).
 */
#ifndef CISP_DEVICE_VULKAN_RGB_H
#define CISP_DEVICE_VULKAN_RGB_H

#include <stdbool.h>

#include <cisp/isp.h>
#include <cisp/params_state.h>

#include "device/vulkan_backend.h"
#include "device/vulkan_dmq.h"
#include "device/vulkan_frame.h"
#include "device/vulkan_output.h"
#include "isp/cnr.h"
#include "isp/ltm.h"
#include "isp/tone.h"

/* The RGB-side shaders (shaders/NAME.comp). */
enum vk_rgb_shader {
	VK_RGB_DEMOSAIC_GREEN,
	VK_RGB_DEMOSAIC_RB,
	VK_RGB_COLOUR, /* colour correction, LTM, tone, the 3D LUT, sharpening's luma and the conversion, fused */
	VK_RGB_SHARPEN, /* sharpening, and the conversion where fused into it */
	VK_RGB_CNR_H,
	VK_RGB_CNR_V,
	VK_RGB_PACK,
	VK_RGB_PACK_FUSED, /* sharpening or the colour stages, the conversion where 4:2:0, and the packing, fused */
	VK_RGB_PACK420_CNR, /* chroma denoise's vertical pass and a 4:2:0 packing, fused */
	VK_RGB_HIGHLIGHTS, /* on the Bayer frame, before the demosaic: backend_vulkan_highlights.c records it */
	VK_RGB_SCALE, /* crop and scale of an output (vulkan_output.h) */
	VK_RGB_PACK_SCALED, /* crop and scale of an output and its packing, fused (vulkan_output.h) */
	VK_RGB_SHADER_COUNT
};

/* What a dispatch reads and writes (its descriptor set). */
enum vk_rgb_source {
	VK_RGB_FROM_BAYER0, /* the Bayer frame's plane 0 into the planes */
	VK_RGB_FROM_BAYER1, /* its plane 1 into the planes */
	VK_RGB_IN_PLACE,    /* the planes, in place, with the tables */
	VK_RGB_TO_OUTPUT0,  /* the planes into output 0's buffer; output i: VK_RGB_TO_OUTPUT0 + i */
	VK_RGB_TO_SCALED = VK_RGB_TO_OUTPUT0 + CISP_MAX_OUTPUTS, /* the planes into the scaled planes */
	VK_RGB_SCALED_TO_OUTPUT0, /* the scaled planes into output 0's buffer; output i: + i */
	VK_RGB_SOURCE_COUNT = VK_RGB_SCALED_TO_OUTPUT0 + CISP_MAX_OUTPUTS
};

/*
 * What chroma denoise's tables are made from: the blocks the reference's
 * stage reads (cnr.c), each gain's block zero where its stage is off.
 */
struct vk_rgb_cnr_key {
	uint32_t gains; /* the white-balance, matrix and tone enable bits (CISP_BLOCK_BIT()) */
	struct cisp_cnr_params cnr;
	struct cisp_noise_params noise;
	struct cisp_wb_params wb;
	struct cisp_ccm_params ccm;
	struct cisp_tone_params tone;
	struct cisp_csc_params csc;
};

/* One dispatch: a shader, its descriptor set and its push constants. */
struct vk_rgb_step {
	enum vk_rgb_shader shader;
	unsigned source; /* enum vk_rgb_source, plus the output's index for a pack */
	uint32_t push[VK_PUSH_MAX / 4];
	uint32_t push_size;
};

struct vk_rgb {
	struct vk_gpu *gpu;
	uint32_t width, height;
	uint32_t out_format[CISP_MAX_OUTPUTS]; /* 0: no output there */
	uint32_t out_width[CISP_MAX_OUTPUTS], out_height[CISP_MAX_OUTPUTS];
	VkPipeline pipeline[VK_RGB_SHADER_COUNT]; /* each made when first recorded */
	struct vk_buffer planes; /* 4 x width x height words: R, G, B (or Y, Cb, Cr) and a scratch plane */
	struct vk_buffer tables; /* the tone table, the 3D LUT's, chroma denoise's and LTM's (shaders/colour.glsl) */
	struct vk_buffer out[CISP_MAX_OUTPUTS];
	/*
	 * Where each output goes this frame (vk_output_place()); whether to
	 * import the caller's images at all (the device offers it; a test turns
	 * it off), the outputs written in place so far (a test reads it), and
	 * which outputs' last place was logged, and whether in place.
	 */
	struct vk_output_place place[CISP_MAX_OUTPUTS];
	bool import_outputs;
	unsigned long outputs_in_place;
	uint32_t place_logged, place_logged_in_place;
	/*
	 * An output cropped or scaled to a width that is not a multiple of 8
	 * (vk_output_steps()): its three planes (as the planes, at its size),
	 * scaled_words words, as large as the largest such output; made with the
	 * first frame that needs them (vk_rgb_scaled_planes()), none before.
	 */
	struct vk_buffer scaled;
	uint64_t scaled_words;
	uint32_t scale_table[CISP_MAX_OUTPUTS];             /* where output i's scaler tables start in the tables */
	struct vk_output_window window[CISP_MAX_OUTPUTS]; /* what they are for (0x0: none yet) */
	uint32_t window_taps[CISP_MAX_OUTPUTS][2];        /* and their taps a sample, columns then rows */
	VkDescriptorPool descriptors;
	VkDescriptorSet set[VK_RGB_SOURCE_COUNT];
	VkCommandPool commands; /* of its own: see vk_commands_create() */
	VkCommandBuffer cmd;
	struct cisp_tone_coeffs *tone; /* the table's coefficients, and the params they came from */
	struct cisp_tone_params tone_params;
	struct vk_dmq *dmq; /* the quality demosaic's, made with its first frame */
	struct cisp_ltm_coeffs *ltm; /* local tone mapping's, likewise, and whether the tables hold them */
	struct cisp_ltm_params ltm_params;
	bool ltm_held;
	/*
	 * Chroma denoise's tables: what they were made from, whether the tables
	 * hold them, their radius and whether they change anything, and how many
	 * times they were made and written (a test reads it).
	 */
	struct vk_rgb_cnr_key cnr_key;
	bool cnr_held, cnr_on;
	uint32_t cnr_radius;
	unsigned long cnr_uploads;
};

/*
 * The RGB side of frames of @width x @height, reading the 16-bit Bayer
 * frames of @bayer (NULL: none, for the stages after the demosaic only, of
 * any size), packing into outputs of formats @out_format (0: none; each of
 * the frame's size): 0, -E2BIG for planes over the device's largest storage
 * buffer, or another negative errno.
 */
int vk_rgb_create(struct vk_gpu *gpu, uint32_t width, uint32_t height, const struct vk_frame *bayer,
		  const uint32_t out_format[CISP_MAX_OUTPUTS], struct vk_rgb **rgb);
/* The same with outputs @output of any size (format 0: none), which it crops and scales (vulkan_output.h). */
int vk_rgb_create_outputs(struct vk_gpu *gpu, uint32_t width, uint32_t height, const struct vk_frame *bayer,
			  const struct cisp_output_config output[CISP_MAX_OUTPUTS], struct vk_rgb **rgb);
void vk_rgb_destroy(struct vk_rgb *rgb);

/*
 * The RGB side of a context of @config whose Bayer frames are @bayer's, in
 * *@rgb, when it packs every output of @config (in NV12, I420, RGB888, XBGR32
 * or RGB48, of any size) and the device holds its buffers,
 * else NULL there (with an info message when the buffers are too big): 0 or
 * a negative errno.
 */
int vk_rgb_open(struct vk_gpu *gpu, const struct vk_frame *bayer, const struct cisp_isp_config *config,
		struct vk_rgb **rgb);

/*
 * Whether, with @plan for the Bayer side, every stage that parameter state
 * @state runs on a frame is on the GPU: the Bayer side's plan has every Bayer
 * stage that is on and the statistics when the job asks for them (@stats),
 * and every later stage enabled is one of this side's. The outputs, crops
 * included, are vk_rgb_open()'s and vulkan_output.h's business.
 */
bool vulkan_rgb_covers(const struct cisp_param_state *state, const struct vulkan_plan *plan, bool stats);

/* The steps of the stages, from the reference's own coefficients; the demosaic takes two. */
void vk_rgb_step_demosaic(const struct vk_rgb *rgb, enum cisp_cfa cfa, unsigned bayer_plane, struct vk_rgb_step step[2]);
/*
 * Colour correction, LTM, tone, the 3D LUT, sharpening's luma and the
 * conversion to YCbCr are one shader (shaders/colour.comp): each of their
 * steps below is that shader with the stage alone on. vk_rgb_step_fuse() adds
 * @stage to @into (a step with push_size 0 for none yet, or other colour
 * stages' steps fused), which then runs each stage that is on, in the
 * reference's order, in one dispatch. @into may also be sharpening's second
 * step and @stage the conversion's: sharpening then converts the pixels it
 * makes.
 */
void vk_rgb_step_fuse(struct vk_rgb_step *into, const struct vk_rgb_step *stage);
void vk_rgb_step_ccm(const struct vk_rgb *rgb, const struct cisp_ccm_params *p, struct vk_rgb_step *step);
/*
 * Local tone mapping: also fills the tables from @p (cisp_ltm_prepare() for
 * the frame's size; again only when @p changes), which the next run reads:
 * 0, or -EINVAL for params the reference refuses, or -ENOMEM.
 */
int vk_rgb_step_ltm(struct vk_rgb *rgb, const struct cisp_ltm_params *p, struct vk_rgb_step *step);
/* Global tone: also fills the tables from @p (cisp_tone_prepare()), which the next run reads; 0 or -ENOMEM. */
int vk_rgb_step_tone(struct vk_rgb *rgb, const struct cisp_tone_params *p, struct vk_rgb_step *step);
/* The 3D LUT: also copies @p's table into the tables, which the next run reads. */
void vk_rgb_step_lut3d(struct vk_rgb *rgb, const struct cisp_lut3d_params *p, struct vk_rgb_step *step);
/* Sharpening: two steps, the luma (a colour step, to fuse) then the sharpening. */
void vk_rgb_step_sharpen(const struct vk_rgb *rgb, const struct cisp_sharpen_params *p, struct vk_rgb_step step[2]);
/* The conversion to YCbCr: also writes @p's matrix into the tables, which the next run reads. */
void vk_rgb_step_csc(struct vk_rgb *rgb, const struct cisp_csc_params *p, struct vk_rgb_step *step);
/*
 * Chroma denoise: two steps, the horizontal pass then the vertical one, with
 * the tables of cisp_cnr_prepare() for the blocks of @state it reads (its
 * own, the noise profile, the conversion, and white balance, the matrix and
 * tone where on, as the reference's stage) written into the tables, which
 * the next run reads; made and written again only when those blocks change
 * (the tone table with them where tone is on: vk_rgb_step_tone()). Returns
 * the number of steps (0 where the stage changes nothing: zero strength) or
 * a negative errno.
 */
int vk_rgb_step_cnr(struct vk_rgb *rgb, const struct cisp_param_state *state, struct vk_rgb_step step[2]);
/*
 * Packing the planes, of output @index's size, into its place (vk_output_place()), in its format
 * (vk_output_steps() picks the planes); also writes the place's layout into the tables, which the next run reads.
 */
void vk_rgb_step_pack(const struct vk_rgb *rgb, int index, struct vk_rgb_step *step);
/*
 * The word that tells the packings of blocks (shaders/pack_block.glsl) output
 * @index's format and where its place's layout is in the tables, which it
 * writes there (vk_output_place()).
 */
uint32_t vk_rgb_place_word(const struct vk_rgb *rgb, int index);
/*
 * Whether output @index can be made by vk_rgb_step_pack_fused() under @state: it
 * shows the whole frame at the frame's size, and the frame's width is a
 * multiple of 8 (shaders/pack_fused.comp).
 */
bool vk_rgb_packs_fused(const struct vk_rgb *rgb, const struct cisp_param_state *state, int index);
/*
 * Output @index (vk_rgb_packs_fused()) packed straight from the RGB planes
 * (converted to YCbCr first for NV12 and I420), after what @from does, in one
 * dispatch that writes only the output: @from is sharpening's second step (the luma made before),
 * or a colour step (its colour correction, LTM, tone and 3D LUT; push_size 0
 * for none), whose dispatch it then replaces. The conversion's matrix is the
 * one vk_rgb_step_csc() last wrote into the tables; the output goes to its
 * place (vk_output_place() with whole words), whose layout it writes there too.
 */
void vk_rgb_step_pack_fused(const struct vk_rgb *rgb, int index, const struct vk_rgb_step *from,
			    struct vk_rgb_step *step);

/*
 * Output @index (vk_rgb_packs_fused(), NV12 or I420) packed straight from the
 * planes after chroma denoise's horizontal pass, in the dispatch of its
 * vertical pass @cnr_v (vk_rgb_step_cnr()'s second step), which it replaces:
 * the planes are not written back. The output goes to its place, as
 * vk_rgb_step_pack_fused()'s.
 */
void vk_rgb_step_pack420_cnr(const struct vk_rgb *rgb, int index, const struct vk_rgb_step *cnr_v,
			     struct vk_rgb_step *step);

/* Record @steps in one command buffer, submit it and wait for it: 0 or a negative errno. */
int vk_rgb_run(struct vk_rgb *rgb, const struct vk_rgb_step *steps, unsigned count);
/* Output @index's packed bytes from its own buffer into @img: 0, or -EINVAL if @img is not of its format and size. */
int vk_rgb_unload(const struct vk_rgb *rgb, int index, struct cisp_image *img);

/*
 * A whole frame on the GPU, in one command buffer: @input through the Bayer
 * side's @bayer_steps on @frame, then the stages of @state after white
 * balance and the outputs into @output (vulkan_rgb_covers() said yes): 0 or
 * a negative errno.
 */
int vk_rgb_process(struct vk_rgb *rgb, struct vk_frame *frame, enum cisp_cfa cfa, const struct cisp_param_state *state,
		   const struct cisp_image *input, const struct vk_step *bayer_steps, unsigned count,
		   struct cisp_image *const output[CISP_MAX_OUTPUTS]);

/*
 * The scaled planes, made and bound to the sets that read or write them at
 * the first call (between frames): 0 or a negative errno.
 */
int vk_rgb_scaled_planes(struct vk_rgb *rgb);

#endif
