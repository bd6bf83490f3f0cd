/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Messages of the cisp sources in the module. cisp_error() (core/error_internal.h)
 * writes the message of a failure for the calling thread; in user space that
 * is a thread-local buffer. Here a call that wants the message (an ioctl, the
 * worker running a job) registers a buffer for its task between
 * cisp_msg_begin() and cisp_msg_end(); messages of a task without one are
 * dropped.
 */
#ifndef CISP_KERNEL_ERROR_H
#define CISP_KERNEL_ERROR_H

#include <linux/list.h>
#include <linux/sched.h>

#define CISP_MSG_SIZE 256

struct cisp_msg {
	struct list_head node;
	struct task_struct *task;
	char text[CISP_MSG_SIZE];
};

/* Collect the messages of the current task into @msg (emptied). */
void cisp_msg_begin(struct cisp_msg *msg);
/* Stop collecting; @msg->text keeps the last message. */
void cisp_msg_end(struct cisp_msg *msg);

#endif
