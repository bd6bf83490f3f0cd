/* SPDX-License-Identifier: MIT */
/*
 * Preemption points. Long work that keeps its own state across steps (the
 * banded executor between bands) calls preempt_point(); a thread that can
 * run something more urgent there (a device worker) installs a hook for
 * itself with preempt_hook_set(). Elsewhere a preemption point costs one
 * load of a thread-local pointer.
 */
#ifndef CISP_CORE_PREEMPT_H
#define CISP_CORE_PREEMPT_H

#ifdef CISP_KERNEL
/*
 * The kernel module (kernel/Kbuild) has no device workers of this kind and
 * no thread-local storage: its jobs run the reference executor, and its
 * worker is preempted by the kernel's scheduler.
 */
static inline void preempt_point(void)
{
}
#else
/* What the calling thread runs at its preemption points; @fn NULL removes it. */
void preempt_hook_set(void (*fn)(void *opaque), void *opaque);

/* Run the calling thread's hook, if it has one. */
void preempt_point(void);
#endif

#endif
