/* SPDX-License-Identifier: MIT */
/**
 * @file device.h
 * @brief The ISP device: contexts, one-call jobs, fences and a deadline
 * scheduler, over the software ISP (or any backend with the same contract).
 *
 * A device is one ISP instance with its workers (the "hardware": each worker
 * runs one job at a time). A context is one stream's persistent state: its
 * formats and sizes, its parameter state, priority, nominal frame period and
 * overload policy. A job is one "process a frame" command: input buffer(s),
 * output buffers, a params delta, a statistics buffer, in-fences and a
 * deadline. cisp_job_submit() validates the whole job and returns an
 * out-fence; nothing else is needed per frame.
 *
 * Rules (docs/device.md gives the full semantics):
 *  - a job that fails validation changes nothing and the call says why;
 *  - params deltas are applied in submission order, each atomically, just
 *    before its job runs; a job that does not run (cancelled, dropped, or
 *    failed in-fence) still has its delta applied in its turn, so the state
 *    a job sees never depends on scheduling;
 *  - the jobs of one context run one at a time and complete in order;
 *  - the scheduler picks, among contexts whose next job is ready, the one
 *    with the earliest deadline while the load fits the workers, and the
 *    highest priority (then the earliest deadline) when it does not;
 *  - when every worker is busy, a running job is stopped between two of its
 *    bands for a ready job that goes before it, and goes on where it
 *    stopped once that job is done (cisp_device_preempt_point()).
 */
#ifndef CISP_DEVICE_H
#define CISP_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/fence.h>
#include <cisp/image.h>
#include <cisp/isp.h>
#include <cisp/stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque device. */
struct cisp_device;
/** An opaque context of a device. */
struct cisp_context;
struct cisp_device_frame;

/** Most input buffers of one job. */
#define CISP_JOB_MAX_INPUTS CISP_BRACKET_MAX_FRAMES
/** Most in-fences of one job (handles plus descriptors). */
#define CISP_JOB_MAX_IN_FENCES 8
/** Largest ratio between the longest and shortest exposure of a bracket. */
#define CISP_JOB_MAX_EXPOSURE_RATIO CISP_BRACKET_MAX_RATIO

/**
 * struct cisp_device_backend - what runs the frames of a context. The
 * default (NULL) is the canonical software ISP (isp.h). Other backends let
 * a program drive a different pipeline, such as a trivial one for measuring
 * the device's own overhead. Every function returns 0 or a negative errno
 * and leaves a message with cisp_error-style reporting.
 * @name: a short name for messages.
 * @create: make the per-context instance for @config; @opaque is the
 *          backend's @opaque.
 * @destroy: free an instance.
 * @check_params: validate a params buffer without changing anything; called
 *                on the submitting thread, concurrently with @process, so it
 *                may only read what @create fixed. NULL: any buffer fails.
 * @set_params: apply a validated params buffer; on the worker, between jobs.
 * @process: process one frame (struct cisp_device_frame); on a worker.
 * @modes: bit (1 << mode) of every enum cisp_job_mode it runs besides
 *         CISP_JOB_SINGLE; jobs in other modes fail at submission.
 * @opaque: passed to @create.
 * @limits: what an instance accepts in params buffers (its supported
 *          canonical and vendor blocks), fixed by @create; NULL: the
 *          backend does not say (cisp_context_limits() fails).
 */
struct cisp_device_backend {
	const char *name;
	int (*create)(void **instance, const struct cisp_isp_config *config, void *opaque);
	void (*destroy)(void *instance);
	int (*check_params)(void *instance, const void *buf, size_t size);
	int (*set_params)(void *instance, const void *buf, size_t size);
	int (*process)(void *instance, struct cisp_device_frame *frame);
	uint32_t modes;
	void *opaque;
	void (*limits)(void *instance, struct cisp_params_limits *limits);
};

