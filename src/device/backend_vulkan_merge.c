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
	for (unsigned a = 0; a < 2; a++) {
		for (unsigned s = 0; s < 3; s++) {
			bindings[VK_MERGE_SET_FIRST + 3 * a + s][0] = s < 2 ? &f->plane[s] : &f->raw;
			bindings[VK_MERGE_SET_FIRST + 3 * a + s][1] = &m->acc[a];
			bindings[VK_MERGE_SET_FIRST + 3 * a + s][2] = &f->tables;
		}
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

void vk_step_merge(const struct vk_frame *f, const struct cisp_merge_coeffs *c, struct vk_step *s)
{
	memset(s, 0, sizeof(*s));
	s->shader = VK_SHADER_BLC; /* not a stage shader of the device: s->merge says it is the frame's merge */
	s->merge = true;
	s->push[0] = f->width;
	s->push[1] = f->height;
	s->push[2] = (uint32_t)c->scale;
	s->push_size = 3 * 4;
	s->rows = f->height;
}

/* Step @s with @pipeline and @set, behind a barrier where @after_another. */
static void dispatch(const struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *s, VkPipeline pipeline,
		     VkDescriptorSet set, bool after_another)
{
	vk_commands_dispatch(cmd, f->gpu, after_another, pipeline, set, s->push, s->push_size,
			     (f->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS, s->rows);
}

void vk_merge_record(const struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *s, unsigned from)
{
	dispatch(f, cmd, s, f->merge->pipeline, f->merge->set[VK_MERGE_SET_LAST + from], true);
}

/*
 * The bracket's first frame, loaded through @input (@unpack its unpack),
 * through @steps, the last of which writes merge buffer @into itself: the
 * merge so far, which no dispatch then copies. The others write the planes.
 */
static int record_first(struct vk_frame *f, VkCommandBuffer cmd, VkDescriptorSet input, const struct vk_step *unpack,
			const struct vk_step *steps, unsigned count, unsigned into)
{
	const struct vk_step *last = count > 1 ? &steps[count - 1] : unpack;
	unsigned from = 2; /* the raw input, where the unpack is the last */

	if (last->merge || last->bnr_quality || last->shader == VK_SHADER_BNR || last->shader == VK_SHADER_STATS)
		return cisp_error(-EINVAL, "Vulkan backend: a bracket's exposure steps are stages of one dispatch each");
	if (count > 1)
		from = vk_frame_record_steps(f, cmd, input, unpack, steps, count - 1, false, false);
	dispatch(f, cmd, last, f->gpu->pipeline[last->shader], f->merge->set[VK_MERGE_SET_FIRST + 3 * into + from],
		 count > 1);
	return 0;
}

int vk_merge_record_inputs(struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *steps, unsigned count)
{
	struct vk_merge *m = f->merge;
	struct vk_step merge;
	unsigned held; /* the merge buffer that holds the merge so far */

	if (!m)
		return cisp_error(-EINVAL, "Vulkan backend: a merge step before the frame's merge is made");
	if (!count)
		return cisp_error(-EINVAL, "Vulkan backend: a bracket's frames start with the unpack");
	/* The first frame goes where the buffers' turns leave the merge so far in buffer 0 for the last merge. */
	held = (m->others + 1) % 2;
	for (unsigned k = 0; k < m->others; k++) {
		/* The first frame's unpack, where it is its last step, writes the merge buffer from a set of its own. */
		const unsigned set = k == 0 && count == 1 ? VK_MERGE_SET_FIRST + 3 * held + 2 : VK_MERGE_SET_INPUT + k;
		VkDescriptorSet input = m->set[set];
		struct vk_step unpack = steps[0];
		unsigned plane;
		int ret;

		if ((ret = vk_frame_load(f, m->other[k], &m->raw[k], &m->imported[k], input, &unpack)))
			return ret;
		if (k == 0) {
			if ((ret = record_first(f, cmd, input, &unpack, steps, count, held)))
				return ret;
			continue;
		}
		/* Behind a barrier: the frame before read the planes this one writes. */
		plane = vk_frame_record_steps(f, cmd, input, &unpack, steps, count, true, false);
		/* From buffer held into the other, which the next merge reads: the buffers take turns. */
		vk_step_merge(f, &m->c[k], &merge);
		dispatch(f, cmd, &merge, m->pipeline, m->set[VK_MERGE_SET_STEP + 2 * held + plane], true);
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
