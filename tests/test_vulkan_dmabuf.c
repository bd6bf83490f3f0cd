/* SPDX-License-Identifier: MIT */
/*
 * Inputs in fd-backed buffers on the Vulkan backend (docs/gpu.md, "A
 * frame"): imported by their fd where the device offers dma-buf import
 * (VK_EXT_external_memory_dma_buf), by their address or copied otherwise,
 * each against cisp_unpack_rows() and, through a device with
 * CISP_ISP=vulkan, against the software backend; the path each frame took
 * is counted and checked, and so are the descriptors left open, over many
 * frames and jobs too. A mapping listed with an fd it was not made by
 * (cisp_buffer_fd_view(), as the V4L2 backend lists a capture buffer with
 * its exported dma-buf) is imported by that fd. A frame that
 * runs past its buffer or past what its fd still holds is an error on every
 * path. Debian 12's lavapipe offers no dma-buf import (and a GPU's driver
 * may refuse a memfd for one): there the other paths are tested and the
 * tests say so; CISP_REQUIRE_DMA_BUF=1 (CI's step with a lavapipe that
 * takes it, .ci/vulkan-dmabuf) makes that a failure. Without
 * a Vulkan device the tests say so loudly and skip, unless
 * CISP_REQUIRE_VULKAN=1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cisp/buffer.h>
#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>

#include "core/buffer_fd.h"
#include "test.h"

/* Bad descriptors and sizes at the import of an fd, and at a view of one. */
TEST(vulkan_dmabuf_import_fd_errors)
{
	struct cisp_buffer *memfd = NULL, *b = NULL;
	int closed;

	CHECK_EQ(cisp_buffer_memfd(&memfd, 4096, "dmabuf-test"), 0);
	if (!memfd)
		return;
	closed = dup(cisp_buffer_fd(memfd));
	close(closed);
	CHECK_ERR(cisp_buffer_import_fd(&b, -1, 16), -EBADF, "not open");
	CHECK_ERR(cisp_buffer_import_fd(&b, closed, 16), -EBADF, "not open");
	CHECK_ERR(cisp_buffer_import_fd(&b, cisp_buffer_fd(memfd), 4097), -EINVAL, "fewer than the 4097 requested");
	CHECK_ERR(cisp_buffer_import_fd(&b, cisp_buffer_fd(memfd), SIZE_MAX), -EINVAL, "fewer than");
	CHECK_ERR(cisp_buffer_import_fd(&b, cisp_buffer_fd(memfd), 0), -EINVAL, "empty");
	CHECK(!b);
	/* A view of nothing, or of no fd. */
	CHECK_ERR(cisp_buffer_fd_view(&b, NULL, 16, cisp_buffer_fd(memfd)), -EINVAL, "no fd view");
	CHECK_ERR(cisp_buffer_fd_view(&b, cisp_buffer_data(memfd), 0, cisp_buffer_fd(memfd)), -EINVAL, "no fd view");
	CHECK_ERR(cisp_buffer_fd_view(&b, cisp_buffer_data(memfd), 16, -1), -EINVAL, "no fd view");
	CHECK(!b);
	cisp_buffer_free(memfd);
}

#ifdef CISP_VULKAN_BUILT
#include "device/vulkan_backend.h"
#include "device/vulkan_frame.h"
#include "isp/unpack.h"

/*
 * Whether frames by fd are imported so: the device offers dma-buf import and
 * takes a memfd for one (lavapipe maps it; a GPU's driver may want a real
 * dma-buf and refuse it, and then they go by address).
 */
static bool takes_memfd;

/* The device, or NULL; where it imports no memfd by fd, says so, and fails where CI requires it. */
static struct vk_gpu *open_gpu(void)
{
	struct vk_gpu *g = test_vulkan_gpu("the Vulkan backend's dma-buf import is");
	const char *require = getenv("CISP_REQUIRE_DMA_BUF");
	struct cisp_buffer *memfd = NULL;
	struct vk_buffer probe;
	int fd;

