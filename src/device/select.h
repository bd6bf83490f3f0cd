/* SPDX-License-Identifier: MIT */
/* Burst selection for CISP_JOB_SELECT_SHARPEST jobs on the software ISP. */
#ifndef CISP_DEVICE_SELECT_H
#define CISP_DEVICE_SELECT_H

#include <cisp/device.h>
#include <cisp/isp.h>

/*
 * Score every input of @frame with the ISP's AF statistics, write the scores
 * and the winner into @frame, and process the winner. 0 or a negative errno.
 */
int device_select_sharpest(struct cisp_isp *isp, struct cisp_device_frame *frame);

/* The statistics configuration used for scoring: @state's, with a centred window if it has none. */
void device_select_config(const struct cisp_stats_params *state, uint32_t width, uint32_t height,
			  struct cisp_stats_params *out);

#endif
