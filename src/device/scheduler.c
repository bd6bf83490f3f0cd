/* SPDX-License-Identifier: MIT */
/*
 * The scheduler: a binary heap of ready jobs, at most one per context (its
 * oldest queued job, once its in-fences are signalled and no job of the
 * context runs). A free worker takes the top:
 *   1. no-op jobs first (they only apply a params delta and signal in order),
 *   2. then the highest context priority,
 *   3. then the earliest deadline (EDF),
 *   4. then the earliest submission.
 * Jobs are not preempted once started. The overload policies act at
 * submission (queue limit) and when a job is taken (skip if late).
 */
#include <errno.h>

#include "core/error_internal.h"
#include "device/device_internal.h"

static bool before(const struct job *a, const struct job *b)
{
	if (a->noop != b->noop)
		return a->noop;
	if (a->ctx->config.priority != b->ctx->config.priority)
		return a->ctx->config.priority > b->ctx->config.priority;
	if (a->deadline_ns != b->deadline_ns)
		return a->deadline_ns < b->deadline_ns;
	return a->order < b->order;
}

static void heap_set(struct cisp_device *dev, unsigned i, struct job *job)
{
	dev->heap[i] = job;
	job->heap_index = (int)i;
}

static void sift_up(struct cisp_device *dev, unsigned i)
{
	struct job *job = dev->heap[i];

	while (i > 0 && before(job, dev->heap[(i - 1) / 2])) {
		heap_set(dev, i, dev->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(dev, i, job);
}

static void sift_down(struct cisp_device *dev, unsigned i)
{
	struct job *job = dev->heap[i];

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= dev->heap_size)
			break;
		if (c + 1 < dev->heap_size && before(dev->heap[c + 1], dev->heap[c]))
			c++;
		if (!before(dev->heap[c], job))
			break;
		heap_set(dev, i, dev->heap[c]);
		i = c;
	}
	heap_set(dev, i, job);
}

void sched_push(struct cisp_device *dev, struct job *job)
{
	heap_set(dev, dev->heap_size++, job);
	sift_up(dev, dev->heap_size - 1);
	atomic_store_explicit(&dev->ready, dev->heap_size, memory_order_relaxed);
	/* Wake a sleeping worker only if the awake ones cannot take every ready job. */
	if (dev->idle && dev->heap_size > dev->searching)
		pthread_cond_signal(&dev->work);
}

void sched_remove(struct cisp_device *dev, struct job *job)
{
	unsigned i = (unsigned)job->heap_index;
	struct job *last = dev->heap[--dev->heap_size];

	atomic_store_explicit(&dev->ready, dev->heap_size, memory_order_relaxed);
	job->heap_index = -1;
	if (last == job)
		return;
	heap_set(dev, i, last);
	sift_down(dev, i);
	sift_up(dev, (unsigned)last->heap_index);
}

struct job *sched_pop(struct cisp_device *dev, uint64_t now)
{
	struct job *job = dev->heap[0];
	struct cisp_context *ctx = job->ctx;

	sched_remove(dev, job);
	/* It is the context's head: unlink it. */
	ctx->head = job->next;
	if (ctx->head)
		ctx->head->prev = NULL;
	else
		ctx->tail = NULL;
	job->next = job->prev = NULL;
	job->state = JOB_RUNNING;
	ctx->running = job;
	if (!job->noop) {
		ctx->waiting--;
		/* Skip-late: do not spend the ISP on a frame that cannot be on time. */
		if (ctx->config.overload == CISP_OVERLOAD_SKIP_LATE && now + ctx->cost_ns > job->deadline_ns) {
			job->noop = true;
			job->skipped = true;
			job->status = CISP_FENCE_CANCELLED;
			job->error = -ETIME;
		}
	}
	return job;
}

void sched_kick(struct cisp_context *ctx)
{
	struct job *job;

	while ((job = ctx->head) && !ctx->running && job->heap_index < 0 && !job->pending) {
		if (job->noop && job->signalled && !job->params_size) {
			job_free(job); /* nothing left for a worker to do */
			continue;
		}
		sched_push(ctx->dev, job);
		break;
	}
}

int sched_admit(struct cisp_context *ctx, struct cisp_fence **batch)
{
	struct job *job;

	if (ctx->waiting < ctx->config.queue_limit)
		return 0;
	switch (ctx->config.overload) {
	case CISP_OVERLOAD_DROP_OLDEST:
		for (job = ctx->head; job && job->noop; job = job->next)
			;
		job_cancel(job, -ENOBUFS, batch); /* waiting > 0, so there is one */
		ctx->counters.dropped++;
		job_settle(job);
		return 0;
	case CISP_OVERLOAD_SKIP_LATE:
		return 1;
	default:
		return cisp_error(-EAGAIN, "context '%s' already has %u jobs waiting (its queue limit)", ctx->name,
				  ctx->config.queue_limit);
	}
}
