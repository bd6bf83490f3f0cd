/* SPDX-License-Identifier: MIT */
/**
 * @file buffer.h
 * @brief Memory buffers: heap, caller memory, memfd and imported fds.
 *
 * A buffer is a range of bytes the ISP reads or writes. Buffers backed by a
 * file descriptor (memfd, or a dmabuf/memfd fd imported from elsewhere) can be
 * shared with other processes, such as an isolated vendor stage or a capture
 * driver. An image whose rows lie in such a buffer reaches a Vulkan device
 * that imports dma-bufs by the buffer's descriptor (docs/gpu.md).
 */
#ifndef CISP_BUFFER_H
#define CISP_BUFFER_H

#include <stddef.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An opaque buffer handle. */
struct cisp_buffer;

/**
 * cisp_buffer_alloc() - allocate zeroed heap memory, 64-byte aligned.
 * @buf: receives the handle.
 * @size: bytes (> 0).
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_buffer_alloc(struct cisp_buffer **buf, size_t size);

/**
 * cisp_buffer_wrap() - use caller memory; the caller keeps ownership and
 * must keep it alive while the buffer is in use.
 * @buf: receives the handle.
 * @data: the memory.
 * @size: its size in bytes.
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_buffer_wrap(struct cisp_buffer **buf, void *data, size_t size);

/**
 * cisp_buffer_memfd() - create a shareable buffer backed by a memfd, mapped
 * read-write into this process.
 * @buf: receives the handle.
 * @size: bytes (> 0).
 * @name: a name for the memfd (shown in /proc/PID/fd), may be NULL.
 *
 * Return: 0 or a negative errno from memfd_create/ftruncate/mmap.
 */
CISP_API int cisp_buffer_memfd(struct cisp_buffer **buf, size_t size, const char *name);

/**
 * cisp_buffer_import_fd() - map a file descriptor (memfd, dmabuf) read-write.
 * The buffer keeps its own duplicate of @fd.
 * @buf: receives the handle.
 * @fd: the descriptor.
 * @size: bytes to map; must not exceed the object's size.
 *
 * Return: 0 or a negative errno (-EBADF for a closed fd, -EINVAL when the
 * object is smaller than @size).
 */
CISP_API int cisp_buffer_import_fd(struct cisp_buffer **buf, int fd, size_t size);

/**
 * cisp_buffer_data() - the buffer's bytes in this process.
 * @buf: the buffer.
 * Return: the first byte.
 */
CISP_API void *cisp_buffer_data(const struct cisp_buffer *buf);

/**
 * cisp_buffer_size() - the buffer's size.
 * @buf: the buffer.
 * Return: bytes.
 */
CISP_API size_t cisp_buffer_size(const struct cisp_buffer *buf);

/**
 * cisp_buffer_fd() - the file descriptor behind the buffer.
 * @buf: the buffer.
 * Return: the fd (owned by the buffer), or -1 for heap and caller memory.
 */
CISP_API int cisp_buffer_fd(const struct cisp_buffer *buf);

/**
 * cisp_buffer_free() - release the buffer: unmap, close its fd, free heap
 * memory it allocated.
 * @buf: the buffer (may be NULL).
 */
CISP_API void cisp_buffer_free(struct cisp_buffer *buf);

#ifdef __cplusplus
}
#endif

#endif /* CISP_BUFFER_H */
