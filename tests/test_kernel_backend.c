/* SPDX-License-Identifier: MIT */
/*
 * The device's kernel backend (src/device/backend_kernel.c) where no kernel
 * ISP is loaded: CISP_ISP picks it, and a node that is missing or is not a
 * cisp-isp device fails context creation with a message that says so. Jobs
 * on the real device run in the VM (tests/vm/kernel_vm_test.c, and `cisp
 * run` with CISP_ISP there, compared byte for byte with the software ISP).
 */
#include <errno.h>
#include <stdlib.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>

#include "test.h"

static int context_on(const char *node, struct cisp_context **ctx, struct cisp_device **dev)
{
	const struct cisp_context_config cc = {
		.name = "k",
		.isp = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL },
	};
	int ret;

	setenv("CISP_ISP", node, 1);
	ret = cisp_device_create(dev, &(struct cisp_device_config){ .workers = 1 });
	unsetenv("CISP_ISP");
	if (ret)
		return ret;
	return cisp_context_create(ctx, *dev, &cc);
}

TEST(device_kernel_backend_missing_node)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;

	CHECK_ERR(context_on("/nonexistent/cisp-isp", &ctx, &dev), -ENOENT, "/nonexistent/cisp-isp (CISP_ISP)");
	cisp_device_destroy(dev);
}

TEST(device_kernel_backend_not_an_isp)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;

	CHECK_ERR(context_on("/dev/null", &ctx, &dev), -ENOTTY, "not a cisp-isp device");
	cisp_device_destroy(dev);
}

TEST(device_kernel_backend_unset)
{
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;
	struct cisp_params_limits limits;

	/* An empty CISP_ISP is the software ISP, as without it. */
	CHECK_EQ(context_on("", &ctx, &dev), 0);
	CHECK_EQ(cisp_context_limits(ctx, &limits), 0);
	CHECK(limits.blocks & CISP_BLOCK_BIT(CISP_BLOCK_LSC));
	cisp_device_destroy(dev);
}
