/* SPDX-License-Identifier: MIT */
/*
 * The memory a command may use: CISP_MAX_MEMORY, 2 GiB unless set. Commands
 * add up what their sizes call for (docs/cli.md gives each formula) with the
 * saturating helpers below, and refuse before allocating what is over it.
 */
#ifndef CISP_TOOLS_MEMORY_H
#define CISP_TOOLS_MEMORY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define DEFAULT_MAX_MEMORY ((size_t)2 << 30)
/* The program, its libraries and thread stacks before any image (about 7 MiB measured), rounded up. */
#define BASE_MEMORY ((size_t)16 << 20)

/* @a * @b, or SIZE_MAX when the product does not fit (cisp/checked.h does the arithmetic). */
size_t mem_mul(size_t a, size_t b);
/* @a + @b, or SIZE_MAX when the sum does not fit. */
size_t mem_add(size_t a, size_t b);
/* The bytes cisp_image_alloc() takes for @format at @width x @height (rows padded to 64 bytes). */
size_t mem_image(uint32_t format, uint32_t width, uint32_t height);

/*
 * What several jobs of one command may hold at once: a job takes its share
 * before it allocates and gives it back when done; a job that does not fit
 * beside the others waits for them, and one over the whole limit fails.
 */
struct memory_budget {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	size_t limit, used;
};

/* The limit from CISP_MAX_MEMORY; -EINVAL with a message for a value that is not a size. */
int memory_budget_init(struct memory_budget *b);
void memory_budget_destroy(struct memory_budget *b);
/*
 * Take @need bytes for @what ("--output-size 16384x16384", a file name);
 * -ENOMEM with a message naming CISP_MAX_MEMORY when @need is over the limit.
 */
int memory_budget_take(struct memory_budget *b, const char *what, size_t need);
void memory_budget_give(struct memory_budget *b, size_t need);
/* The check of memory_budget_take() for a command that does one thing at a time. */
int memory_check(const char *what, size_t need);

#endif
