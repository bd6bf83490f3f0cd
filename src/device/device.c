/* SPDX-License-Identifier: MIT */
/*
 * The device: job slots allocated once, a fence pool, and worker threads
 * that take the scheduler's most urgent ready job, run it, and go back for
 * the next. A worker only sleeps (on a condition variable) when no job is
 * ready; while work is queued, handing a job over costs no system call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cisp/pool.h>

#include "core/error_internal.h"
#include "core/preempt.h"
#include "device/device_internal.h"
#include "device/vulkan_backend.h"

#define DEFAULT_MAX_JOBS 256
#define MAX_WORKERS 256

uint64_t cisp_device_clock_ns(void)
{
	return fence_clock_ns();
}

/* How long an idle worker watches for work before it sleeps. */
#define SPIN_NS 50000
/* A worker kept free for high priorities looks again this often (the load may have dropped). */
#define RESERVED_WAIT_NS 5000000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/*
 * Watch the ready count for a while without the lock. While a stream keeps
 * the device busy, jobs arrive faster than this, so the submitter never has
 * to wake a sleeping worker (a futex system call); an idle device stops
 * spinning after SPIN_NS.
 */
static void spin_for_work(struct cisp_device *dev)
{
	uint64_t end = fence_clock_ns() + SPIN_NS;

	while (!atomic_load_explicit(&dev->ready, memory_order_relaxed)) {
		for (int i = 0; i < 32; i++)
			cpu_relax();
		if (fence_clock_ns() > end)
			break;
	}
}

/*
 * The worker's preemption point (core/preempt.h), between the bands of its
 * job: while every worker is busy and a ready job goes before this one, run
 * it here, on top of it, and come back. The stopped job's state stays where
 * it is (its band buffers, this stack), so it goes on exactly where it
 * stopped; a job run on top may be stopped in turn, at most once per
 * context. As soon as a worker is free the stopped job goes on: it cannot
 * move to that worker, the urgent jobs can.
 */
static void preempt_here(void *opaque)
{
	struct worker *w = opaque;
	struct cisp_device *dev = w->dev;
	struct job *self, *job;
	bool ran = false;
	uint64_t start;

	if (!atomic_load_explicit(&dev->ready, memory_order_relaxed))
		return;
	start = fence_clock_ns();
	pthread_mutex_lock(&dev->lock);
	self = w->current;
	/* A worker looking for work or asleep takes it (sched_push() wakes one). */
	while (!dev->searching && !dev->idle && !dev->stop &&
	       (job = sched_take_preempting(dev, self, fence_clock_ns()))) {
		ran = true;
		w->current = job;
		job_execute(job, NULL);
		dev->searching--; /* job_execute() left this worker counted as looking for work */
		w->current = self;
		if (dev->preempt_always)
			break;
	}
	if (ran) {
		self->ctx->preemptions++;
		/* A job that became ready meanwhile (the next of a context that ran here) may want a sleeping worker. */
		if (dev->idle && dev->num_ready > dev->searching)
			pthread_cond_signal(&dev->work);
	}
	pthread_mutex_unlock(&dev->lock);
	if (ran)
		self->preempted_ns += fence_clock_ns() - start;
}

