/* SPDX-License-Identifier: MIT */
/*
 * Large working arrays of row functions (strips of rows, tiles): on the
 * stack of the calling thread in user space, where threads have megabytes
 * of it. The kernel module (kernel/, CISP_KERNEL) runs the ISP on a single
 * thread whose stack is 16 KiB: there they are static, which is safe
 * because that thread is the only one running ISP code. Arrays declared
 * this way take no initialiser (a static one would be set only once).
 */
#ifndef CISP_ISP_SCRATCH_H
#define CISP_ISP_SCRATCH_H

#ifdef CISP_KERNEL
#define CISP_SCRATCH static
#else
#define CISP_SCRATCH
#endif

#endif
