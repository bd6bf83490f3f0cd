/* SPDX-License-Identifier: MIT */
/* The exposure-bracket merge on the Vulkan device (vulkan_merge.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/error_internal.h"
#include "device/vulkan_frame.h"
#include "device/vulkan_merge.h"

/* The SPIR-V of shaders/merge.comp (src/device/meson.build). */
static const uint32_t spv_merge[] =
#include "device/merge.spv.h"
	;

/* Invocations per workgroup along x (shaders/samples.glsl): each makes a pair of samples. */
#define GROUP_PAIRS 64

void vk_merge_release_inputs(struct vk_gpu *g, struct vk_merge *m)
{
	if (!m)
		return;
	for (unsigned k = 0; k < VK_MERGE_OTHERS; k++)
		vk_buffer_destroy(g, &m->imported[k]);
	m->others = 0;
}

void vk_merge_destroy(struct vk_gpu *g, struct vk_merge *m)
{
	if (!m)
		return;
	if (m->pipeline)
		vkDestroyPipeline(g->device, m->pipeline, NULL);
	if (m->descriptors)
		vkDestroyDescriptorPool(g->device, m->descriptors, NULL);
	vk_merge_release_inputs(g, m);
	for (unsigned k = 0; k < VK_MERGE_OTHERS; k++)
		vk_buffer_destroy(g, &m->raw[k]);
	vk_buffer_destroy(g, &m->acc[0]);
	vk_buffer_destroy(g, &m->acc[1]);
	free(m);
}

int vk_frame_merge_open(struct vk_frame *f)
{
	const struct vk_buffer *bindings[VK_MERGE_SETS][3];
	const VkDeviceSize bytes = (VkDeviceSize)f->width * f->height * 2;
	struct vk_merge *m;
	int ret;

	if (f->merge)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan bracket merge");
	for (unsigned s = 0; s < 2; s++) {
		bindings[VK_MERGE_SET_LAST + s][0] = &f->plane[s];
		bindings[VK_MERGE_SET_LAST + s][1] = &f->plane[1 - s];
		bindings[VK_MERGE_SET_LAST + s][2] = &m->acc[0];
		for (unsigned a = 0; a < 2; a++) {
			bindings[VK_MERGE_SET_STEP + 2 * a + s][0] = &f->plane[s];
			bindings[VK_MERGE_SET_STEP + 2 * a + s][1] = &m->acc[1 - a];
			bindings[VK_MERGE_SET_STEP + 2 * a + s][2] = &m->acc[a];
		}
	}
	/* An input's binding names the frame's raw buffer until vk_frame_load() binds the input's. */
	for (unsigned k = 0; k < VK_MERGE_OTHERS; k++) {
		bindings[VK_MERGE_SET_INPUT + k][0] = &f->raw;
		bindings[VK_MERGE_SET_INPUT + k][1] = &f->plane[0];
		bindings[VK_MERGE_SET_INPUT + k][2] = &f->tables;
	}
	if ((ret = vk_buffer_create(f->gpu, bytes, &m->acc[0])) || (ret = vk_buffer_create(f->gpu, bytes, &m->acc[1])) ||
	    (ret = vk_sets_create(f->gpu, VK_MERGE_SETS, bindings, &m->descriptors, m->set)) ||
	    (ret = vk_pipeline_create(f->gpu, spv_merge, sizeof(spv_merge), &m->pipeline))) {
		vk_merge_destroy(f->gpu, m);
		return ret;
	}
	f->merge = m;
	return 0;
}

/* The shader's push constants: the size, the scale (a merge step's) and whether it copies instead. */
static void merge_push(const struct vk_frame *f, uint32_t scale, bool copy, struct vk_step *s)
{
	memset(s, 0, sizeof(*s));
	s->shader = VK_SHADER_BLC; /* not a stage shader of the device: s->merge says it is the frame's merge */
	s->merge = true;
	s->push[0] = f->width;
	s->push[1] = f->height;
	s->push[2] = scale;
	s->push[3] = copy;
	s->push_size = 4 * 4;
	s->rows = f->height;
}

void vk_step_merge(const struct vk_frame *f, const struct cisp_merge_coeffs *c, struct vk_step *s)
{
	merge_push(f, (uint32_t)c->scale, false, s);
}

static void dispatch(const struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *s, VkDescriptorSet set)
{
	vk_commands_dispatch(cmd, f->gpu, true, f->merge->pipeline, set, s->push, s->push_size,
			     (f->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS, s->rows);
}

void vk_merge_record(const struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *s, unsigned from)
{
	dispatch(f, cmd, s, f->merge->set[VK_MERGE_SET_LAST + from]);
}

int vk_merge_record_inputs(struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *steps, unsigned count)
{
	struct vk_merge *m = f->merge;
	struct vk_step copy, merge;
	unsigned held; /* the merge buffer that holds the merge so far */

	if (!m)
		return cisp_error(-EINVAL, "Vulkan backend: a merge step before the frame's merge is made");
	/* The first frame goes where the buffers' turns leave the merge so far in buffer 0 for the last merge. */
	held = (m->others + 1) % 2;
	merge_push(f, 0, true, &copy);
	for (unsigned k = 0; k < m->others; k++) {
		VkDescriptorSet input = m->set[VK_MERGE_SET_INPUT + k];
		struct vk_step unpack = steps[0];
		unsigned plane;
		int ret;

		if ((ret = vk_frame_load(f, m->other[k], &m->raw[k], &m->imported[k], input, &unpack)))
			return ret;
		/* Behind a barrier after the first: the frame before read the planes this one writes. */
		plane = vk_frame_record_steps(f, cmd, input, &unpack, steps, count, k > 0, false);
		if (k == 0) {
			/* The first frame is the merge so far: a set that writes buffer held, with the copy's push constants. */
			dispatch(f, cmd, &copy, m->set[VK_MERGE_SET_STEP + 2 * (1 - held) + plane]);
			continue;
		}
		/* From buffer held into the other, which the next merge reads: the buffers take turns. */
		vk_step_merge(f, &m->c[k], &merge);
		dispatch(f, cmd, &merge, m->set[VK_MERGE_SET_STEP + 2 * held + plane]);
		held = 1 - held;
	}
	return 0;
}

int vk_frame_merge(struct vk_frame *f, const struct cisp_device_frame *job, struct vk_step *merge,
		   const struct cisp_image **last)
{
	const unsigned n = job->num_inputs;
	unsigned order[CISP_JOB_MAX_INPUTS] = { 0 };
	struct cisp_merge_coeffs c;
	int ret;

	/* The device checked 2..CISP_JOB_MAX_INPUTS frames, every exposure > 0, their ratio at most 256. */
	if (n < 2 || n > CISP_JOB_MAX_INPUTS)
		return cisp_error(-EINVAL, "Vulkan backend: a bracket of %u frames, not 2..%d", n, CISP_JOB_MAX_INPUTS);
	if ((ret = vk_frame_merge_open(f)))
		return ret;
	cisp_merge_order(job->exposure, n, order);
	for (unsigned k = 0; k + 1 < n; k++) {
		f->merge->other[k] = job->input[order[k]];
		if (k > 0)
			cisp_merge_prepare(&f->merge->c[k], job->exposure[order[k - 1]], job->exposure[order[k]]);
	}
	f->merge->others = n - 1;
	cisp_merge_prepare(&c, job->exposure[order[n - 2]], job->exposure[order[n - 1]]);
	vk_step_merge(f, &c, merge);
	*last = job->input[order[n - 1]];
	return 0;
}
