/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The virtual canonical ISP: its objects, shared by the module's files.
 *
 *   cisp_main.c     the module, /dev/cisp-isp and its ioctls
 *   cisp_context.c  contexts: a stream's ISP instance, its queue, its counters
 *   cisp_submit.c   CISP_IOC_SUBMIT: a job checked and resolved, then queued
 *   cisp_job.c      running a job on the pipe and completing it
 *   cisp_sched.c    the pipe: a kernel thread that runs ready jobs, earliest
 *                   deadline first, across every context
 *   cisp_fence.c    out-fences: dma_fences handed out as sync_files
 *   cisp_buffer.c   dma-bufs of the device's memory (CISP_IOC_ALLOC_BUFFER)
 *   cisp_v4l2.c     the V4L2 front-end: video and metadata nodes whose
 *                   buffers make jobs for the same pipe
 *
 * The ISP itself is the cisp library's reference code, compiled in
 * (<cisp/isp.h>): one struct cisp_isp per context holds the configuration and
 * the parameter state that params deltas change.
 */
#ifndef CISP_KERNEL_DEV_H
#define CISP_KERNEL_DEV_H

#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/iosys-map.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include <cisp/device.h>
#include <cisp/isp.h>
#include <linux/cisp-isp.h>

#define CISP_DEV_NAME "cisp-isp"
#define CISP_MAX_CONTEXTS 16
#define CISP_MAX_QUEUE 16
#define CISP_DEFAULT_QUEUE 4

struct cisp_v4l2;

/* Objects alive now; all zero when the module unloads, or it says what leaked. */
struct cisp_live {
	atomic_t contexts;
	atomic_t jobs;
	atomic_t fences;
	atomic_t buffers;
};

struct cisp_dev {
	struct miscdevice misc;
	/* The scheduler: every context's queue, running job and counters. */
	spinlock_t lock;
	struct list_head contexts;
	wait_queue_head_t wake; /* the pipe sleeps here until a job may be ready */
	wait_queue_head_t idle; /* a job finished: a context being destroyed waits here */
	struct task_struct *pipe;
	bool kicked; /* a job may have become ready since the pipe last looked */
	u64 order; /* submissions so far: ties of deadline and priority */
	u64 fence_timeout_ns; /* a job waits this long at most for its in-fence */
	struct cisp_live live;
	struct cisp_params_limits limits; /* what every instance accepts (not the frame size) */
	struct cisp_v4l2 *v4l2;
};

/* An open /dev/cisp-isp: its contexts by id. */
struct cisp_file {
	struct cisp_dev *dev;
	struct xarray contexts;
};

/* A finished job's result, as CISP_IOC_JOB_RESULT reports it; sequence + 1, 0: none. */
struct cisp_result {
	u64 sequence_1;
	int status;
	u32 selected;
	u64 sharpness[CISP_ISP_MAX_INPUTS];
};

/* A stream. */
struct cisp_ctx {
	struct cisp_dev *dev;
	struct list_head node; /* dev->contexts */
	struct kref ref;
	u32 id;
	u32 flags; /* CISP_ISP_CTX_* */
	int priority;
	unsigned int queue_limit;
	u64 frame_period_ns;
	struct cisp_isp_config config;
	struct cisp_isp *isp; /* configuration and parameter state */
	struct cisp_params_limits limits;
	struct cisp_stats *stats; /* the job's statistics, written here, then copied out */
	u64 fence_context;
	/* Held for a whole submission, so that sequence order is queue order. */
	struct mutex submit_lock;
	u64 next_sequence;
	/* dev->lock: */
	struct list_head queue; /* jobs not done, oldest first */
	unsigned int waiting; /* queued jobs not started */
	struct cisp_kjob *running;
	bool dying;
	u64 cost_ns; /* recent processing time (moving average) */
	struct cisp_isp_counters counters;
	struct cisp_result results[CISP_ISP_RESULTS]; /* by sequence % CISP_ISP_RESULTS */
};

/* One image of a job: a dma-buf (the ioctl) or memory the front-end mapped (V4L2). */
struct cisp_kjob_image {
	struct dma_buf *dmabuf;
	struct iosys_map map;
	void *vaddr; /* where its first byte is mapped while the job runs */
	size_t size;
	u32 num_planes;
	struct cisp_isp_plane plane[CISP_ISP_MAX_PLANES];
};

struct cisp_kjob;
/* Called on the pipe when a job is done (error 0) or will not run; frees the job. */
typedef void (*cisp_kjob_done_fn)(struct cisp_kjob *job, int error);

