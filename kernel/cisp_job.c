// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A job on the pipe: its params delta applied to its context's state, its
 * buffers mapped, the ISP run on them, and what it holds released.
 *
 * Nothing in the buffers is trusted: they are the caller's memory, which it
 * may change while the job runs. The ISP only reads pixels from the inputs
 * and writes pixels to the outputs; the statistics are computed into the
 * context's own struct cisp_stats and copied out at the end, so that no
 * count the ISP reads back can be changed under it.
 */
#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>

#include "core/error_internal.h"
#include "device/select.h"

#include "cisp_dev.h"

struct cisp_kjob *cisp_kjob_alloc(struct cisp_ctx *ctx)
{
	struct cisp_kjob *job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);

	if (!job)
		return NULL;
	job->ctx = ctx;
	atomic_inc(&ctx->dev->live.jobs);
	return job;
}

void cisp_kjob_free(struct cisp_kjob *job)
{
	unsigned int i;

	for (i = 0; i < CISP_ISP_MAX_INPUTS; i++)
		if (job->input[i].dmabuf)
			dma_buf_put(job->input[i].dmabuf);
	for (i = 0; i < CISP_ISP_MAX_OUTPUTS; i++)
		if (job->output[i].dmabuf)
			dma_buf_put(job->output[i].dmabuf);
	if (job->stats.dmabuf)
		dma_buf_put(job->stats.dmabuf);
	kvfree(job->params);
	if (job->in_fence)
		dma_fence_put(job->in_fence);
	if (job->out_fence)
		dma_fence_put(job->out_fence);
	atomic_dec(&job->ctx->dev->live.jobs);
	kfree(job);
}

int cisp_kjob_apply_params(struct cisp_kjob *job)
{
	int ret;

	if (!job->params)
		return 0;
	ret = cisp_isp_set_params(job->ctx->isp, job->params, job->params_size);
	kvfree(job->params);
	job->params = NULL;
	return ret ? cisp_error_prefix(ret, "params delta of job %llu", job->sequence) : 0;
}

static int map_image(struct cisp_kjob_image *im, enum dma_data_direction dir, const char *what)
{
	/* To read, writers must be done; to write, readers too. */
	enum dma_resv_usage usage = dir == DMA_TO_DEVICE ? DMA_RESV_USAGE_WRITE :
							  DMA_RESV_USAGE_READ;
	int ret;

	if (!im->dmabuf)
		return 0; /* the front-end's memory, mapped already */
	/*
	 * Synchronisation is explicit: the pipe does not wait for another
	 * device's implicit fences on a buffer (which could stall every context
	 * for as long as that device likes), it fails the job. A caller that
	 * wants to wait passes the fence as the job's in-fence
	 * (DMA_BUF_IOCTL_EXPORT_SYNC_FILE).
	 */
	if (!dma_resv_test_signaled(im->dmabuf->resv, usage))
		return cisp_error(-EBUSY,
				  "%s: another device is still using the buffer (pass its fence as the job's in-fence)",
				  what);
	ret = dma_buf_begin_cpu_access(im->dmabuf, dir);
	if (ret)
		return cisp_error(ret, "%s: the dma-buf refused CPU access", what);
	ret = dma_buf_vmap(im->dmabuf, &im->map);
	if (!ret && im->map.is_iomem) {
		dma_buf_vunmap(im->dmabuf, &im->map);
		ret = -EOPNOTSUPP;
	}
	if (ret) {
		dma_buf_end_cpu_access(im->dmabuf, dir);
		return cisp_error(ret, "%s: the dma-buf cannot be mapped into the kernel", what);
	}
	im->vaddr = im->map.vaddr;
	return 0;
}

static void unmap_image(struct cisp_kjob_image *im, enum dma_data_direction dir)
{
	if (!im->dmabuf || !im->vaddr)
		return;
	dma_buf_vunmap(im->dmabuf, &im->map);
	dma_buf_end_cpu_access(im->dmabuf, dir);
	im->vaddr = NULL;
}

static void make_image(struct cisp_image *img, const struct cisp_kjob_image *im, u32 format,
		       u32 width, u32 height)
{
	unsigned int p;

	memset(img, 0, sizeof(*img));
	img->format = format;
	img->width = width;
	img->height = height;
	img->num_planes = im->num_planes;
	for (p = 0; p < im->num_planes; p++) {
		img->plane[p].data = (u8 *)im->vaddr + im->plane[p].offset;
		img->plane[p].stride = im->plane[p].stride;
	}
}