/** How a job uses its inputs. */
enum cisp_job_mode {
	/** One input, processed as is. */
	CISP_JOB_SINGLE = 0,
	/**
	 * A burst of 2..CISP_JOB_MAX_INPUTS frames (zero-shutter-lag capture):
	 * the ISP computes its AF statistics on each frame and processes the
	 * sharpest one (struct cisp_job_result says which).
	 */
	CISP_JOB_SELECT_SHARPEST = 1,
	/**
	 * An exposure bracket of 2..CISP_JOB_MAX_INPUTS frames with known
	 * relative exposures: merged after black level into one linear
	 * high-dynamic-range frame at the scale of the shortest exposure, which
	 * the rest of the pipeline processes and tone-maps.
	 */
	CISP_JOB_MERGE_HDR = 2,
};

/**
 * struct cisp_device_frame - one frame as a backend sees it.
 * @mode: enum cisp_job_mode.
 * @num_inputs: inputs in @input.
 * @input: the input images, in the context's input format and size.
 * @exposure: CISP_JOB_MERGE_HDR: relative exposure of each input.
 * @output: one image per configured output (others NULL).
 * @stats: where statistics go, or NULL.
 * @sequence: the job's sequence number in its context (0, 1, 2, ...).
 * @pool: the threads the frame may use (cisp_pool_run()), or NULL.
 * @selected: written by @process in CISP_JOB_SELECT_SHARPEST mode: the index
 *            of the input it processed.
 * @sharpness: written by @process in CISP_JOB_SELECT_SHARPEST mode: each
 *             input's sharpness score.
 */
struct cisp_device_frame {
	uint32_t mode;
	unsigned num_inputs;
	const struct cisp_image *input[CISP_JOB_MAX_INPUTS];
	uint32_t exposure[CISP_JOB_MAX_INPUTS];
	struct cisp_image *output[CISP_MAX_OUTPUTS];
	struct cisp_stats *stats;
	uint64_t sequence;
	struct cisp_pool *pool;
	unsigned selected;
	uint64_t sharpness[CISP_JOB_MAX_INPUTS];
};

/** How the scheduler orders ready jobs of different contexts. */
enum cisp_schedule {
	/**
	 * Earliest deadline first while the offered load fits the workers
	 * (cisp_device_load() at most 100 per worker); when it does not,
	 * strict priorities with EDF within a priority, so that overload
	 * falls on the low priorities.
	 */
	CISP_SCHEDULE_AUTO = 0,
	/** Always strict priorities, EDF within a priority. */
	CISP_SCHEDULE_PRIORITY = 1,
	/** Always EDF; priority only breaks ties. */
	CISP_SCHEDULE_EDF = 2,
};

/**
 * struct cisp_device_config - how to build a device.
 * @workers: worker threads, each running one job at a time (0: one per
 *           online CPU).
 * @job_threads: threads that share the work of one job, including its
 *               worker (0 or 1: the worker alone).
 * @max_jobs: job slots, allocated once: submitted jobs that have not
 *            completed yet, over all contexts (0: 256).
 * @schedule: enum cisp_schedule.
 */
struct cisp_device_config {
	unsigned workers;
	unsigned job_threads;
	unsigned max_jobs;
	uint32_t schedule;
};

/** What a context does with jobs it cannot run in time. */
enum cisp_overload_policy {
	/**
	 * Run every job, late or not. At @queue_limit waiting jobs a new
	 * submission fails with -EAGAIN (back-pressure), never silently.
	 */
	CISP_OVERLOAD_RUN_ALL = 0,
	/**
	 * At @queue_limit waiting jobs, the oldest waiting job is dropped (its
	 * fence is cancelled with -ENOBUFS) to make room: the stream keeps the
	 * newest frames, for the least latency.
	 */
	CISP_OVERLOAD_DROP_OLDEST = 1,
	/**
	 * A job that can no longer meet its deadline when its turn comes (now
	 * plus the context's recent processing time is past the deadline) is
	 * skipped (its fence is cancelled with -ETIME) instead of wasting the
	 * ISP on it; at @queue_limit waiting jobs the new job is skipped at
	 * once.
	 */
	CISP_OVERLOAD_SKIP_LATE = 2,
};

/** Largest name of a context, with its NUL. */
#define CISP_CONTEXT_NAME_MAX 32

