/* SPDX-License-Identifier: MIT */
/* The RGB side of the Vulkan backend (vulkan_rgb.h, docs/gpu.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/log.h>

#include "core/error_internal.h"
#include "device/vulkan_highlights.h"
#include "device/vulkan_rgb.h"
#include "isp/csc.h"
#include "isp/demosaic.h"

/* The SPIR-V of shaders/, compiled at build time (src/device/meson.build). */
static const uint32_t spv_demosaic_green[] =
#include "device/demosaic_green.spv.h"
	;
static const uint32_t spv_demosaic_rb[] =
#include "device/demosaic_rb.spv.h"
	;
static const uint32_t spv_colour[] =
#include "device/colour.spv.h"
	;
static const uint32_t spv_sharpen[] =
#include "device/sharpen.spv.h"
	;
static const uint32_t spv_cnr_h[] =
#include "device/cnr_h.spv.h"
	;
static const uint32_t spv_cnr_v[] =
#include "device/cnr_v.spv.h"
	;
static const uint32_t spv_pack[] =
#include "device/pack.spv.h"
	;
static const uint32_t spv_pack_fused[] =
#include "device/pack_fused.spv.h"
	;
static const uint32_t spv_pack420_cnr[] =
#include "device/pack420_cnr.spv.h"
	;
static const uint32_t spv_scale[] =
#include "device/scale.spv.h"
	;
static const uint32_t spv_pack_scaled[] =
#include "device/pack_scaled.spv.h"
	;

static const struct {
	const uint32_t *code;
	size_t size;
} shader_code[VK_RGB_SHADER_COUNT] = {
	[VK_RGB_DEMOSAIC_GREEN] = { spv_demosaic_green, sizeof(spv_demosaic_green) },
	[VK_RGB_DEMOSAIC_RB] = { spv_demosaic_rb, sizeof(spv_demosaic_rb) },
	[VK_RGB_COLOUR] = { spv_colour, sizeof(spv_colour) },
	[VK_RGB_SHARPEN] = { spv_sharpen, sizeof(spv_sharpen) },
	[VK_RGB_CNR_H] = { spv_cnr_h, sizeof(spv_cnr_h) },
	[VK_RGB_CNR_V] = { spv_cnr_v, sizeof(spv_cnr_v) },
	[VK_RGB_PACK] = { spv_pack, sizeof(spv_pack) },
	[VK_RGB_PACK_FUSED] = { spv_pack_fused, sizeof(spv_pack_fused) },
	[VK_RGB_PACK420_CNR] = { spv_pack420_cnr, sizeof(spv_pack420_cnr) },
	[VK_RGB_SCALE] = { spv_scale, sizeof(spv_scale) },
	[VK_RGB_PACK_SCALED] = { spv_pack_scaled, sizeof(spv_pack_scaled) },
};

/* Invocations per workgroup along x (shaders/rgb.glsl); the pack's words go in rows of this many workgroups. */
#define GROUP_PIXELS 64
#define PACK_GROUPS_X 1024
/*
 * Words of the tables buffer: the tone table (65536 16-bit entries), the 3D
 * LUT's (a word an entry), chroma denoise's: 32 inverse luma thresholds,
 * 32 chroma ones and R[n], n up to (2 * CISP_CNR_MAX_RADIUS + 1) * 64 (shaders/cnr.glsl),
 * then local tone mapping's: four words, the nodes, the columns' and the rows', then the
 * conversion's matrix and Y's zero (shaders/colour.glsl).
 */
#define TONE_WORDS 32768
#define LUT3D_WORDS (CISP_LUT3D_MAX_SIZE * CISP_LUT3D_MAX_SIZE * CISP_LUT3D_MAX_SIZE * 3)
#define CNR_BINS 32
#define CNR_RECIP_WORDS ((2 * CISP_CNR_MAX_RADIUS + 1) * 64 + 1)
#define CNR_WORDS (2 * CNR_BINS + CNR_RECIP_WORDS)
#define LTM_START (TONE_WORDS + LUT3D_WORDS + CNR_WORDS)
#define LTM_NODES 4
#define LTM_COLS (LTM_NODES + CISP_LTM_MAX_GRID * CISP_LTM_MAX_GRID)
#define LTM_ROWS (LTM_COLS + CISP_MAX_DIMENSION)
#define LTM_WORDS (LTM_ROWS + CISP_MAX_DIMENSION)
#define CSC_START (LTM_START + LTM_WORDS)
#define CSC_WORDS 10
/* shaders/colour.comp's push constants: words 0 and 1 the size, then these; COLOUR_* its stage bits. */
#define COLOUR_STAGES 2
#define COLOUR_LUT3D_SIZE 3
#define COLOUR_CCM_MATRIX 4 /* 5 words, two 16-bit coefficients each */
#define COLOUR_CCM_OFFSET 9
#define COLOUR_WORDS 12
enum { COLOUR_CCM = 1, COLOUR_LTM = 2, COLOUR_TONE = 4, COLOUR_LUT3D = 8, COLOUR_LUMA = 16, COLOUR_CSC = 32 };
/* shaders/sharpen.comp's: words 0 and 1 the size, then coring, strength, limit and whether it converts. */
#define SHARPEN_CORING 2
#define SHARPEN_CSC 5
#define SHARPEN_WORDS 6
/* shaders/pack_fused.comp's: colour.comp's, then sharpening's coring, strength and limit, then the layout. */
#define PACK_FUSED_SHARPEN 64 /* in the stage bits: sharpening instead of the colour stages */
#define PACK_FUSED_CORING COLOUR_WORDS
#define PACK_FUSED_LAYOUT (COLOUR_WORDS + 3)
#define PACK_FUSED_WORDS (COLOUR_WORDS + 4)
#define PACK_BLOCK_W 8 /* pixels across an invocation of a block packing (pack_block.glsl) makes */
/* Then each output's place (the packings' shaders): its planes' offsets, then their strides. */
#define OUTPUT_LAYOUTS (CSC_START + CSC_WORDS)
#define LAYOUT_WORDS 6
/* shaders/pack.comp's push constants: the size, the layout, where its place's layout starts, and its words. */
#define PACK_WORDS 6
/* Then the outputs' scaler tables, each vk_output_table_words() long. */
#define SCALE_TABLES (OUTPUT_LAYOUTS + LAYOUT_WORDS * CISP_MAX_OUTPUTS)

