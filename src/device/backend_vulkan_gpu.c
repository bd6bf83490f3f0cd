/* SPDX-License-Identifier: MIT */
/*
 * The Vulkan device of the Vulkan backend (vulkan_gpu.h): what every
 * context's instance needs before it records a frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error_internal.h"
#include "device/vulkan_gpu.h"

/* The SPIR-V of shaders/, compiled at build time (src/device/meson.build). */
static const uint32_t spv_unpack[] =
#include "device/unpack.spv.h"
	;
static const uint32_t spv_blc[] =
#include "device/blc.spv.h"
	;
static const uint32_t spv_dpc[] =
#include "device/dpc.spv.h"
	;
static const uint32_t spv_bnr[] =
#include "device/bnr.spv.h"
	;
static const uint32_t spv_lsc[] =
#include "device/lsc.spv.h"
	;
static const uint32_t spv_stats[] =
#include "device/stats.spv.h"
	;
static const uint32_t spv_wb[] =
#include "device/wb.spv.h"
	;

static const struct {
	const uint32_t *code;
	size_t size;
} shader_code[VK_SHADER_COUNT] = {
	[VK_SHADER_UNPACK] = { spv_unpack, sizeof(spv_unpack) },
	[VK_SHADER_BLC] = { spv_blc, sizeof(spv_blc) },
	[VK_SHADER_DPC] = { spv_dpc, sizeof(spv_dpc) },
	[VK_SHADER_BNR] = { spv_bnr, sizeof(spv_bnr) },
	[VK_SHADER_LSC] = { spv_lsc, sizeof(spv_lsc) },
	[VK_SHADER_STATS] = { spv_stats, sizeof(spv_stats) },
	[VK_SHADER_WB] = { spv_wb, sizeof(spv_wb) },
};

int vk_error(VkResult r, const char *what)
{
	int err = r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY ? -ENOMEM
		  : r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_INCOMPATIBLE_DRIVER ? -ENODEV
		  : r == VK_ERROR_DEVICE_LOST									? -EIO
																: -EPROTO;

	return cisp_error(err, "Vulkan: %s failed (VkResult %d)", what, (int)r);
}

/* The physical device CISP_VULKAN_DEVICE names: an index, or a part of the device's name. */
static int choose_device(struct vk_gpu *g)
{
	const char *want = getenv("CISP_VULKAN_DEVICE");
	VkPhysicalDevice list[16];
	uint32_t count = 16;
	VkResult r = vkEnumeratePhysicalDevices(g->instance, &count, list);

	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return vk_error(r, "listing the devices");
	if (!count)
		return cisp_error(-ENODEV, "no Vulkan device");
	for (uint32_t i = 0; i < count; i++) {
		VkPhysicalDeviceProperties p;
		char *end;
		unsigned long index;

		vkGetPhysicalDeviceProperties(list[i], &p);
		if (want && *want) {
			index = strtoul(want, &end, 10);
			if (*end ? !strstr(p.deviceName, want) : index != i)
				continue;
		}
		g->physical = list[i];
		return 0;
	}
	return cisp_error(-ENODEV, "no Vulkan device matches CISP_VULKAN_DEVICE=%s (%u devices)", want, count);
}

/* Name, driver, version and the extensions the backend looks for. */
static int discover(struct vk_gpu *g)
{
	VkPhysicalDeviceDriverProperties driver = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES };
	VkPhysicalDeviceProperties2 p = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver };
	VkExtensionProperties *ext;
	uint32_t count = 0;

	vkGetPhysicalDeviceProperties2(g->physical, &p);
	snprintf(g->name, sizeof(g->name), "%s", p.properties.deviceName);
	snprintf(g->driver, sizeof(g->driver), "%s %s", driver.driverName, driver.driverInfo);
	g->api_version = p.properties.apiVersion;
	g->timestamp_ns = p.properties.limits.timestampPeriod;
	if (p.properties.apiVersion < VK_API_VERSION_1_2)
		return cisp_error(-ENODEV, "Vulkan device %s offers Vulkan %u.%u; the backend needs 1.2 (timeline semaphores)",
				  g->name, VK_API_VERSION_MAJOR(g->api_version), VK_API_VERSION_MINOR(g->api_version));
	vkEnumerateDeviceExtensionProperties(g->physical, NULL, &count, NULL);
	ext = calloc(count ? count : 1, sizeof(*ext));
	if (!ext)
		return cisp_error(-ENOMEM, "out of memory for the Vulkan extension list");
	vkEnumerateDeviceExtensionProperties(g->physical, NULL, &count, ext);
	for (uint32_t i = 0; i < count; i++) {
		g->dma_buf |= !strcmp(ext[i].extensionName, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
		g->host_import |= !strcmp(ext[i].extensionName, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
	}
	free(ext);
	if (g->host_import) {
		VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT
		};

		p = (VkPhysicalDeviceProperties2){ .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &host };
		vkGetPhysicalDeviceProperties2(g->physical, &p);
		g->host_import_align = host.minImportedHostPointerAlignment;
		/* A power of two, as the specification requires; anything else is not worth trusting. */
		g->host_import = g->host_import_align && !(g->host_import_align & (g->host_import_align - 1));
	}
	g->max_storage_range = p.properties.limits.maxStorageBufferRange;
	vkGetPhysicalDeviceMemoryProperties(g->physical, &g->memory);
	return 0;
}

