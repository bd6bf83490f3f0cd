/* SPDX-License-Identifier: MIT */
/* The outputs on the GPU: their crop and scale, and where they are packed (vulkan_output.h, docs/gpu.md). */
#include <errno.h>
#include <string.h>

#include <cisp/format.h>
#include <cisp/log.h>

#include "core/error_internal.h"
#include "device/vulkan_output.h"
#include "device/vulkan_rgb.h"
#include "isp/scale.h"

uint64_t vk_output_table_words(uint32_t frame_w, uint32_t frame_h, uint32_t out_w, uint32_t out_h)
{
	return (uint64_t)frame_w + 3 * (uint64_t)out_w + frame_h + 3 * (uint64_t)out_h;
}

/* The window output @index shows under @s: its crop, or the whole frame (as cisp_output_update()). */
static struct vk_output_window window_of(const struct vk_rgb *r, const struct cisp_param_state *s, int index)
{
	const struct cisp_crop_params *c = &s->crop[index];

	if (!(s->crop_enabled & (1u << index)))
		return (struct vk_output_window){ 0, 0, r->width, r->height };
	return (struct vk_output_window){ c->x, c->y, c->width, c->height };
}

bool vk_output_whole(const struct vk_rgb *r, const struct cisp_param_state *s, int index)
{
	const struct vk_output_window w = window_of(r, s, index);

	return !w.x && !w.y && w.width == r->width && w.height == r->height && r->out_width[index] == r->width &&
	       r->out_height[index] == r->height;
}

/* One axis's table at @to (@vertical: the rows'), within @room words: the words written, or -E2BIG. */
static int64_t copy_axis(const struct cisp_scaler *sc, bool vertical, uint32_t out, uint32_t *to, uint64_t room)
{
	const int32_t *start, *weights;
	int taps;

	cisp_scaler_table(sc, vertical, &taps, &start, &weights);
	if ((uint64_t)out * (1 + (uint64_t)taps) > room)
		return cisp_error(-E2BIG, "Vulkan backend: an output's scaler tables are over their room");
	/* Starts and weights are never negative: the words read back as the same numbers. */
	for (uint32_t j = 0; j < out; j++)
		to[j] = (uint32_t)start[j];
	for (uint64_t k = 0; k < (uint64_t)out * taps; k++)
		to[out + k] = (uint32_t)weights[k];
	return (int64_t)out * (1 + taps);
}

/* Output @index's tables for window @w into the tables buffer, and their taps into @taps (h then v). */
static int make_tables(struct vk_rgb *r, int index, const struct vk_output_window *w, uint32_t taps[2])
{
	const uint32_t ow = r->out_width[index], oh = r->out_height[index];
	uint32_t *to = (uint32_t *)r->tables.map + r->scale_table[index];
	uint64_t room = vk_output_table_words(r->width, r->height, ow, oh);
	struct cisp_scaler *sc;
	int64_t h, v;
	int ret = cisp_scaler_create(&sc, (int)w->width, (int)w->height, (int)ow, (int)oh);

	if (ret)
		return ret;
	h = copy_axis(sc, false, ow, to, room);
	v = h < 0 ? h : copy_axis(sc, true, oh, to + h, room - (uint64_t)h);
	if (v >= 0) {
		taps[0] = (uint32_t)((h - ow) / ow);
		taps[1] = (uint32_t)((v - oh) / oh);
	}
	cisp_scaler_free(sc);
	return v < 0 ? (int)v : 0;
}