/* The layout (PACK_* of shaders/pack.comp) of an output format, or -1 for one it does not pack. */
static int pack_layout(uint32_t format)
{
	switch (format) {
	case CISP_FMT_RGB888: return 0;
	case CISP_FMT_XBGR32: return 1;
	case CISP_FMT_RGB48: return 2;
	case CISP_FMT_NV12: return 3;
	case CISP_FMT_I420: return 4;
	default: return -1;
	}
}

/* Bytes of a @format image of @w x @h, its planes one after the other with rows tightly packed. */
static uint64_t packed_bytes(uint32_t format, uint32_t w, uint32_t h)
{
	uint64_t bytes = 0;
	size_t row, rows;

	for (unsigned p = 0; p < 3 && !cisp_image_plane_size(format, w, h, p, &row, &rows); p++)
		bytes += (uint64_t)row * rows;
	return bytes;
}

static bool is_yuv(uint32_t format)
{
	return format == CISP_FMT_NV12 || format == CISP_FMT_I420;
}

bool vulkan_rgb_covers(const struct cisp_param_state *s, const struct vulkan_plan *plan, bool stats)
{
	const bool tap = stats && (s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_STATS));

	/* Every stage after white balance has its shaders (the merge and vendor stages never reach the GPU). */
	if (s->demosaic.algorithm != CISP_DEMOSAIC_FAST && s->demosaic.algorithm != CISP_DEMOSAIC_QUALITY)
		return false;
	/* Every Bayer stage that is on ran on the GPU, and the statistics the job asks for. */
	return (plan->blc || !(s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BLC))) &&
	       (plan->dpc || !(s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_DPC))) &&
	       (plan->bnr || !(s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_BNR))) &&
	       (plan->lsc || !(s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LSC))) && (plan->stats || !tap) &&
	       (plan->wb || !(s->enabled & CISP_BLOCK_BIT(CISP_BLOCK_WB)));
}

/* The descriptor sets of enum vk_rgb_source (binding 0 the input, 1 the output, 2 the tables). */
static int create_sets(struct vk_rgb *r, const struct vk_frame *bayer)
{
	enum { SETS = VK_RGB_SOURCE_COUNT };
	const struct vk_buffer *bindings[SETS][3];

	/* Without a Bayer frame, an output or scaled planes there, the planes stand in (no shader reads them). */
	const struct vk_buffer *scaled = r->scaled.buffer ? &r->scaled : &r->planes;

	for (int s = 0; s < SETS; s++) {
		int out = -1; /* the output a set packs into */

		if (s >= VK_RGB_SCALED_TO_OUTPUT0)
			out = s - VK_RGB_SCALED_TO_OUTPUT0;
		else if (s >= VK_RGB_TO_OUTPUT0 && s < VK_RGB_TO_SCALED)
			out = s - VK_RGB_TO_OUTPUT0;
		bindings[s][0] = s == VK_RGB_FROM_BAYER0 && bayer   ? &bayer->plane[0]
				 : s == VK_RGB_FROM_BAYER1 && bayer ? &bayer->plane[1]
				 : s >= VK_RGB_SCALED_TO_OUTPUT0    ? scaled
								    : &r->planes;
		bindings[s][1] = out >= 0 && r->out[out].buffer ? &r->out[out]
				 : s == VK_RGB_TO_SCALED	  ? scaled
								  : &r->planes;
		bindings[s][2] = &r->tables;
	}
	return vk_sets_create(r->gpu, SETS, bindings, &r->descriptors, r->set);
}

int vk_rgb_create(struct vk_gpu *g, uint32_t width, uint32_t height, const struct vk_frame *bayer,
		  const uint32_t out_format[CISP_MAX_OUTPUTS], struct vk_rgb **out)
{
	struct cisp_output_config output[CISP_MAX_OUTPUTS];

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		output[i] = (struct cisp_output_config){ out_format[i], width, height };
	return vk_rgb_create_outputs(g, width, height, bayer, output, out);
}

