/* SPDX-License-Identifier: MIT */
/*
 * Zero-shutter-lag selection: the ISP computes its own AF statistics (the
 * sharpness of the AF windows, docs/abi.md) on every frame of the burst, at
 * the statistics tap, and processes the frame with the largest sum. The
 * context's AF windows are used; with none configured, one window over the
 * central half of the frame. Ties go to the earliest frame.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "device/select.h"

void device_select_config(const struct cisp_stats_params *state, uint32_t width, uint32_t height,
			  struct cisp_stats_params *out)
{
	*out = *state;
	if (out->af_count)
		return;
	out->af_count = 1;
	out->af[0].x = (uint16_t)((width / 4) & ~1u);
	out->af[0].y = (uint16_t)((height / 4) & ~1u);
	out->af[0].width = (uint16_t)((width / 2) & ~1u);
	out->af[0].height = (uint16_t)((height / 2) & ~1u);
}

int device_select_sharpest(struct cisp_isp *isp, struct cisp_device_frame *f)
{
	const struct cisp_image *first = f->input[0];
	struct cisp_stats_params cfg;
	struct cisp_stats *stats = malloc(sizeof(*stats));
	int ret = 0;

	if (!stats)
		return cisp_error(-ENOMEM, "out of memory for burst statistics");
	device_select_config(&cisp_isp_params(isp)->stats, first->width, first->height, &cfg);
	f->selected = 0;
	for (unsigned i = 0; i < f->num_inputs && !ret; i++) {
		uint64_t sum = 0;

		ret = cisp_isp_statistics(isp, f->input[i], &cfg, stats, f->pool);
		for (unsigned w = 0; !ret && w < stats->af_count; w++)
			sum += stats->af[w].sharpness;
		f->sharpness[i] = sum;
		if (sum > f->sharpness[f->selected])
			f->selected = i;
	}
	free(stats);
	if (ret)
		return cisp_error_prefix(ret, "burst frame scoring");
	return cisp_isp_process(isp, f->input[f->selected], f->output, f->stats, f->pool);
}
