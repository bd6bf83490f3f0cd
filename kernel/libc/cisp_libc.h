/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The C library as the cisp sources compiled into the module see it.
 *
 * The ISP stages, the params ABI and the format tables are written in plain
 * C11 against <stdint.h>, <string.h>, <stdlib.h> and friends. Kbuild compiles
 * with -nostdinc, and this directory comes first on the include path: each of
 * its <name.h> files includes this one, which maps what those sources use
 * onto the kernel's own functions. Nothing here changes what the code
 * computes; it only says where memory and messages come from.
 */
#ifndef CISP_KERNEL_LIBC_H
#define CISP_KERNEL_LIBC_H

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#include <linux/types.h>

/* <stdint.h>: linux/types.h has the uintN_t and intN_t types. */
#define UINT8_MAX U8_MAX
#define UINT16_MAX U16_MAX
#define UINT32_MAX U32_MAX
#define UINT64_MAX U64_MAX
#define INT8_MAX S8_MAX
#define INT16_MAX S16_MAX
#define INT16_MIN S16_MIN
#define INT32_MAX S32_MAX
#define INT32_MIN S32_MIN
#define INT64_MAX S64_MAX
#define INT64_MIN S64_MIN
#define UINTPTR_MAX ULONG_MAX

/* <inttypes.h>: the kernel's 64-bit types are long long. */
#define PRIu64 "llu"
#define PRId64 "lld"
#define PRIx64 "llx"
#define PRIu32 "u"
#define PRId32 "d"
#define PRIx32 "x"

/* <errno.h>: user space's ENOTSUP is the kernel's EOPNOTSUPP (ENOTSUPP is kernel-internal). */
#define ENOTSUP EOPNOTSUPP

/*
 * <stdlib.h>: kvmalloc memory with a small header that remembers the size,
 * so that realloc() and aligned_alloc() work as in C, and free() can be
 * taken as a function pointer (kernel/cisp_libc.c).
 */
void *malloc(size_t size);
void *calloc(size_t count, size_t size);
void *realloc(void *p, size_t size);
void *aligned_alloc(size_t align, size_t size);
void free(void *p);
/* The module reads no environment: every CISP_* variable is unset. */
#define getenv(name) ((const char *)NULL)

/* <stdio.h>: snprintf and vsnprintf are the kernel's; a message to stderr is a log warning. */
#define stderr NULL
#define fprintf(stream, ...) ((void)(stream), pr_warn(__VA_ARGS__))

#endif
