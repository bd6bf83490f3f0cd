// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The pipe: one kernel thread that is the ISP's "hardware". It runs one job
 * at a time, to the end (like a hardware pipe, a started frame is not
 * preempted), and then picks the next.
 *
 * Each context's jobs run in submission order, so only a context's oldest
 * job can be next. It is ready when its in-fence has signalled (or it has
 * none). Among the ready ones the pipe takes, in this order:
 *   1. jobs that will not run (in-fence failed or timed out): they only
 *      apply their params delta and signal, which takes microseconds;
 *   2. the earliest deadline (EDF), the higher context priority breaking ties;
 *   3. the earliest submission.
 * A job whose in-fence has not signalled within the device's fence timeout
 * fails with -ETIMEDOUT; the pipe wakes up for the nearest such timeout.
 */
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "cisp_dev.h"
#include "cisp_error.h"
#include "core/error_internal.h"

u64 cisp_clock_ns(void)
{
	return ktime_get_ns();
}

/* Whether @a should run before @b (both ready heads). */
static bool runs_before(const struct cisp_kjob *a, const struct cisp_kjob *b)
{
	if (!!a->error != !!b->error)
		return a->error;
	if (a->deadline_ns != b->deadline_ns)
		return a->deadline_ns < b->deadline_ns;
	if (a->ctx->priority != b->ctx->priority)
		return a->ctx->priority > b->ctx->priority;
	return a->order < b->order;
}

/*
 * The most urgent ready job, marked running (dev->lock held); NULL if none.
 * *@wake_ns: lowered to the nearest in-fence timeout of a job that is not ready.
 */
static struct cisp_kjob *take_next(struct cisp_dev *dev, u64 now, u64 *wake_ns)
{
	struct cisp_kjob *best = NULL;
	struct cisp_ctx *ctx;

	list_for_each_entry(ctx, &dev->contexts, node) {
		struct cisp_kjob *job;

		if (ctx->running || ctx->dying || list_empty(&ctx->queue))
			continue;
		job = list_first_entry(&ctx->queue, struct cisp_kjob, node);
		if (job->in_waiting && !job->error) {
			u64 limit = job->submit_ns + dev->fence_timeout_ns;

			if (now < limit) {
				*wake_ns = min(*wake_ns, limit);
				continue;
			}
			job->error = -ETIMEDOUT;
			ctx->counters.timed_out++;
		}
		if (!best || runs_before(job, best))
			best = job;
	}
	if (best) {
		best->ctx->running = best;
		best->ctx->waiting--;
	}
	return best;
}

/* The job ran (or will not): take it off its context's queue and count it. */
static void account(struct cisp_kjob *job, int error, u64 start, u64 end, bool ran)
{
	struct cisp_ctx *ctx = job->ctx;
	struct cisp_isp_counters *c = &ctx->counters;

	spin_lock_irq(&ctx->dev->lock);
	list_del(&job->node);
	c->queued--;
	if (ran) {
		u64 cost = end - start;

		c->busy_ns += cost;
		ctx->cost_ns = ctx->cost_ns ? (3 * ctx->cost_ns + cost) / 4 : cost;
		if (end > job->deadline_ns)
			c->deadline_misses++;
	}
	if (!error)
		c->completed++;
	else if (error == -ETIME)
		c->skipped++;
	else
		c->failed++;
	spin_unlock_irq(&ctx->dev->lock);
}

static void run_one(struct cisp_kjob *job, struct cisp_msg *msg)
{
	struct cisp_ctx *ctx = job->ctx;
	struct cisp_dev *dev = ctx->dev;
	u64 start = cisp_clock_ns(), end;
	bool ran = false;
	int error, ret;

	/* A job that timed out still has its callback on the in-fence. */
	if (job->in_fence)
		dma_fence_remove_callback(job->in_fence, &job->in_cb);
	msg->text[0] = '\0';
	error = job->error;
	/* Every job applies its params delta in its turn, whether it runs or not. */
	ret = cisp_kjob_apply_params(job);
	if (!error)
		error = ret;
	if (!error && (ctx->flags & CISP_ISP_CTX_SKIP_LATE) &&
	    start + ctx->cost_ns > job->deadline_ns)
		error = -ETIME;
	if (!error) {
		error = cisp_kjob_process(job);
		ran = true;
	}
	end = cisp_clock_ns();
	spin_lock_irq(&dev->lock);
	if (error && msg->text[0])
		strscpy(ctx->counters.last_error, msg->text, sizeof(ctx->counters.last_error));
	spin_unlock_irq(&dev->lock);
	account(job, error, start, end, ran);
	/*
	 * Signalled and freed while its context still counts it as running, so
	 * that a context being destroyed waits for it; after this the context
	 * may be gone.
	 */
	job->done(job, error);
	spin_lock_irq(&dev->lock);
	ctx->running = NULL;
	spin_unlock_irq(&dev->lock);
	wake_up_all(&dev->idle);
}