void cisp_device_preempt_point(void)
{
	preempt_point();
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct cisp_device *dev = w->dev;

	/* A job on several threads cannot run another on top of it: the pool is busy with it. */
	if (dev->job_threads <= 1)
		preempt_hook_set(preempt_here, w);
	pthread_mutex_lock(&dev->lock);
	for (;;) {
		struct job *job;
		bool spun = false;

		while (!(job = sched_take(dev, fence_clock_ns())) && !dev->stop) {
			if (dev->num_ready) {
				/* Ready work this worker is kept from (sched_take()): look again soon. */
				uint64_t t = fence_clock_ns() + RESERVED_WAIT_NS;
				struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

				dev->searching--;
				dev->idle++;
				pthread_cond_timedwait(&dev->work, &dev->lock, &ts);
				dev->idle--;
				dev->searching++;
				continue;
			}
			if (!spun && !dev->spinning) {
				spun = true;
				dev->spinning = true;
				pthread_mutex_unlock(&dev->lock);
				spin_for_work(dev);
				pthread_mutex_lock(&dev->lock);
				dev->spinning = false;
				continue;
			}
			dev->searching--;
			dev->idle++;
			pthread_cond_wait(&dev->work, &dev->lock);
			dev->idle--;
			dev->searching++;
		}
		if (!job)
			break;
		dev->searching--;
		w->current = job;
		job_execute(job, w->pool);
		w->current = NULL;
	}
	dev->searching--;
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

static void stop_workers(struct cisp_device *dev)
{
	pthread_mutex_lock(&dev->lock);
	dev->stop = true;
	pthread_cond_broadcast(&dev->work);
	pthread_mutex_unlock(&dev->lock);
	for (unsigned i = 0; i < dev->num_workers; i++) {
		if (dev->workers[i].started)
			pthread_join(dev->workers[i].thread, NULL);
		cisp_pool_destroy(dev->workers[i].pool);
	}
}

static int start_workers(struct cisp_device *dev)
{
	for (unsigned i = 0; i < dev->num_workers; i++) {
		struct worker *w = &dev->workers[i];
		int ret;

		w->dev = dev;
		if (dev->job_threads > 1 && (ret = cisp_pool_create(&w->pool, dev->job_threads)))
			return ret;
		/* Looking for work from now: a worker whose thread has not run yet is not busy. */
		pthread_mutex_lock(&dev->lock);
		dev->searching++;
		pthread_mutex_unlock(&dev->lock);
		ret = pthread_create(&w->thread, NULL, worker_main, w);
		if (ret) {
			pthread_mutex_lock(&dev->lock);
			dev->searching--;
			pthread_mutex_unlock(&dev->lock);
			return cisp_error(-ret, "cannot start device worker %u: %s", i, strerror(ret));
		}
		w->started = true;
	}
	return 0;
}

const struct cisp_device_backend *cisp_device_vulkan_backend(void)
{
	return &device_backend_vulkan;
}

void cisp_device_set_backend(struct cisp_device *dev, const struct cisp_device_backend *backend)
{
	pthread_mutex_lock(&dev->lock);
	dev->default_backend = backend ? backend : dev->env_backend;
	pthread_mutex_unlock(&dev->lock);
}

int cisp_device_create(struct cisp_device **out, const struct cisp_device_config *config)
{
	struct cisp_device_config c = { 0 };
	struct cisp_device *dev;
	pthread_mutexattr_t attr;
	pthread_condattr_t cattr;
	int ret;

	if (config)
		c = *config;
	if (!c.workers) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c.workers = n > 0 ? (unsigned)n : 1;
	}
	if (!c.max_jobs)
		c.max_jobs = DEFAULT_MAX_JOBS;
	if (c.workers > MAX_WORKERS || c.job_threads > MAX_WORKERS)
		return cisp_error(-EINVAL, "device: %u workers of %u threads each; at most %u of each", c.workers,
				  c.job_threads, MAX_WORKERS);
	if (c.max_jobs > 65536)
		return cisp_error(-EINVAL, "device: max_jobs %u is over 65536", c.max_jobs);
	if (c.schedule > CISP_SCHEDULE_EDF)
		return cisp_error(-EINVAL, "device: schedule %u is not auto (0), priority (1) or edf (2)", c.schedule);

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return cisp_error(-ENOMEM, "out of memory for a device");
	/* Spin briefly before sleeping: the lock is held for short, bounded sections. */
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_init(&dev->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	pthread_mutex_init(&dev->watcher_lock, NULL);
	/* Timed waits use the device clock. */
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&dev->work, &cattr);
	pthread_condattr_destroy(&cattr);
	pthread_cond_init(&dev->drained, NULL);
	dev->num_slots = c.max_jobs;
	dev->num_workers = c.workers;
	dev->job_threads = c.job_threads;
	dev->schedule = c.schedule;
	dev->slots = calloc(c.max_jobs, sizeof(*dev->slots));
	dev->ready_list = calloc(c.max_jobs, sizeof(*dev->ready_list));
	dev->workers = calloc(c.workers, sizeof(*dev->workers));
	if (!dev->slots || !dev->ready_list || !dev->workers) {
		ret = cisp_error(-ENOMEM, "out of memory for %u job slots", c.max_jobs);
		goto fail;
	}
	for (unsigned i = c.max_jobs; i-- > 0;) {
		dev->slots[i].ready_index = -1;
		dev->slots[i].next = dev->free;
		dev->free = &dev->slots[i];
	}
	/*
	 * CISP_ISP=/dev/cisp-isp: contexts without a backend of their own run on that kernel ISP;
	 * CISP_ISP=vulkan: on the Vulkan backend (docs/gpu.md).
	 */
	dev->default_backend = &device_backend_isp;
	if (getenv("CISP_ISP") && !strcmp(getenv("CISP_ISP"), VULKAN_ISP_NAME)) {
		dev->default_backend = &device_backend_vulkan;
	} else if (getenv("CISP_ISP") && *getenv("CISP_ISP")) {
		dev->kernel_isp = strdup(getenv("CISP_ISP"));
		if (!dev->kernel_isp) {
			ret = cisp_error(-ENOMEM, "out of memory for a device");
			goto fail;
		}
		device_backend_kernel(&dev->kernel_backend, dev->kernel_isp);
		dev->default_backend = &dev->kernel_backend;
	}
	dev->env_backend = dev->default_backend;
	if ((ret = fence_pool_create(&dev->fences)) || (ret = start_workers(dev)))
		goto fail;
	*out = dev;
	return 0;

fail:
	cisp_device_destroy(dev);
	return ret;
}

void cisp_device_destroy(struct cisp_device *dev)
{
	if (!dev)
		return;
	while (dev->contexts)
		cisp_context_destroy(dev->contexts);
	if (dev->workers)
		stop_workers(dev);
	watcher_destroy(dev);
	fence_pool_release(dev->fences);
	pthread_cond_destroy(&dev->drained);
	pthread_cond_destroy(&dev->work);
	pthread_mutex_destroy(&dev->watcher_lock);
	pthread_mutex_destroy(&dev->lock);
	free(dev->kernel_isp);
	free(dev->workers);
	free(dev->ready_list);
	free(dev->slots);
	free(dev);
}