int vk_rgb_create_outputs(struct vk_gpu *g, uint32_t width, uint32_t height, const struct vk_frame *bayer,
			  const struct cisp_output_config output[CISP_MAX_OUTPUTS], struct vk_rgb **out)
{
	uint32_t out_format[CISP_MAX_OUTPUTS], table_at[CISP_MAX_OUTPUTS];
	uint64_t scaled_words = 0, table_words = SCALE_TABLES;
	struct vk_rgb *r;
	VkPhysicalDeviceProperties props;
	int ret;

	if (!width || !height || width > CISP_MAX_DIMENSION || height > CISP_MAX_DIMENSION ||
	    (bayer && (bayer->width != width || bayer->height != height)))
		return cisp_error(-EINVAL, "Vulkan backend: no RGB side for a %ux%u frame", width, height);
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		const struct cisp_output_config *o = &output[i];

		out_format[i] = o->format;
		if (o->format && pack_layout(o->format) < 0)
			return cisp_error(-ENOTSUP, "Vulkan backend: the GPU does not pack %s outputs",
					  cisp_format_name(o->format));
		if (o->format && (!o->width || !o->height || o->width > CISP_MAX_DIMENSION ||
				  o->height > CISP_MAX_DIMENSION))
			return cisp_error(-EINVAL, "Vulkan backend: no %ux%u output", o->width, o->height);
		/* Only a width not of blocks of 8 scales through the scaled planes (vk_output_steps()). */
		if (o->format && o->width % 8 && (uint64_t)o->width * o->height * 3 > scaled_words)
			scaled_words = (uint64_t)o->width * o->height * 3;
		table_at[i] = (uint32_t)table_words; /* a few times 2^16 words at most */
		if (o->format)
			table_words += vk_output_table_words(width, height, o->width, o->height);
	}
	/* Vulkan promises storage buffers of 2^27 bytes only; the planes' or the scaled planes' is the largest here. */
	vkGetPhysicalDeviceProperties(g->physical, &props);
	if ((uint64_t)width * height * 4 * 4 > props.limits.maxStorageBufferRange)
		return cisp_error(-E2BIG, "Vulkan device %s: a %ux%u frame's planes are over its %u-byte storage buffers",
				  g->name, width, height, props.limits.maxStorageBufferRange);
	if (scaled_words * 4 > props.limits.maxStorageBufferRange || table_words * 4 > props.limits.maxStorageBufferRange)
		return cisp_error(-E2BIG, "Vulkan device %s: the scaled planes of the outputs are over its %u-byte storage buffers",
				  g->name, props.limits.maxStorageBufferRange);
	r = calloc(1, sizeof(*r));
	if (!r)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan frame");
	r->gpu = g;
	r->width = width;
	r->height = height;
	memcpy(r->out_format, out_format, sizeof(r->out_format));
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		r->out_width[i] = output[i].width;
		r->out_height[i] = output[i].height;
		r->scale_table[i] = table_at[i];
		if (out_format[i])
			vk_output_own_buffer(r, i);
	}
	r->import_outputs = g->host_import;
	/* At most 4 x 16384^2 words, and 6 x 16384^2 bytes of output: all inside 32 bits, as the shaders count. */
	ret = vk_buffer_create(g, (VkDeviceSize)width * height * 4 * 4, &r->planes);
	if (!ret)
		ret = vk_buffer_create(g, table_words * 4, &r->tables);
	/* The scaled planes come with the first frame that scales through them (vk_rgb_scaled_planes()), if ever. */
	r->scaled_words = scaled_words;
	for (int i = 0; i < CISP_MAX_OUTPUTS && !ret; i++)
		if (out_format[i])
			ret = vk_buffer_create(g,
					       (packed_bytes(out_format[i], output[i].width, output[i].height) + 3) &
						       ~(VkDeviceSize)3,
					       &r->out[i]);
	if (ret || (ret = create_sets(r, bayer)) || (ret = vk_commands_create(g, &r->commands, &r->cmd))) {
		vk_rgb_destroy(r);
		return ret;
	}
	*out = r;
	return 0;
}

int vk_rgb_scaled_planes(struct vk_rgb *r)
{
	VkWriteDescriptorSet write[1 + CISP_MAX_OUTPUTS];
	VkDescriptorBufferInfo info;
	uint32_t n = 0;
	int ret;

	if (r->scaled.buffer)
		return 0;
	if ((ret = vk_buffer_create(r->gpu, r->scaled_words * 4, &r->scaled)))
		return ret;
	/* The sets that read or write them held the planes in their place (create_sets()). */
	info = (VkDescriptorBufferInfo){ r->scaled.buffer, 0, VK_WHOLE_SIZE };
	write[n++] = (VkWriteDescriptorSet){ .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
					     .dstSet = r->set[VK_RGB_TO_SCALED],
					     .dstBinding = 1,
					     .descriptorCount = 1,
					     .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
					     .pBufferInfo = &info };
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		write[n] = write[0];
		write[n].dstSet = r->set[VK_RGB_SCALED_TO_OUTPUT0 + i];
		write[n++].dstBinding = 0;
	}
	vkUpdateDescriptorSets(r->gpu->device, n, write, 0, NULL);
	return 0;
}

