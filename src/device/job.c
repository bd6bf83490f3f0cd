/* SPDX-License-Identifier: MIT */
/*
 * A job's life: submitted into a free slot and its context's queue, waiting
 * for its in-fences through fence callbacks, taken by a worker when the
 * scheduler says, run, completed, and its slot returned. Submission
 * allocates nothing and makes no system call: the slot and the out-fence
 * come from preallocated pools and the work is handed over under one mutex.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/error.h>

#include "core/error_internal.h"
#include "device/device_internal.h"
#include "device/job_check.h"

static void write_result(struct job *job, uint32_t status, int error, uint64_t start_ns, uint64_t end_ns,
			 const char *message)
{
	struct cisp_job_result *r = job->result;

	if (!r)
		return;
	r->status = status;
	r->error = error;
	r->sequence = job->frame.sequence;
	r->submit_ns = job->submit_ns;
	r->start_ns = start_ns;
	r->end_ns = end_ns;
	r->deadline_ns = job->deadline_ns;
	r->selected = job->frame.selected;
	memcpy(r->sharpness, job->frame.sharpness, sizeof(r->sharpness));
	if (message)
		snprintf(r->message, sizeof(r->message), "%s", message);
	else
		r->message[0] = '\0';
}

void job_free(struct job *job)
{
	struct cisp_context *ctx = job->ctx;
	struct cisp_device *dev = ctx->dev;

	if (job->ready_index >= 0)
		sched_remove(dev, job);
	if (job->state == JOB_QUEUED) {
		if (job->prev)
			job->prev->next = job->next;
		else
			ctx->head = job->next;
		if (job->next)
			job->next->prev = job->prev;
		else
			ctx->tail = job->prev;
		if (!job->noop)
			ctx->waiting--;
	}
	for (unsigned i = 0; i < job->num_waits; i++)
		cisp_fence_unref(job->wait[i].fence);
	job->out->job = NULL;
	cisp_fence_unref(job->out);
	if (job->params_allocated)
		free(job->params);
	job->params = NULL;
	job->params_size = 0;
	job->params_allocated = false;
	job->state = JOB_FREE;
	job->next = dev->free;
	dev->free = job;
	if (ctx->dying)
		pthread_cond_broadcast(&dev->drained);
}

void job_settle(struct job *job)
{
	struct cisp_context *ctx = job->ctx;

	if (job->state != JOB_QUEUED || job->pending)
		return;
	if (job->noop && job->signalled && !job->params_size)
		job_free(job);
	sched_kick(ctx);
}

/* Make a queued job a no-op that signals @status in its turn. */
static void job_fail(struct job *job, uint32_t status, int error)
{
	if (job->ready_index >= 0)
		sched_remove(job->ctx->dev, job);
	if (!job->noop)
		job->ctx->waiting--;
	job->noop = true;
	job->status = status;
	job->error = error;
}

void job_cancel(struct job *job, int error, struct cisp_fence **batch)
{
	struct cisp_fence *f = job->out;

	job_fail(job, CISP_FENCE_CANCELLED, error);
	job->signalled = true;
	/* Callbacks that a signal already took will still run and settle the job. */
	for (unsigned i = 0; i < job->num_waits; i++)
		if (fence_remove_callback(job->wait[i].fence, &job->wait[i].cb))
			job->pending--;
	write_result(job, CISP_FENCE_CANCELLED, error, 0, fence_clock_ns(), NULL);
	f->batch_error = error;
	f->batch_next = *batch;
	*batch = cisp_fence_ref(f);
}

void batch_signal(struct cisp_fence *batch)
{
	while (batch) {
		struct cisp_fence *f = batch, *next = f->batch_next;

		fence_signal(f, CISP_FENCE_CANCELLED, f->batch_error);
		cisp_fence_unref(f);
		batch = next;
	}
}

/* A fence the job waits for was signalled (any thread, no lock held). */
static void in_fence_signalled(struct fence_cb *cb, struct cisp_fence *fence)
{
	struct job_wait *w = (struct job_wait *)cb;
	struct job *job = w->job;
	struct cisp_device *dev = job->ctx->dev; /* the job cannot go while this callback is pending */
	enum cisp_fence_status s = cisp_fence_status(fence);
	int error = cisp_fence_error(fence);

	pthread_mutex_lock(&dev->lock);
	if (s != CISP_FENCE_OK && !job->noop)
		job_fail(job, s, error);
	job->pending--;
	job_settle(job);
	pthread_mutex_unlock(&dev->lock);
}

/* Wait for @fence, or take its failure now if it is already signalled. */
static void add_wait(struct job *job, struct cisp_fence *fence)
{
	struct job_wait *w = &job->wait[job->num_waits];

	w->job = job;
	w->cb.fn = in_fence_signalled;
	if (fence_add_callback(fence, &w->cb) == 0) {
		w->fence = cisp_fence_ref(fence);
		job->num_waits++;
		job->pending++;
	} else if (cisp_fence_status(fence) != CISP_FENCE_OK && !job->noop) {
		job_fail(job, cisp_fence_status(fence), cisp_fence_error(fence));
	}
}

