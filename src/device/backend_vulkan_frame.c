/* SPDX-License-Identifier: MIT */
/* A Bayer frame on the Vulkan device and its stage dispatches (vulkan_frame.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/format.h>

#include "core/error_internal.h"
#include "device/vulkan_frame.h"

/* Invocations per workgroup along x (local_size_x of shaders/samples.glsl): each makes a pair of samples. */
#define GROUP_PAIRS 64

static int create_sets(struct vk_frame *f)
{
	/* raw -> plane 0, plane 0 -> 1, plane 1 -> 0; the tables always. */
	const struct vk_buffer *bindings[3][3] = { { &f->raw, &f->plane[0], &f->tables },
						   { &f->plane[0], &f->plane[1], &f->tables },
						   { &f->plane[1], &f->plane[0], &f->tables } };
	int ret = vk_sets_create(f->gpu, 3, bindings, &f->descriptors, f->set);

	return ret ? ret : vk_commands_create(f->gpu, &f->cmd);
}

int vk_frame_create(struct vk_gpu *g, uint32_t format, uint32_t width, uint32_t height, struct vk_frame **out)
{
	const struct cisp_format_info *info = cisp_format_info(format);
	struct vk_frame *f;
	size_t row, rows, raw_size;
	int ret;

	if (!info || info->kind != CISP_KIND_BAYER)
		return cisp_error(-ENOTSUP, "Vulkan backend: input format %s is not a Bayer format",
				  cisp_format_name(format));
	/* Both sizes are at most 65535 (the image layer's limit), so these products fit. */
	if (!width || !height || width % 2 || height % 2 || width > 65535 || height > 65535 ||
	    cisp_image_plane_size(format, width, height, 0, &row, &rows))
		return cisp_error(-EINVAL, "Vulkan backend: a %ux%u %s frame is not a whole Bayer frame", width, height,
				  cisp_format_name(format));
	f = calloc(1, sizeof(*f));
	if (!f)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan frame");
	f->gpu = g;
	f->format = format;
	f->width = width;
	f->height = height;
	f->row_bytes = (uint32_t)row;
	/* Whole 32-bit words: the unpack shader reads the raw bytes four at a time. */
	raw_size = (row * rows + 3) & ~(size_t)3;
	if ((ret = vk_buffer_create(g, raw_size, &f->raw)) ||
	    (ret = vk_buffer_create(g, (VkDeviceSize)width * height * 2, &f->plane[0])) ||
	    (ret = vk_buffer_create(g, (VkDeviceSize)width * height * 2, &f->plane[1])) ||
	    (ret = vk_buffer_create(g, 4 * ((VkDeviceSize)width + (VkDeviceSize)height * 2 * (CISP_LSC_MAX_GRID - 1)),
				    &f->tables)) ||
	    (ret = create_sets(f))) {
		vk_frame_destroy(f);
		return ret;
	}
	*out = f;
	return 0;
}

void vk_frame_destroy(struct vk_frame *f)
{
	if (!f)
		return;
	if (f->cmd)
		vkFreeCommandBuffers(f->gpu->device, f->gpu->commands, 1, &f->cmd);
	if (f->descriptors)
		vkDestroyDescriptorPool(f->gpu->device, f->descriptors, NULL);
	vk_buffer_destroy(f->gpu, &f->raw);
	vk_buffer_destroy(f->gpu, &f->plane[0]);
	vk_buffer_destroy(f->gpu, &f->plane[1]);
	vk_buffer_destroy(f->gpu, &f->tables);
	free(f);
}

/* Every stage's push constants start with the frame's width and height. */
static uint32_t *step_begin(const struct vk_frame *f, struct vk_step *s, enum vk_shader shader, unsigned words)
{
	memset(s, 0, sizeof(*s));
	s->shader = shader;
	s->push_size = words * 4;
	s->push[0] = f->width;
	s->push[1] = f->height;
	return s->push + 2;
}

