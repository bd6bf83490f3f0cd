/* SPDX-License-Identifier: MIT */
/*
 * Per-context counters. Latencies go into a histogram with 16 linear
 * buckets per power of two of nanoseconds, so a percentile is known within
 * 1/16 of its value, in constant memory and time per job.
 */
#include <string.h>

#include "device/device_internal.h"

/* Values below 16 ns have a bucket each; above, bucket (e - 3) * 16 + the 4 bits after the top one. */
static unsigned bucket_of(uint64_t ns)
{
	unsigned e;

	if (ns < 16)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	return (e - 3) * 16 + (unsigned)((ns >> (e - 4)) & 15);
}

/* The largest value that falls in bucket @b. */
static uint64_t bucket_top(unsigned b)
{
	unsigned e = b / 16 + 3, sub = b % 16;

	if (b < 16)
		return b;
	return ((16ull + sub + 1) << (e - 4)) - 1;
}

void latency_add(struct latency_hist *hist, uint64_t ns)
{
	unsigned b = bucket_of(ns);

	hist->bucket[b < LATENCY_BUCKETS ? b : LATENCY_BUCKETS - 1]++;
	hist->count++;
	if (ns > hist->max)
		hist->max = ns;
}

uint64_t latency_percentile(const struct latency_hist *hist, unsigned permille)
{
	uint64_t rank, seen = 0;

	if (!hist->count)
		return 0;
	/* The smallest value with at least permille/1000 of the samples at or below it. */
	rank = (hist->count * permille + 999) / 1000;
	if (rank == 0)
		rank = 1;
	for (unsigned b = 0; b < LATENCY_BUCKETS; b++) {
		seen += hist->bucket[b];
		if (seen >= rank) {
			uint64_t top = bucket_top(b);
			return top < hist->max ? top : hist->max;
		}
	}
	return hist->max;
}

void cisp_context_counters(struct cisp_context *ctx, struct cisp_context_counters *out)
{
	struct cisp_device *dev = ctx->dev;
	uint64_t queued = 0;

	pthread_mutex_lock(&dev->lock);
	*out = ctx->counters;
	/* Jobs whose out-fence is signalled are done for the caller, though their slot may not be free yet. */
	for (const struct job *j = ctx->head; j; j = j->next)
		queued += !j->signalled;
	if (ctx->running && cisp_fence_status(ctx->running->out) == CISP_FENCE_PENDING)
		queued++;
	out->queued = queued;
	out->latency_p50_ns = latency_percentile(&ctx->latency, 500);
	out->latency_p90_ns = latency_percentile(&ctx->latency, 900);
	out->latency_p99_ns = latency_percentile(&ctx->latency, 990);
	out->latency_max_ns = ctx->latency.max;
	pthread_mutex_unlock(&dev->lock);
}

uint64_t cisp_context_preemptions(struct cisp_context *ctx)
{
	uint64_t n;

	pthread_mutex_lock(&ctx->dev->lock);
	n = ctx->preemptions;
	pthread_mutex_unlock(&ctx->dev->lock);
	return n;
}