/**
 * struct cisp_context_config - one stream.
 * @name: a name for messages and counters (copied; may be NULL).
 * @isp: input format and size, outputs.
 * @priority: under overload (enum cisp_schedule) higher runs first; any
 *            int, 0 is normal.
 * @frame_period_ns: the nominal frame period; a job submitted without a
 *                   deadline gets submission time + this (0: no deadline).
 * @overload: enum cisp_overload_policy.
 * @queue_limit: most jobs that may wait (submitted, not started) in this
 *               context before the overload policy acts (0: 4).
 * @backend: what processes its frames (NULL: the canonical software ISP).
 */
struct cisp_context_config {
	const char *name;
	struct cisp_isp_config isp;
	int priority;
	uint64_t frame_period_ns;
	uint32_t overload;
	unsigned queue_limit;
	const struct cisp_device_backend *backend;
};

/**
 * struct cisp_job - one "process a frame" command. Zero it, then fill what
 * is used. The device copies the description and the params delta during
 * cisp_job_submit(); the image memory, @stats and @result must stay valid
 * until the out-fence is signalled.
 * @mode: enum cisp_job_mode.
 * @num_inputs: inputs used: 1 for CISP_JOB_SINGLE, 2..CISP_JOB_MAX_INPUTS
 *              otherwise.
 * @input: the raw frames, in the context's input format and size.
 * @exposure: CISP_JOB_MERGE_HDR only: each input's relative exposure (time
 *            times gain, any unit; > 0; the longest at most
 *            CISP_JOB_MAX_EXPOSURE_RATIO times the shortest).
 * @output: an image for every output the context configured (main
 *          required), in its format and size; entries of unused outputs must
 *          be NULL.
 * @stats: where the statistics go, or NULL.
 * @params: a params buffer (params.h) with the blocks that change, or NULL.
 * @params_size: its size in bytes (0 with NULL).
 * @in_fence: fences the job waits for (a reference is taken).
 * @num_in_fences: entries of @in_fence used.
 * @in_fence_fd: descriptors the job waits for, imported as by
 *               cisp_fence_import() (the caller keeps its own).
 * @num_in_fence_fds: entries of @in_fence_fd used.
 * @deadline_ns: CLOCK_MONOTONIC time by which the job should complete;
 *               0: submission time + the context's frame period.
 * @result: where to write what happened, or NULL.
 */
struct cisp_job {
	uint32_t mode;
	unsigned num_inputs;
	const struct cisp_image *input[CISP_JOB_MAX_INPUTS];
	uint32_t exposure[CISP_JOB_MAX_INPUTS];
	struct cisp_image *output[CISP_MAX_OUTPUTS];
	struct cisp_stats *stats;
	const void *params;
	size_t params_size;
	struct cisp_fence *in_fence[CISP_JOB_MAX_IN_FENCES];
	unsigned num_in_fences;
	int in_fence_fd[CISP_JOB_MAX_IN_FENCES];
	unsigned num_in_fence_fds;
	uint64_t deadline_ns;
	struct cisp_job_result *result;
};

/**
 * struct cisp_job_result - what happened to a job, written before its
 * out-fence is signalled.
 * @status: the out-fence's enum cisp_fence_status.
 * @error: the out-fence's cisp_fence_error().
 * @sequence: the job's sequence number in its context (0, 1, ...).
 * @submit_ns: CLOCK_MONOTONIC time of submission.
 * @start_ns: when a worker started it (0 if it never ran).
 * @end_ns: when it completed.
 * @deadline_ns: its deadline (UINT64_MAX: none).
 * @selected: CISP_JOB_SELECT_SHARPEST: the input that was processed.
 * @sharpness: CISP_JOB_SELECT_SHARPEST: each input's sharpness (the sum of
 *             its AF windows' sharpness).
 * @message: for a job that failed while running, the error message.
 */
struct cisp_job_result {
	uint32_t status;
	int error;
	uint64_t sequence;
	uint64_t submit_ns;
	uint64_t start_ns;
	uint64_t end_ns;
	uint64_t deadline_ns;
	unsigned selected;
	uint64_t sharpness[CISP_JOB_MAX_INPUTS];
	char message[128];
};