void vk_step_unpack(const struct vk_frame *f, struct vk_step *s)
{
	const struct cisp_format_info *info = cisp_format_info(f->format);
	uint32_t *p = step_begin(f, s, VK_SHADER_UNPACK, 5);

	p[0] = f->row_bytes;
	p[1] = info->bits;
	p[2] = info->packed;
}

void vk_step_blc(const struct vk_frame *f, const struct cisp_blc_coeffs *c, struct vk_step *s)
{
	uint32_t *p = step_begin(f, s, VK_SHADER_BLC, 11);

	p[0] = c->white;
	for (int site = 0; site < 4; site++) {
		p[1 + site] = c->black[site];
		p[5 + site] = c->gain[site];
	}
}

void vk_step_lsc(struct vk_frame *f, const struct cisp_lsc_coeffs *c, struct vk_step *s)
{
	uint32_t *p = step_begin(f, s, VK_SHADER_LSC, 3), *table = f->tables.map, *rows = table + f->width;
	struct cisp_lsc_row r;

	/* The columns of each cell (the same on every row), then each row's node gains. */
	cisp_lsc_row_gains(c, 0, &r);
	for (int i = 0, x = 0; i < r.cells; i++)
		for (; x < r.end[i] && x < (int)f->width; x++)
			table[x] = (uint32_t)i << 16 | r.wx[x];
	p[0] = (uint32_t)r.cells;
	for (uint32_t y = 0; y < f->height; y++) {
		cisp_lsc_row_gains(c, (int)y, &r);
		for (int i = 0; i < r.cells; i++)
			for (int k = 0; k < 2; k++)
				rows[((size_t)y * r.cells + i) * 2 + k] = r.left[i][k] | (uint32_t)r.right[i][k] << 16;
	}
}

void vk_step_wb(const struct vk_frame *f, const struct cisp_wb_coeffs *c, struct vk_step *s)
{
	uint32_t *p = step_begin(f, s, VK_SHADER_WB, 6);

	for (int site = 0; site < 4; site++)
		p[site] = c->gain[site];
}

/* Rows of @input, tightly packed, into the raw buffer. */
static void load(struct vk_frame *f, const struct cisp_image *input)
{
	uint8_t *to = f->raw.map;

	for (uint32_t y = 0; y < f->height; y++)
		memcpy(to + (size_t)y * f->row_bytes, input->plane[0].data + (size_t)y * input->plane[0].stride,
		       f->row_bytes);
}

int vk_frame_record(struct vk_frame *f, const struct cisp_image *input, const struct vk_step *steps, unsigned count,
		    VkCommandBuffer cmd, unsigned *result_plane)
{
	if (!count || steps[0].shader != VK_SHADER_UNPACK)
		return cisp_error(-EINVAL, "Vulkan backend: a frame starts with the unpack");
	if (input->format != f->format || input->width != f->width || input->height != f->height)
		return cisp_error(-EINVAL, "Vulkan backend: a %ux%u %s input for a %ux%u %s frame", input->width,
				  input->height, cisp_format_name(input->format), f->width, f->height,
				  cisp_format_name(f->format));
	load(f, input);
	for (unsigned i = 0; i < count; i++) {
		/* The unpack reads the raw buffer; then the planes take turns. */
		VkDescriptorSet set = f->set[i == 0 ? 0 : 1 + (i - 1) % 2];

		vk_commands_dispatch(cmd, f->gpu, i > 0, f->gpu->pipeline[steps[i].shader], set, steps[i].push,
				     steps[i].push_size, (f->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS, f->height);
	}
	/* The last step wrote plane 0 after an odd number of steps, plane 1 after an even one. */
	*result_plane = (count - 1) % 2;
	return 0;
}

int vk_frame_run(struct vk_frame *f, const struct cisp_image *input, const struct vk_step *steps, unsigned count,
		 const uint16_t **result)
{
	unsigned plane;
	int ret;

	if ((ret = vk_commands_begin(f->cmd)) || (ret = vk_frame_record(f, input, steps, count, f->cmd, &plane)) ||
	    (ret = vk_commands_end(f->cmd)) || (ret = vk_gpu_run(f->gpu, f->cmd)))
		return ret;
	*result = f->plane[plane].map;
	return 0;
}
