/* SPDX-License-Identifier: MIT */
/*
 * The library's hold on one sandbox helper process (helper.c): starting it
 * so that it dies with the library, checking from outside that it is
 * confined before it loads any plugin code, exchanging requests and answers
 * within deadlines the library measures itself, and ending it. Nothing here
 * ever waits on the helper without a deadline, and nothing it sends is
 * taken without checking it against the request it answers.
 */
#ifndef CISP_VENDOR_HELPER_PROCESS_H
#define CISP_VENDOR_HELPER_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vendor_stage/protocol.h"

struct helper_process {
	pid_t pid; /* -1: none */
	int pidfd; /* to wait for it and kill it without a race on its pid */
	int sock;  /* our end of its socket, non-blocking */
};

#define HELPER_PROCESS_NONE ((struct helper_process){ -1, -1, -1 })

/* Milliseconds on CLOCK_MONOTONIC, the clock of every deadline below. */
uint64_t helper_now_ms(void);

/* @fd moved to 16 or above, close-on-exec: clear of the descriptors a helper gets (-1 on failure). */
int helper_high_fd(int fd);

/* The helper's message @in: at most @size bytes with the NUL, printable ASCII only. */
void helper_clean_message(char *out, size_t size, const char *in);

/*
 * Start @program (@mode, @plugin) with @num_fds descriptors (the control
 * memfd, then the image memfds) as its descriptors 4.., wait until it says
 * it is confined, and check that from /proc/PID/status (seccomp filter,
 * no_new_privs, capabilities, user). Everything by @deadline.
 * Return: 0; or an error with the reason in @msg, the process gone.
 */
int helper_start(struct helper_process *h, const char *program, const char *mode, const char *plugin,
		 const int *fds, unsigned num_fds, uint64_t deadline, const struct helper_shared *shared, char *msg,
		 size_t size);

/*
 * Send a request of @type (HELPER_MSG_LOAD or HELPER_MSG_RUN, with
 * @sequence) and wait until @deadline for its answer, which must carry the
 * request's sequence number and nonce.
 * Return: 0 with the answer's status in *status; -ETIMEDOUT; -EPIPE when
 * the helper hung up or died; -EPROTO, with the reason in @msg, for a
 * message that is not the answer.
 */
int helper_request(struct helper_process *h, uint32_t type, uint64_t sequence, uint64_t deadline, int32_t *status,
		   char *msg, size_t size);

/* Whether the process has ended (it is left to be reaped). */
bool helper_exited(const struct helper_process *h);

/*
 * Between requests: 0 when the helper is waiting as it should; -EPIPE when
 * it is gone; -EPROTO, with the reason in @msg, when it sent something
 * unasked.
 */
int helper_idle(struct helper_process *h, char *msg, size_t size);

/*
 * Kill and reap it after the failure @why (from the functions above) and
 * say in @msg what happened, from how it ended and what its fault handlers
 * left in @shared (an -EPROTO reason already in @msg is kept). @limit_ms is
 * the deadline's length, for the message.
 * Return: the error for the job that failed.
 */
int helper_end(struct helper_process *h, int why, const struct helper_shared *shared, uint64_t limit_ms, char *msg,
	       size_t size);

/* Kill and reap it, if there is one. */
void helper_stop(struct helper_process *h);

#endif