int vk_output_steps(struct vk_rgb *r, const struct cisp_param_state *state, int index, struct vk_rgb_step *step)
{
	const struct vk_output_window w = window_of(r, state, index);
	const uint32_t ow = r->out_width[index], oh = r->out_height[index];
	struct vk_rgb_step *scale = &step[0];
	uint32_t *push = scale->push;
	bool fused;
	int ret;

	/* The params' checks keep a crop inside the frame; the shader must never read outside it. */
	if (!w.width || !w.height || w.x > r->width || w.width > r->width - w.x || w.y > r->height ||
	    w.height > r->height - w.y)
		return cisp_error(-EINVAL, "Vulkan backend: output %d's crop %ux%u at (%u, %u) is outside the %ux%u frame",
				  index, w.width, w.height, w.x, w.y, r->width, r->height);
	if (vk_output_whole(r, state, index)) {
		vk_rgb_step_pack(r, index, &step[0]); /* straight from the planes */
		return 1;
	}
	/* A width of blocks of 8 is scaled and packed in one dispatch, without the scaled planes. */
	fused = ow % 8 == 0;
	if (!fused && (ret = vk_rgb_scaled_planes(r)))
		return ret;
	memset(scale, 0, sizeof(*scale));
	scale->shader = fused ? VK_RGB_PACK_SCALED : VK_RGB_SCALE;
	scale->source = fused ? VK_RGB_TO_OUTPUT0 + (unsigned)index : VK_RGB_TO_SCALED;
	scale->push_size = 10 * 4;
	push[0] = r->width;
	push[1] = r->height;
	push[2] = ow;
	push[3] = oh;
	push[4] = w.x;
	push[5] = w.y;
	push[8] = r->scale_table[index];
	/* Made again only when the window changes; the taps are kept with them. */
	if (memcmp(&w, &r->window[index], sizeof(w))) {
		if ((ret = make_tables(r, index, &w, r->window_taps[index]))) {
			memset(&r->window[index], 0, sizeof(r->window[index]));
			return ret;
		}
		r->window[index] = w;
	}
	push[6] = r->window_taps[index][0];
	push[7] = r->window_taps[index][1];
	if (fused) {
		push[9] = vk_rgb_place_word(r, index);
		return 1;
	}
	vk_rgb_step_pack(r, index, &step[1]);
	step[1].source = VK_RGB_SCALED_TO_OUTPUT0 + (unsigned)index;
	return 2;
}

/* Sets that pack output @index (from the planes, from the scaled planes) write into @buffer. */
static void bind_output(struct vk_rgb *r, int index, VkBuffer buffer)
{
	const VkDescriptorBufferInfo info = { buffer, 0, VK_WHOLE_SIZE };
	VkWriteDescriptorSet write[2];

	for (int k = 0; k < 2; k++)
		write[k] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = r->set[(k ? VK_RGB_SCALED_TO_OUTPUT0 : VK_RGB_TO_OUTPUT0) + (unsigned)index],
			.dstBinding = 1,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &info };
	vkUpdateDescriptorSets(r->gpu->device, 2, write, 0, NULL);
}

void vk_output_own_buffer(struct vk_rgb *r, int index)
{
	struct vk_output_place *pl = &r->place[index];
	uint32_t at = 0;
	size_t row, rows;

	memset(pl, 0, sizeof(*pl));
	/* The planes one after the other, rows tightly packed: under 6 x 16384^2 bytes, inside 32 bits. */
	for (unsigned p = 0; p < 3 && !cisp_image_plane_size(r->out_format[index], r->out_width[index],
							       r->out_height[index], p, &row, &rows);
	     p++) {
		pl->offset[p] = at;
		pl->stride[p] = (uint32_t)row;
		at += (uint32_t)(row * rows);
	}
	pl->words = (at + 3) / 4;
}

/* Output @index's import released, if it has one: its own buffer again. */
static void release(struct vk_rgb *r, int index)
{
	if (!r->place[index].imported.buffer)
		return;
	/* The sets name the import: bind the output's own buffer before it goes. */
	bind_output(r, index, r->out[index].buffer);
	vk_buffer_destroy(r->gpu, &r->place[index].imported);
	vk_output_own_buffer(r, index);
}

void vk_output_release(struct vk_rgb *r)
{
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		release(r, i);
}