static void fill_job(struct job *job, struct cisp_context *ctx, const struct cisp_job *desc, struct cisp_fence *out,
		     void *params_memory, uint64_t now)
{
	struct cisp_device_frame *fr = &job->frame;
	unsigned n = desc->num_inputs;

	job->ctx = ctx;
	job->state = JOB_QUEUED;
	job->ready_index = -1;
	job->pending = 0;
	job->num_waits = 0;
	job->noop = false;
	job->signalled = false;
	job->skipped = false;
	job->status = CISP_FENCE_OK;
	job->error = 0;
	job->out = out;
	out->job = job;
	job->result = desc->result;

	fr->mode = desc->mode;
	fr->num_inputs = n;
	for (unsigned i = 0; i < CISP_JOB_MAX_INPUTS; i++) {
		fr->input[i] = NULL;
		fr->exposure[i] = i < n ? desc->exposure[i] : 0;
		fr->sharpness[i] = 0;
	}
	for (unsigned i = 0; i < n; i++) {
		job->image[i] = *desc->input[i];
		fr->input[i] = &job->image[i];
	}
	for (unsigned i = 0; i < CISP_MAX_OUTPUTS; i++) {
		fr->output[i] = NULL;
		if (desc->output[i]) {
			job->image[CISP_JOB_MAX_INPUTS + i] = *desc->output[i];
			fr->output[i] = &job->image[CISP_JOB_MAX_INPUTS + i];
		}
	}
	fr->stats = desc->stats;
	fr->sequence = ctx->next_sequence++;
	fr->pool = NULL;
	fr->selected = 0;

	job->submit_ns = now;
	if (desc->deadline_ns)
		job->deadline_ns = desc->deadline_ns;
	else if (ctx->config.frame_period_ns)
		job->deadline_ns = now + ctx->config.frame_period_ns;
	else
		job->deadline_ns = UINT64_MAX;
	job->order = ctx->dev->order++;

	job->params_size = desc->params_size;
	job->params_allocated = params_memory != NULL;
	job->params = params_memory ? params_memory : job->params_inline;
	if (desc->params_size)
		memcpy(job->params, desc->params, desc->params_size);

	/* Append to the context's queue. */
	job->next = NULL;
	job->prev = ctx->tail;
	if (ctx->tail)
		ctx->tail->next = job;
	else
		ctx->head = job;
	ctx->tail = job;
	ctx->waiting++;
}

int cisp_job_submit(struct cisp_context *ctx, const struct cisp_job *desc, struct cisp_fence **out_fence)
{
	struct cisp_fence *imported[CISP_JOB_MAX_IN_FENCES];
	struct cisp_fence *batch = NULL, *out;
	struct cisp_device *dev;
	void *params_memory = NULL;
	unsigned num_imported = 0;
	struct job *job;
	uint64_t now;
	int ret, drop = 0;

	if (out_fence)
		*out_fence = NULL;
	if (!ctx || !desc)
		return cisp_error(-EINVAL, "cisp_job_submit: %s is NULL", ctx ? "the job" : "the context");
	if ((ret = job_check(ctx, desc)))
		return ret;
	dev = ctx->dev;
	if (desc->params_size > JOB_PARAMS_INLINE && !(params_memory = malloc(desc->params_size)))
		return cisp_error(-ENOMEM, "out of memory for a %zu-byte params delta", desc->params_size);
	for (; num_imported < desc->num_in_fence_fds; num_imported++) {
		ret = cisp_fence_import(&imported[num_imported], desc->in_fence_fd[num_imported]);
		if (ret) {
			cisp_error_prefix(ret, "job in-fence descriptor %u", num_imported);
			goto fail;
		}
	}
	out = fence_pool_get(dev->fences);
	if (!out) {
		ret = cisp_error(-ENOMEM, "out of memory for a fence");
		goto fail;
	}
	now = fence_clock_ns();

	pthread_mutex_lock(&dev->lock);
	if (!dev->free) {
		ret = cisp_error(-EAGAIN, "all %u job slots of the device are in use (see max_jobs)", dev->num_slots);
	} else if (ctx->dying) {
		ret = cisp_error(-ESHUTDOWN, "context '%s' is being destroyed", ctx->name);
	} else {
		drop = sched_admit(ctx, &batch);
		ret = drop < 0 ? drop : 0;
	}
	if (ret) {
		pthread_mutex_unlock(&dev->lock);
		cisp_fence_unref(out);
		goto fail;
	}
	/* Only now: a job the policy dropped may just have returned its slot. */
	job = dev->free;
	dev->free = job->next;
	fill_job(job, ctx, desc, out, params_memory, now);
	sched_submitted(ctx, now);
	ctx->counters.submitted++;
	if (drop) {
		job_cancel(job, -ENOBUFS, &batch);
		ctx->counters.dropped++;
	} else {
		for (unsigned i = 0; i < desc->num_in_fences; i++)
			add_wait(job, desc->in_fence[i]);
		for (unsigned i = 0; i < num_imported; i++)
			add_wait(job, imported[i]);
	}
	if (out_fence)
		*out_fence = cisp_fence_ref(out);
	job_settle(job);
	pthread_mutex_unlock(&dev->lock);

	/* Imported descriptors need the device's watcher to learn they are readable. */
	for (unsigned i = 0; i < desc->num_in_fences; i++)
		if (desc->in_fence[i]->kind == FENCE_IMPORTED)
			watcher_add(dev, desc->in_fence[i]);
	for (unsigned i = 0; i < num_imported; i++) {
		watcher_add(dev, imported[i]);
		cisp_fence_unref(imported[i]);
	}
	batch_signal(batch);
	return 0;

fail:
	while (num_imported)
		cisp_fence_unref(imported[--num_imported]);
	free(params_memory);
	return ret;
}

