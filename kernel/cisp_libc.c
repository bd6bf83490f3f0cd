// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * malloc() and friends for the cisp sources (libc/cisp_libc.h): kvmalloc
 * memory, so that frame-sized planes come from vmalloc and small tables from
 * the slab, with a header in front that remembers the block and its size.
 */
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pthread.h"

struct block_header {
	void *base; /* what kvmalloc returned */
	size_t size; /* bytes the caller asked for */
};

static void *allocate(size_t size, size_t align, bool zero)
{
	size_t room, total;
	void *base;
	uintptr_t p;

	if (align < sizeof(struct block_header) || (align & (align - 1)))
		align = 16;
	room = ALIGN(sizeof(struct block_header), align);
	if (check_add_overflow(size, room, &total))
		return NULL;
	base = kvmalloc(total, zero ? GFP_KERNEL_ACCOUNT | __GFP_ZERO : GFP_KERNEL_ACCOUNT);
	if (!base)
		return NULL;
	p = ALIGN((uintptr_t)base + sizeof(struct block_header), align);
	((struct block_header *)p)[-1] = (struct block_header){ base, size };
	return (void *)p;
}

void *malloc(size_t size)
{
	return allocate(size, 16, false);
}

void *calloc(size_t count, size_t size)
{
	size_t total;

	if (check_mul_overflow(count, size, &total))
		return NULL;
	return allocate(total, 16, true);
}

void *aligned_alloc(size_t align, size_t size)
{
	return allocate(size, align, false);
}

void free(void *p)
{
	if (p)
		kvfree(((struct block_header *)p)[-1].base);
}

void *realloc(void *p, size_t size)
{
	void *q = malloc(size);

	if (!p || !q)
		return q;
	memcpy(q, p, min(size, ((struct block_header *)p)[-1].size));
	free(p);
	return q;
}

/* One-time initialisations (the row function table) run under one mutex. */
static DEFINE_MUTEX(once_lock);

int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	mutex_lock(&once_lock);
	if (!*once) {
		fn();
		*once = 1;
	}
	mutex_unlock(&once_lock);
	return 0;
}
