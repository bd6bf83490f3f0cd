// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * CISP_IOC_SUBMIT: one frame in one call. Everything the job names is
 * checked and resolved here, before anything is queued: the description
 * against the context, each image's planes against its dma-buf, the params
 * delta (copied, then validated as a whole), the in-fence. A job refused
 * here changes nothing, and the caller's message buffer says which field,
 * buffer or params block was wrong and why.
 */
#include <linux/dma-buf.h>
#include <linux/file.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include <cisp/format.h>
#include <cisp/params_state.h>
#include <cisp/stats.h>

#include "core/error_internal.h"

#include "cisp_dev.h"
#include "cisp_error.h"

static int check_description(const struct cisp_ctx *ctx, const struct cisp_isp_job *d)
{
	const unsigned int min_inputs = d->mode == CISP_JOB_SINGLE ? 1 : 2;
	const unsigned int max_inputs = d->mode == CISP_JOB_SINGLE ? 1 : CISP_ISP_MAX_INPUTS;
	u32 lo = U32_MAX, hi = 0;
	unsigned int i;

	if (d->flags & ~CISP_ISP_JOB_CHECK_ONLY)
		return cisp_error(-EINVAL, "job flags 0x%x: unknown bits 0x%x", d->flags,
				  d->flags & ~CISP_ISP_JOB_CHECK_ONLY);
	if (memchr_inv(d->reserved, 0, sizeof(d->reserved)))
		return cisp_error(-EINVAL, "job reserved fields are not 0");
	if (d->mode > CISP_JOB_MERGE_HDR)
		return cisp_error(-EINVAL,
				  "job mode %u is not single (0), select-sharpest (1) or merge-hdr (2)",
				  d->mode);
	if (d->num_inputs < min_inputs || d->num_inputs > max_inputs)
		return cisp_error(-EINVAL, "job mode %u takes %u..%u inputs, not %u", d->mode,
				  min_inputs, max_inputs, d->num_inputs);
	for (i = 0; i < CISP_ISP_MAX_INPUTS; i++) {
		u32 e = d->exposure[i];

		if (d->mode != CISP_JOB_MERGE_HDR || i >= d->num_inputs) {
			if (e)
				return cisp_error(-EINVAL,
						  "job exposure %u is %u but only merge-hdr inputs have one",
						  i, e);
			continue;
		}
		if (!e)
			return cisp_error(-EINVAL, "job exposure %u is 0", i);
		lo = min(lo, e);
		hi = max(hi, e);
	}
	if (hi > (u64)lo * CISP_JOB_MAX_EXPOSURE_RATIO)
		return cisp_error(-EINVAL, "job exposures span %u..%u, more than the ratio %u", lo,
				  hi, CISP_JOB_MAX_EXPOSURE_RATIO);
	for (i = 0; i < CISP_ISP_MAX_OUTPUTS; i++) {
		bool used = ctx->config.output[i].format != 0;

		if (used && d->output[i].fd < 0)
			return cisp_error(-EINVAL,
					  "job output %u is missing (fd %d); the context configures it",
					  i, d->output[i].fd);
		if (!used && d->output[i].fd != -1)
			return cisp_error(-EINVAL,
					  "job output %u has fd %d but the context has no output %u",
					  i, d->output[i].fd, i);
	}
	if (d->params_size && !d->params)
		return cisp_error(-EINVAL, "job params is 0 but params_size is %u", d->params_size);
	if (d->params_size > CISP_PARAMS_MAX_SIZE)
		return cisp_error(-EMSGSIZE, "job params_size %u is over %u", d->params_size,
				  CISP_PARAMS_MAX_SIZE);
	return 0;
}