/*
 * Whether @img's planes can be written where they are: each one's first byte
 * and the end of its last row at a word (@whole_words: its stride a multiple
 * of 4 too), each one's bytes inside 32 bits, none overlapping another, and
 * the planes less than an import block apart in all (so that every block of
 * the import holds the image's bytes). Their span into @lo and @hi.
 */
static bool importable(const struct cisp_image *img, bool whole_words, uintptr_t align, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t start[3], end[3], used = 0;
	size_t row, rows;
	unsigned planes = 0;

	while (planes < 3 && !cisp_image_plane_size(img->format, img->width, img->height, planes, &row, &rows))
		planes++;
	if (img->num_planes != planes)
		return false;
	*lo = UINTPTR_MAX;
	*hi = 0;
	for (unsigned p = 0; p < planes; p++) {
		const size_t stride = img->plane[p].stride;

		if (cisp_image_plane_size(img->format, img->width, img->height, p, &row, &rows) || !img->plane[p].data ||
		    stride < row || stride > UINT32_MAX / rows || (whole_words && stride % 4))
			return false;
		start[p] = (uintptr_t)img->plane[p].data;
		if (__builtin_add_overflow(start[p], stride * (rows - 1) + row, &end[p]) || start[p] % 4 || end[p] % 4)
			return false;
		for (unsigned q = 0; q < p; q++)
			if (start[p] < end[q] && start[q] < end[p])
				return false;
		used += end[p] - start[p];
		*lo = start[p] < *lo ? start[p] : *lo;
		*hi = end[p] > *hi ? end[p] : *hi;
	}
	return *hi - *lo - used < align;
}

/* Log, at the debug level, where output @index goes when that changes. */
static void log_place(struct vk_rgb *r, int index, bool in_place)
{
	const uint32_t bit = 1u << index;

	if ((r->place_logged & bit) && !(r->place_logged_in_place & bit) == !in_place)
		return;
	r->place_logged |= bit;
	r->place_logged_in_place = in_place ? r->place_logged_in_place | bit : r->place_logged_in_place & ~bit;
	cisp_log(CISP_LOG_DEBUG, "Vulkan backend: output %d is packed %s", index,
		 in_place ? "into the caller's image where it is" : "into a buffer and copied into the caller's image");
}

int vk_output_place(struct vk_rgb *r, int index, const struct cisp_image *img)
{
	/* Packings of blocks of 8x2 pixels write whole words at a multiple of the stride. */
	const bool whole_words = r->out_width[index] % 8 == 0;
	struct vk_output_place *pl = &r->place[index];
	VkDeviceSize offset;
	uintptr_t lo, hi;

	if (!r->out_format[index] || img->format != r->out_format[index] || img->width != r->out_width[index] ||
	    img->height != r->out_height[index])
		return cisp_error(-EINVAL, "Vulkan backend: a %ux%u %s image for output %d", img->width, img->height,
				  cisp_format_name(img->format), index);
	release(r, index); /* a place left from a frame that never ran */
	if (!r->gpu->host_import || !r->import_outputs ||
	    !importable(img, whole_words, (uintptr_t)r->gpu->host_import_align, &lo, &hi) ||
	    vk_buffer_import_host(r->gpu, (const void *)lo, hi - lo, &pl->imported, &offset)) {
		log_place(r, index, false);
		return 0;
	}
	/* The import is at most maxStorageBufferRange bytes, a 32-bit limit: every offset is inside 32 bits. */
	for (unsigned p = 0; p < img->num_planes; p++) {
		pl->offset[p] = (uint32_t)(offset + ((uintptr_t)img->plane[p].data - lo));
		pl->stride[p] = (uint32_t)img->plane[p].stride;
	}
	pl->first_word = (uint32_t)(offset / 4);
	pl->words = (uint32_t)((hi - lo) / 4);
	bind_output(r, index, pl->imported.buffer);
	r->outputs_in_place++;
	log_place(r, index, true);
	return 1;
}