	if (!g)
		return NULL;
	takes_memfd = false;
	if (g->dma_buf && !cisp_buffer_memfd(&memfd, 4096, "dmabuf-probe") && (fd = dup(cisp_buffer_fd(memfd))) >= 0) {
		takes_memfd = !vk_buffer_import_dma_buf(g, fd, 4096, &probe);
		if (takes_memfd)
			vk_buffer_destroy(g, &probe); /* closes the import's own duplicate */
		close(fd);
	}
	cisp_buffer_free(memfd);
	if (!takes_memfd) {
		const char *why = g->dma_buf ? "offers dma-buf import but refuses a memfd" : "offers no dma-buf import";

		if (require && !strcmp(require, "1"))
			test_fail(__FILE__, __LINE__, "CISP_REQUIRE_DMA_BUF=1 and %s (%s) %s", g->name, g->driver, why);
		else
			fprintf(stderr, "  %s (%s) %s: only the address import and the copy are tested\n", g->name, g->driver,
				why);
	}
	return g;
}

/* The descriptors this process has open. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A memfd buffer of @size random bytes (NULL: failed, and said so). */
static struct cisp_buffer *random_memfd(size_t size)
{
	struct cisp_buffer *b = NULL;

	CHECK_EQ(cisp_buffer_memfd(&b, size, "dmabuf-test"), 0);
	for (size_t i = 0; b && i < size; i++)
		((uint8_t *)cisp_buffer_data(b))[i] = (uint8_t)test_rand();
	return b;
}

/* A @w x @h @format frame at @offset bytes into @buf, rows @stride apart. */
static struct cisp_image frame_in(struct cisp_buffer *buf, uint32_t format, uint32_t w, uint32_t h, size_t offset,
				  size_t stride)
{
	return (struct cisp_image){ .format = format,
				    .width = w,
				    .height = h,
				    .num_planes = 1,
				    .plane = { { (uint8_t *)cisp_buffer_data(buf) + offset, stride } } };
}

enum path { BY_FD, BY_ADDRESS, COPIED };

/*
 * @img unpacked on the GPU, asked to take @path, against
 * cisp_unpack_rows(); the path it took: by its fd only where the device
 * takes a memfd so and @by_fd (the range allows it), by address where the
 * device offers host import, else copied. No descriptor is left open.
 */
static void check_path(struct vk_gpu *g, const struct cisp_image *img, enum path path, bool by_fd)
{
	const bool fd = path == BY_FD && takes_memfd && by_fd, address = !fd && path != COPIED && g->host_import;
	struct vk_frame *f = NULL;
	struct vk_step step;
	const uint16_t *got = NULL;
	const int fds = open_fds();
	uint16_t *want = malloc((size_t)img->width * img->height * 2);

	cisp_unpack_rows(img, &(struct plane16){ want, img->width, 0, (int)img->width, (int)img->height, 0 }, 0,
			 (int)img->height);
	CHECK_EQ(vk_frame_create(g, img->format, img->width, img->height, &f), 0);
	if (!f) {
		free(want);
		return;
	}
	f->import_input = path != COPIED;
	f->import_fd = path == BY_FD && g->dma_buf;
	vk_step_unpack(f, &step);
	CHECK_EQ(vk_frame_run(f, img, &step, 1, &got), 0);
	if (!got || memcmp(got, want, (size_t)img->width * img->height * 2))
		test_fail(__FILE__, __LINE__, "a %ux%u %s frame %s differs from the reference", img->width, img->height,
			  cisp_format_name(img->format), path == BY_FD ? "by fd" : path == BY_ADDRESS ? "by address" : "copied");
	CHECK_EQ(f->fd_imports, (unsigned long)fd);
	CHECK_EQ(f->imports, (unsigned long)address);
	CHECK(!f->imported.buffer);
	vk_frame_destroy(f);
	free(want);
	/* The import's duplicate went with the memory; the buffer's own fd stays. */
	CHECK_EQ(open_fds(), fds);
}

