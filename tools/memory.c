/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cisp/checked.h>
#include <cisp/error.h>
#include <cisp/image.h>

#include "memory.h"

size_t mem_mul(size_t a, size_t b)
{
	size_t r;

	return cisp_size_mul(a, b, &r) ? r : SIZE_MAX;
}

size_t mem_add(size_t a, size_t b)
{
	size_t r;

	return cisp_size_add(a, b, &r) ? r : SIZE_MAX;
}

size_t mem_image(uint32_t format, uint32_t width, uint32_t height)
{
	size_t total = 0;

	for (unsigned p = 0; p < 3; p++) {
		size_t row_bytes, rows;

		if (cisp_image_plane_size(format, width, height, p, &row_bytes, &rows))
			break;
		total = mem_add(total, mem_mul(mem_add(row_bytes, 63) & ~(size_t)63, rows));
	}
	return total;
}

/* "1536M", "2G", "1073741824": bytes, or binary multiples with K, M, G or T. */
static int parse_size_text(const char *text, size_t *bytes)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text || text[0] == '-' || v > SIZE_MAX)
		return -EINVAL;
	*bytes = (size_t)v;
	if (!*end)
		return 0;
	if (end[1] && !(end[1] == 'i' && end[2] == 'B' && !end[3]) && !(end[1] == 'B' && !end[2]))
		return -EINVAL;
	if (!(u = strchr(units, end[0] & ~0x20)) || !*u)
		return -EINVAL;
	for (const char *k = units; k <= u; k++)
		*bytes = mem_mul(*bytes, 1024);
	return *bytes == SIZE_MAX ? -EINVAL : 0;
}

int memory_budget_init(struct memory_budget *b)
{
	const char *env = getenv("CISP_MAX_MEMORY");

	b->limit = DEFAULT_MAX_MEMORY;
	b->used = 0;
	if (env && *env && (parse_size_text(env, &b->limit) || !b->limit))
		return cisp_error(-EINVAL, "CISP_MAX_MEMORY=%s is not a size (bytes, or a number with K, M, G or T)", env);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->freed, NULL);
	return 0;
}

void memory_budget_destroy(struct memory_budget *b)
{
	pthread_cond_destroy(&b->freed);
	pthread_mutex_destroy(&b->lock);
}

/* @bytes in MiB, rounded up: what the messages show. */
static unsigned long long mib(size_t bytes)
{
	return bytes / (1 << 20) + (bytes % (1 << 20) != 0);
}

int memory_budget_take(struct memory_budget *b, const char *what, size_t need)
{
	if (need > b->limit)
		return cisp_error(-ENOMEM,
				  "%s needs about %llu MiB of memory, over the limit of %llu MiB "
				  "(CISP_MAX_MEMORY=%lluM raises it)",
				  what, mib(need), mib(b->limit), mib(need));
	pthread_mutex_lock(&b->lock);
	while (b->used && b->used + need > b->limit)
		pthread_cond_wait(&b->freed, &b->lock);
	b->used += need;
	pthread_mutex_unlock(&b->lock);
	return 0;
}

void memory_budget_give(struct memory_budget *b, size_t need)
{
	pthread_mutex_lock(&b->lock);
	b->used -= need;
	pthread_cond_broadcast(&b->freed);
	pthread_mutex_unlock(&b->lock);
}

int memory_check(const char *what, size_t need)
{
	struct memory_budget b;
	int ret = memory_budget_init(&b);

	if (ret)
		return ret;
	ret = memory_budget_take(&b, what, need);
	memory_budget_destroy(&b);
	return ret;
}