void vk_rgb_destroy(struct vk_rgb *r)
{
	if (!r)
		return;
	if (r->commands)
		vkDestroyCommandPool(r->gpu->device, r->commands, NULL); /* frees r->cmd */
	if (r->descriptors)
		vkDestroyDescriptorPool(r->gpu->device, r->descriptors, NULL);
	for (int s = 0; s < VK_RGB_SHADER_COUNT; s++)
		if (r->pipeline[s])
			vkDestroyPipeline(r->gpu->device, r->pipeline[s], NULL);
	vk_buffer_destroy(r->gpu, &r->planes);
	vk_buffer_destroy(r->gpu, &r->tables);
	vk_buffer_destroy(r->gpu, &r->scaled);
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		vk_buffer_destroy(r->gpu, &r->out[i]);
	vk_dmq_destroy(r->dmq);
	free(r->tone);
	free(r->ltm);
	free(r);
}

int vk_rgb_open(struct vk_gpu *g, const struct vk_frame *bayer, const struct cisp_isp_config *config,
		struct vk_rgb **rgb)
{
	int ret;

	*rgb = NULL;
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (config->output[i].format && pack_layout(config->output[i].format) < 0)
			return 0; /* the software ISP makes them */
	ret = vk_rgb_create_outputs(g, config->width, config->height, bayer, config->output, rgb);
	/* A frame too big for the device's buffers still runs, handed over after white balance. */
	if (ret == -ENOMEM || ret == -E2BIG) {
		cisp_log(CISP_LOG_INFO, "Vulkan backend: the stages after white balance run on the CPU: %s",
			 cisp_last_error());
		return 0;
	}
	return ret;
}

/* Every step's push constants start with the frame's width and height. */
static uint32_t *step_begin(const struct vk_rgb *r, struct vk_rgb_step *s, enum vk_rgb_shader shader, unsigned source,
			    unsigned words)
{
	memset(s, 0, sizeof(*s));
	s->shader = shader;
	s->source = source;
	s->push_size = words * 4;
	s->push[0] = r->width;
	s->push[1] = r->height;
	return s->push + 2;
}

void vk_rgb_step_demosaic(const struct vk_rgb *r, enum cisp_cfa cfa, unsigned bayer_plane, struct vk_rgb_step step[2])
{
	const unsigned source = bayer_plane ? VK_RGB_FROM_BAYER1 : VK_RGB_FROM_BAYER0;
	uint32_t *green = step_begin(r, &step[0], VK_RGB_DEMOSAIC_GREEN, source, 4);
	uint32_t *rb = step_begin(r, &step[1], VK_RGB_DEMOSAIC_RB, source, 6);

	/* Rows of one parity share their CFA pattern. */
	for (int y = 0; y < 2; y++) {
		green[y] = rb[y] = (uint32_t)cisp_demosaic_first_colour(cfa, y);
		rb[2 + y] = (uint32_t)cisp_demosaic_red_first(cfa, y);
	}
}

/* A colour step with @stage alone on; each stage sets only its own words, so that steps fuse by OR. */
static void colour_begin(const struct vk_rgb *r, struct vk_rgb_step *s, uint32_t stage)
{
	step_begin(r, s, VK_RGB_COLOUR, VK_RGB_IN_PLACE, COLOUR_WORDS);
	s->push[COLOUR_STAGES] = stage;
}

void vk_rgb_step_fuse(struct vk_rgb_step *into, const struct vk_rgb_step *stage)
{
	if (!into->push_size) {
		*into = *stage;
		return;
	}
	if (into->shader == VK_RGB_SHARPEN) {
		into->push[SHARPEN_CSC] = (stage->push[COLOUR_STAGES] & COLOUR_CSC) != 0;
		return;
	}
	for (unsigned k = 0; k < COLOUR_WORDS; k++)
		into->push[k] |= stage->push[k];
}

void vk_rgb_step_ccm(const struct vk_rgb *r, const struct cisp_ccm_params *p, struct vk_rgb_step *s)
{
	colour_begin(r, s, COLOUR_CCM);
	for (int k = 0; k < 9; k++)
		s->push[COLOUR_CCM_MATRIX + k / 2] |= (uint32_t)(uint16_t)p->coeff[k] << (k % 2 * 16);
	for (int k = 0; k < 3; k++)
		s->push[COLOUR_CCM_OFFSET + k] = (uint32_t)p->offset[k];
}

int vk_rgb_step_ltm(struct vk_rgb *r, const struct cisp_ltm_params *p, struct vk_rgb_step *s)
{
	uint32_t *table = (uint32_t *)r->tables.map + LTM_START;
	const struct cisp_ltm_coeffs *c;
	int ret;

	colour_begin(r, s, COLOUR_LTM);
	/* The tables are made again only when the params change (the size is the side's). */
	if (r->ltm_held && !memcmp(&r->ltm_params, p, sizeof(*p)))
		return 0;
	r->ltm_held = false;
	if (!r->ltm && !(r->ltm = malloc(sizeof(*r->ltm))))
		return cisp_error(-ENOMEM, "out of memory for the LTM tables");
	if ((ret = cisp_ltm_prepare(r->ltm, p, (int)r->width, (int)r->height)))
		return ret;
	c = r->ltm;
	table[0] = (uint32_t)c->grid_w;
	table[1] = c->range;
	table[2] = c->rscale;
	table[3] = 0;
	for (int k = 0; k < c->grid_w * c->grid_h; k++)
		table[LTM_NODES + k] = c->level[k] | (uint32_t)c->gain[k] << 16;
	for (uint32_t x = 0; x < r->width; x++)
		table[LTM_COLS + x] = c->col_node[x] | (uint32_t)c->col_pos[x] << 8;
	for (uint32_t y = 0; y < r->height; y++)
		table[LTM_ROWS + y] = c->row_node[y] | (uint32_t)c->row_pos[y] << 8;
	r->ltm_params = *p;
	r->ltm_held = true;
	return 0;
}

