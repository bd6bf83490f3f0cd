/* SPDX-License-Identifier: MIT */
/*
 * The kernel backend: contexts that run on a kernel ISP device, the virtual
 * canonical ISP of kernel/ (/dev/cisp-isp, docs/kernel-uapi.md). A device
 * made while the environment variable CISP_ISP names such a node gives its
 * contexts this backend instead of the software ISP, so every program on
 * the device API (cisp run, cispsrc, the device bench) runs on the kernel
 * unchanged.
 *
 * One frame is one CISP_IOC_SUBMIT: its images, its statistics buffer and
 * the params delta go to the kernel in that one call, which returns a
 * sync_file out-fence; the worker waits for it with poll(). The kernel
 * checks everything again and runs the same reference arithmetic, so the
 * results are the software ISP's bit for bit. A select-sharpest burst costs
 * one more call after the fence, CISP_IOC_JOB_RESULT, for the input the
 * kernel chose and the scores.
 *
 * The kernel takes images only as dma-bufs. The backend keeps one of the
 * device's buffers per input, output and statistics, mapped, and copies the
 * caller's images in and the results out; a program that allocated its
 * images in the device's buffers itself would not need the copies.
 *
 * Deltas: the device calls set_params() in every job's turn, also for jobs
 * that do not run (cancelled, dropped), so several deltas can arrive before
 * the next frame. The backend applies each to its own copy of the state and
 * sends the kernel, with the next frame, one delta of every block changed
 * since: the kernel's state stays the state the device defines.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/cisp-isp.h>
#include <linux/sync_file.h>

#include <cisp/format.h>
#include <cisp/params_state.h>

#include "core/error_internal.h"
#include "device/device_internal.h"

/* A dma-buf of the device, mapped. */
struct kernel_buffer {
	int fd;
	uint8_t *map;
	size_t size;
};

struct kernel_instance {
	int fd; /* the device node, one open file per context */
	uint32_t id; /* the kernel's context */
	struct cisp_isp_config config;
	struct cisp_params_limits limits;
	struct cisp_param_state state; /* after every delta the device applied */
	uint32_t changed; /* blocks changed since the last frame sent */
	void *delta; /* the delta sent with the next frame */
	size_t delta_capacity;
	struct kernel_buffer input[CISP_JOB_MAX_INPUTS];
	struct kernel_buffer output[CISP_MAX_OUTPUTS];
	struct kernel_buffer stats;
	char message[256];
};

static int buffer_alloc(struct kernel_instance *k, size_t size, struct kernel_buffer *b)
{
	struct cisp_isp_alloc a = { .size = size };

	if (ioctl(k->fd, CISP_IOC_ALLOC_BUFFER, &a))
		return cisp_error(-errno, "kernel ISP: cannot allocate a %zu-byte buffer: %s", size, strerror(errno));
	b->fd = a.fd;
	b->size = size;
	b->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
	if (b->map == MAP_FAILED) {
		int err = errno;

		close(a.fd);
		b->fd = -1;
		b->map = NULL;
		return cisp_error(-err, "kernel ISP: cannot map a buffer: %s", strerror(err));
	}
	return 0;
}

static void buffer_free(struct kernel_buffer *b)
{
	if (b->map)
		munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	b->map = NULL;
	b->fd = -1;
}

static void kernel_destroy(void *instance)
{
	struct kernel_instance *k = instance;

	if (!k)
		return;
	for (unsigned i = 0; i < CISP_JOB_MAX_INPUTS; i++)
		buffer_free(&k->input[i]);
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++)
		buffer_free(&k->output[o]);
	buffer_free(&k->stats);
	/* Closing the file destroys the kernel's context with it. */
	if (k->fd >= 0)
		close(k->fd);
	free(k->delta);
	free(k);
}

static int open_device(struct kernel_instance *k, const char *path)
{
	struct cisp_isp_caps caps;

	k->fd = open(path, O_RDWR | O_CLOEXEC);
	if (k->fd < 0)
		return cisp_error(-errno, "kernel ISP %s (CISP_ISP): cannot open it: %s", path, strerror(errno));
	if (ioctl(k->fd, CISP_IOC_QUERY_CAPS, &caps))
		return cisp_error(-errno, "kernel ISP %s: not a cisp-isp device (%s)", path, strerror(errno));
	if (caps.version != CISP_ISP_VERSION || caps.params_version != CISP_PARAMS_VERSION ||
	    caps.stats_size != sizeof(struct cisp_stats))
		return cisp_error(-EPROTO,
				  "kernel ISP %s: interface %u, params ABI %u, statistics of %u bytes; "
				  "this library speaks %u, %u and %zu",
				  path, caps.version, caps.params_version, caps.stats_size, CISP_ISP_VERSION,
				  CISP_PARAMS_VERSION, sizeof(struct cisp_stats));
	k->limits.blocks = caps.blocks;
	k->limits.demosaic_algorithms = caps.demosaic_algorithms;
	return 0;
}