struct cisp_kjob {
	struct list_head node; /* ctx->queue */
	struct cisp_ctx *ctx;
	cisp_kjob_done_fn done;
	void *owner; /* the front-end's */
	u32 mode; /* enum cisp_job_mode */
	u32 num_inputs;
	u32 exposure[CISP_ISP_MAX_INPUTS];
	struct cisp_kjob_image input[CISP_ISP_MAX_INPUTS];
	struct cisp_kjob_image output[CISP_ISP_MAX_OUTPUTS];
	struct cisp_kjob_image stats; /* size 0: none */
	u32 stats_offset;
	void *params; /* the validated delta (kvmalloc), or NULL */
	u32 params_size;
	struct dma_fence *in_fence;
	struct dma_fence_cb in_cb;
	struct dma_fence *out_fence;
	u64 sequence;
	u64 submit_ns;
	u64 deadline_ns; /* U64_MAX: none */
	u64 order;
	/* Written when it ran, in select-sharpest mode: */
	u32 selected;
	u64 sharpness[CISP_ISP_MAX_INPUTS];
	/* dev->lock: */
	bool in_waiting; /* its in-fence has not signalled */
	int error; /* set: it will not run, and fails with this */
};

/* cisp_main.c: the context @id of @file with a reference (cisp_ctx_put()), or NULL. */
struct cisp_ctx *cisp_file_context(struct cisp_file *file, u32 id);

/* cisp_context.c */
int cisp_ctx_create(struct cisp_ctx **ctx, struct cisp_dev *dev,
		    const struct cisp_isp_context *config);
/* Cancel the waiting jobs (-ECANCELED), wait for the running one, drop the creator's reference. */
void cisp_ctx_destroy(struct cisp_ctx *ctx);
void cisp_ctx_put(struct cisp_ctx *ctx);
void cisp_ctx_counters(struct cisp_ctx *ctx, struct cisp_isp_counters *c);
/* Keep a finished job's result (before its out-fence signals). */
void cisp_ctx_record_result(struct cisp_ctx *ctx, const struct cisp_kjob *job, int error);
/* The result of job @r->sequence into @r: 0, -EBUSY, -ENODATA or -EINVAL (cisp_isp_job_result). */
int cisp_ctx_result(struct cisp_ctx *ctx, struct cisp_isp_job_result *r);

/* cisp_submit.c */
long cisp_submit_ioctl(struct cisp_file *file, void __user *arg);

/* cisp_kjob.c */
struct cisp_kjob *cisp_kjob_alloc(struct cisp_ctx *ctx);
/* Release what the job holds (buffers, params, fences) and free it. */
void cisp_kjob_free(struct cisp_kjob *job);
/* On the pipe, in the job's turn: apply its params delta to its context's state. */
int cisp_kjob_apply_params(struct cisp_kjob *job);
/* On the pipe: map the job's buffers and run the ISP. 0 or a negative errno with a message. */
int cisp_kjob_process(struct cisp_kjob *job);

/* cisp_sched.c */
int cisp_sched_start(struct cisp_dev *dev);
void cisp_sched_stop(struct cisp_dev *dev);
/* Room for one more job: 0, -ENOENT (context destroyed) or -EAGAIN (at its queue limit). */
int cisp_sched_room(struct cisp_ctx *ctx);
/* Queue a checked job after cisp_sched_room() said yes; the context's submit_lock held. */
void cisp_sched_queue(struct cisp_kjob *job);
/* Count a params delta checked at submission and the time its copy and its check took. */
void cisp_sched_account_params(struct cisp_ctx *ctx, u32 bytes, u64 copy_ns, u64 check_ns);
/* Refuse new jobs and cancel the waiting ones (-ECANCELED, in order); the running one goes on. */
void cisp_sched_cancel(struct cisp_ctx *ctx);
/* Wait until the context has no running job (after cisp_sched_cancel()). */
void cisp_sched_wait(struct cisp_ctx *ctx);
u64 cisp_clock_ns(void);

/* cisp_fence.c */
struct dma_fence *cisp_kfence_create(struct cisp_dev *dev, u64 context, u64 seqno);
/*
 * A new sync_file for @fence and a reserved descriptor for it: install with
 * fd_install(), or undo with cisp_kfence_fd_undo().
 */
int cisp_kfence_fd(struct dma_fence *fence, struct file **file);
void cisp_kfence_fd_undo(int fd, struct file *file);
void cisp_kfence_done(struct dma_fence *fence, int error);

/* cisp_buffer.c */
long cisp_buffer_alloc_ioctl(struct cisp_dev *dev, void __user *arg);

/* cisp_v4l2.c */
int cisp_v4l2_register(struct cisp_dev *dev);
void cisp_v4l2_unregister(struct cisp_dev *dev);

/* cisp_error.c: copy @text into a user buffer of @size bytes (0, or -EFAULT). */
int cisp_message_to_user(u64 address, u32 size, const char *text);

#endif