int vk_rgb_step_tone(struct vk_rgb *r, const struct cisp_tone_params *p, struct vk_rgb_step *s)
{
	uint32_t *table = r->tables.map;

	colour_begin(r, s, COLOUR_TONE);
	if (!r->tone && !(r->tone = malloc(sizeof(*r->tone))))
		return cisp_error(-ENOMEM, "out of memory for the tone tables");
	/* The table is made again only when the params change (65536 entries). */
	if (r->tone_params.header.size && !memcmp(&r->tone_params, p, sizeof(*p)))
		return 0;
	cisp_tone_prepare(r->tone, p);
	/* Two entries a word, the even one low: little-endian 16-bit entries on any host. */
	for (uint32_t v = 0; v < 65536; v += 2)
		table[v / 2] = r->tone->lut[v] | (uint32_t)r->tone->lut[v + 1] << 16;
	r->tone_params = *p;
	return 0;
}

void vk_rgb_step_lut3d(struct vk_rgb *r, const struct cisp_lut3d_params *p, struct vk_rgb_step *s)
{
	uint32_t *table = (uint32_t *)r->tables.map + TONE_WORDS;
	const size_t entries = (size_t)p->size * p->size * p->size * 3;

	colour_begin(r, s, COLOUR_LUT3D);
	s->push[COLOUR_LUT3D_SIZE] = p->size;
	/* The params' validation keeps size in 2..CISP_LUT3D_MAX_SIZE: the table fits. */
	for (size_t k = 0; k < entries && k < LUT3D_WORDS; k++)
		table[k] = p->table[k / 3][k % 3];
}

void vk_rgb_step_sharpen(const struct vk_rgb *r, const struct cisp_sharpen_params *p, struct vk_rgb_step step[2])
{
	colour_begin(r, &step[0], COLOUR_LUMA);
	step_begin(r, &step[1], VK_RGB_SHARPEN, VK_RGB_IN_PLACE, SHARPEN_WORDS);
	step[1].push[SHARPEN_CORING] = p->coring;
	step[1].push[SHARPEN_CORING + 1] = p->strength;
	step[1].push[SHARPEN_CORING + 2] = p->limit;
}

void vk_rgb_step_csc(struct vk_rgb *r, const struct cisp_csc_params *p, struct vk_rgb_step *s)
{
	uint32_t *table = (uint32_t *)r->tables.map + CSC_START;
	int32_t y_zero;
	const int32_t *m = cisp_csc_matrix(p, &y_zero);

	colour_begin(r, s, COLOUR_CSC);
	for (int k = 0; k < 9; k++)
		table[k] = (uint32_t)m[k];
	table[9] = (uint32_t)y_zero;
}

/* The blocks chroma denoise's tables are made from, as the reference's stage reads them (cnr.c's cnr_prepare()). */
static void cnr_key(const struct cisp_param_state *s, struct vk_rgb_cnr_key *k)
{
	memset(k, 0, sizeof(*k));
	k->gains = s->enabled &
		   (CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_CCM) | CISP_BLOCK_BIT(CISP_BLOCK_TONE));
	k->cnr = s->cnr;
	k->noise = s->noise;
	k->csc = s->csc;
	if (k->gains & CISP_BLOCK_BIT(CISP_BLOCK_WB))
		k->wb = s->wb;
	if (k->gains & CISP_BLOCK_BIT(CISP_BLOCK_CCM))
		k->ccm = s->ccm;
	if (k->gains & CISP_BLOCK_BIT(CISP_BLOCK_TONE))
		k->tone = s->tone;
}

