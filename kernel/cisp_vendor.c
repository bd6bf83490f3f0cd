// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Vendor stages in the module: none. In user space a vendor stage is a
 * shared object run in a sandboxed helper process (src/vendor_stage); the kernel
 * loads no such code. Every context is created without a vendor host, so
 * its limits list no vendor blocks and params validation refuses every
 * vendor block (-EOPNOTSUPP, naming it) before a job is queued. These are
 * the functions the ISP calls for a context without vendor stages.
 */
#include <linux/errno.h>

#include "vendor_stage/vendor_internal.h"

int vendor_instance_create(struct vendor_instance **vi, struct cisp_vendor_host *host,
			   u32 width, u32 height, unsigned int cfa)
{
	*vi = NULL;
	return host ? -EOPNOTSUPP : 0;
}

void vendor_instance_destroy(struct vendor_instance *vi)
{
}

bool vendor_instance_active_at(const struct vendor_instance *vi, enum cisp_vendor_tap tap)
{
	return false;
}

void vendor_instance_limits(const struct vendor_instance *vi, struct cisp_params_limits *limits)
{
}

void vendor_instance_apply(struct vendor_instance *vi, const void *buf, size_t size)
{
}

int vendor_instance_run(struct vendor_instance *vi, enum cisp_vendor_tap tap,
			const struct plane16 *planes, unsigned int n)
{
	return 0;
}
