/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * cisp-isp: the job interface of the virtual canonical ISP (kernel/,
 * docs/kernel-uapi.md).
 *
 * The device is one character device, /dev/cisp-isp. A process opens it,
 * asks what it can do (CISP_IOC_QUERY_CAPS), creates a context per stream
 * (CISP_IOC_CREATE_CONTEXT), and then submits one job per frame with one
 * ioctl (CISP_IOC_SUBMIT): the input and output images as dma-buf file
 * descriptors, the statistics buffer, the params delta, an optional in-fence,
 * a deadline. The call validates all of it before anything is queued and
 * returns a sync_file out-fence, signalled when the job is done, with an
 * error status when it failed, timed out or was cancelled.
 *
 * The params delta is a params buffer of the canonical ISP's ABI
 * (include/cisp/params.h, docs/abi.md): blocks that carry no addresses. The
 * kernel copies it, validates the whole of it against the context before the
 * job is queued, and applies it atomically just before the job runs, in
 * submission order. A context's parameter state persists between jobs.
 *
 * A job's out-fence says only whether it succeeded. What else it did (the
 * input a select-sharpest job chose) is read after the fence signalled with
 * CISP_IOC_JOB_RESULT, by the job's sequence number.
 *
 * Contexts belong to the open file: closing it cancels their waiting jobs
 * (out-fences signalled with -ECANCELED) and frees them.
 *
 * Formats are fourcc codes, those of V4L2 where V4L2 has one (the cisp
 * CISP_FMT_* codes of include/cisp/format.h are the same numbers).
 */
#ifndef _UAPI_LINUX_CISP_ISP_H
#define _UAPI_LINUX_CISP_ISP_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* The version of this interface (struct cisp_isp_caps.version). */
#define CISP_ISP_VERSION 1

/* Most input images of one job (exposure brackets, bursts). */
#define CISP_ISP_MAX_INPUTS 8
/* Outputs of a context: 0 the main output (required), 1 a preview. */
#define CISP_ISP_MAX_OUTPUTS 2
/* Most planes of an image. */
#define CISP_ISP_MAX_PLANES 3
/* Entries of the format lists of struct cisp_isp_caps. */
#define CISP_ISP_MAX_FORMATS 32

/**
 * struct cisp_isp_caps - what the device implements (CISP_IOC_QUERY_CAPS).
 * @version: CISP_ISP_VERSION.
 * @params_version: the params ABI version it takes (CISP_PARAMS_VERSION).
 * @stats_version: the statistics ABI version it writes (CISP_STATS_VERSION).
 * @stats_size: bytes of a statistics buffer (struct cisp_stats).
 * @blocks: bit n set when params block type n is implemented
 *          (CISP_BLOCK_BIT(n) of include/cisp/params.h).
 * @demosaic_algorithms: bit n set when enum cisp_demosaic_algorithm n is.
 * @job_modes: bit n set when enum cisp_job_mode n is (single, select the
 *             sharpest of a burst, merge an exposure bracket).
 * @min_width: smallest input width (inputs have even sizes).
 * @min_height: smallest input height.
 * @max_width: largest input or output width.
 * @max_height: largest input or output height.
 * @max_params_size: largest params delta in bytes.
 * @max_contexts: most contexts of one open file.
 * @max_queue: largest queue limit of a context (jobs submitted and not
 *             started).
 * @pipes: jobs the device runs at the same time.
 * @num_input_formats: entries used in @input_formats.
 * @num_output_formats: entries used in @output_formats.
 * @input_formats: fourccs of the raw input formats.
 * @output_formats: fourccs of the output formats.
 * @reserved: 0.
 */
struct cisp_isp_caps {
	__u32 version;
	__u32 params_version;
	__u32 stats_version;
	__u32 stats_size;
	__u32 blocks;
	__u32 demosaic_algorithms;
	__u32 job_modes;
	__u32 min_width;
	__u32 min_height;
	__u32 max_width;
	__u32 max_height;
	__u32 max_params_size;
	__u32 max_contexts;
	__u32 max_queue;
	__u32 pipes;
	__u32 num_input_formats;
	__u32 num_output_formats;
	__u32 input_formats[CISP_ISP_MAX_FORMATS];
	__u32 output_formats[CISP_ISP_MAX_FORMATS];
	__u32 reserved[15];
};

/**
 * struct cisp_isp_format - an image format and size.
 * @format: fourcc; 0 leaves an output unused.
 * @width: pixels per row.
 * @height: rows.
 * @reserved: 0.
 */
struct cisp_isp_format {
	__u32 format;
	__u32 width;
	__u32 height;
	__u32 reserved;
};

/* Skip a job whose deadline can no longer be met when its turn comes (-ETIME). */
#define CISP_ISP_CTX_SKIP_LATE (1u << 0)

