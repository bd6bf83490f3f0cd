/* SPDX-License-Identifier: MIT */
/* Validation of job descriptions at submission. */
#ifndef CISP_DEVICE_JOB_CHECK_H
#define CISP_DEVICE_JOB_CHECK_H

#include <cisp/device.h>

/* 0, or a negative errno with a message naming the field and the problem. */
int job_check(const struct cisp_context *ctx, const struct cisp_job *job);

/* "single", "select-sharpest", "merge-hdr", or "unknown". */
const char *job_mode_name(uint32_t mode);

#endif