/**
 * struct cisp_context_counters - what a context's jobs did so far.
 * @submitted: jobs accepted by cisp_job_submit().
 * @completed: jobs that ran and succeeded.
 * @failed: jobs that failed, ran or not (their own error, or an in-fence
 *          that failed).
 * @cancelled: jobs cancelled by the caller.
 * @dropped: jobs dropped or skipped by the overload policy.
 * @deadline_misses: jobs that ran and completed after their deadline.
 * @queued: jobs submitted but not completed now.
 * @busy_ns: total processing time of the jobs that ran.
 * @latency_p50_ns: median submit-to-completion time of jobs that ran
 *                  (within 1/16 of the value).
 * @latency_p90_ns: 90th percentile.
 * @latency_p99_ns: 99th percentile.
 * @latency_max_ns: the largest.
 */
struct cisp_context_counters {
	uint64_t submitted;
	uint64_t completed;
	uint64_t failed;
	uint64_t cancelled;
	uint64_t dropped;
	uint64_t deadline_misses;
	uint64_t queued;
	uint64_t busy_ns;
	uint64_t latency_p50_ns;
	uint64_t latency_p90_ns;
	uint64_t latency_p99_ns;
	uint64_t latency_max_ns;
};

/**
 * cisp_device_create() - start a device and its workers.
 * @dev: receives the device.
 * @config: its configuration, or NULL for the defaults.
 *
 * Return: 0, -EINVAL with a message, -ENOMEM, or -EAGAIN when threads
 * cannot be started.
 */
CISP_API int cisp_device_create(struct cisp_device **dev, const struct cisp_device_config *config);

/**
 * cisp_device_vulkan_backend() - the Vulkan backend (docs/gpu.md), for
 * cisp_context_config.backend: the context runs the canonical ISP's stages
 * the GPU has as compute shaders (a whole frame, where it has every stage the
 * frame needs) and the rest on the CPU, bit-exact with the software ISP (what
 * CISP_ISP=vulkan gives every context of a device).
 *
 * Return: the backend. Without a Vulkan device, or in a build without
 * Vulkan, creating a context on it fails (-ENODEV, -ENOTSUP) and says why.
 */
CISP_API const struct cisp_device_backend *cisp_device_vulkan_backend(void);

/**
 * cisp_device_set_backend() - what runs the contexts of @dev created from
 * now on without a backend of their own (cisp_context_config.backend), for
 * a layer that makes the contexts itself (a camera manager given @dev).
 * Call it before creating those contexts.
 * @dev: the device.
 * @backend: the backend, which must outlive @dev; NULL: the default (the
 *           software ISP, or what CISP_ISP named when @dev was created).
 */
CISP_API void cisp_device_set_backend(struct cisp_device *dev, const struct cisp_device_backend *backend);

/**
 * cisp_device_destroy() - destroy every context left (see
 * cisp_context_destroy()), stop the workers and free the device. Fences the
 * caller still holds stay valid.
 * @dev: the device (may be NULL).
 */
CISP_API void cisp_device_destroy(struct cisp_device *dev);

/**
 * cisp_device_load() - the scheduler's estimate of the offered load.
 * @dev: the device.
 *
 * Return: the sum, over contexts that submitted within their last 4
 * submission intervals, of recent processing time / recent interval between
 * submissions (both moving averages), in percent of one worker: 150 means
 * the streams ask for one and a half workers.
 */
CISP_API unsigned cisp_device_load(struct cisp_device *dev);

/**
 * cisp_device_preempt_point() - a point where a backend's @process may be
 * preempted: if a job that goes before the one running (by the scheduler's
 * order, at more than submission order) is ready, the calling worker runs it
 * here and then returns, so @process goes on where it stopped. Call it only
 * where the state of the frame in progress can wait (between the bands of
 * a banded pipeline: the software ISP does). Off a device worker, or on a
 * device whose jobs run on several threads (job_threads > 1), it does
 * nothing.
 */
CISP_API void cisp_device_preempt_point(void);

