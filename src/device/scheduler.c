/* SPDX-License-Identifier: MIT */
/*
 * The scheduler. Ready jobs are at most one per context (its oldest queued
 * job, once its in-fences are signalled and no job of the context runs), so
 * the ready list is short and a free worker scans it for the most urgent:
 *   1. no-op jobs first (they only apply a params delta and signal in order);
 *   2. while the offered load fits the workers: the earliest deadline (EDF),
 *      priority breaking ties; when it does not: the highest priority, the
 *      earliest deadline within it (enum cisp_schedule);
 *   3. then the earliest submission.
 * Under overload, EDF would let every stream miss, so priorities decide
 * which ones do. A running job is preempted between its bands (its
 * pipeline's preemption points) when a ready job goes before it by this
 * order for more than submission order and no worker is free for it: its
 * worker runs the urgent job on top of it, then resumes it. The overload
 * policies act at submission (queue limit) and when a job is taken (skip if
 * late).
 */
#include <errno.h>

#include "core/error_internal.h"
#include "device/device_internal.h"

/* A context that has not submitted for this many of its intervals no longer counts in the load. */
#define IDLE_INTERVALS 4

static bool before(const struct job *a, const struct job *b, bool by_priority)
{
	int pa = a->ctx->config.priority, pb = b->ctx->config.priority;

	if (a->noop != b->noop)
		return a->noop;
	if (by_priority && pa != pb)
		return pa > pb;
	if (a->deadline_ns != b->deadline_ns)
		return a->deadline_ns < b->deadline_ns;
	if (pa != pb)
		return pa > pb;
	return a->order < b->order;
}

/* Whether @a goes before @b for more than submission order: reason enough to stop @b for it. */
static bool more_urgent(const struct job *a, const struct job *b, bool by_priority)
{
	return before(a, b, by_priority) &&
	       (a->noop != b->noop || a->deadline_ns != b->deadline_ns ||
		a->ctx->config.priority != b->ctx->config.priority);
}

void sched_submitted(struct cisp_context *ctx, uint64_t now)
{
	if (ctx->last_submit_ns && now > ctx->last_submit_ns) {
		uint64_t d = now - ctx->last_submit_ns;

		if (ctx->interval_ns && d > IDLE_INTERVALS * ctx->interval_ns)
			ctx->interval_ns = 0; /* the stream was idle: its rate starts afresh with the next frame */
		else
			ctx->interval_ns = ctx->interval_ns ? (7 * ctx->interval_ns + d) / 8 : d;
	}
	ctx->last_submit_ns = now;
}

static bool active(const struct cisp_context *c, uint64_t now)
{
	return c->interval_ns && now - c->last_submit_ns <= IDLE_INTERVALS * c->interval_ns;
}

unsigned sched_load(const struct cisp_device *dev, uint64_t now)
{
	uint64_t load = 0;

	for (const struct cisp_context *c = dev->contexts; c; c = c->next)
		if (active(c, now))
			load += c->cost_ns * 100 / c->interval_ns;
	return load > UINT32_MAX ? UINT32_MAX : (unsigned)load;
}

/*
 * Under overload, one worker is kept for the highest priority of the
 * active streams: a lower-priority job may not take the last worker that is
 * not already busy with lower-priority work. Otherwise a long low-priority
 * frame, started in a moment when nothing else was ready, would leave the
 * high-priority stream to share the remaining workers with everything else,
 * and wait behind them for a band at least (for a whole frame with a
 * pipeline that has no preemption points). @replaced: the job the new one
 * would preempt (its worker does not count as busy), or NULL.
 */
static bool may_start(const struct cisp_device *dev, const struct job *job, const struct job *replaced, uint64_t now)
{
	int top = job->ctx->config.priority;
	unsigned lower = 0;

	if (job->noop || dev->num_workers < 2)
		return true;
	for (const struct cisp_context *c = dev->contexts; c; c = c->next)
		if (active(c, now) && c->config.priority > top)
			top = c->config.priority;
	if (top == job->ctx->config.priority)
		return true;
	for (unsigned i = 0; i < dev->num_workers; i++) {
		const struct job *r = dev->workers[i].current;

		if (r && r != replaced && !r->noop && r->ctx->config.priority < top)
			lower++;
	}
	return lower + 1 < dev->num_workers;
}

unsigned cisp_device_load(struct cisp_device *dev)
{
	unsigned load;

	pthread_mutex_lock(&dev->lock);
	load = sched_load(dev, fence_clock_ns());
	pthread_mutex_unlock(&dev->lock);
	return load;
}

void sched_push(struct cisp_device *dev, struct job *job)
{
	job->ready_index = (int)dev->num_ready;
	dev->ready_list[dev->num_ready++] = job;
	atomic_store_explicit(&dev->ready, dev->num_ready, memory_order_relaxed);
	/* Wake a sleeping worker only if the awake ones cannot take every ready job. */
	if (dev->idle && dev->num_ready > dev->searching)
		pthread_cond_signal(&dev->work);
}

void sched_remove(struct cisp_device *dev, struct job *job)
{
	unsigned i = (unsigned)job->ready_index;
	struct job *last = dev->ready_list[--dev->num_ready];

	/* The list has no order: the last job takes the removed one's place. */
	dev->ready_list[i] = last;
	last->ready_index = (int)i;
	job->ready_index = -1;
	atomic_store_explicit(&dev->ready, dev->num_ready, memory_order_relaxed);
}

/* The most urgent ready job that may start now, to replace @running (NULL: on a free worker). */
static struct job *pick(struct cisp_device *dev, const struct job *running, uint64_t now)
{
	struct job *job = NULL;
	bool by_priority = dev->schedule == CISP_SCHEDULE_PRIORITY ||
			   (dev->schedule == CISP_SCHEDULE_AUTO && dev->num_ready &&
			    sched_load(dev, now) > 100 * dev->num_workers);

	for (unsigned i = 0; i < dev->num_ready; i++) {
		struct job *j = dev->ready_list[i];

		if ((!job || before(j, job, by_priority)) && (!by_priority || may_start(dev, j, running, now)))
			job = j;
	}
	if (job && running && !dev->preempt_always && !more_urgent(job, running, by_priority))
		return NULL;
	return job;
}

/* Take @job (from pick()) off the ready list and its context queue, and mark it running. */
static struct job *take(struct cisp_device *dev, struct job *job, uint64_t now)
{
	struct cisp_context *ctx;

	if (!job)
		return NULL;
	ctx = job->ctx;
	sched_remove(dev, job);
	/* It is the context's head: unlink it. */
	ctx->head = job->next;
	if (ctx->head)
		ctx->head->prev = NULL;
	else
		ctx->tail = NULL;
	job->next = job->prev = NULL;
	job->state = JOB_RUNNING;
	job->preempted_ns = 0;
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

struct job *sched_take(struct cisp_device *dev, uint64_t now)
{
	return take(dev, pick(dev, NULL, now), now);
}

struct job *sched_take_preempting(struct cisp_device *dev, const struct job *running, uint64_t now)
{
	return take(dev, pick(dev, running, now), now);
}

void sched_kick(struct cisp_context *ctx)
{
	struct job *job;

	while ((job = ctx->head) && !ctx->running && job->ready_index < 0 && !job->pending) {
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
