/* SPDX-License-Identifier: MIT */
/* Crop and scale of the outputs on the GPU (vulkan_output.h, docs/gpu.md). */
#include <errno.h>
#include <string.h>

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
	if ((ret = vk_rgb_scaled_planes(r)))
		return ret;
	memset(scale, 0, sizeof(*scale));
	scale->shader = VK_RGB_SCALE;
	scale->source = VK_RGB_TO_SCALED;
	scale->push_size = 9 * 4;
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
	vk_rgb_step_pack(r, index, &step[1]);
	step[1].source = VK_RGB_SCALED_TO_OUTPUT0 + (unsigned)index;
	return 2;
}