/* Every image of the job with its direction, in one list for mapping and unmapping. */
struct job_images {
	unsigned int count;
	struct cisp_kjob_image *image[CISP_ISP_MAX_INPUTS + CISP_ISP_MAX_OUTPUTS + 1];
	enum dma_data_direction dir[CISP_ISP_MAX_INPUTS + CISP_ISP_MAX_OUTPUTS + 1];
	const char *what[CISP_ISP_MAX_INPUTS + CISP_ISP_MAX_OUTPUTS + 1];
};

static void add_image(struct job_images *l, struct cisp_kjob_image *im, enum dma_data_direction dir,
		      const char *what)
{
	l->image[l->count] = im;
	l->dir[l->count] = dir;
	l->what[l->count++] = what;
}

static void list_images(struct cisp_kjob *job, struct job_images *l)
{
	unsigned int i;

	static const char *const inputs[CISP_ISP_MAX_INPUTS] = {
		"job input 0", "job input 1", "job input 2", "job input 3",
		"job input 4", "job input 5", "job input 6", "job input 7",
	};
	static const char *const outputs[CISP_ISP_MAX_OUTPUTS] = { "job output 0", "job output 1" };

	l->count = 0;
	for (i = 0; i < job->num_inputs; i++)
		add_image(l, &job->input[i], DMA_TO_DEVICE, inputs[i]);
	for (i = 0; i < CISP_ISP_MAX_OUTPUTS; i++)
		if (job->output[i].size)
			add_image(l, &job->output[i], DMA_FROM_DEVICE, outputs[i]);
	if (job->stats.size)
		add_image(l, &job->stats, DMA_FROM_DEVICE, "job stats");
}

static int run_isp(struct cisp_kjob *job)
{
	const struct cisp_isp_config *c = &job->ctx->config;
	struct cisp_isp *isp = job->ctx->isp;
	struct cisp_stats *stats = job->stats.size ? job->ctx->stats : NULL;
	struct cisp_image in[CISP_ISP_MAX_INPUTS], out[CISP_ISP_MAX_OUTPUTS];
	struct cisp_device_frame frame = { 0 };
	unsigned int i;
	int ret;

	frame.mode = job->mode;
	frame.num_inputs = job->num_inputs;
	for (i = 0; i < job->num_inputs; i++) {
		make_image(&in[i], &job->input[i], c->input_format, c->width, c->height);
		frame.input[i] = &in[i];
		frame.exposure[i] = job->exposure[i];
	}
	for (i = 0; i < CISP_ISP_MAX_OUTPUTS; i++) {
		if (!job->output[i].size)
			continue;
		make_image(&out[i], &job->output[i], c->output[i].format, c->output[i].width,
			   c->output[i].height);
		frame.output[i] = &out[i];
	}
	frame.stats = stats;
	frame.sequence = job->sequence;
	switch (job->mode) {
	case CISP_JOB_SELECT_SHARPEST:
		ret = device_select_sharpest(isp, &frame);
		break;
	case CISP_JOB_MERGE_HDR:
		ret = cisp_isp_process_bracket(isp, frame.input, frame.exposure, frame.num_inputs,
					       frame.output, stats, NULL);
		break;
	default:
		ret = cisp_isp_process(isp, frame.input[0], frame.output, stats, NULL);
		break;
	}
	if (!ret && job->mode == CISP_JOB_SELECT_SHARPEST) {
		BUILD_BUG_ON(sizeof(job->sharpness) != sizeof(frame.sharpness));
		job->selected = frame.selected;
		memcpy(job->sharpness, frame.sharpness, sizeof(job->sharpness));
	}
	if (!ret && stats) {
		/* As the device API does: the statistics say which job of the context they are. */
		stats->sequence = job->sequence;
		memcpy((u8 *)job->stats.vaddr + job->stats_offset, stats, sizeof(*stats));
	}
	return ret;
}

int cisp_kjob_process(struct cisp_kjob *job)
{
	struct job_images l;
	unsigned int i, mapped;
	int ret = 0;

	list_images(job, &l);
	for (mapped = 0; mapped < l.count && !ret; mapped++)
		ret = map_image(l.image[mapped], l.dir[mapped], l.what[mapped]);
	if (ret)
		mapped--;
	else
		ret = run_isp(job);
	for (i = 0; i < mapped; i++)
		unmap_image(l.image[i], l.dir[i]);
	return ret;
}
