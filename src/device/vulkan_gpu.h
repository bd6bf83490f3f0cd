/* SPDX-License-Identifier: MIT */
/*
 * One Vulkan device for the Vulkan backend (docs/gpu.md): the instance, the
 * physical device (CISP_VULKAN_DEVICE picks one by index or by a part of its
 * name), a compute queue, the stage pipelines, host-visible buffers, and a
 * timeline semaphore that every submitted job signals. The contexts of a
 * process share one (reference-counted); each frame has its own command pool,
 * and submissions take the device's lock, so contexts may run frames on
 * several threads at once.
 */
#ifndef CISP_DEVICE_VULKAN_GPU_H
#define CISP_DEVICE_VULKAN_GPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

/* The stage shaders (shaders/NAME.comp), in pipeline order. */
enum vk_shader {
	VK_SHADER_UNPACK,
	VK_SHADER_BLC,
	VK_SHADER_DPC,
	VK_SHADER_BNR, /* the fast Bayer denoise */
	VK_SHADER_LSC,
	VK_SHADER_STATS, /* a tap: reads the frame, writes the statistics' sums */
	VK_SHADER_WB,
	VK_SHADER_COUNT
};

/* Every shader's push constants fit in this many bytes (Vulkan guarantees 128). */
#define VK_PUSH_MAX 64

struct vk_gpu {
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	uint32_t queue_family;
	VkPhysicalDeviceMemoryProperties memory;
	char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
	char driver[VK_MAX_DRIVER_NAME_SIZE + VK_MAX_DRIVER_INFO_SIZE + 2];
	uint32_t api_version;
	/* VK_EXT_external_memory_dma_buf offered and enabled: fd-backed inputs are imported by their fd (vk_buffer_import_dma_buf()). */
	bool dma_buf;
	/* VK_EXT_external_memory_host: inputs are imported where they are, without a copy (vk_buffer_import_host()). */
	bool host_import;
	VkDeviceSize host_import_align; /* minImportedHostPointerAlignment */
	PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_properties;
	VkDeviceSize max_storage_range; /* maxStorageBufferRange: the most bytes a shader's buffer binding holds */
	PFN_vkGetMemoryFdPropertiesKHR fd_properties; /* with dma_buf */
	bool int64; /* shaderInt64 offered, and enabled: the quality Bayer denoise's shaders need it */
	float timestamp_ns;      /* nanoseconds a timestamp tick */
	uint32_t timestamp_bits; /* valid bits of the compute queue's timestamps (0: none) */
	VkDescriptorSetLayout set_layout; /* binding 0: the stage's input, 1: its output, 2: its tables */
	VkPipelineLayout layout;
	VkPipeline pipeline[VK_SHADER_COUNT];
	VkSemaphore timeline;
	pthread_mutex_t submit; /* the queue and timeline_value */
	uint64_t timeline_value; /* the value the last submitted job signals */
	unsigned users;          /* vk_gpu_open()s not yet closed */
	char *selection;         /* CISP_VULKAN_DEVICE when it was opened (NULL: unset) */
};

/* A host-visible, coherent storage buffer, mapped for its whole life (an imported one: not mapped, map NULL). */
struct vk_buffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	void *map;
	VkDeviceSize size;
};

/*
 * Open the device CISP_VULKAN_DEVICE names (default: the first); -ENODEV "no
 * Vulkan device" if none. The process's open device is shared while the
 * selection is the same; each open takes a reference that vk_gpu_close()
 * drops, and the last one closes the device.
 */
int vk_gpu_open(struct vk_gpu **gpu);
void vk_gpu_close(struct vk_gpu *gpu);
/* "NAME (DRIVER, Vulkan X.Y.Z, dma-buf import: yes|no)" into @buf. */
void vk_gpu_describe(const struct vk_gpu *gpu, char *buf, size_t size);

int vk_buffer_create(struct vk_gpu *gpu, VkDeviceSize size, struct vk_buffer *b);
void vk_buffer_destroy(struct vk_gpu *gpu, struct vk_buffer *b);
/*
 * A storage buffer over @size bytes of the caller's memory at @data, imported
 * where it is (VK_EXT_external_memory_host): the aligned blocks that hold
 * them, with the bytes at *@offset in it. The memory must stay valid and
 * unchanged until vk_buffer_destroy(). 0, or -ENOTSUP (not offered, or the
 * driver refused this memory) / -E2BIG (over the binding limit), without a
 * message: the caller copies instead.
 */
int vk_buffer_import_host(struct vk_gpu *gpu, const void *data, size_t size, struct vk_buffer *b,
			  VkDeviceSize *offset);

/*
 * A storage buffer over the first @size bytes of the dma-buf (or other
 * mappable fd the driver takes) @fd, imported by the descriptor
 * (VK_EXT_external_memory_dma_buf), through a duplicate of it that the
 * memory owns: @fd stays the caller's, to close, whatever the result. The
 * caller checks that the fd holds @size bytes.
 * 0, or -ENOTSUP (not offered, or the driver refused the fd) / -E2BIG (over
 * the binding limit), without a message: the caller imports by address or
 * copies instead.
 */
int vk_buffer_import_dma_buf(struct vk_gpu *gpu, int fd, VkDeviceSize size, struct vk_buffer *b);

/* A compute pipeline of the device's layout from SPIR-V @code of @size bytes: 0 or a negative errno. */
int vk_pipeline_create(struct vk_gpu *gpu, const uint32_t *code, size_t size, VkPipeline *pipeline);
/*
 * A pool of @count descriptor sets of the device's layout, set s binding
 * bindings[s][0..2] (input, output, tables): 0 or a negative errno.
 */
int vk_sets_create(struct vk_gpu *gpu, unsigned count, const struct vk_buffer *bindings[][3],
		   VkDescriptorPool *pool, VkDescriptorSet *sets);
/*
 * A command pool of the caller's own in *@pool, and a primary command buffer
 * of it in *@cmd (vkDestroyCommandPool() frees both): 0 or a negative errno.
 * Each owner has its pool because contexts sharing the device record on
 * their own threads, and a pool may be used by one thread at a time.
 */
int vk_commands_create(struct vk_gpu *gpu, VkCommandPool *pool, VkCommandBuffer *cmd);

/*
 * Recording a frame: begin (resetting @cmd), one dispatch after another
 * (@after_another: behind a compute-to-compute barrier, so that it reads
 * what the one before wrote) with its set and push constants, and end
 * (behind a barrier that makes the writes visible to the host).
 */
int vk_commands_begin(VkCommandBuffer cmd);
void vk_commands_dispatch(VkCommandBuffer cmd, const struct vk_gpu *gpu, bool after_another, VkPipeline pipeline,
			  VkDescriptorSet set, const uint32_t *push, uint32_t push_size, uint32_t groups_x,
			  uint32_t groups_y);
int vk_commands_end(VkCommandBuffer cmd);

/*
 * Submit @cmd, signalling the timeline semaphore at the next value, and wait
 * for that value: 0, or a negative errno with a message. Safe from several
 * threads at once (each with its own command buffer and pool).
 */
int vk_gpu_run(struct vk_gpu *gpu, VkCommandBuffer cmd);

/* A VkResult as a negative errno, with a message naming @what. */
int vk_error(VkResult r, const char *what);

#endif
