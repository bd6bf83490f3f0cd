/* SPDX-License-Identifier: MIT */
/*
 * Which file descriptor holds a range of memory: the fd-backed buffers
 * (cisp_buffer_memfd(), cisp_buffer_import_fd(), cisp_buffer_fd_view())
 * are known by their mappings while they live, so that a consumer that can
 * take a descriptor (the Vulkan backend's dma-buf import) finds the one
 * behind an image's bytes.
 */
#ifndef CISP_CORE_BUFFER_FD_H
#define CISP_CORE_BUFFER_FD_H

#include <stddef.h>

struct cisp_buffer;

/*
 * The fd-backed buffer whose mapping holds @data: its own fd, lent (not a
 * duplicate: the caller neither closes it nor keeps it past the buffer's
 * life), with *@offset the place of @data in the fd, and @size bytes from
 * there in the buffer. Returns the fd, -ENOENT without a message when no
 * such buffer holds @data, or -EINVAL with a message when the @size bytes at
 * @data run past the buffer's end. The buffer must outlive the fd's use, as
 * its memory must outlive the bytes' use: a consumer that keeps the fd
 * duplicates it (the Vulkan import does, once).
 */
int cisp_buffer_fd_of(const void *data, size_t size, size_t *offset);

/*
 * A buffer over @size bytes at @data, a mapping of the first @size bytes of
 * @fd that the caller made and keeps (a V4L2 capture buffer mapped from its
 * video node, @fd the dma-buf the driver exported for it): listed for
 * cisp_buffer_fd_of() while it lives, and freed by cisp_buffer_free(), which
 * neither unmaps @data nor closes @fd. 0 or a negative errno with a message.
 */
int cisp_buffer_fd_view(struct cisp_buffer **buf, void *data, size_t size, int fd);

#endif