/* Chroma denoise's tables for @key (from @s) into the tables buffer: 0 or a negative errno. */
static int cnr_tables(struct vk_rgb *r, const struct cisp_param_state *s, const struct vk_rgb_cnr_key *key)
{
	uint32_t *table = (uint32_t *)r->tables.map + TONE_WORDS + LUT3D_WORDS;
	const bool tone = key->gains & CISP_BLOCK_BIT(CISP_BLOCK_TONE);
	struct cisp_cnr_row_tables t;
	struct cisp_cnr_coeffs *c;
	struct vk_rgb_step unused;
	int ret;

	/* The tone table the thresholds go through: the one the tone step holds, made where it is not yet. */
	if (tone && (ret = vk_rgb_step_tone(r, &s->tone, &unused)))
		return ret;
	ret = cisp_cnr_prepare(&c, &s->cnr, &s->noise,
			       &(const struct cisp_cnr_gains){ .wb = key->gains & CISP_BLOCK_BIT(CISP_BLOCK_WB) ? &s->wb : NULL,
							       .ccm = key->gains & CISP_BLOCK_BIT(CISP_BLOCK_CCM) ? &s->ccm : NULL,
							       .tone_lut = tone ? r->tone->lut : NULL,
							       .csc = &s->csc });
	if (ret)
		return ret;
	cisp_cnr_tables(c, &t);
	for (int b = 0; b < CNR_BINS; b++) {
		table[b] = t.inv_y[b];
		table[CNR_BINS + b] = t.inv_c[b];
	}
	memcpy(table + 2 * CNR_BINS, t.recip, CNR_RECIP_WORDS * sizeof(uint32_t));
	r->cnr_radius = (uint32_t)t.radius;
	r->cnr_on = t.enabled;
	cisp_cnr_free(c);
	return 0;
}

int vk_rgb_step_cnr(struct vk_rgb *r, const struct cisp_param_state *s, struct vk_rgb_step step[2])
{
	struct vk_rgb_cnr_key key;
	int ret;

	/* 32 binary searches over the grey model and 1089 reciprocals: made again only when what they read changes. */
	cnr_key(s, &key);
	if (!r->cnr_held || memcmp(&key, &r->cnr_key, sizeof(key))) {
		r->cnr_held = false;
		if ((ret = cnr_tables(r, s, &key)))
			return ret;
		r->cnr_key = key;
		r->cnr_held = true;
		r->cnr_uploads++;
	}
	step_begin(r, &step[0], VK_RGB_CNR_H, VK_RGB_IN_PLACE, 3)[0] = r->cnr_radius;
	step_begin(r, &step[1], VK_RGB_CNR_V, VK_RGB_IN_PLACE, 3)[0] = r->cnr_radius;
	return r->cnr_on ? 2 : 0;
}

/* Output @index's place's layout into the tables: where it starts there. */
static uint32_t write_layout(const struct vk_rgb *r, int index)
{
	const uint32_t at = OUTPUT_LAYOUTS + LAYOUT_WORDS * (uint32_t)index;
	uint32_t *table = (uint32_t *)r->tables.map + at;

	memcpy(table, r->place[index].offset, sizeof(r->place[index].offset));
	memcpy(table + 3, r->place[index].stride, sizeof(r->place[index].stride));
	return at;
}

uint32_t vk_rgb_place_word(const struct vk_rgb *r, int index)
{
	/* The tables' words are below 2^24 (SCALE_TABLES and the outputs' after it). */
	return (uint32_t)pack_layout(r->out_format[index]) | write_layout(r, index) << 8;
}

void vk_rgb_step_pack(const struct vk_rgb *r, int index, struct vk_rgb_step *s)
{
	uint32_t *push = step_begin(r, s, VK_RGB_PACK, VK_RGB_TO_OUTPUT0 + (unsigned)index, PACK_WORDS);

	s->push[0] = r->out_width[index];
	s->push[1] = r->out_height[index];
	push[0] = (uint32_t)pack_layout(r->out_format[index]);
	push[1] = write_layout(r, index);
	push[2] = r->place[index].first_word;
	push[3] = r->place[index].words;
}

bool vk_rgb_packs_fused(const struct vk_rgb *r, const struct cisp_param_state *state, int index)
{
	return r->out_format[index] && r->width % PACK_BLOCK_W == 0 && vk_output_whole(r, state, index);
}

void vk_rgb_step_pack_fused(const struct vk_rgb *r, int index, const struct vk_rgb_step *from, struct vk_rgb_step *s)
{
	step_begin(r, s, VK_RGB_PACK_FUSED, VK_RGB_TO_OUTPUT0 + (unsigned)index, PACK_FUSED_WORDS);
	if (from->shader == VK_RGB_SHARPEN) {
		s->push[COLOUR_STAGES] = PACK_FUSED_SHARPEN;
		memcpy(&s->push[PACK_FUSED_CORING], &from->push[SHARPEN_CORING], 3 * sizeof(uint32_t));
	} else if (from->push_size) {
		memcpy(&s->push[COLOUR_STAGES], &from->push[COLOUR_STAGES], (COLOUR_WORDS - COLOUR_STAGES) * sizeof(uint32_t));
		s->push[COLOUR_STAGES] &= ~(uint32_t)(COLOUR_LUMA | COLOUR_CSC);
	}
	s->push[PACK_FUSED_LAYOUT] = vk_rgb_place_word(r, index);
}

void vk_rgb_step_pack420_cnr(const struct vk_rgb *r, int index, const struct vk_rgb_step *cnr_v, struct vk_rgb_step *s)
{
	const uint32_t radius = cnr_v->push[2]; /* @s may be @cnr_v */

	step_begin(r, s, VK_RGB_PACK420_CNR, VK_RGB_TO_OUTPUT0 + (unsigned)index, 4)[0] = radius;
	s->push[3] = vk_rgb_place_word(r, index);
}

/*
 * @steps into the command buffer being recorded (@after_another: a dispatch
 * is recorded before them), each shader's pipeline made the first time it is
 * used (a context that never keeps a frame on the GPU compiles none): 0 or a
 * negative errno.
 */
