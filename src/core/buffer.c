/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cisp/buffer.h>
#include <cisp/checked.h>

#include "core/buffer_fd.h"
#include "core/error_internal.h"

/* BUFFER_FD_VIEW: the caller's mapping of an fd, listed as BUFFER_FD's are but neither unmapped nor closed. */
enum buffer_kind { BUFFER_HEAP, BUFFER_USER, BUFFER_FD, BUFFER_FD_VIEW };

struct cisp_buffer {
	enum buffer_kind kind;
	void *data;
	size_t size;
	int fd;
	struct cisp_buffer *next_fd; /* the next live fd-backed buffer (fd_buffers) */
};

/* The live fd-backed buffers, newest first, for cisp_buffer_fd_of(). */
static pthread_mutex_t fd_buffers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cisp_buffer *fd_buffers;

static int new_buffer(struct cisp_buffer **buf, enum buffer_kind kind, void *data, size_t size, int fd)
{
	struct cisp_buffer *b = calloc(1, sizeof(*b));

	if (!b)
		return cisp_error(-ENOMEM, "out of memory for a buffer handle");
	b->kind = kind;
	b->data = data;
	b->size = size;
	b->fd = fd;
	*buf = b;
	return 0;
}

int cisp_buffer_alloc(struct cisp_buffer **buf, size_t size)
{
	size_t rounded;
	void *mem = NULL;
	int ret;

	if (size == 0)
		return cisp_error(-EINVAL, "cannot allocate an empty buffer");
	/* Rounded up to the alignment; a size within 63 of SIZE_MAX wraps to 0 and gets nothing. */
	if (cisp_size_add(size, 63, &rounded))
		mem = aligned_alloc(64, rounded & ~(size_t)63);
	if (!mem)
		return cisp_error(-ENOMEM, "out of memory for a %zu-byte buffer", size);
	memset(mem, 0, size);
	ret = new_buffer(buf, BUFFER_HEAP, mem, size, -1);
	if (ret)
		free(mem);
	return ret;
}

int cisp_buffer_wrap(struct cisp_buffer **buf, void *data, size_t size)
{
	if (!data || size == 0)
		return cisp_error(-EINVAL, "cannot wrap %s", data ? "an empty range" : "a NULL pointer");
	return new_buffer(buf, BUFFER_USER, data, size, -1);
}

/* A buffer of @kind over @size bytes of @fd mapped at @mem, listed in fd_buffers. */
static int list_fd(struct cisp_buffer **buf, enum buffer_kind kind, void *mem, size_t size, int fd)
{
	int ret = new_buffer(buf, kind, mem, size, fd);

	if (ret)
		return ret;
	pthread_mutex_lock(&fd_buffers_lock);
	(*buf)->next_fd = fd_buffers;
	fd_buffers = *buf;
	pthread_mutex_unlock(&fd_buffers_lock);
	return 0;
}

static int map_fd(struct cisp_buffer **buf, int fd, size_t size)
{
	void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int ret;

	if (mem == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return cisp_error(ret, "cannot map fd %d (%zu bytes): %s", fd, size, strerror(-ret));
	}
	ret = list_fd(buf, BUFFER_FD, mem, size, fd);
	if (ret) {
		munmap(mem, size);
		close(fd);
	}
	return ret;
}

int cisp_buffer_fd_view(struct cisp_buffer **buf, void *data, size_t size, int fd)
{
	if (!data || !size || fd < 0)
		return cisp_error(-EINVAL, "no fd view of %zu bytes at %p of fd %d", size, data, fd);
	return list_fd(buf, BUFFER_FD_VIEW, data, size, fd);
}

int cisp_buffer_fd_of(const void *data, size_t size, size_t *offset)
{
	const uintptr_t at = (uintptr_t)data;
	const struct cisp_buffer *b;
	int fd = -ENOENT;

	pthread_mutex_lock(&fd_buffers_lock);
	for (b = fd_buffers; b; b = b->next_fd) {
		const uintptr_t start = (uintptr_t)b->data;

		if (at < start || at - start >= b->size)
			continue;
		/* The distance to the end, not at + size: no sum to overflow. */
		if (size > b->size - (at - start)) {
			fd = cisp_error(-EINVAL, "%zu bytes at offset %zu run past the end of the %zu-byte buffer of fd %d",
					size, (size_t)(at - start), b->size, b->fd);
			break;
		}
		fd = b->fd;
		*offset = at - start;
		break;
	}
	pthread_mutex_unlock(&fd_buffers_lock);
	return fd;
}

int cisp_buffer_memfd(struct cisp_buffer **buf, size_t size, const char *name)
{
	int fd, ret;

	if (size == 0)
		return cisp_error(-EINVAL, "cannot allocate an empty buffer");
	fd = memfd_create(name ? name : "cisp-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return cisp_error(-errno, "memfd_create failed: %s", strerror(errno));
	if (ftruncate(fd, (off_t)size) < 0) {
		ret = -errno;
		close(fd);
		return cisp_error(ret, "cannot size a memfd to %zu bytes: %s", size, strerror(-ret));
	}
	return map_fd(buf, fd, size);
}

int cisp_buffer_import_fd(struct cisp_buffer **buf, int fd, size_t size)
{
	struct stat st;
	int dup_fd;

	if (size == 0)
		return cisp_error(-EINVAL, "cannot import an empty buffer");
	if (fcntl(fd, F_GETFD) < 0)
		return cisp_error(-EBADF, "cannot import fd %d: it is not open", fd);
	/* dmabufs report size 0 through fstat on some kernels; only regular files and memfds are checked. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size < size)
		return cisp_error(-EINVAL, "fd %d holds %lld bytes, fewer than the %zu requested", fd,
				  (long long)st.st_size, size);
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return cisp_error(-errno, "cannot duplicate fd %d: %s", fd, strerror(errno));
	return map_fd(buf, dup_fd, size);
}

void *cisp_buffer_data(const struct cisp_buffer *buf)
{
	return buf->data;
}

size_t cisp_buffer_size(const struct cisp_buffer *buf)
{
	return buf->size;
}

int cisp_buffer_fd(const struct cisp_buffer *buf)
{
	return buf->fd;
}

void cisp_buffer_free(struct cisp_buffer *buf)
{
	if (!buf)
		return;
	switch (buf->kind) {
	case BUFFER_HEAP:
		free(buf->data);
		break;
	case BUFFER_USER:
		break;
	case BUFFER_FD:
	case BUFFER_FD_VIEW:
		pthread_mutex_lock(&fd_buffers_lock);
		for (struct cisp_buffer **p = &fd_buffers; *p; p = &(*p)->next_fd)
			if (*p == buf) {
				*p = buf->next_fd;
				break;
			}
		pthread_mutex_unlock(&fd_buffers_lock);
		if (buf->kind == BUFFER_FD) {
			munmap(buf->data, buf->size);
			close(buf->fd);
		}
		break;
	}
	free(buf);
}