static int create_context(struct kernel_instance *k, const struct cisp_isp_config *config, const char *path)
{
	struct cisp_isp_context c = { 0 };

	if (config->vendor)
		return cisp_error(-ENOTSUP, "kernel ISP %s runs no vendor stages", path);
	c.input = (struct cisp_isp_format){ config->input_format, config->width, config->height, 0 };
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++)
		c.output[o] = (struct cisp_isp_format){ config->output[o].format, config->output[o].width,
							config->output[o].height, 0 };
	c.message = (uintptr_t)k->message;
	c.message_size = sizeof(k->message);
	k->message[0] = '\0';
	if (ioctl(k->fd, CISP_IOC_CREATE_CONTEXT, &c))
		return cisp_error(-errno, "kernel ISP %s: %s", path, k->message[0] ? k->message : strerror(errno));
	k->id = c.id;
	return 0;
}

static int kernel_create(void **instance, const struct cisp_isp_config *config, void *opaque)
{
	const char *path = opaque;
	struct kernel_instance *k = calloc(1, sizeof(*k));
	int ret;

	if (!k)
		return cisp_error(-ENOMEM, "out of memory for a kernel ISP context");
	k->fd = -1;
	for (unsigned i = 0; i < CISP_JOB_MAX_INPUTS; i++)
		k->input[i].fd = -1;
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++)
		k->output[o].fd = -1;
	k->stats.fd = -1;
	k->config = *config;
	k->limits.width = config->width;
	k->limits.height = config->height;
	cisp_param_state_init(&k->state);
	ret = open_device(k, path);
	if (!ret)
		ret = create_context(k, config, path);
	for (unsigned o = 0; !ret && o < CISP_MAX_OUTPUTS; o++) {
		const struct cisp_output_config *oc = &config->output[o];

		if (oc->format)
			ret = buffer_alloc(k, cisp_image_packed_size(oc->format, oc->width, oc->height), &k->output[o]);
	}
	if (!ret)
		ret = buffer_alloc(k, sizeof(struct cisp_stats), &k->stats);
	if (ret) {
		kernel_destroy(k);
		return ret;
	}
	*instance = k;
	return 0;
}

static void kernel_limits(void *instance, struct cisp_params_limits *limits)
{
	*limits = ((struct kernel_instance *)instance)->limits;
}

static int kernel_check_params(void *instance, const void *buf, size_t size)
{
	return cisp_params_validate(buf, size, &((struct kernel_instance *)instance)->limits);
}

/* The block types a validated params buffer carries. */
static uint32_t blocks_of(const void *buf, size_t size)
{
	const uint8_t *p = buf;
	uint32_t mask = 0;

	for (size_t off = sizeof(struct cisp_params_header); off + sizeof(struct cisp_block_header) <= size;) {
		struct cisp_block_header h;

		memcpy(&h, p + off, sizeof(h));
		mask |= CISP_BLOCK_BIT(h.type);
		off += h.size;
	}
	return mask;
}

static int kernel_set_params(void *instance, const void *buf, size_t size)
{
	struct kernel_instance *k = instance;
	int ret = cisp_param_state_apply(&k->state, buf, size, &k->limits);

	if (!ret)
		k->changed |= blocks_of(buf, size);
	return ret;
}

/* Copy the rows of @from into @to: same format and size, any strides. */
static void copy_image(const struct cisp_image *from, const struct cisp_image *to)
{
	for (unsigned p = 0; p < from->num_planes; p++) {
		size_t row, rows;

		cisp_image_plane_size(from->format, from->width, from->height, p, &row, &rows);
		for (size_t y = 0; y < rows; y++)
			memcpy(to->plane[p].data + y * to->plane[p].stride,
			       from->plane[p].data + y * from->plane[p].stride, row);
	}
}

/* A tightly packed image in @b, and its description for the job. */
static void describe(struct kernel_buffer *b, uint32_t format, uint32_t width, uint32_t height, struct cisp_image *img,
		     struct cisp_isp_buffer *desc)
{
	cisp_image_wrap(img, format, width, height, b->map, cisp_image_packed_size(format, width, height));
	desc->fd = b->fd;
	desc->num_planes = img->num_planes;
	for (unsigned p = 0; p < img->num_planes; p++) {
		desc->plane[p].offset = (uint32_t)(img->plane[p].data - b->map);
		desc->plane[p].stride = (uint32_t)img->plane[p].stride;
	}
}

/* The delta of every block changed since the last frame, into k->delta; its size (0: none). */
static int encode_delta(struct kernel_instance *k, size_t *size)
{
	int ret;

	*size = 0;
	if (!k->changed)
		return 0;
	cisp_params_encode(&k->state, k->changed, NULL, 0, size);
	if (*size > k->delta_capacity) {
		void *p = realloc(k->delta, *size);

		if (!p)
			return cisp_error(-ENOMEM, "out of memory for a %zu-byte params delta", *size);
		k->delta = p;
		k->delta_capacity = *size;
	}
	ret = cisp_params_encode(&k->state, k->changed, k->delta, k->delta_capacity, size);
	return ret ? cisp_error_prefix(ret, "kernel ISP delta") : 0;
}