static int record(struct vk_rgb *r, const struct vk_rgb_step *steps, unsigned count, bool after_another)
{
	for (unsigned i = 0; i < count; i++) {
		const struct vk_rgb_step *s = &steps[i];
		uint32_t groups_x = (r->width + GROUP_PIXELS - 1) / GROUP_PIXELS, groups_y = r->height;
		int ret;

		if (!r->pipeline[s->shader] && (ret = vk_pipeline_create(r->gpu, shader_code[s->shader].code,
									 shader_code[s->shader].size,
									 &r->pipeline[s->shader])))
			return ret;

		if (s->shader == VK_RGB_PACK) {
			/* One invocation per word, in rows of PACK_GROUPS_X workgroups. */
			uint32_t words = s->push[5], per_row = PACK_GROUPS_X * GROUP_PIXELS;

			groups_x = PACK_GROUPS_X;
			groups_y = (words + per_row - 1) / per_row;
		}
		/* One invocation per block of 8x2 pixels. */
		if (s->shader == VK_RGB_PACK_FUSED || s->shader == VK_RGB_PACK420_CNR) {
			groups_x = (r->width / PACK_BLOCK_W + GROUP_PIXELS - 1) / GROUP_PIXELS;
			groups_y = (r->height + 1) / 2;
		}
		if (s->shader == VK_RGB_SCALE) { /* one invocation per pixel of the output */
			groups_x = (s->push[2] + GROUP_PIXELS - 1) / GROUP_PIXELS;
			groups_y = s->push[3];
		}
		if (s->shader == VK_RGB_PACK_SCALED) { /* one invocation per block of 8x2 pixels of the output */
			groups_x = (s->push[2] / PACK_BLOCK_W + GROUP_PIXELS - 1) / GROUP_PIXELS;
			groups_y = (s->push[3] + 1) / 2;
		}
		vk_commands_dispatch(r->cmd, r->gpu, after_another || i > 0, r->pipeline[s->shader], r->set[s->source],
				     s->push, s->push_size, groups_x, groups_y);
	}
	return 0;
}

int vk_rgb_run(struct vk_rgb *r, const struct vk_rgb_step *steps, unsigned count)
{
	int ret = vk_commands_begin(r->cmd);

	if (ret || (ret = record(r, steps, count, false)) || (ret = vk_commands_end(r->cmd)))
		return ret;
	return vk_gpu_run(r->gpu, r->cmd);
}

int vk_rgb_unload(const struct vk_rgb *r, int index, struct cisp_image *img)
{
	const uint8_t *from = r->out[index].map;
	size_t row, rows;

	if (!r->out_format[index] || img->format != r->out_format[index] || img->width != r->out_width[index] ||
	    img->height != r->out_height[index])
		return cisp_error(-EINVAL, "Vulkan backend: a %ux%u %s image for output %d", img->width, img->height,
				  cisp_format_name(img->format), index);
	for (unsigned p = 0; p < img->num_planes; p++) {
		if (cisp_image_plane_size(img->format, img->width, img->height, p, &row, &rows))
			break;
		for (size_t y = 0; y < rows; y++, from += row)
			memcpy(img->plane[p].data + y * (size_t)img->plane[p].stride, from, row);
	}
	return 0;
}

/* Record @steps after the Bayer side's, submit, wait and copy out the outputs not packed in place: 0 or a negative errno. */
static int finish_frame(struct vk_rgb *r, const struct vk_rgb_step *steps, unsigned n,
			struct cisp_image *const output[CISP_MAX_OUTPUTS])
{
	int ret;

	if ((ret = record(r, steps, n, true)) || (ret = vk_commands_end(r->cmd)) || (ret = vk_gpu_run(r->gpu, r->cmd)))
		return ret;
	for (int i = 0; i < CISP_MAX_OUTPUTS && !ret; i++)
		if (r->out_format[i] && output[i] && !r->place[i].imported.buffer)
			ret = vk_rgb_unload(r, i, output[i]);
	return ret;
}

