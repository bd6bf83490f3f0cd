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

void vk_merge_destroy(struct vk_gpu *g, struct vk_merge *m)
{
	if (!m)
		return;
	if (m->pipeline)
		vkDestroyPipeline(g->device, m->pipeline, NULL);
	if (m->descriptors)
		vkDestroyDescriptorPool(g->device, m->descriptors, NULL);
	vk_buffer_destroy(g, &m->acc);
	free(m);
}

int vk_frame_merge_open(struct vk_frame *f)
{
	/* Plane 0 and the merge so far into plane 1, plane 1 and it into plane 0. */
	const struct vk_buffer *bindings[2][3] = { { &f->plane[0], &f->plane[1], NULL },
						   { &f->plane[1], &f->plane[0], NULL } };
	struct vk_merge *m;
	int ret;

	if (f->merge)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan bracket merge");
	bindings[0][2] = bindings[1][2] = &m->acc;
	if ((ret = vk_buffer_create(f->gpu, (VkDeviceSize)f->width * f->height * 2, &m->acc)) ||
	    (ret = vk_sets_create(f->gpu, 2, bindings, &m->descriptors, m->set)) ||
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
	s->push[2] = c->scale;
	s->push_size = 3 * 4;
	s->rows = f->height;
}

void vk_merge_record(const struct vk_frame *f, VkCommandBuffer cmd, const struct vk_step *s, unsigned from)
{
	vk_commands_dispatch(cmd, f->gpu, true, f->merge->pipeline, f->merge->set[from], s->push, s->push_size,
			     (f->width / 2 + GROUP_PAIRS - 1) / GROUP_PAIRS, s->rows);
}

int vk_frame_merge(struct vk_frame *f, const struct cisp_device_frame *job, const struct vk_step *steps,
		   unsigned count, struct vk_step *merge, const struct cisp_image **last)
{
	const size_t bytes = (size_t)f->width * f->height * 2;
	unsigned order[CISP_JOB_MAX_INPUTS] = { 0 };
	struct vk_step run[VK_SHADER_COUNT + 1];
	struct cisp_merge_coeffs c;
	int ret;

	/* The device checked 2..CISP_JOB_MAX_INPUTS frames, every exposure > 0, their ratio at most 256. */
	if (job->num_inputs < 2 || job->num_inputs > CISP_JOB_MAX_INPUTS)
		return cisp_error(-EINVAL, "Vulkan backend: a bracket of %u frames, not 2..%d", job->num_inputs,
				  CISP_JOB_MAX_INPUTS);
	if (count > VK_SHADER_COUNT)
		return cisp_error(-EINVAL, "Vulkan backend: %u exposure steps", count);
	if ((ret = vk_frame_merge_open(f)))
		return ret;
	cisp_merge_order(job->exposure, job->num_inputs, order);
	memcpy(run, steps, count * sizeof(*steps));
	for (unsigned k = 0; k + 1 < job->num_inputs; k++) {
		const uint16_t *samples;
		unsigned n = count;

		if (k > 0) {
			cisp_merge_prepare(&c, job->exposure[order[k - 1]], job->exposure[order[k]]);
			vk_step_merge(f, &c, &run[n++]);
		}
		if ((ret = vk_frame_run(f, job->input[order[k]], run, n, &samples)))
			return ret;
		/* Host-visible and coherent: the next submission sees the copy. */
		memcpy(f->merge->acc.map, samples, bytes);
	}
	cisp_merge_prepare(&c, job->exposure[order[job->num_inputs - 2]], job->exposure[order[job->num_inputs - 1]]);
	vk_step_merge(f, &c, merge);
	*last = job->input[order[job->num_inputs - 1]];
	return 0;
}
