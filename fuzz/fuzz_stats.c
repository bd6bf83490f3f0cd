/* SPDX-License-Identifier: MIT */
/*
 * The statistics decoder: cisp_stats_validate() on the input as given, and
 * on the input fitted to the size of struct cisp_stats (so that mutations
 * reach the field checks). A buffer it accepts is then read the way a 3A
 * algorithm reads it, indexing by the buffer's own counts: the sanitizers
 * catch any index the validation let through.
 */
#include <string.h>

#include <cisp/stats.h>

#include "fuzz.h"

static uint64_t consume(const struct cisp_stats *s)
{
	uint64_t acc = 0;

	for (unsigned i = 0; i < 256; i++)
		acc += s->hist[i] * i;
	for (unsigned i = 0; i < (unsigned)s->zones_x * s->zones_y; i++)
		acc += s->zone[i].count ? (uint64_t)s->zone[i].g * s->zone[i].total / s->zone[i].count : 0;
	for (unsigned i = 0; i < s->af_count; i++)
		acc += s->af[i].count ? s->af[i].sharpness / s->af[i].count : 0;
	for (unsigned i = 0; i < s->row_count; i++)
		acc += s->row_mean[i];
	return acc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cisp_stats s;
	volatile uint64_t sink;

	if (!cisp_stats_validate(data, size)) {
		FUZZ_CHECK(size == sizeof(s));
		memcpy(&s, data, sizeof(s));
		sink = consume(&s);
	}
	memset(&s, 0, sizeof(s));
	memcpy(&s, data, size < sizeof(s) ? size : sizeof(s));
	if (!cisp_stats_validate(&s, sizeof(s)))
		sink = consume(&s);
	(void)sink;
	return 0;
}
