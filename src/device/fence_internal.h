/* SPDX-License-Identifier: MIT */
/*
 * What the device needs from fences beyond the public API: a pool of
 * recycled job fences, signalling with an explicit status, and callbacks
 * that let a job wait for a fence without a thread of its own.
 */
#ifndef CISP_DEVICE_FENCE_INTERNAL_H
#define CISP_DEVICE_FENCE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cisp/fence.h>

enum fence_kind {
	FENCE_USER,     /* cisp_fence_create() */
	FENCE_JOB,      /* a job's out-fence, from a fence pool */
	FENCE_IMPORTED, /* cisp_fence_import() */
};

/*
 * A callback run once when the fence is signalled, on the signalling thread,
 * with no lock held. It is usually embedded in the structure that waits.
 */
struct fence_cb {
	struct fence_cb *next;
	void (*fn)(struct fence_cb *cb, struct cisp_fence *fence);
};

struct fence_pool;

struct cisp_fence {
	/* enum cisp_fence_status; also the futex word waiters sleep on */
	_Atomic uint32_t state;
	_Atomic uint32_t waiters;
	_Atomic int refs;
	_Atomic int efd;       /* eventfd for cisp_fence_fd(), -1 until asked for */
	int error;             /* written before @state */
	uint64_t timestamp;    /* written before @state */
	enum fence_kind kind;
	int import_fd;         /* FENCE_IMPORTED: our duplicate of the descriptor */
	pthread_mutex_t lock;  /* guards @callbacks and the signal itself */
	struct fence_cb *callbacks;
	struct fence_pool *pool;      /* FENCE_JOB: where it returns */
	struct cisp_fence *next_free; /* link in the pool's free list */
	/* Device-private, under the device lock: the job a FENCE_JOB belongs to
	 * while that job lives, and a link for signalling in batches. */
	void *job;
	struct cisp_fence *batch_next;
	int batch_error;
};

/* A pool of job fences, shared by a device and the fences it handed out. */
int fence_pool_create(struct fence_pool **pool);
/* Drop the creator's reference; the pool goes when its last fence does. */
void fence_pool_release(struct fence_pool *pool);
/* A pending fence with one reference, or NULL when out of memory. */
struct cisp_fence *fence_pool_get(struct fence_pool *pool);

/*
 * Signal @fence with @status (CISP_FENCE_OK, _ERROR or _CANCELLED) and
 * @error (0 for ok). Returns false when it had been signalled already.
 */
bool fence_signal(struct cisp_fence *fence, uint32_t status, int error);

/* Add @cb: 0, or -EALREADY (nothing added) when @fence is signalled. */
int fence_add_callback(struct cisp_fence *fence, struct fence_cb *cb);
/* Take @cb off: true, or false when the signal already took it (it will run or has run). */
bool fence_remove_callback(struct cisp_fence *fence, struct fence_cb *cb);

/*
 * FENCE_IMPORTED: signal the fence from poll() @revents of its descriptor
 * (POLLIN: ok; POLLERR/POLLHUP without POLLIN: error). False if nothing
 * to signal.
 */
bool fence_signal_from_revents(struct cisp_fence *fence, short revents);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t fence_clock_ns(void);

#endif
