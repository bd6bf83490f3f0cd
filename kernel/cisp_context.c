// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Contexts: one stream each. A context holds its ISP instance (the
 * configuration and the parameter state its jobs' params deltas change),
 * its queue of jobs on the pipe and its counters.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include <cisp/stats.h>

#include "core/error_internal.h"
#include "isp/pipeline_internal.h"

#include "cisp_dev.h"

static int check_format(const struct cisp_isp_format *f, const char *what)
{
	if (f->reserved)
		return cisp_error(-EINVAL, "%s: reserved field is %u, not 0", what, f->reserved);
	return 0;
}

static int check_config(const struct cisp_isp_context *c)
{
	unsigned int i;
	int ret;

	if (c->flags & ~CISP_ISP_CTX_SKIP_LATE)
		return cisp_error(-EINVAL, "context flags 0x%x: unknown bits 0x%x", c->flags,
				  c->flags & ~CISP_ISP_CTX_SKIP_LATE);
	if (memchr_inv(c->reserved, 0, sizeof(c->reserved)))
		return cisp_error(-EINVAL, "context reserved fields are not 0");
	if (c->queue_limit > CISP_MAX_QUEUE)
		return cisp_error(-EINVAL, "queue limit %u is over %u", c->queue_limit,
				  CISP_MAX_QUEUE);
	ret = check_format(&c->input, "input");
	for (i = 0; !ret && i < CISP_ISP_MAX_OUTPUTS; i++)
		ret = check_format(&c->output[i], i ? "output 1" : "output 0");
	return ret;
}

int cisp_ctx_create(struct cisp_ctx **out, struct cisp_dev *dev,
		    const struct cisp_isp_context *config)
{
	struct cisp_isp_config ic = { 0 };
	struct cisp_ctx *ctx;
	unsigned int i;
	int ret;

	ret = check_config(config);
	if (ret)
		return ret;
	ic.input_format = config->input.format;
	ic.width = config->input.width;
	ic.height = config->input.height;
	for (i = 0; i < CISP_ISP_MAX_OUTPUTS; i++)
		ic.output[i] = (struct cisp_output_config){ config->output[i].format,
							    config->output[i].width,
							    config->output[i].height };
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	ctx->stats = kvzalloc(sizeof(*ctx->stats), GFP_KERNEL_ACCOUNT);
	if (!ctx->stats) {
		kfree(ctx);
		return -ENOMEM;
	}
	ret = cisp_isp_create(&ctx->isp, &ic);
	if (ret) {
		kvfree(ctx->stats);
		kfree(ctx);
		return ret;
	}
	/* The "hardware" runs the reference executor: each stage over the whole frame in turn. */
	cisp_isp_set_exec(ctx->isp, &(struct cisp_isp_exec){ .fused = false, .cpu = -1 });
	cisp_isp_limits(ctx->isp, &ctx->limits);
	ctx->config = ic;
	ctx->dev = dev;
	kref_init(&ctx->ref);
	ctx->flags = config->flags;
	ctx->priority = config->priority;
	ctx->queue_limit = config->queue_limit ? config->queue_limit : CISP_DEFAULT_QUEUE;
	ctx->frame_period_ns = config->frame_period_ns;
	ctx->fence_context = dma_fence_context_alloc(1);
	mutex_init(&ctx->submit_lock);
	INIT_LIST_HEAD(&ctx->queue);
	spin_lock_irq(&dev->lock);
	list_add_tail(&ctx->node, &dev->contexts);
	spin_unlock_irq(&dev->lock);
	atomic_inc(&dev->live.contexts);
	*out = ctx;
	return 0;
}

static void ctx_free(struct kref *ref)
{
	struct cisp_ctx *ctx = container_of(ref, struct cisp_ctx, ref);

	atomic_dec(&ctx->dev->live.contexts);
	cisp_isp_destroy(ctx->isp);
	kvfree(ctx->stats);
	mutex_destroy(&ctx->submit_lock);
	kfree(ctx);
}

void cisp_ctx_put(struct cisp_ctx *ctx)
{
	kref_put(&ctx->ref, ctx_free);
}

void cisp_ctx_destroy(struct cisp_ctx *ctx)
{
	struct cisp_dev *dev = ctx->dev;

	cisp_sched_cancel(ctx);
	cisp_sched_wait(ctx);
	spin_lock_irq(&dev->lock);
	list_del(&ctx->node);
	spin_unlock_irq(&dev->lock);
	cisp_ctx_put(ctx);
}

void cisp_ctx_counters(struct cisp_ctx *ctx, struct cisp_isp_counters *c)
{
	spin_lock_irq(&ctx->dev->lock);
	*c = ctx->counters;
	spin_unlock_irq(&ctx->dev->lock);
}

void cisp_ctx_record_result(struct cisp_ctx *ctx, const struct cisp_kjob *job, int error)
{
	struct cisp_result *r = &ctx->results[job->sequence % CISP_ISP_RESULTS];

	spin_lock_irq(&ctx->dev->lock);
	r->sequence_1 = job->sequence + 1;
	r->status = error;
	r->selected = job->selected;
	memcpy(r->sharpness, job->sharpness, sizeof(r->sharpness));
	spin_unlock_irq(&ctx->dev->lock);
}

int cisp_ctx_result(struct cisp_ctx *ctx, struct cisp_isp_job_result *out)
{
	const u64 seq = out->sequence;
	const struct cisp_result *r = &ctx->results[seq % CISP_ISP_RESULTS];
	int ret = 0;

	/* submit_lock: next_sequence does not move while we look. */
	mutex_lock(&ctx->submit_lock);
	spin_lock_irq(&ctx->dev->lock);
	if (seq >= ctx->next_sequence) {
		ret = -EINVAL;
	} else if (r->sequence_1 == seq + 1) {
		out->status = r->status;
		out->selected = r->selected;
		memcpy(out->sharpness, r->sharpness, sizeof(out->sharpness));
	} else {
		/* Jobs end in sequence order: a later job in the slot means this one's is gone. */
		ret = r->sequence_1 > seq + 1 ? -ENODATA : -EBUSY;
	}
	spin_unlock_irq(&ctx->dev->lock);
	mutex_unlock(&ctx->submit_lock);
	return ret;
}
