/* SPDX-License-Identifier: MIT */
/*
 * bench-vulkan-import: what loading a frame's input costs the Vulkan
 * backend on each path (docs/gpu.md, "A frame from a file descriptor"): a
 * 1920x1080 RAW10 frame in a memfd buffer, 1 byte past the fd's start and
 * 3 bytes before its end (the fd import takes whole words), imported by
 * its fd (where the device offers dma-buf import), by its
 * address, or copied, and released, 50 times a round, the paths in A B C C
 * B A order over 4 rounds so that a machine's drift weighs on each alike.
 * The load alone: no dispatch reads the input.
 *
 * Output: `PATH US` (microseconds per load, the mean of its rounds) for
 * each path the device takes, then its ratio to the address import, and
 * lines starting with '#' that say what ran.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cisp/buffer.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/image.h>

#include "device/vulkan_frame.h"

enum { BY_FD, BY_ADDRESS, COPIED, PATHS };

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
	static const char *const name[PATHS] = { "fd", "address", "copy" };
	static const int order[] = { 0, 1, 2, 2, 1, 0 };
	const uint32_t w = 1920, h = 1080, format = CISP_FMT_SRGGB10P;
	const int loads = 50, rounds = 4;
	double total[PATHS] = { 0 };
	struct cisp_buffer *buf = NULL;
	struct vk_frame *f = NULL;
	struct vk_gpu *g = NULL;
	size_t row, rows;
	int ret = 1;

	if (vk_gpu_open(&g) || cisp_image_plane_size(format, w, h, 0, &row, &rows) ||
	    cisp_buffer_memfd(&buf, 4 + row * rows, "bench-vulkan-import") || vk_frame_create(g, format, w, h, &f)) {
		fprintf(stderr, "bench-vulkan-import: %s\n", cisp_last_error());
		goto out;
	}
	memset(cisp_buffer_data(buf), 0x5a, 4 + row * rows);
	const struct cisp_image img = { .format = format,
					.width = w,
					.height = h,
					.num_planes = 1,
					.plane = { { (uint8_t *)cisp_buffer_data(buf) + 1, row } } };

	printf("# %s (%s): dma-buf import %s, host memory import %s\n", g->name, g->driver,
	       g->dma_buf ? "offered" : "not offered", g->host_import ? "offered" : "not offered");
	for (int r = 0; r < rounds; r++)
		for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
			const int p = order[k];
			struct vk_step step;
			double t0;

			f->import_input = p != COPIED;
			f->import_fd = p == BY_FD && g->dma_buf;
			vk_step_unpack(f, &step);
			t0 = seconds();
			for (int i = 0; i < loads; i++) {
				if (vk_frame_load(f, &img, &f->raw, &f->imported, f->set[0], &step)) {
					fprintf(stderr, "bench-vulkan-import: %s\n", cisp_last_error());
					goto out;
				}
				vk_frame_release_input(f);
			}
			total[p] += seconds() - t0;
		}
	printf("# loads: %lu by fd, %lu by address, the rest copied\n", f->fd_imports, f->imports);
	for (int p = 0; p < PATHS; p++)
		if ((p != BY_FD || g->dma_buf) && (p != BY_ADDRESS || g->host_import))
			printf("%s %.1f us, %.2f x the address import\n", name[p], total[p] / (2.0 * rounds * loads) * 1e6,
			       total[p] / total[BY_ADDRESS]);
	ret = 0;
out:
	vk_frame_destroy(f);
	cisp_buffer_free(buf);
	vk_gpu_close(g);
	return ret;
}
