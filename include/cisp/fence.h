/* SPDX-License-Identifier: MIT */
/**
 * @file fence.h
 * @brief Fences: completion signals with a status and a time stamp, that can
 * be waited on, polled as file descriptors, and chained.
 *
 * A fence starts pending and is signalled exactly once, with one of three
 * outcomes: ok, error (with a negative errno saying why) or cancelled. The
 * time of signalling (CLOCK_MONOTONIC) is recorded. There are three kinds:
 *  - out-fences of device jobs (device.h), signalled when the job completes;
 *  - user fences from cisp_fence_create(), signalled by cisp_fence_signal();
 *  - imported fences from cisp_fence_import(): any file descriptor, signalled
 *    (ok) when it becomes readable, like a Linux sync_file, or with an error
 *    when poll() reports POLLERR or POLLHUP without POLLIN.
 *
 * Every fence can be handed to a device job as an in-fence: the job waits
 * for it without any round trip through the caller, and a fence that ends
 * in error or cancellation makes the job fail the same way (the error runs
 * down a chain of jobs).
 *
 * Fences are reference counted; every function here is thread-safe.
 */
#ifndef CISP_FENCE_H
#define CISP_FENCE_H

#include <stdint.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque fence. */
struct cisp_fence;

/** The state of a fence. */
enum cisp_fence_status {
	CISP_FENCE_PENDING = 0,   /**< not signalled yet */
	CISP_FENCE_OK = 1,        /**< signalled: the work succeeded */
	CISP_FENCE_ERROR = 2,     /**< signalled: the work failed (cisp_fence_error() says why) */
	CISP_FENCE_CANCELLED = 3, /**< signalled: the work was not done (cancelled or dropped) */
};

/**
 * cisp_fence_create() - make a user fence that the caller signals.
 * @fence: receives the fence, with one reference.
 *
 * Return: 0 or -ENOMEM.
 */
CISP_API int cisp_fence_create(struct cisp_fence **fence);

/**
 * cisp_fence_import() - make a fence from any file descriptor; it is
 * signalled when @fd becomes readable. The fence keeps its own duplicate of
 * @fd, so the caller may close @fd at once. A regular file is always
 * readable: its fence is signalled at once.
 * @fence: receives the fence, with one reference.
 * @fd: the descriptor.
 *
 * Return: 0, -EBADF (with a message) when @fd is not an open descriptor,
 * -EMFILE or -ENOMEM.
 */
CISP_API int cisp_fence_import(struct cisp_fence **fence, int fd);

/**
 * cisp_fence_signal() - signal a user fence.
 * @fence: a fence from cisp_fence_create().
 * @error: 0 for ok, -ECANCELED for cancelled, any other negative errno for
 *         an error.
 *
 * Return: 0; -EALREADY if it was signalled before (the first signal stays);
 * -EINVAL for a fence that is not a user fence or a positive @error.
 */
CISP_API int cisp_fence_signal(struct cisp_fence *fence, int error);

/**
 * cisp_fence_ref() - take one more reference.
 * @fence: the fence.
 * Return: @fence.
 */
CISP_API struct cisp_fence *cisp_fence_ref(struct cisp_fence *fence);

/**
 * cisp_fence_unref() - drop a reference; the last one frees the fence.
 * @fence: the fence (may be NULL).
 */
CISP_API void cisp_fence_unref(struct cisp_fence *fence);

/**
 * cisp_fence_status() - the fence's state now. For an imported fence this
 * polls its descriptor (one poll() call); for others it is a memory read.
 * @fence: the fence.
 * Return: an enum cisp_fence_status.
 */
CISP_API enum cisp_fence_status cisp_fence_status(struct cisp_fence *fence);

/**
 * cisp_fence_error() - why a signalled fence did not end ok.
 * @fence: the fence.
 *
 * Return: 0 for ok or pending; for error or cancelled a negative errno:
 * -ECANCELED (cancelled by the caller), -ENOBUFS (dropped by the
 * drop-oldest overload policy), -ETIME (skipped because it could no longer
 * meet its deadline), -EPIPE (an imported descriptor hung up), or the error
 * of the failed job or of the fence it waited on.
 */
CISP_API int cisp_fence_error(const struct cisp_fence *fence);

/**
 * cisp_fence_timestamp() - when the fence was signalled.
 * @fence: the fence.
 * Return: CLOCK_MONOTONIC nanoseconds, or 0 while pending.
 */
CISP_API uint64_t cisp_fence_timestamp(const struct cisp_fence *fence);

/**
 * cisp_fence_wait() - wait until the fence is signalled or a timeout passes.
 * @fence: the fence.
 * @timeout_ns: nanoseconds to wait at most; 0 only checks; negative waits
 *              for ever.
 *
 * Return: 0 when signalled ok; -ETIMEDOUT when still pending at the end;
 * otherwise the fence's cisp_fence_error() (for example -ECANCELED).
 */
CISP_API int cisp_fence_wait(struct cisp_fence *fence, int64_t timeout_ns);

/**
 * cisp_fence_fd() - a file descriptor that becomes readable (POLLIN) when
 * the fence is signalled, for poll(), select() and epoll.
 * @fence: the fence.
 *
 * The descriptor belongs to the fence: do not close it or read from it; it
 * is valid while you hold a reference. For job and user fences it is an
 * eventfd made on the first call (signalling then costs one write()).
 *
 * Return: the descriptor, or a negative errno (-EMFILE) with a message.
 */
CISP_API int cisp_fence_fd(struct cisp_fence *fence);

#ifdef __cplusplus
}
#endif

#endif /* CISP_FENCE_H */