/* Check an image's planes against its format, then that they lie inside its dma-buf. */
static int resolve_image(struct cisp_kjob_image *im, const struct cisp_isp_buffer *b, u32 format,
			 u32 width, u32 height, const char *what, unsigned int index)
{
	const struct cisp_format_info *f = cisp_format_info(format);
	u64 end[CISP_ISP_MAX_PLANES] = { 0 };
	struct dma_buf *dmabuf;
	unsigned int p;

	if (b->num_planes != f->planes)
		return cisp_error(-EINVAL, "job %s %u: %u planes given, %s has %u", what, index,
				  b->num_planes, f->name, f->planes);
	for (p = 0; p < CISP_ISP_MAX_PLANES; p++) {
		const struct cisp_isp_plane *pl = &b->plane[p];
		size_t row_bytes, rows;
		int ret;

		if (p >= f->planes) {
			if (pl->offset || pl->stride)
				return cisp_error(-EINVAL,
						  "job %s %u: plane %u is set but %s has %u planes",
						  what, index, p, f->name, f->planes);
			continue;
		}
		ret = cisp_image_plane_size(format, width, height, p, &row_bytes, &rows);
		if (ret)
			return cisp_error_prefix(ret, "job %s %u", what, index);
		if (pl->stride < row_bytes)
			return cisp_error(-EINVAL,
					  "job %s %u: plane %u stride %u is less than its row size %zu",
					  what, index, p, pl->stride, row_bytes);
		/* At most 2^32 * 2^14 + 2^32: no overflow in 64 bits. */
		end[p] = pl->offset + (u64)pl->stride * (rows - 1) + row_bytes;
	}
	dmabuf = dma_buf_get(b->fd);
	if (IS_ERR(dmabuf))
		return cisp_error(PTR_ERR(dmabuf), "job %s %u: descriptor %d is not a dma-buf",
				  what, index, b->fd);
	im->dmabuf = dmabuf;
	im->size = dmabuf->size;
	for (p = 0; p < f->planes; p++)
		if (end[p] > dmabuf->size)
			return cisp_error(-EINVAL,
					  "job %s %u: plane %u ends at byte %llu of a %zu-byte dma-buf",
					  what, index, p, end[p], dmabuf->size);
	if (!dmabuf->ops->vmap)
		return cisp_error(-EOPNOTSUPP,
				  "job %s %u: its dma-buf cannot be mapped by the kernel", what,
				  index);
	im->num_planes = b->num_planes;
	memcpy(im->plane, b->plane, sizeof(im->plane));
	return 0;
}

static int resolve_stats(struct cisp_kjob *job, const struct cisp_isp_job *d)
{
	struct dma_buf *dmabuf;

	if (d->stats_fd == -1) {
		if (d->stats_offset)
			return cisp_error(-EINVAL, "job stats_offset is %u without a stats buffer",
					  d->stats_offset);
		return 0;
	}
	if (d->stats_offset % 8)
		return cisp_error(-EINVAL, "job stats_offset %u is not a multiple of 8",
				  d->stats_offset);
	dmabuf = dma_buf_get(d->stats_fd);
	if (IS_ERR(dmabuf))
		return cisp_error(PTR_ERR(dmabuf), "job stats: descriptor %d is not a dma-buf",
				  d->stats_fd);
	job->stats.dmabuf = dmabuf;
	if ((u64)d->stats_offset + sizeof(struct cisp_stats) > dmabuf->size)
		return cisp_error(-EINVAL,
				  "job stats: %zu bytes at offset %u do not fit its %zu-byte dma-buf",
				  sizeof(struct cisp_stats), d->stats_offset, dmabuf->size);
	if (!dmabuf->ops->vmap)
		return cisp_error(-EOPNOTSUPP,
				  "job stats: its dma-buf cannot be mapped by the kernel");
	job->stats.size = dmabuf->size;
	job->stats_offset = d->stats_offset;
	return 0;
}

/* Copy the params delta and validate all of it against the context; timed for the counters. */
static int copy_params(struct cisp_kjob *job, const struct cisp_isp_job *d, u64 *copy_ns,
		       u64 *check_ns)
{
	u64 start = cisp_clock_ns();
	int ret;

	if (!d->params_size)
		return 0;
	job->params = kvmalloc(d->params_size, GFP_KERNEL_ACCOUNT);
	if (!job->params)
		return -ENOMEM;
	job->params_size = d->params_size;
	if (copy_from_user(job->params, u64_to_user_ptr(d->params), d->params_size))
		return cisp_error(-EFAULT, "job params: %u bytes at 0x%llx cannot be read",
				  d->params_size, d->params);
	*copy_ns = cisp_clock_ns() - start;
	ret = cisp_params_validate(job->params, job->params_size, &job->ctx->limits);
	*check_ns = cisp_clock_ns() - start;
	return ret ? cisp_error_prefix(ret, "job params") : 0;
}

static int resolve(struct cisp_kjob *job, const struct cisp_isp_job *d, u64 *copy_ns,
		   u64 *check_ns)
{
	const struct cisp_isp_config *c = &job->ctx->config;
	unsigned int i;
	int ret = 0;

	job->mode = d->mode;
	job->num_inputs = d->num_inputs;
	memcpy(job->exposure, d->exposure, sizeof(job->exposure));
	for (i = 0; !ret && i < d->num_inputs; i++)
		ret = resolve_image(&job->input[i], &d->input[i], c->input_format, c->width,
				    c->height, "input", i);
	for (i = 0; !ret && i < CISP_ISP_MAX_OUTPUTS; i++)
		if (c->output[i].format)
			ret = resolve_image(&job->output[i], &d->output[i], c->output[i].format,
					    c->output[i].width, c->output[i].height, "output", i);
	if (!ret)
		ret = resolve_stats(job, d);
	if (!ret)
		ret = copy_params(job, d, copy_ns, check_ns);
	if (!ret && d->in_fence_fd != -1) {
		job->in_fence = sync_file_get_fence(d->in_fence_fd);
		if (!job->in_fence)
			ret = cisp_error(-EINVAL, "job in_fence_fd %d is not a sync_file",
					 d->in_fence_fd);
	}
	return ret;
}