static int create_device(struct vk_gpu *g)
{
	VkQueueFamilyProperties family[16];
	uint32_t count = 16;
	const float priority = 1.0f;
	VkPhysicalDeviceTimelineSemaphoreFeatures timeline = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
		.timelineSemaphore = VK_TRUE,
	};
	VkDeviceQueueCreateInfo q = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1,
				      .pQueuePriorities = &priority };
	const char *extensions[4] = { VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME };
	uint32_t extension_count = 1;
	VkPhysicalDeviceFeatures offered;
	VkResult r;

	/* 64-bit integers, where offered, for the quality Bayer denoise's shaders (backend_vulkan_bnrq.c). */
	vkGetPhysicalDeviceFeatures(g->physical, &offered);
	g->int64 = offered.shaderInt64;
	vkGetPhysicalDeviceQueueFamilyProperties(g->physical, &count, family);
	for (q.queueFamilyIndex = 0; q.queueFamilyIndex < count; q.queueFamilyIndex++)
		if (family[q.queueFamilyIndex].queueFlags & VK_QUEUE_COMPUTE_BIT)
			break;
	if (q.queueFamilyIndex == count)
		return cisp_error(-ENODEV, "Vulkan device %s has no compute queue", g->name);
	if (g->host_import)
		extensions[extension_count++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
	/* dma-buf import is an fd import of its own handle type: it needs VK_KHR_external_memory_fd's entry points. */
	if (g->dma_buf) {
		extensions[extension_count++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
		extensions[extension_count++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
	}
	r = vkCreateDevice(g->physical,
			   &(VkDeviceCreateInfo){ .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &timeline,
						  .queueCreateInfoCount = 1, .pQueueCreateInfos = &q,
						  /* VK_KHR_external_memory is core in 1.1; the name is listed for older loaders. */
						  .enabledExtensionCount = extension_count,
						  .ppEnabledExtensionNames = extensions,
						  .pEnabledFeatures = &(VkPhysicalDeviceFeatures){ .shaderInt64 = g->int64 } },
			   NULL, &g->device);
	if (r != VK_SUCCESS)
		return vk_error(r, "creating the device");
	if (g->host_import &&
	    !(g->host_pointer_properties = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
		      g->device, "vkGetMemoryHostPointerPropertiesEXT")))
		g->host_import = false;
	if (g->dma_buf &&
	    !(g->fd_properties = (PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(g->device, "vkGetMemoryFdPropertiesKHR")))
		g->dma_buf = false;
	g->queue_family = q.queueFamilyIndex;
	g->timestamp_bits = family[q.queueFamilyIndex].timestampValidBits;
	vkGetDeviceQueue(g->device, g->queue_family, 0, &g->queue);
	return 0;
}

static int create_pipelines(struct vk_gpu *g)
{
	const VkDescriptorSetLayoutBinding bindings[3] = {
		{ 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
		{ 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
		{ 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
	};
	const VkPushConstantRange push = { VK_SHADER_STAGE_COMPUTE_BIT, 0, VK_PUSH_MAX };
	VkResult r;

	r = vkCreateDescriptorSetLayout(g->device,
					&(VkDescriptorSetLayoutCreateInfo){
						.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
						.bindingCount = 3,
						.pBindings = bindings },
					NULL, &g->set_layout);
	if (r != VK_SUCCESS)
		return vk_error(r, "creating the descriptor set layout");
	r = vkCreatePipelineLayout(g->device,
				   &(VkPipelineLayoutCreateInfo){ .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
								  .setLayoutCount = 1,
								  .pSetLayouts = &g->set_layout,
								  .pushConstantRangeCount = 1,
								  .pPushConstantRanges = &push },
				   NULL, &g->layout);
	if (r != VK_SUCCESS)
		return vk_error(r, "creating the pipeline layout");
	for (int s = 0; s < VK_SHADER_COUNT; s++) {
		int ret = vk_pipeline_create(g, shader_code[s].code, shader_code[s].size, &g->pipeline[s]);

		if (ret)
			return ret;
	}
	return 0;
}

int vk_pipeline_create(struct vk_gpu *g, const uint32_t *code, size_t size, VkPipeline *pipeline)
{
	VkShaderModule module;
	VkResult r;

	r = vkCreateShaderModule(g->device,
				 &(VkShaderModuleCreateInfo){ .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
							      .codeSize = size,
							      .pCode = code },
				 NULL, &module);
	if (r != VK_SUCCESS)
		return vk_error(r, "loading a shader");
	r = vkCreateComputePipelines(
		g->device, VK_NULL_HANDLE, 1,
		&(VkComputePipelineCreateInfo){
			.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
			.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				   .stage = VK_SHADER_STAGE_COMPUTE_BIT,
				   .module = module,
				   .pName = "main" },
			.layout = g->layout },
		NULL, pipeline);
	vkDestroyShaderModule(g->device, module, NULL);
	return r == VK_SUCCESS ? 0 : vk_error(r, "creating a compute pipeline");
}

static int create_sync(struct vk_gpu *g)
{
	VkSemaphoreTypeCreateInfo type = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
					   .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE };
	VkResult r;

	r = vkCreateSemaphore(g->device, &(VkSemaphoreCreateInfo){ .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
								     .pNext = &type },
			      NULL, &g->timeline);
	return r == VK_SUCCESS ? 0 : vk_error(r, "creating the timeline semaphore");
}

/* The process's shared device (NULL: none open) and the lock of it and of every device's reference count. */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vk_gpu *shared;

static bool same_selection(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static void destroy(struct vk_gpu *g);

static int open_device(struct vk_gpu **out)
{
	const VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
					.pApplicationName = "cisp",
					.apiVersion = VK_API_VERSION_1_2 };
	struct vk_gpu *g = calloc(1, sizeof(*g));
	VkResult r;
	int ret;

	if (!g)
		return cisp_error(-ENOMEM, "out of memory for a Vulkan device");
	pthread_mutex_init(&g->submit, NULL);
	r = vkCreateInstance(&(VkInstanceCreateInfo){ .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
						      .pApplicationInfo = &app },
			     NULL, &g->instance);
	if (r != VK_SUCCESS) {
		destroy(g);
		return r == VK_ERROR_INCOMPATIBLE_DRIVER ? cisp_error(-ENODEV, "no Vulkan device (no driver)")
							 : vk_error(r, "creating the instance");
	}
	if ((ret = choose_device(g)) || (ret = discover(g)) || (ret = create_device(g)) ||
	    (ret = create_pipelines(g)) || (ret = create_sync(g))) {
		destroy(g);
		return ret;
	}
	*out = g;
	return 0;
}

int vk_gpu_open(struct vk_gpu **out)
{
	const char *selection = getenv("CISP_VULKAN_DEVICE");
	int ret = 0;

	pthread_mutex_lock(&shared_lock);
	if (shared && same_selection(shared->selection, selection)) {
		shared->users++;
		*out = shared;
	} else if (!(ret = open_device(out))) {
		/* Another selection than the shared device's gets a device of its own. */
		(*out)->users = 1;
		if (selection && !((*out)->selection = strdup(selection))) {
			destroy(*out);
			ret = cisp_error(-ENOMEM, "out of memory for a Vulkan device");
		} else if (!shared) {
			shared = *out;
		}
	}
	pthread_mutex_unlock(&shared_lock);
	return ret;
}

void vk_gpu_close(struct vk_gpu *g)
{
	bool last;

	if (!g)
		return;
	pthread_mutex_lock(&shared_lock);
	last = --g->users == 0;
	if (last && shared == g)
		shared = NULL;
	pthread_mutex_unlock(&shared_lock);
	if (last)
		destroy(g);
}

static void destroy(struct vk_gpu *g)
{
	if (g->device) {
		vkDeviceWaitIdle(g->device);
		vkDestroySemaphore(g->device, g->timeline, NULL);
		for (int s = 0; s < VK_SHADER_COUNT; s++)
			vkDestroyPipeline(g->device, g->pipeline[s], NULL);
		vkDestroyPipelineLayout(g->device, g->layout, NULL);
		vkDestroyDescriptorSetLayout(g->device, g->set_layout, NULL);
		vkDestroyDevice(g->device, NULL);
	}
	if (g->instance)
		vkDestroyInstance(g->instance, NULL);
	pthread_mutex_destroy(&g->submit);
	free(g->selection);
	free(g);
}

void vk_gpu_describe(const struct vk_gpu *g, char *buf, size_t size)
{
	snprintf(buf, size, "%s (%s, Vulkan %u.%u.%u, host memory import: %s, dma-buf import: %s)", g->name,
		 g->driver, VK_API_VERSION_MAJOR(g->api_version), VK_API_VERSION_MINOR(g->api_version),
		 VK_API_VERSION_PATCH(g->api_version), g->host_import ? "offered" : "not offered",
		 g->dma_buf ? "offered" : "not offered");
}

int vk_buffer_create(struct vk_gpu *g, VkDeviceSize size, struct vk_buffer *b)
{
	const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	VkMemoryRequirements req;
	uint32_t type;
	VkResult r;

	memset(b, 0, sizeof(*b));
	r = vkCreateBuffer(g->device,
			   &(VkBufferCreateInfo){ .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
						  .size = size,
						  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
						  .sharingMode = VK_SHARING_MODE_EXCLUSIVE },
			   NULL, &b->buffer);
	if (r != VK_SUCCESS)
		return vk_error(r, "creating a buffer");
	vkGetBufferMemoryRequirements(g->device, b->buffer, &req);
	for (type = 0; type < g->memory.memoryTypeCount; type++)
		if ((req.memoryTypeBits & (1u << type)) && (g->memory.memoryTypes[type].propertyFlags & want) == want)
			break;
	if (type == g->memory.memoryTypeCount) {
		vk_buffer_destroy(g, b);
		return cisp_error(-ENODEV, "Vulkan device %s has no host-visible coherent memory", g->name);
	}
	r = vkAllocateMemory(g->device,
			     &(VkMemoryAllocateInfo){ .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
						      .allocationSize = req.size,
						      .memoryTypeIndex = type },
			     NULL, &b->memory);
	if (r == VK_SUCCESS && (r = vkBindBufferMemory(g->device, b->buffer, b->memory, 0)) == VK_SUCCESS)
		r = vkMapMemory(g->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map);
	if (r != VK_SUCCESS) {
		vk_buffer_destroy(g, b);
		return vk_error(r, "allocating buffer memory");
	}
	b->size = size;
	return 0;
}

/*
 * A storage buffer of @size bytes over imported memory of handle @type, of a
 * memory type in @types, @import (a VkImportMemory*Info) chained to the
 * allocation: 0, -ENOTSUP (the driver refused it) or -EIO (the memory was
 * allocated, so took an imported fd, but could not be bound), without a
 * message.
 */
static int import_memory(struct vk_gpu *g, VkExternalMemoryHandleTypeFlagBits type, uint32_t types, VkDeviceSize size,
			 const void *import, struct vk_buffer *b)
{
	VkMemoryRequirements req;
	uint32_t index;
	VkResult r;

	r = vkCreateBuffer(g->device,
			   &(VkBufferCreateInfo){
				   .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
				   .pNext = &(VkExternalMemoryBufferCreateInfo){
					   .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
					   .handleTypes = type },
				   .size = size,
				   .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
				   .sharingMode = VK_SHARING_MODE_EXCLUSIVE },
			   NULL, &b->buffer);
	if (r != VK_SUCCESS)
		return -ENOTSUP;
	vkGetBufferMemoryRequirements(g->device, b->buffer, &req);
	req.memoryTypeBits &= types;
	for (index = 0; index < g->memory.memoryTypeCount && !(req.memoryTypeBits & (1u << index)); index++)
		;
	r = index == g->memory.memoryTypeCount || req.size > size
		    ? VK_ERROR_INVALID_EXTERNAL_HANDLE
		    : vkAllocateMemory(g->device,
				       &(VkMemoryAllocateInfo){ .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
								.pNext = import,
								.allocationSize = size,
								.memoryTypeIndex = index },
				       NULL, &b->memory);
	if (r == VK_SUCCESS)
		r = vkBindBufferMemory(g->device, b->buffer, b->memory, 0);
	if (r != VK_SUCCESS) {
		/* Memory allocated from an imported fd owns it: freeing it closes the fd. */
		const int ret = b->memory ? -EIO : -ENOTSUP;

		vk_buffer_destroy(g, b);
		return ret;
	}
	b->size = size;
	return 0;
}

int vk_buffer_import_host(struct vk_gpu *g, const void *data, size_t size, struct vk_buffer *b,
			  VkDeviceSize *offset)
{
	const VkExternalMemoryHandleTypeFlagBits type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
	VkMemoryHostPointerPropertiesEXT host = { .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT };
	const uintptr_t align = (uintptr_t)g->host_import_align, first = (uintptr_t)data & ~(align - 1);
	uintptr_t end;

	memset(b, 0, sizeof(*b));
	/* Whole aligned blocks around the bytes: the pages that hold them, all mapped since the bytes are. */
	if (!g->host_import || !size || __builtin_add_overflow((uintptr_t)data, size, &end) ||
	    __builtin_add_overflow(end, align - 1, &end))
		return -ENOTSUP;
	end &= ~(align - 1);
	if (end - first > g->max_storage_range)
		return -E2BIG;
	if (g->host_pointer_properties(g->device, type, (void *)first, &host) != VK_SUCCESS ||
	    import_memory(g, type, host.memoryTypeBits, end - first,
			  &(VkImportMemoryHostPointerInfoEXT){ .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
							       .handleType = type,
							       .pHostPointer = (void *)first },
			  b))
		return -ENOTSUP;
	*offset = (uintptr_t)data - first;
	return 0;
}

int vk_buffer_import_dma_buf(struct vk_gpu *g, int fd, VkDeviceSize size, struct vk_buffer *b)
{
	const VkExternalMemoryHandleTypeFlagBits type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
	VkMemoryFdPropertiesKHR props = { .sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR };
	int own, ret;

	memset(b, 0, sizeof(*b));
	if (!g->dma_buf || !size)
		return -ENOTSUP;
	if (size > g->max_storage_range)
		return -E2BIG;
	if (g->fd_properties(g->device, type, fd, &props) != VK_SUCCESS)
		return -ENOTSUP;
	/* The import owns the descriptor it is given (freeing the memory closes it): it gets a duplicate. */
	own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (own < 0)
		return -ENOTSUP;
	ret = import_memory(g, type, props.memoryTypeBits, size,
			    &(VkImportMemoryFdInfoKHR){ .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
							.handleType = type,
							.fd = own },
			    b);
	if (ret == -ENOTSUP)
		close(own); /* never taken */
	return ret ? -ENOTSUP : 0;
}

void vk_buffer_destroy(struct vk_gpu *g, struct vk_buffer *b)
{
	if (b->memory)
		vkFreeMemory(g->device, b->memory, NULL); /* unmaps it */
	if (b->buffer)
		vkDestroyBuffer(g->device, b->buffer, NULL);
	memset(b, 0, sizeof(*b));
}

int vk_gpu_run(struct vk_gpu *g, VkCommandBuffer cmd)
{
	uint64_t value;
	VkTimelineSemaphoreSubmitInfo t = { .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
					    .signalSemaphoreValueCount = 1,
					    .pSignalSemaphoreValues = &value };
	VkResult r;

	/* The values must rise in the queue's order: take one and submit under the lock. */
	pthread_mutex_lock(&g->submit);
	value = g->timeline_value + 1;
	r = vkQueueSubmit(g->queue, 1,
			  &(VkSubmitInfo){ .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
					   .pNext = &t,
					   .commandBufferCount = 1,
					   .pCommandBuffers = &cmd,
					   .signalSemaphoreCount = 1,
					   .pSignalSemaphores = &g->timeline },
			  VK_NULL_HANDLE);
	if (r == VK_SUCCESS)
		g->timeline_value = value;
	pthread_mutex_unlock(&g->submit);
	if (r != VK_SUCCESS)
		return vk_error(r, "submitting a frame");
	r = vkWaitSemaphores(g->device,
			     &(VkSemaphoreWaitInfo){ .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
						     .semaphoreCount = 1,
						     .pSemaphores = &g->timeline,
						     .pValues = &value },
			     UINT64_MAX);
	return r == VK_SUCCESS ? 0 : vk_error(r, "waiting for a frame");
}

int vk_sets_create(struct vk_gpu *g, unsigned count, const struct vk_buffer *bindings[][3], VkDescriptorPool *pool,
		   VkDescriptorSet *sets)
{
	const VkDescriptorPoolSize size = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3 * count };
	VkDescriptorSetLayout *layouts = calloc(count, sizeof(*layouts));
	VkResult r;

	if (!layouts)
		return cisp_error(-ENOMEM, "out of memory for descriptor sets");
	for (unsigned s = 0; s < count; s++)
		layouts[s] = g->set_layout;
	r = vkCreateDescriptorPool(g->device,
				   &(VkDescriptorPoolCreateInfo){ .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
								  .maxSets = count,
								  .poolSizeCount = 1,
								  .pPoolSizes = &size },
				   NULL, pool);
	if (r == VK_SUCCESS)
		r = vkAllocateDescriptorSets(g->device,
					     &(VkDescriptorSetAllocateInfo){
						     .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
						     .descriptorPool = *pool,
						     .descriptorSetCount = count,
						     .pSetLayouts = layouts },
					     sets);
	free(layouts);
	if (r != VK_SUCCESS)
		return vk_error(r, "allocating descriptor sets");
	for (unsigned s = 0; s < count; s++) {
		const VkDescriptorBufferInfo info[3] = { { bindings[s][0]->buffer, 0, VK_WHOLE_SIZE },
							 { bindings[s][1]->buffer, 0, VK_WHOLE_SIZE },
							 { bindings[s][2]->buffer, 0, VK_WHOLE_SIZE } };
		const VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
						 .dstSet = sets[s],
						 .dstBinding = 0,
						 .descriptorCount = 3,
						 .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
						 .pBufferInfo = info };

		vkUpdateDescriptorSets(g->device, 1, &w, 0, NULL);
	}
	return 0;
}

int vk_commands_create(struct vk_gpu *g, VkCommandPool *pool, VkCommandBuffer *cmd)
{
	VkResult r = vkCreateCommandPool(g->device,
					 &(VkCommandPoolCreateInfo){
						 .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
						 .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
						 .queueFamilyIndex = g->queue_family },
					 NULL, pool);

	if (r != VK_SUCCESS)
		return vk_error(r, "creating a command pool");
	r = vkAllocateCommandBuffers(g->device,
				     &(VkCommandBufferAllocateInfo){ .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
								     .commandPool = *pool,
								     .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
								     .commandBufferCount = 1 },
				     cmd);
	return r == VK_SUCCESS ? 0 : vk_error(r, "allocating a command buffer");
}

int vk_commands_begin(VkCommandBuffer cmd)
{
	VkResult r;

	vkResetCommandBuffer(cmd, 0);
	r = vkBeginCommandBuffer(cmd, &(VkCommandBufferBeginInfo){ .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
								   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT });
	return r == VK_SUCCESS ? 0 : vk_error(r, "recording a frame");
}

void vk_commands_dispatch(VkCommandBuffer cmd, const struct vk_gpu *g, bool after_another, VkPipeline pipeline,
			  VkDescriptorSet set, const uint32_t *push, uint32_t push_size, uint32_t groups_x,
			  uint32_t groups_y)
{
	const VkMemoryBarrier barrier = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
					  .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
					  .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT };

	if (after_another)
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
				     &barrier, 0, NULL, 0, NULL);
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
	vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, g->layout, 0, 1, &set, 0, NULL);
	vkCmdPushConstants(cmd, g->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
	vkCmdDispatch(cmd, groups_x, groups_y, 1);
}

int vk_commands_end(VkCommandBuffer cmd)
{
	const VkMemoryBarrier to_host = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
					  .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
					  .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
	VkResult r;

	vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
			     NULL, 0, NULL);
	r = vkEndCommandBuffer(cmd);
	return r == VK_SUCCESS ? 0 : vk_error(r, "recording a frame");
}