/* A finished select-sharpest job: which input the kernel processed, and every input's score, into @f. */
static int read_selection(struct kernel_instance *k, uint64_t sequence, struct cisp_device_frame *f)
{
	struct cisp_isp_job_result r = { .context = k->id, .sequence = sequence };

	if (ioctl(k->fd, CISP_IOC_JOB_RESULT, &r))
		return cisp_error(-errno, "kernel ISP: the result of job %llu: %s", (unsigned long long)sequence,
				  strerror(errno));
	if (r.selected >= f->num_inputs)
		return cisp_error(-EPROTO, "kernel ISP: job %llu chose input %u of %u", (unsigned long long)sequence,
				  r.selected, f->num_inputs);
	f->selected = r.selected;
	for (unsigned i = 0; i < CISP_JOB_MAX_INPUTS; i++)
		f->sharpness[i] = i < f->num_inputs ? r.sharpness[i] : 0;
	return 0;
}

/* Wait for the job's sync_file; 0 when it signalled ok, else its error. */
static int wait_fence(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	struct sync_file_info info = { 0 };

	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return cisp_error(-errno, "kernel ISP: waiting for the job's fence: %s", strerror(errno));
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return cisp_error(-errno, "kernel ISP: reading the job's fence: %s", strerror(errno));
	return info.status == 1 ? 0 : info.status < 0 ? info.status : -EIO;
}

static int kernel_process(void *instance, struct cisp_device_frame *f)
{
	struct kernel_instance *k = instance;
	const struct cisp_isp_config *c = &k->config;
	struct cisp_image staged[CISP_JOB_MAX_INPUTS + CISP_MAX_OUTPUTS];
	struct cisp_isp_job job = { 0 };
	size_t delta_size;
	int ret;

	job.context = k->id;
	job.mode = f->mode;
	job.num_inputs = f->num_inputs;
	for (unsigned i = 0; i < f->num_inputs; i++) {
		if (!k->input[i].map &&
		    (ret = buffer_alloc(k, cisp_image_packed_size(c->input_format, c->width, c->height), &k->input[i])))
			return ret;
		describe(&k->input[i], c->input_format, c->width, c->height, &staged[i], &job.input[i]);
		copy_image(f->input[i], &staged[i]);
		job.exposure[i] = f->mode == CISP_JOB_MERGE_HDR ? f->exposure[i] : 0;
	}
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++) {
		job.output[o].fd = -1;
		if (c->output[o].format)
			describe(&k->output[o], c->output[o].format, c->output[o].width, c->output[o].height,
				 &staged[CISP_JOB_MAX_INPUTS + o], &job.output[o]);
	}
	job.stats_fd = f->stats ? k->stats.fd : -1;
	if ((ret = encode_delta(k, &delta_size)))
		return ret;
	job.params = delta_size ? (uintptr_t)k->delta : 0;
	job.params_size = (uint32_t)delta_size;
	job.in_fence_fd = -1;
	job.message = (uintptr_t)k->message;
	job.message_size = sizeof(k->message);
	k->message[0] = '\0';
	if (ioctl(k->fd, CISP_IOC_SUBMIT, &job))
		return cisp_error(-errno, "kernel ISP: %s", k->message[0] ? k->message : strerror(errno));
	k->changed = 0;
	ret = wait_fence(job.out_fence_fd);
	close(job.out_fence_fd);
	if (ret) {
		struct cisp_isp_counters counters = { .context = k->id };

		ioctl(k->fd, CISP_IOC_COUNTERS, &counters);
		return cisp_error(ret, "kernel ISP: job %llu failed: %s", (unsigned long long)job.sequence,
				  counters.last_error[0] ? counters.last_error : strerror(-ret));
	}
	if (f->mode == CISP_JOB_SELECT_SHARPEST && (ret = read_selection(k, job.sequence, f)))
		return ret;
	for (unsigned o = 0; o < CISP_MAX_OUTPUTS; o++)
		if (f->output[o])
			copy_image(&staged[CISP_JOB_MAX_INPUTS + o], f->output[o]);
	if (f->stats)
		memcpy(f->stats, k->stats.map, sizeof(*f->stats));
	return 0;
}

void device_backend_kernel(struct cisp_device_backend *backend, const char *path)
{
	*backend = (struct cisp_device_backend){
		.name = "kernel",
		.create = kernel_create,
		.destroy = kernel_destroy,
		.check_params = kernel_check_params,
		.set_params = kernel_set_params,
		.process = kernel_process,
		.modes = (1u << CISP_JOB_SELECT_SHARPEST) | (1u << CISP_JOB_MERGE_HDR),
		.opaque = (void *)path,
		.limits = kernel_limits,
	};
}