/*
 * The job of a submission that was queued: keep its result, signal its fence
 * and free it (cisp_kjob_done_fn). The result goes first, so that it can be
 * read as soon as the fence says the job is done.
 */
static void uapi_job_done(struct cisp_kjob *job, int error)
{
	cisp_ctx_record_result(job->ctx, job, error);
	cisp_kfence_done(job->out_fence, error);
	cisp_kjob_free(job);
}

/* Queue @job and hand its out-fence to the caller; submit_lock held. */
static int queue(struct cisp_ctx *ctx, struct cisp_kjob *job, struct cisp_isp_job __user *arg)
{
	struct file *sync;
	int fd, ret;

	ret = cisp_sched_room(ctx);
	if (ret)
		return ret;
	job->sequence = ctx->next_sequence;
	job->out_fence = cisp_kfence_create(ctx->dev, ctx->fence_context, job->sequence + 1);
	if (!job->out_fence)
		return -ENOMEM;
	fd = cisp_kfence_fd(job->out_fence, &sync);
	if (fd < 0)
		return fd;
	if (put_user(fd, &arg->out_fence_fd) || put_user(job->sequence, &arg->sequence)) {
		cisp_kfence_fd_undo(fd, sync);
		return -EFAULT;
	}
	/* Cannot fail now: the room was there, and only this call (under submit_lock) adds jobs. */
	cisp_sched_queue(job);
	fd_install(fd, sync);
	ctx->next_sequence++;
	return 0;
}

static int submit(struct cisp_file *file, const struct cisp_isp_job *d,
		  struct cisp_isp_job __user *arg)
{
	struct cisp_ctx *ctx = cisp_file_context(file, d->context);
	struct cisp_kjob *job;
	u64 copy_ns = 0, check_ns = 0;
	int ret;

	if (!ctx)
		return cisp_error(-ENOENT, "job context %u does not exist in this file",
				  d->context);
	ret = check_description(ctx, d);
	if (ret)
		goto out;
	job = cisp_kjob_alloc(ctx);
	if (!job) {
		ret = -ENOMEM;
		goto out;
	}
	job->done = uapi_job_done;
	ret = resolve(job, d, &copy_ns, &check_ns);
	if (!ret && (d->flags & CISP_ISP_JOB_CHECK_ONLY)) {
		ret = put_user(-1, &arg->out_fence_fd) ? -EFAULT : 0;
		cisp_kjob_free(job);
		goto out;
	}
	if (ret) {
		cisp_kjob_free(job);
		goto out;
	}
	job->submit_ns = cisp_clock_ns();
	job->deadline_ns = d->deadline_ns	  ? d->deadline_ns
			   : ctx->frame_period_ns ? job->submit_ns + ctx->frame_period_ns
						  : U64_MAX;
	mutex_lock(&ctx->submit_lock);
	ret = queue(ctx, job, arg);
	mutex_unlock(&ctx->submit_lock);
	if (ret) {
		if (job->out_fence)
			cisp_kfence_done(job->out_fence, -ECANCELED);
		cisp_kjob_free(job);
	}
out:
	if (check_ns)
		cisp_sched_account_params(ctx, d->params_size, copy_ns, check_ns);
	cisp_ctx_put(ctx);
	return ret;
}

long cisp_submit_ioctl(struct cisp_file *file, void __user *arg)
{
	struct {
		struct cisp_msg msg;
		struct cisp_isp_job desc;
	} *s = kmalloc(sizeof(*s), GFP_KERNEL);
	int ret;

	if (!s)
		return -ENOMEM;
	if (copy_from_user(&s->desc, arg, sizeof(s->desc))) {
		kfree(s);
		return -EFAULT;
	}
	cisp_msg_begin(&s->msg);
	ret = submit(file, &s->desc, arg);
	cisp_msg_end(&s->msg);
	if (ret && s->msg.text[0] &&
	    cisp_message_to_user(s->desc.message, s->desc.message_size, s->msg.text))
		ret = -EFAULT;
	kfree(s);
	return ret;
}