/**
 * struct cisp_isp_context - a stream (CISP_IOC_CREATE_CONTEXT).
 * @id: written by the call: the context's number in this open file (> 0).
 * @flags: CISP_ISP_CTX_* bits; the others must be 0.
 * @input: the raw input format and size.
 * @output: output 0 (main, required) and 1 (preview, optional).
 * @priority: orders jobs of different contexts with the same deadline;
 *            higher first. Any value, 0 is normal.
 * @queue_limit: most jobs that may wait (submitted, not started);
 *               0 means 4; at most struct cisp_isp_caps.max_queue. A
 *               submission beyond it fails with -EAGAIN.
 * @frame_period_ns: a job submitted without a deadline gets its submission
 *                   time plus this (0: no deadline).
 * @message: user address of @message_size bytes that receive a
 *           NUL-terminated message when the call fails, or 0.
 * @message_size: bytes at @message.
 * @reserved: 0.
 */
struct cisp_isp_context {
	__u32 id;
	__u32 flags;
	struct cisp_isp_format input;
	struct cisp_isp_format output[CISP_ISP_MAX_OUTPUTS];
	__s32 priority;
	__u32 queue_limit;
	__u64 frame_period_ns;
	__u64 message;
	__u32 message_size;
	__u32 reserved[9];
};

/**
 * struct cisp_isp_plane - one plane of an image in a dma-buf.
 * @offset: byte of the dma-buf where the plane's first row starts.
 * @stride: bytes from one row to the next, at least the row's size.
 */
struct cisp_isp_plane {
	__u32 offset;
	__u32 stride;
};

/**
 * struct cisp_isp_buffer - an image in a dma-buf, in the context's format
 * and size for its place in the job.
 * @fd: the dma-buf file descriptor; -1 for an output the context does not
 *      use.
 * @num_planes: entries of @plane used: the format's number of planes.
 * @plane: where each plane lies; every row must lie inside the dma-buf.
 */
struct cisp_isp_buffer {
	__s32 fd;
	__u32 num_planes;
	struct cisp_isp_plane plane[CISP_ISP_MAX_PLANES];
};

/* Validate the job and answer as CISP_IOC_SUBMIT would, but queue nothing (no fence). */
#define CISP_ISP_JOB_CHECK_ONLY (1u << 0)

/**
 * struct cisp_isp_job - one frame to process (CISP_IOC_SUBMIT).
 * @context: the context's id.
 * @flags: CISP_ISP_JOB_* bits; the others must be 0.
 * @mode: enum cisp_job_mode: 0 one input; 1 a burst of 2..8 inputs of which
 *        the sharpest (by the context's AF windows) is processed; 2 an
 *        exposure bracket of 2..8 inputs merged into one high-dynamic-range
 *        frame.
 * @num_inputs: entries of @input used (1 in mode 0).
 * @input: the raw images.
 * @exposure: mode 2: each input's relative exposure (> 0, the longest at
 *            most 256 times the shortest); otherwise 0.
 * @output: one image per output of the context; fd -1 for an unused one.
 * @stats_fd: a dma-buf that receives the statistics (struct cisp_stats) at
 *            @stats_offset, or -1.
 * @stats_offset: where in @stats_fd; a multiple of 8.
 * @params: user address of the params delta (a params buffer with the
 *          blocks that change), or 0.
 * @params_size: its size in bytes (0 with @params 0).
 * @in_fence_fd: a sync_file the job waits for before it runs, or -1. When
 *               it signals an error, the job does not run and its out-fence
 *               signals the same error (its params delta is still applied,
 *               in its turn).
 * @deadline_ns: CLOCK_MONOTONIC time by which the job should be done; 0:
 *               submission time plus the context's frame period. The
 *               device runs the ready job with the earliest deadline first.
 * @message: user address of @message_size bytes that receive a
 *           NUL-terminated message naming the field, block or buffer when
 *           the call fails, or 0.
 * @message_size: bytes at @message.
 * @out_fence_fd: written by the call: a sync_file (O_CLOEXEC) signalled
 *                when the job is done. Its status is 1 when the job
 *                succeeded; negative when it failed (the job's error),
 *                its in-fence failed (that error), it waited for its
 *                in-fence longer than the device's fence timeout
 *                (-ETIMEDOUT), it was skipped as late (-ETIME) or it was
 *                cancelled (-ECANCELED). -1 with CISP_ISP_JOB_CHECK_ONLY.
 * @sequence: written by the call: the job's number in its context (0, 1,
 *            ...), also the out-fence's seqno.
 * @reserved: 0.
 */