void job_execute(struct job *job, struct cisp_pool *pool)
{
	struct cisp_context *ctx = job->ctx;
	struct cisp_device *dev = ctx->dev;
	struct cisp_device_frame *fr = &job->frame;
	bool run = !job->noop, signal = !job->signalled;
	uint32_t status = job->status;
	int error = job->error, ret = 0;
	uint64_t start, end;

	pthread_mutex_unlock(&dev->lock);
	start = fence_clock_ns();
	/* Validated at submission; applying can still run out of memory. */
	if (job->params_size)
		ret = ctx->backend->set_params(ctx->instance, job->params, job->params_size);
	if (run && !ret) {
		fr->pool = pool;
		ret = ctx->backend->process(ctx->instance, fr);
		if (!ret && fr->stats)
			fr->stats->sequence = fr->sequence;
	}
	end = fence_clock_ns();
	if (run) {
		status = ret ? CISP_FENCE_ERROR : CISP_FENCE_OK;
		error = ret;
	}
	if (signal)
		write_result(job, status, error, run ? start : 0, end, run && ret ? cisp_last_error() : NULL);

	pthread_mutex_lock(&dev->lock);
	if (run) {
		uint64_t busy = end - start - job->preempted_ns;

		ctx->counters.busy_ns += busy;
		ctx->cost_ns = ctx->cost_ns ? (3 * ctx->cost_ns + busy) / 4 : busy;
		latency_add(&ctx->latency, end - job->submit_ns);
		if (end > job->deadline_ns)
			ctx->counters.deadline_misses++;
		if (ret)
			ctx->counters.failed++;
		else
			ctx->counters.completed++;
	} else if (signal) { /* cancelled and dropped jobs were counted when their fence was signalled */
		if (job->skipped)
			ctx->counters.dropped++;
		else if (status == CISP_FENCE_CANCELLED)
			ctx->counters.cancelled++;
		else
			ctx->counters.failed++;
	}
	pthread_mutex_unlock(&dev->lock);

	/* Signal before the context's next job can start: completions stay in order. */
	if (signal)
		fence_signal(job->out, status, error);

	pthread_mutex_lock(&dev->lock);
	/* Looking for work again: a job the kick makes ready is ours, nobody needs waking for it. */
	dev->searching++;
	ctx->running = NULL;
	job_free(job);
	sched_kick(ctx);
}

int cisp_job_cancel(struct cisp_context *ctx, struct cisp_fence *out_fence)
{
	struct cisp_device *dev = ctx->dev;
	struct cisp_fence *batch = NULL;
	struct job *job;
	int ret = 0;

	if (!out_fence || out_fence->pool != dev->fences)
		return cisp_error(-ENOENT, "the fence is not the out-fence of a job of context '%s'", ctx->name);
	pthread_mutex_lock(&dev->lock);
	job = out_fence->job;
	if (cisp_fence_status(out_fence) != CISP_FENCE_PENDING || (job && job->signalled))
		ret = cisp_error(-EALREADY, "the job has already completed");
	else if (!job || job->ctx != ctx)
		ret = cisp_error(-ENOENT, "the fence is not the out-fence of a job of context '%s'", ctx->name);
	else if (job->state == JOB_RUNNING)
		ret = cisp_error(-EBUSY, "job %llu of context '%s' is running; running jobs cannot be cancelled",
				 (unsigned long long)job->frame.sequence, ctx->name);
	if (!ret) {
		job_cancel(job, -ECANCELED, &batch);
		ctx->counters.cancelled++;
		job_settle(job);
	}
	pthread_mutex_unlock(&dev->lock);
	batch_signal(batch);
	return ret;
}

unsigned cisp_context_cancel_all(struct cisp_context *ctx)
{
	struct cisp_device *dev = ctx->dev;
	struct cisp_fence *batch = NULL;
	unsigned count = 0;

	pthread_mutex_lock(&dev->lock);
	/* Mark first, settle after: settling may free jobs further down the queue. */
	for (struct job *job = ctx->head; job; job = job->next) {
		if (!job->signalled) {
			job_cancel(job, -ECANCELED, &batch);
			count++;
		}
	}
	ctx->counters.cancelled += count;
	for (struct job *job = ctx->head, *next; job; job = next) {
		next = job->next;
		if (!job->pending && !job->params_size)
			job_free(job);
	}
	sched_kick(ctx);
	pthread_mutex_unlock(&dev->lock);
	batch_signal(batch);
	return count;
}
