/* SPDX-License-Identifier: MIT */
/* The Vulkan backend of a build without Vulkan (meson -Dvulkan=disabled, or no libvulkan-dev/glslc). */
#include <errno.h>

#include "core/error_internal.h"
#include "device/vulkan_backend.h"

static int none_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	(void)instance;
	(void)config;
	(void)opaque;
	return vulkan_describe(NULL, 0);
}

const struct cisp_device_backend device_backend_vulkan = {
	.name = VULKAN_ISP_NAME,
	.create = none_create,
};

struct vulkan_plan vulkan_plan_frame(const struct cisp_param_state *state, bool stats)
{
	(void)state;
	(void)stats;
	return (struct vulkan_plan){ 0 };
}

int vulkan_plan_describe(const struct cisp_isp_config *config, const struct cisp_param_state *state, bool stats,
			 char *buf, size_t size)
{
	(void)config;
	(void)state;
	(void)stats;
	(void)buf;
	(void)size;
	return vulkan_describe(NULL, 0);
}

const char *const vulkan_stage_names[VULKAN_STAGE_COUNT] = { "unpack", "blc", "dpc", "bnr", "lsc", "stats", "wb" };

int vulkan_time_stages(const struct cisp_image *input, const struct cisp_param_state *state, int reps,
		       double ns[VULKAN_STAGE_COUNT])
{
	(void)input;
	(void)state;
	(void)reps;
	(void)ns;
	return vulkan_describe(NULL, 0);
}

int vulkan_describe(char *buf, size_t size)
{
	(void)buf;
	(void)size;
	return cisp_error(-ENOTSUP, "no Vulkan device: this cisp was built without Vulkan (meson option vulkan)");
}
