/* SPDX-License-Identifier: MIT */
/**
 * @file pool.h
 * @brief A worker pool that runs a parallel loop of independent tasks.
 *
 * The ISP splits a frame into row bands and runs them as tasks. Every task
 * writes its own part of the output, so results do not depend on the number
 * of threads or the order tasks run in.
 */
#ifndef CISP_POOL_H
#define CISP_POOL_H

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque worker pool. */
struct cisp_pool;

/** A task body: @task is in [0, count), @worker in [0, threads). */
typedef void (*cisp_task_fn)(void *opaque, unsigned task, unsigned worker);

/**
 * cisp_pool_create() - start a pool.
 * @pool: receives the handle.
 * @threads: total threads that run tasks, including the caller of
 *           cisp_pool_run() (1 = run everything on the caller; 0 = one per
 *           online CPU).
 *
 * Return: 0, -EINVAL or -ENOMEM / -EAGAIN if threads cannot be started.
 */
CISP_API int cisp_pool_create(struct cisp_pool **pool, unsigned threads);

/**
 * cisp_pool_threads() - how many threads run tasks.
 * @pool: the pool, or NULL (counts as 1).
 * Return: the thread count.
 */
CISP_API unsigned cisp_pool_threads(const struct cisp_pool *pool);

/**
 * cisp_pool_run() - run @fn for tasks 0..@count-1 and wait for all of them.
 * @pool: the pool, or NULL to run on the caller alone.
 * @count: number of tasks.
 * @fn: the task body.
 * @opaque: passed to @fn.
 *
 * One pool runs one loop at a time; concurrent callers are serialised.
 */
CISP_API void cisp_pool_run(struct cisp_pool *pool, unsigned count, cisp_task_fn fn, void *opaque);

/**
 * cisp_pool_destroy() - stop the threads and free the pool.
 * @pool: the pool (may be NULL).
 */
CISP_API void cisp_pool_destroy(struct cisp_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* CISP_POOL_H */