/*
 * Frames in a memfd buffer and in a buffer that imports that memfd's fd, at
 * offsets of 1 to 3 bytes past a word and past a page, rows 1 to 13 bytes
 * apart past their size, each by its fd, by its address and copied; and one
 * ending at its buffer's last byte, not a whole word: the fd's last word is
 * not all the frame's, so it is read by address.
 */
TEST(vulkan_dmabuf_frame_bitexact)
{
	/* Every CFA order; 132 samples, whole groups of RAW10's 4. */
	static const uint32_t formats[] = { CISP_FMT_SRGGB8, CISP_FMT_SGRBG12, CISP_FMT_SGBRG16, CISP_FMT_SBGGR10P,
					    CISP_FMT_SRGGB12P };
	const uint32_t w = 132, h = 6;
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct vk_gpu *g = open_gpu();

	for (unsigned k = 0; g && k < sizeof(formats) / sizeof(formats[0]); k++) {
		const uint32_t format = formats[k];
		size_t row, rows;

		CHECK_EQ(cisp_image_plane_size(format, w, h, 0, &row, &rows), 0);
		for (int trial = 0; trial < 3; trial++) {
			const size_t offset = (trial == 2 ? page : 0) + 1 + (size_t)test_rand() % 3;
			const size_t stride = row + 1 + (size_t)test_rand() % 13, size = offset + stride * h + 64;
			struct cisp_buffer *memfd = random_memfd(size), *imported = NULL;

			CHECK_EQ(memfd ? cisp_buffer_import_fd(&imported, cisp_buffer_fd(memfd), size) : -1, 0);
			if (!imported) {
				cisp_buffer_free(memfd);
				break;
			}
			const struct cisp_image a = frame_in(memfd, format, w, h, offset, stride),
						 b = frame_in(imported, format, w, h, offset, stride);

			for (int p = BY_FD; p <= COPIED; p++) {
				check_path(g, &a, (enum path)p, true);
				check_path(g, &b, (enum path)p, true);
			}
			cisp_buffer_free(imported);
			cisp_buffer_free(memfd);
		}
		/* The frame's last byte the buffer's, 1 to 3 bytes into a word. */
		for (size_t offset = 1; offset <= 3; offset++) {
			struct cisp_buffer *memfd;
			struct cisp_image a;

			if ((offset + row * h) % 4 == 0 || !(memfd = random_memfd(offset + row * h)))
				continue;
			a = frame_in(memfd, format, w, h, offset, row);
			check_path(g, &a, BY_FD, false);
			cisp_buffer_free(memfd);
		}
	}
	vk_gpu_close(g);
}

/*
 * A frame that runs past its buffer's end, or past what its memfd holds
 * after a truncation, is an error on every path (by fd, by address, copied),
 * with no descriptor left open; so is a range whose end would overflow.
 */