/**
 * cisp_device_clock_ns() - the clock of deadlines and time stamps.
 * Return: CLOCK_MONOTONIC in nanoseconds.
 */
CISP_API uint64_t cisp_device_clock_ns(void);

/**
 * cisp_context_create() - add a stream to a device.
 * @ctx: receives the context.
 * @dev: the device.
 * @config: its configuration (checked here, with a message naming the
 *          field).
 *
 * Return: 0, -EINVAL, -ENOMEM, or the backend's error.
 */
CISP_API int cisp_context_create(struct cisp_context **ctx, struct cisp_device *dev,
				 const struct cisp_context_config *config);

/**
 * cisp_context_destroy() - cancel the context's waiting jobs (their fences
 * are cancelled with -ECANCELED), wait for its running job, free it.
 * @ctx: the context (may be NULL).
 */
CISP_API void cisp_context_destroy(struct cisp_context *ctx);

/**
 * cisp_context_limits() - what the context accepts in params buffers: the
 * device's "supported params blocks". @limits->blocks has CISP_BLOCK_BIT()
 * of every canonical block the context implements (and of
 * CISP_BLOCK_VENDOR when it has vendor stages), @limits->vendor lists the
 * vendor blocks with their versions and largest payloads, and the frame
 * size and demosaic algorithms are filled in (params_state.h).
 * @ctx: the context.
 * @limits: receives them; the vendor list stays valid while the context
 *          and its vendor host live.
 * Return: 0, or -ENOTSUP when the context's backend does not say.
 */
CISP_API int cisp_context_limits(struct cisp_context *ctx, struct cisp_params_limits *limits);

/**
 * cisp_context_counters() - read the context's counters.
 * @ctx: the context.
 * @counters: receives them.
 */
CISP_API void cisp_context_counters(struct cisp_context *ctx, struct cisp_context_counters *counters);

/**
 * cisp_context_preemptions() - how often a running job of the context was
 * stopped at a preemption point for more urgent jobs
 * (cisp_device_preempt_point()); counted once per stop, however many jobs
 * ran on top of it.
 * @ctx: the context.
 *
 * Return: the count since the context was created.
 */
CISP_API uint64_t cisp_context_preemptions(struct cisp_context *ctx);

/**
 * cisp_job_submit() - validate a job and queue it; never blocks.
 * @ctx: the context.
 * @job: the job.
 * @out_fence: receives the job's out-fence (one reference, for the caller to
 *             drop with cisp_fence_unref()), or NULL if the caller does not
 *             want it.
 *
 * In steady state this makes no system call and allocates nothing (only
 * params deltas larger than 4 KiB and in-fence descriptors cost more).
 *
 * Return: 0 when queued (also when the overload policy skipped it at once:
 * the fence then says so); -EINVAL / -EMSGSIZE / -ENOTSUP / -EPROTO with a
 * message for a bad description or params delta (nothing queued, no state
 * changed); -EBADF for an in-fence descriptor that is not open; -EAGAIN when
 * the device's job slots or (policy CISP_OVERLOAD_RUN_ALL) the context's
 * queue limit are full.
 */
CISP_API int cisp_job_submit(struct cisp_context *ctx, const struct cisp_job *job, struct cisp_fence **out_fence);

/**
 * cisp_job_cancel() - cancel a job that has not started.
 * @ctx: the context it was submitted to.
 * @out_fence: its out-fence.
 *
 * The fence is signalled cancelled (-ECANCELED) at once; jobs chained on it
 * fail the same way. The job's params delta is still applied in its turn.
 *
 * Return: 0; -EBUSY if it is running; -EALREADY if it has completed;
 * -ENOENT if @out_fence is not the out-fence of a job of @ctx.
 */
CISP_API int cisp_job_cancel(struct cisp_context *ctx, struct cisp_fence *out_fence);

/**
 * cisp_context_cancel_all() - cancel every job of the context that has not
 * started.
 * @ctx: the context.
 * Return: how many jobs were cancelled.
 */
CISP_API unsigned cisp_context_cancel_all(struct cisp_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* CISP_DEVICE_H */
