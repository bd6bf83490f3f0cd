/* SPDX-License-Identifier: MIT */
/* Preemption points: one hook per thread (preempt.h). */
#include <stddef.h>

#include "core/preempt.h"

static _Thread_local void (*hook)(void *opaque);
static _Thread_local void *hook_opaque;

void preempt_hook_set(void (*fn)(void *opaque), void *opaque)
{
	hook = fn;
	hook_opaque = opaque;
}

void preempt_point(void)
{
	if (hook)
		hook(hook_opaque);
}
