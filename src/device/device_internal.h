/* SPDX-License-Identifier: MIT */
/*
 * The device's internal structures. One lock (struct cisp_device.lock)
 * guards every job, context queue, the ready list and the counters; fences
 * have their own locks and are never signalled with the device lock held,
 * because signalling runs the callbacks of chained jobs, which take it.
 */
#ifndef CISP_DEVICE_INTERNAL_H
#define CISP_DEVICE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cisp/device.h>

#include "device/fence_internal.h"

/* Params deltas up to this size are copied into the job slot; larger ones are allocated. */
#define JOB_PARAMS_INLINE 4096
/* In-fences of a job: handles plus imported descriptors. */
#define JOB_MAX_WAITS (2 * CISP_JOB_MAX_IN_FENCES)

struct job;

/* One in-fence a queued job waits for. */
struct job_wait {
	struct fence_cb cb;
	struct job *job;
	struct cisp_fence *fence; /* a reference, dropped when the job is freed */
};

enum job_state {
	JOB_FREE,    /* in the device's free list */
	JOB_QUEUED,  /* in its context's queue */
	JOB_RUNNING, /* taken by a worker */
};

struct job {
	struct cisp_context *ctx;
	struct job *prev, *next; /* context queue; @next also links the free list */
	enum job_state state;
	int ready_index;         /* place in the ready list, -1 when not there */
	unsigned pending;        /* in-fence callbacks that have not run */
	unsigned num_waits;
	struct job_wait wait[JOB_MAX_WAITS];
	/*
	 * A no-op job is not processed: it was cancelled or dropped, an
	 * in-fence failed, or it was skipped as late. It still applies its
	 * params delta in its turn. @status and @error are its outcome;
	 * @signalled says the out-fence already carries it (cancel and drop
	 * signal at once, the others in order when the job's turn comes).
	 */
	bool noop;
	bool signalled;
	bool skipped; /* by the skip-late policy when taken */
	uint32_t status;
	int error;
	struct cisp_fence *out;
	struct cisp_job_result *result;
	struct cisp_device_frame frame;
	struct cisp_image image[CISP_JOB_MAX_INPUTS + CISP_MAX_OUTPUTS]; /* copied descriptors */
	uint64_t submit_ns;
	uint64_t deadline_ns;
	uint64_t order; /* device-wide submission number: the last tie-break */
	uint64_t preempted_ns; /* time the running job stood at a preemption point while more urgent jobs ran */
	void *params;
	size_t params_size;
	bool params_allocated;
	uint8_t params_inline[JOB_PARAMS_INLINE];
};

/* Latency histogram: 16 linear steps per power of two, so within 1/16. */
#define LATENCY_BUCKETS (61 * 16)

struct latency_hist {
	uint32_t bucket[LATENCY_BUCKETS];
	uint64_t count;
	uint64_t max;
};

struct cisp_context {
	struct cisp_device *dev;
	struct cisp_context *prev, *next; /* the device's contexts */
	char name[CISP_CONTEXT_NAME_MAX];
	struct cisp_context_config config; /* config.name points at @name */
	const struct cisp_device_backend *backend;
	void *instance;
	struct job *head, *tail; /* queued jobs, oldest first */
	struct job *running;
	unsigned waiting;        /* queued jobs that are not no-ops: what the queue limit counts */
	uint64_t next_sequence;
	uint64_t cost_ns;        /* recent processing time (for skip-late and the load estimate) */
	uint64_t interval_ns;    /* recent time between submissions (for the load estimate) */
	uint64_t last_submit_ns;
	struct cisp_context_counters counters; /* all but the latency fields and @queued */
	uint64_t preemptions;    /* cisp_context_preemptions() */
	struct latency_hist latency;
	bool dying;
};

struct watcher;

struct worker {
	struct cisp_device *dev;
	pthread_t thread;
	struct cisp_pool *pool; /* for job_threads > 1 */
	struct job *current;    /* the job it runs now, innermost when it preempted others (device lock) */
	bool started;
};