static int pipe_main(void *arg)
{
	struct cisp_dev *dev = arg;
	struct cisp_msg *msg = kmalloc(sizeof(*msg), GFP_KERNEL);

	if (!msg)
		return -ENOMEM;
	/* The messages of the cisp code this thread runs. */
	cisp_msg_begin(msg);
	while (!kthread_should_stop()) {
		u64 now = cisp_clock_ns(), wake_ns = U64_MAX;
		struct cisp_kjob *job;

		spin_lock_irq(&dev->lock);
		dev->kicked = false;
		job = take_next(dev, now, &wake_ns);
		spin_unlock_irq(&dev->lock);
		if (job) {
			run_one(job, msg);
			cond_resched();
			continue;
		}
		/* Sleep until a job may be ready: a submission, an in-fence, a timeout. */
		wait_event_interruptible_timeout(dev->wake,
						 kthread_should_stop() || READ_ONCE(dev->kicked),
						 wake_ns == U64_MAX
							 ? MAX_SCHEDULE_TIMEOUT
							 : nsecs_to_jiffies(wake_ns - now) + 1);
	}
	cisp_msg_end(msg);
	kfree(msg);
	return 0;
}

static void in_fence_signalled(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct cisp_kjob *job = container_of(cb, struct cisp_kjob, in_cb);
	struct cisp_dev *dev = job->ctx->dev;
	unsigned long flags;
	int status = dma_fence_get_status_locked(fence);

	spin_lock_irqsave(&dev->lock, flags);
	job->in_waiting = false;
	if (status < 0 && !job->error)
		job->error = status;
	dev->kicked = true;
	spin_unlock_irqrestore(&dev->lock, flags);
	wake_up(&dev->wake);
}

int cisp_sched_room(struct cisp_ctx *ctx)
{
	int ret = 0;

	spin_lock_irq(&ctx->dev->lock);
	if (ctx->dying)
		ret = -ENOENT;
	else if (ctx->waiting >= ctx->queue_limit)
		ret = cisp_error(-EAGAIN,
				 "context %u already has %u jobs waiting (its queue limit)",
				 ctx->id, ctx->waiting);
	spin_unlock_irq(&ctx->dev->lock);
	return ret;
}

void cisp_sched_account_params(struct cisp_ctx *ctx, u32 bytes, u64 copy_ns, u64 check_ns)
{
	spin_lock_irq(&ctx->dev->lock);
	ctx->counters.params_bytes += bytes;
	ctx->counters.params_copy_ns += copy_ns;
	ctx->counters.params_check_ns += check_ns;
	spin_unlock_irq(&ctx->dev->lock);
}

void cisp_sched_queue(struct cisp_kjob *job)
{
	struct cisp_ctx *ctx = job->ctx;
	struct cisp_dev *dev = ctx->dev;

	/*
	 * The callback goes on before the job is visible to the pipe, so that
	 * the pipe never sees a job whose callback is still to be added. It
	 * takes dev->lock under the fence's lock: it is added without dev->lock.
	 */
	job->in_waiting = !!job->in_fence;
	if (job->in_fence &&
	    dma_fence_add_callback(job->in_fence, &job->in_cb, in_fence_signalled)) {
		int status = dma_fence_get_status(job->in_fence);

		job->in_waiting = false;
		if (status < 0)
			job->error = status;
	}
	spin_lock_irq(&dev->lock);
	job->order = dev->order++;
	list_add_tail(&job->node, &ctx->queue);
	ctx->waiting++;
	ctx->counters.submitted++;
	ctx->counters.queued++;
	dev->kicked = true;
	spin_unlock_irq(&dev->lock);
	wake_up(&dev->wake);
}

void cisp_sched_cancel(struct cisp_ctx *ctx)
{
	struct cisp_dev *dev = ctx->dev;
	struct cisp_kjob *job, *next;
	LIST_HEAD(cancelled);

	mutex_lock(&ctx->submit_lock);
	spin_lock_irq(&dev->lock);
	ctx->dying = true;
	list_for_each_entry_safe(job, next, &ctx->queue, node) {
		if (job == ctx->running)
			continue;
		list_move_tail(&job->node, &cancelled);
		ctx->waiting--;
		ctx->counters.queued--;
	}
	spin_unlock_irq(&dev->lock);
	mutex_unlock(&ctx->submit_lock);
	/* In order, so that the fences of the context signal in sequence. */
	list_for_each_entry_safe(job, next, &cancelled, node) {
		list_del(&job->node);
		if (job->in_fence)
			dma_fence_remove_callback(job->in_fence, &job->in_cb);
		job->done(job, -ECANCELED);
	}
}

void cisp_sched_wait(struct cisp_ctx *ctx)
{
	wait_event(ctx->dev->idle, !READ_ONCE(ctx->running));
}

int cisp_sched_start(struct cisp_dev *dev)
{
	dev->pipe = kthread_run(pipe_main, dev, "%s-pipe", CISP_DEV_NAME);
	if (IS_ERR(dev->pipe)) {
		int ret = PTR_ERR(dev->pipe);

		dev->pipe = NULL;
		return ret;
	}
	return 0;
}

void cisp_sched_stop(struct cisp_dev *dev)
{
	if (dev->pipe)
		kthread_stop(dev->pipe);
	dev->pipe = NULL;
}