TEST(vulkan_dmabuf_errors)
{
	const uint32_t w = 64, h = 4, format = CISP_FMT_SRGGB10;
	struct vk_gpu *g = open_gpu();
	const size_t row = (size_t)w * 2, bytes = row * h;
	struct cisp_buffer *memfd = random_memfd(2 * bytes);
	struct cisp_image past, shrunk;
	size_t offset;
	int fd;

	if (!memfd) {
		vk_gpu_close(g);
		return;
	}
	/* The last row 10 bytes past the buffer's end; the second half, whose last 8 bytes a truncation cuts. */
	past = frame_in(memfd, format, w, h, bytes + 10, row);
	shrunk = frame_in(memfd, format, w, h, bytes, row);
	/* The lookup itself: the range's end is never computed as a sum that wraps. */
	CHECK_ERR(cisp_buffer_fd_of((uint8_t *)cisp_buffer_data(memfd) + 1, SIZE_MAX, &offset), -EINVAL,
		  "run past the end");
	CHECK_EQ(cisp_buffer_fd_of((uint8_t *)cisp_buffer_data(memfd) + 2 * bytes, 1, &offset), -ENOENT);
	/* The buffer's own fd, lent: no duplicate for the caller to close. */
	fd = cisp_buffer_fd_of((uint8_t *)cisp_buffer_data(memfd) + 5, 2 * bytes - 5, &offset);
	CHECK(fd == cisp_buffer_fd(memfd) && offset == 5);
	for (int p = BY_FD; g && p <= COPIED; p++) {
		struct vk_frame *f = NULL;
		struct vk_step step;
		const uint16_t *got = NULL;
		const int fds = open_fds();

		CHECK_EQ(vk_frame_create(g, format, w, h, &f), 0);
		if (!f)
			break;
		f->import_input = p != COPIED;
		f->import_fd = p == BY_FD && g->dma_buf;
		vk_step_unpack(f, &step);
		CHECK_ERR(vk_frame_run(f, &past, &step, 1, &got), -EINVAL, "run past the end of the");
		CHECK_EQ(ftruncate(cisp_buffer_fd(memfd), (off_t)(2 * bytes - 8)), 0);
		CHECK_ERR(vk_frame_run(f, &shrunk, &step, 1, &got), -EINVAL, "bytes the fd holds now");
		CHECK_EQ(ftruncate(cisp_buffer_fd(memfd), (off_t)(2 * bytes)), 0);
		CHECK_EQ(f->fd_imports + f->imports, 0ul);
		/* Whole again, it runs. */
		CHECK_EQ(vk_frame_run(f, &shrunk, &step, 1, &got), 0);
		CHECK_EQ(f->fd_imports, (unsigned long)(p == BY_FD && takes_memfd));
		vk_frame_destroy(f);
		CHECK_EQ(open_fds(), fds);
	}
	/* Freed, the buffer is no longer found. */
	const void *gone = cisp_buffer_data(memfd);

	cisp_buffer_free(memfd);
	CHECK_EQ(cisp_buffer_fd_of(gone, 1, &offset), -ENOENT);
	vk_gpu_close(g);
}

/*
 * Many frames from one memfd buffer leave no descriptor open: 200 runs of a
 * frame (each by its fd where the device takes a memfd so, the count
 * checked), then 100 jobs of a context of a device with CISP_ISP=vulkan,
 * counted after the first of each (a driver may open its own at the first
 * use); the buffer's own fd is still open and still its own.
 */
