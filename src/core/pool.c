/* SPDX-License-Identifier: MIT */
/*
 * Worker pool: threads - 1 workers plus the caller take task indices from a
 * shared counter until the loop is done.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cisp/pool.h>

#include "error_internal.h"

struct cisp_pool {
	unsigned threads;
	pthread_t *workers;
	pthread_mutex_t run_lock; /* one loop at a time */
	pthread_mutex_t lock;
	pthread_cond_t wake;      /* a new loop, or stop */
	pthread_cond_t done_cond; /* the last task of a loop finished */
	unsigned long generation;
	bool stop;
	/* the current loop */
	cisp_task_fn fn;
	void *opaque;
	unsigned count;
	atomic_uint next;
	unsigned done;
	unsigned active; /* workers inside run_tasks(); a new loop waits for 0 */
};

/* Take tasks of the current loop until none are left; returns how many ran. */
static unsigned run_tasks(struct cisp_pool *pool, cisp_task_fn fn, void *opaque, unsigned count, unsigned worker)
{
	unsigned finished = 0, task;

	while ((task = atomic_fetch_add(&pool->next, 1)) < count) {
		fn(opaque, task, worker);
		finished++;
	}
	return finished;
}

/* Called with the lock held once a thread has left run_tasks(). */
static void finish_tasks(struct cisp_pool *pool, unsigned finished)
{
	pool->done += finished;
	if (pool->done == pool->count && pool->active == 0)
		pthread_cond_broadcast(&pool->done_cond);
}

struct worker_arg {
	struct cisp_pool *pool;
	unsigned index;
};

static void *worker_main(void *p)
{
	struct worker_arg arg = *(struct worker_arg *)p;
	struct cisp_pool *pool = arg.pool;
	unsigned long seen = 0;

	free(p);
	pthread_mutex_lock(&pool->lock);
	for (;;) {
		cisp_task_fn fn;
		void *opaque;
		unsigned count, finished;

		while (!pool->stop && pool->generation == seen)
			pthread_cond_wait(&pool->wake, &pool->lock);
		if (pool->stop)
			break;
		seen = pool->generation;
		fn = pool->fn;
		opaque = pool->opaque;
		count = pool->count;
		pool->active++;
		pthread_mutex_unlock(&pool->lock);
		finished = run_tasks(pool, fn, opaque, count, arg.index);
		pthread_mutex_lock(&pool->lock);
		pool->active--;
		finish_tasks(pool, finished);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

int cisp_pool_create(struct cisp_pool **out, unsigned threads)
{
	struct cisp_pool *pool;

	if (threads == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		threads = n > 0 ? (unsigned)n : 1;
	}
	if (threads > 256)
		return cisp_error(-EINVAL, "%u threads requested; at most 256 are supported", threads);
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return cisp_error(-ENOMEM, "out of memory for a worker pool");
	pool->threads = threads;
	pthread_mutex_init(&pool->run_lock, NULL);
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->wake, NULL);
	pthread_cond_init(&pool->done_cond, NULL);
	pool->workers = calloc(threads, sizeof(pthread_t));
	if (!pool->workers) {
		free(pool);
		return cisp_error(-ENOMEM, "out of memory for a worker pool");
	}
	for (unsigned i = 1; i < threads; i++) {
		struct worker_arg *arg = malloc(sizeof(*arg));
		int ret = ENOMEM;

		if (arg) {
			arg->pool = pool;
			arg->index = i;
			ret = pthread_create(&pool->workers[i], NULL, worker_main, arg);
		}
		if (ret) {
			free(arg);
			pool->threads = i;
			cisp_pool_destroy(pool);
			return cisp_error(-ret, "cannot start worker thread %u: %s", i, strerror(ret));
		}
	}
	*out = pool;
	return 0;
}

unsigned cisp_pool_threads(const struct cisp_pool *pool)
{
	return pool ? pool->threads : 1;
}

void cisp_pool_run(struct cisp_pool *pool, unsigned count, cisp_task_fn fn, void *opaque)
{
	unsigned finished;

	if (count == 0)
		return;
	if (!pool || pool->threads == 1 || count == 1) {
		for (unsigned i = 0; i < count; i++)
			fn(opaque, i, 0);
		return;
	}
	pthread_mutex_lock(&pool->run_lock);
	pthread_mutex_lock(&pool->lock);
	/* A worker that woke late for the previous loop must leave it first. */
	while (pool->active)
		pthread_cond_wait(&pool->done_cond, &pool->lock);
	pool->fn = fn;
	pool->opaque = opaque;
	pool->count = count;
	pool->done = 0;
	atomic_store(&pool->next, 0);
	pool->generation++;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);

	finished = run_tasks(pool, fn, opaque, count, 0);

	pthread_mutex_lock(&pool->lock);
	finish_tasks(pool, finished);
	while (pool->done != pool->count || pool->active)
		pthread_cond_wait(&pool->done_cond, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
	pthread_mutex_unlock(&pool->run_lock);
}

void cisp_pool_destroy(struct cisp_pool *pool)
{
	if (!pool)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->stop = true;
	pthread_cond_broadcast(&pool->wake);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned i = 1; i < pool->threads; i++)
		pthread_join(pool->workers[i], NULL);
	pthread_cond_destroy(&pool->wake);
	pthread_cond_destroy(&pool->done_cond);
	pthread_mutex_destroy(&pool->lock);
	pthread_mutex_destroy(&pool->run_lock);
	free(pool->workers);
	free(pool);
}