struct cisp_device {
	pthread_mutex_t lock;
	pthread_cond_t work;    /* workers wait here for a ready job */
	pthread_cond_t drained; /* a job of a dying context went away */
	unsigned idle;          /* workers asleep on @work */
	unsigned searching;     /* workers awake and not running a job: they look at the ready list next */
	bool spinning;          /* an idle worker spins briefly before sleeping (at most one) */
	atomic_uint ready;      /* @num_ready, for the spinning worker to read without the lock */
	bool stop;
	bool preempt_always;    /* tests: at every preemption point run any ready job, one per point */
	struct job *slots;
	unsigned num_slots;
	struct job *free;
	struct job **ready_list; /* ready jobs: context heads whose in-fences are done */
	unsigned num_ready;
	uint32_t schedule;       /* enum cisp_schedule */
	struct cisp_context *contexts;
	uint64_t order;
	struct fence_pool *fences;
	struct worker *workers;
	unsigned num_workers;
	unsigned job_threads;
	struct watcher *watcher; /* made when the first imported fence needs watching */
	pthread_mutex_t watcher_lock;
	/* What contexts run on without a backend of their own: the software ISP, or the kernel ISP CISP_ISP names. */
	const struct cisp_device_backend *default_backend;
	const struct cisp_device_backend *env_backend; /* the default before cisp_device_set_backend() */
	struct cisp_device_backend kernel_backend;
	char *kernel_isp; /* the CISP_ISP node (kernel_backend's opaque) */
};

/* scheduler.c (device lock held) */
void sched_push(struct cisp_device *dev, struct job *job);
/* Offered load: the sum over active contexts of processing time / submission interval, in percent of one worker. */
unsigned sched_load(const struct cisp_device *dev, uint64_t now);
/* Note a submission to the context (for the load estimate). */
void sched_submitted(struct cisp_context *ctx, uint64_t now);
void sched_remove(struct cisp_device *dev, struct job *job);
/*
 * Take the most urgent ready job that may start now off the ready list and
 * its context queue, and mark it running; NULL if there is none.
 */
struct job *sched_take(struct cisp_device *dev, uint64_t now);
/*
 * The same, for a worker at a preemption point of @running: only a job that
 * goes before @running for more than submission order (with
 * preempt_always, any job); NULL if there is none.
 */
struct job *sched_take_preempting(struct cisp_device *dev, const struct job *running, uint64_t now);
/* Make the context's head ready if it can run now; free no-op heads that need no worker. */
void sched_kick(struct cisp_context *ctx);
/*
 * Make room for one more job under the context's overload policy: 0 (maybe
 * after dropping the oldest waiting job into *@batch), 1 when the new job
 * must be dropped at once, or -EAGAIN with a message.
 */
int sched_admit(struct cisp_context *ctx, struct cisp_fence **batch);

/* job.c (device lock held unless said) */
/* Unlink a queued job from its context (and the ready list) and return its slot. */
void job_free(struct job *job);
/* Free the job or make it ready once nothing holds it back. */
void job_settle(struct job *job);
/* Turn a queued job into a no-op whose fence is signalled now with @error (added to *@batch). */
void job_cancel(struct job *job, int error, struct cisp_fence **batch);
/* Signal (cancelled) and drop every fence of a batch; without the device lock. */
void batch_signal(struct cisp_fence *batch);
/*
 * Run a job taken by sched_pop() and complete it; called and returns with
 * the device lock held, the worker counted in @searching again.
 */
void job_execute(struct job *job, struct cisp_pool *pool);

/* counters.c (device lock held) */
void latency_add(struct latency_hist *hist, uint64_t ns);
uint64_t latency_percentile(const struct latency_hist *hist, unsigned permille);

/* watch.c: signal imported fences when their descriptor becomes readable. */
void watcher_add(struct cisp_device *dev, struct cisp_fence *fence);
void watcher_destroy(struct cisp_device *dev);

/* backend_isp.c */
extern const struct cisp_device_backend device_backend_isp;
/* backend_kernel.c: the backend of contexts on the kernel ISP device node @path (kept by the caller). */
void device_backend_kernel(struct cisp_device_backend *backend, const char *path);

#endif