TEST(vulkan_dmabuf_no_fd_leak)
{
	const uint32_t w = 64, h = 16;
	const struct cisp_isp_config cfg = { CISP_FMT_SRGGB10, w, h, { { CISP_FMT_RGB888, w, h } }, NULL };
	struct vk_gpu *g = open_gpu();
	struct cisp_buffer *memfd = random_memfd((size_t)w * 2 * h + 4);
	struct cisp_device *dev = NULL;
	struct cisp_context *ctx = NULL;
	struct cisp_image out = { 0 };
	struct vk_frame *f = NULL;
	struct vk_step step;
	const uint16_t *got;
	struct cisp_param_state state;
	size_t size = 0;
	void *params = NULL;
	int fds;

	if (!g || !memfd || vk_frame_create(g, cfg.input_format, w, h, &f))
		goto done;
	const struct cisp_image in = frame_in(memfd, cfg.input_format, w, h, 4, (size_t)w * 2);

	vk_step_unpack(f, &step);
	CHECK_EQ(vk_frame_run(f, &in, &step, 1, &got), 0);
	fds = open_fds();
	for (int i = 1; i < 200; i++)
		CHECK_EQ(vk_frame_run(f, &in, &step, 1, &got), 0);
	CHECK_EQ(open_fds(), fds);
	CHECK_EQ(f->fd_imports, takes_memfd ? 200ul : 0ul);
	setenv("CISP_ISP", VULKAN_ISP_NAME, 1);
	CHECK_EQ(cisp_device_create(&dev, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	cisp_param_state_init(&state);
	cisp_params_encode(&state, ~0u, NULL, 0, &size);
	params = malloc(size);
	if (!dev || !params || cisp_image_alloc(&out, CISP_FMT_RGB888, w, h) ||
	    cisp_params_encode(&state, ~0u, params, size, &size) ||
	    cisp_context_create(&ctx, dev, &(struct cisp_context_config){ .name = "fds", .isp = cfg })) {
		test_fail(__FILE__, __LINE__, "no device, context or params for the jobs: %s", cisp_last_error());
		goto done;
	}
	for (int i = 0; i < 100; i++) {
		struct cisp_job job = { .num_inputs = 1, .input = { &in }, .output = { &out }, .params = params,
					.params_size = size };
		struct cisp_fence *fence = NULL;

		CHECK_EQ(cisp_job_submit(ctx, &job, &fence), 0);
		CHECK_EQ(fence ? cisp_fence_wait(fence, -1) || cisp_fence_error(fence) : -1, 0);
		cisp_fence_unref(fence);
		if (i == 0)
			fds = open_fds();
	}
	CHECK_EQ(open_fds(), fds);
	CHECK(fcntl(cisp_buffer_fd(memfd), F_GETFD) >= 0);
done:
	cisp_context_destroy(ctx);
	cisp_device_destroy(dev);
	cisp_image_free(&out);
	free(params);
	vk_frame_destroy(f);
	cisp_buffer_free(memfd);
	vk_gpu_close(g);
}

/*
 * A frame in a mapping that stands in for a V4L2 capture buffer's (the video
 * node's mapping, listed with the dma-buf the driver exported for it:
 * cisp_buffer_fd_view()): a memfd mapped on its own, read-only, at a data
 * offset, is imported by its fd where the device takes a memfd so, by its
 * address otherwise, bit-exact with cisp_unpack_rows(); freed, the view
 * leaves the mapping and the fd as they were, and the address is no longer
 * found.
 */
TEST(vulkan_dmabuf_fd_view)
{
	const uint32_t w = 132, h = 6, format = CISP_FMT_SGRBG12;
	const size_t page = (size_t)sysconf(_SC_PAGESIZE), stride = 264 + 8, data_offset = 12;
	const size_t length = (data_offset + stride * h + page - 1) / page * page;
	struct vk_gpu *g = open_gpu();
	struct cisp_buffer *memfd = random_memfd(length), *view = NULL;
	size_t offset;
	uint8_t *map;

	if (!memfd)
		goto done;
	map = mmap(NULL, length, PROT_READ, MAP_SHARED, cisp_buffer_fd(memfd), 0);
	CHECK(map != MAP_FAILED);
	if (map == MAP_FAILED)
		goto done;
	CHECK_EQ(cisp_buffer_fd_view(&view, map, length, cisp_buffer_fd(memfd)), 0);
	CHECK_EQ(cisp_buffer_fd_of(map + data_offset, stride * h, &offset), cisp_buffer_fd(memfd));
	CHECK_EQ(offset, data_offset);
	if (g && view) {
		const struct cisp_image img = { .format = format,
						.width = w,
						.height = h,
						.num_planes = 1,
						.plane = { { map + data_offset, stride } } };

		check_path(g, &img, BY_FD, true);
		check_path(g, &img, BY_ADDRESS, true);
	}
	cisp_buffer_free(view);
	CHECK_EQ(cisp_buffer_fd_of(map + data_offset, 1, &offset), -ENOENT);
	CHECK(fcntl(cisp_buffer_fd(memfd), F_GETFD) >= 0);
	CHECK_EQ(map[length - 1], ((uint8_t *)cisp_buffer_data(memfd))[length - 1]); /* still mapped */
	munmap(map, length);
done:
	cisp_buffer_free(memfd);
	vk_gpu_close(g);
}

/*
 * Whole frames through a device with CISP_ISP=vulkan from a memfd buffer,
 * at an odd offset with padded rows, against the software backend: the
 * outputs and statistics byte for byte; the same frame past what its memfd
 * holds fails the job.
 */
TEST(vulkan_dmabuf_device_bitexact)
{
	const uint32_t w = 132, h = 36;
	const struct cisp_isp_config cfg = { CISP_FMT_SBGGR10P, w, h, { { CISP_FMT_RGB888, w, h } }, NULL };
	struct vk_gpu *g = open_gpu();
	struct cisp_device *vk = NULL, *sw = NULL;
	struct cisp_image out[2] = { { 0 } };
	struct cisp_stats *stats = calloc(2, sizeof(*stats));
	struct cisp_buffer *memfd = NULL;
	struct cisp_param_state state;
	size_t row, rows, stride, size;

	if (!g)
		goto done;
	CHECK_EQ(cisp_image_plane_size(cfg.input_format, w, h, 0, &row, &rows), 0);
	stride = row + 7;
	size = 3 + stride * h;
	memfd = random_memfd(size);
	setenv("CISP_ISP", VULKAN_ISP_NAME, 1);
	CHECK_EQ(cisp_device_create(&vk, &(struct cisp_device_config){ .workers = 1 }), 0);
	unsetenv("CISP_ISP");
	CHECK_EQ(cisp_device_create(&sw, &(struct cisp_device_config){ .workers = 1 }), 0);
	CHECK_EQ(cisp_image_alloc(&out[0], CISP_FMT_RGB888, w, h), 0);
	CHECK_EQ(cisp_image_alloc(&out[1], CISP_FMT_RGB888, w, h), 0);
	if (!memfd || !vk || !sw)
		goto done;
	const struct cisp_image in = frame_in(memfd, cfg.input_format, w, h, 3, stride);

	cisp_param_state_init(&state);
	state.enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC) | CISP_BLOCK_BIT(CISP_BLOCK_WB) | CISP_BLOCK_BIT(CISP_BLOCK_STATS);
	state.blc.black[0] = state.blc.black[1] = state.blc.black[2] = state.blc.black[3] = 4096;
	state.blc.white = 64000;
	state.wb.gain[0] = 7800;
	state.wb.gain[3] = 6100;
	CHECK_EQ(test_device_frame(vk, &cfg, &state, &in, (struct cisp_image *[CISP_MAX_OUTPUTS]){ &out[0] }, &stats[0]),
		 0);
	CHECK_EQ(test_device_frame(sw, &cfg, &state, &in, (struct cisp_image *[CISP_MAX_OUTPUTS]){ &out[1] }, &stats[1]),
		 0);
	CHECK(test_same_pixels(&out[0], &out[1]));
	CHECK(!memcmp(&stats[0], &stats[1], sizeof(*stats)));
	/* The last row's last byte gone (rows are 7 bytes past their size). */
	CHECK_EQ(ftruncate(cisp_buffer_fd(memfd), (off_t)(size - 8)), 0);
	/* The job fails (the helper says -EIO for any failed job; the frame-level test reads the error). */
	CHECK_EQ(test_device_frame(vk, &cfg, &state, &in, (struct cisp_image *[CISP_MAX_OUTPUTS]){ &out[0] }, NULL),
		 -EIO);
	CHECK_EQ(ftruncate(cisp_buffer_fd(memfd), (off_t)size), 0);
done:
	cisp_image_free(&out[0]);
	cisp_image_free(&out[1]);
	cisp_buffer_free(memfd);
	free(stats);
	cisp_device_destroy(vk);
	cisp_device_destroy(sw);
	vk_gpu_close(g);
}
#else
TEST(vulkan_dmabuf_not_built)
{
	test_no_vulkan("the Vulkan backend's dma-buf import is", "this build has no Vulkan backend");
}
#endif