static int run_frame(struct vk_rgb *r, struct vk_frame *frame, enum cisp_cfa cfa, const struct cisp_param_state *state,
		     const struct cisp_image *input, const struct vk_step *bayer_steps, unsigned count,
		     struct cisp_image *const output[CISP_MAX_OUTPUTS])
{
	struct vk_rgb_step steps[8 + 3 * CISP_MAX_OUTPUTS], colour = { .push_size = 0 }, one, sharpening[2];
	struct vk_rgb_step csc = { .push_size = 0 };
	const bool sharpen = state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
	unsigned n = 0, bayer_plane;
	unsigned yuv = 0, outputs = 0; /* the YUV outputs asked for, and all */
	int only = -1; /* the one output, where only one is asked for */
	bool rgb_out = false, fuse_pack;
	int ret;

	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		if (!r->out_format[i] || !output[i])
			continue;
		only = outputs++ ? -1 : i;
		yuv += is_yuv(r->out_format[i]);
		rgb_out |= !is_yuv(r->out_format[i]);
	}
	/*
	 * One output alone, of the whole frame: the last dispatch (sharpening,
	 * the colour stages, or chroma denoise's vertical pass) packs it, and the
	 * planes are not written back.
	 */
	fuse_pack = outputs == 1 && vk_rgb_packs_fused(r, state, only);
	/* Each output into the caller's image where the device imports it, before any set is recorded. */
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		if (r->out_format[i] && output[i] && (ret = vk_output_place(r, i, output[i])) < 0)
			return ret;

	/* One command buffer: the Bayer side's steps, then this side's. */
	if ((ret = vk_commands_begin(r->cmd)) ||
	    (ret = vk_frame_record(frame, input, bayer_steps, count, r->cmd, false, &bayer_plane)))
		return ret;
	/* Highlights run on the Bayer frame after white balance, into the other plane. */
	if ((state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_HIGHLIGHTS)) &&
	    (ret = vk_highlights_record_state(r, frame, cfa, state, &bayer_plane)))
		return ret;
	if (state->demosaic.algorithm == CISP_DEMOSAIC_QUALITY) {
		if ((!r->dmq && (ret = vk_dmq_create(r->gpu, frame, &r->planes, &r->dmq))) ||
		    (ret = vk_dmq_record(r->dmq, r->cmd, true, cfa, bayer_plane, state->demosaic.false_colour, 0,
					 VK_DMQ_STEP_COUNT)))
			return ret;
	} else {
		vk_rgb_step_demosaic(r, cfa, bayer_plane, &steps[n]);
		n += 2;
	}
	/* Colour correction, LTM, tone and the 3D LUT where on: one dispatch, the pixel in registers. */
	if (state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CCM)) {
		vk_rgb_step_ccm(r, &state->ccm, &one);
		vk_rgb_step_fuse(&colour, &one);
	}
	if (state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LTM)) {
		if ((ret = vk_rgb_step_ltm(r, &state->ltm, &one)))
			return ret;
		vk_rgb_step_fuse(&colour, &one);
	}
	if (state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE)) {
		if ((ret = vk_rgb_step_tone(r, &state->tone, &one)))
			return ret;
		vk_rgb_step_fuse(&colour, &one);
	}
	if (state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_LUT3D)) {
		vk_rgb_step_lut3d(r, &state->lut3d, &one);
		vk_rgb_step_fuse(&colour, &one);
	}
	/* Sharpening's luma is made in the colour dispatch, from the pixel it writes. */
	if (sharpen) {
		vk_rgb_step_sharpen(r, &state->sharpen, sharpening);
		vk_rgb_step_fuse(&colour, &sharpening[0]);
	}
	if (yuv)
		vk_rgb_step_csc(r, &state->csc, &csc);
	if (fuse_pack && !(yuv && (state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CNR)))) {
		if (sharpen)
			steps[n++] = colour;
		vk_rgb_step_pack_fused(r, only, sharpen ? &sharpening[1] : &colour, &steps[n++]);
		return finish_frame(r, steps, n, output);
	}
	/*
	 * Else, without RGB outputs, which take the RGB planes before it, the
	 * conversion is made by the last dispatch before it, on the pixel it holds.
	 */
	if (yuv && !rgb_out) {
		vk_rgb_step_fuse(sharpen ? &sharpening[1] : &colour, &csc);
		csc.push_size = 0;
	}
	if (colour.push_size)
		steps[n++] = colour;
	if (sharpen)
		steps[n++] = sharpening[1];
	/* The RGB outputs, then the conversion to YCbCr for the others (as the reference's executor). */
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		if (r->out_format[i] && output[i] && !is_yuv(r->out_format[i])) {
			if ((ret = vk_output_steps(r, state, i, &steps[n])) < 0)
				return ret;
			n += (unsigned)ret;
		}
	}
	if (csc.push_size)
		steps[n++] = csc;
	if (yuv && (state->enabled & CISP_BLOCK_BIT(CISP_BLOCK_CNR))) {
		/* Its thresholds follow the noise through the stages that are on, as the reference's cnr_prepare(). */
		if ((ret = vk_rgb_step_cnr(r, state, &steps[n])) < 0)
			return ret;
		n += (unsigned)ret;
		/* One 4:2:0 output of the whole frame: the vertical pass packs it (none where the stage copies). */
		if (fuse_pack && ret) {
			vk_rgb_step_pack420_cnr(r, only, &steps[n - 1], &steps[n - 1]);
			return finish_frame(r, steps, n, output);
		}
	}
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++) {
		if (r->out_format[i] && output[i] && is_yuv(r->out_format[i])) {
			if ((ret = vk_output_steps(r, state, i, &steps[n])) < 0)
				return ret;
			n += (unsigned)ret;
		}
	}
	return finish_frame(r, steps, n, output);
}

int vk_rgb_process(struct vk_rgb *r, struct vk_frame *frame, enum cisp_cfa cfa, const struct cisp_param_state *state,
		   const struct cisp_image *input, const struct vk_step *bayer_steps, unsigned count,
		   struct cisp_image *const output[CISP_MAX_OUTPUTS])
{
	int ret = run_frame(r, frame, cfa, state, input, bayer_steps, count, output);

	/* The input and outputs may have been imported where they are: the GPU is done with them (or never ran). */
	vk_frame_release_input(frame);
	vk_output_release(r);
	return ret;
}