struct cisp_isp_job {
	__u32 context;
	__u32 flags;
	__u32 mode;
	__u32 num_inputs;
	struct cisp_isp_buffer input[CISP_ISP_MAX_INPUTS];
	__u32 exposure[CISP_ISP_MAX_INPUTS];
	struct cisp_isp_buffer output[CISP_ISP_MAX_OUTPUTS];
	__s32 stats_fd;
	__u32 stats_offset;
	__u64 params;
	__u32 params_size;
	__s32 in_fence_fd;
	__u64 deadline_ns;
	__u64 message;
	__u32 message_size;
	__s32 out_fence_fd;
	__u64 sequence;
	__u32 reserved[8];
};

/**
 * struct cisp_isp_counters - what a context's jobs did (CISP_IOC_COUNTERS).
 * @context: the context's id (set by the caller).
 * @reserved0: 0.
 * @submitted: jobs queued.
 * @completed: jobs that ran and succeeded.
 * @failed: jobs that failed (their own error, or their in-fence's).
 * @timed_out: jobs whose in-fence did not signal within the fence timeout.
 * @skipped: jobs skipped as late (CISP_ISP_CTX_SKIP_LATE).
 * @deadline_misses: jobs that ran and ended after their deadline.
 * @queued: jobs submitted and not done now.
 * @busy_ns: total time the device spent running the context's jobs.
 * @params_bytes: total bytes of params deltas checked at submission
 *                (queued, refused or check-only).
 * @params_check_ns: total time spent copying and validating them.
 * @params_copy_ns: the part of @params_check_ns spent allocating and
 *                  copying them from user memory.
 * @last_error: the message of the last job that failed while running.
 * @reserved: 0.
 */
struct cisp_isp_counters {
	__u32 context;
	__u32 reserved0;
	__u64 submitted;
	__u64 completed;
	__u64 failed;
	__u64 timed_out;
	__u64 skipped;
	__u64 deadline_misses;
	__u64 queued;
	__u64 busy_ns;
	__u64 params_bytes;
	__u64 params_check_ns;
	__u64 params_copy_ns;
	char last_error[128];
	__u64 reserved[3];
};

/* A context keeps the results of its last this many finished jobs (CISP_IOC_JOB_RESULT). */
#define CISP_ISP_RESULTS 32

/**
 * struct cisp_isp_job_result - what a finished job did (CISP_IOC_JOB_RESULT).
 * It is readable once the job's out-fence has signalled, until the context
 * has finished CISP_ISP_RESULTS later jobs. The call fails with -EBUSY for a
 * job not finished yet, -ENODATA for one whose result is no longer kept and
 * -EINVAL for a sequence not yet submitted.
 * @context: the context's id (set by the caller).
 * @reserved0: 0.
 * @sequence: the job's sequence number (set by the caller; written by
 *            CISP_IOC_SUBMIT in struct cisp_isp_job.sequence).
 * @status: written by the call: 0 when the job succeeded, else the negative
 *          errno its out-fence signalled.
 * @selected: written by the call: a select-sharpest job that ran: the index
 *            of the input it processed, the first of the highest
 *            @sharpness; otherwise 0.
 * @sharpness: written by the call: a select-sharpest job that ran: each
 *             input's sharpness score (the sum over the context's AF
 *             windows, or one centred window when it has none); otherwise
 *             0.
 * @reserved: 0.
 */
struct cisp_isp_job_result {
	__u32 context;
	__u32 reserved0;
	__u64 sequence;
	__s32 status;
	__u32 selected;
	__u64 sharpness[CISP_ISP_MAX_INPUTS];
	__u32 reserved[8];
};

/**
 * struct cisp_isp_alloc - a dma-buf of the device's memory
 * (CISP_IOC_ALLOC_BUFFER), for images and statistics; it can be mapped with
 * mmap() and passed to other devices.
 * @size: bytes, 1..1 GiB; rounded up to whole pages.
 * @flags: 0.
 * @fd: written by the call: the dma-buf (O_CLOEXEC | O_RDWR).
 * @reserved: 0.
 */
struct cisp_isp_alloc {
	__u64 size;
	__u32 flags;
	__s32 fd;
	__u32 reserved[4];
};

#define CISP_IOC_QUERY_CAPS _IOR(0xC5, 0x00, struct cisp_isp_caps)
#define CISP_IOC_CREATE_CONTEXT _IOWR(0xC5, 0x01, struct cisp_isp_context)
/* Cancel the context's waiting jobs (-ECANCELED), wait for its running job, free it. */
#define CISP_IOC_DESTROY_CONTEXT _IOW(0xC5, 0x02, __u32)
#define CISP_IOC_SUBMIT _IOWR(0xC5, 0x03, struct cisp_isp_job)
#define CISP_IOC_COUNTERS _IOWR(0xC5, 0x04, struct cisp_isp_counters)
#define CISP_IOC_ALLOC_BUFFER _IOWR(0xC5, 0x05, struct cisp_isp_alloc)
#define CISP_IOC_JOB_RESULT _IOWR(0xC5, 0x06, struct cisp_isp_job_result)

#endif /* _UAPI_LINUX_CISP_ISP_H */
