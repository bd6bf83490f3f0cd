/* SPDX-License-Identifier: MIT */
/*
 * cisp-kernel-vm-test: the virtual canonical ISP (kernel/, cisp_isp.ko)
 * inside the VM of tests/vm/run.sh, through its job ioctl
 * (kernel/include/uapi/linux/cisp-isp.h). It needs the module loaded; on a
 * machine without it, it says so and fails.
 *
 *   cisp-kernel-vm-test [check [FRAMES] | measure [FRAMES] | validate-user N |
 *                        syscalls-uapi N | syscalls-v4l2 N]
 *
 * check (the default): the capabilities against the library's; jobs
 * bit-exact with the CPU backend, the device API on the software ISP (1000
 * small frames with params deltas that change every block, larger frames,
 * brackets, bursts, and the stages with the biggest working memory); the
 * input a burst chose (CISP_IOC_JOB_RESULT) and bursts through the device
 * API's kernel backend, both the CPU backend's; hostile arguments and params, each refused with
 * its errno and a message naming what was wrong; fence chains and merged
 * fences; errors and cancellation running down a chain; the queue limit;
 * another driver's fences (vgem's) as in-fences, the fence timeout, and a
 * buffer another driver is still writing;
 * earliest-deadline-first order across contexts and priority between equal
 * deadlines; a process killed with jobs in flight; frames through the V4L2
 * nodes bit-exact with the library; nothing in the kernel log at warning
 * level or above.
 *
 * measure: figures for docs/kernel-uapi.md, printed as "@@ figure" lines:
 * the submit-to-signal latency of small jobs through the job ioctl and
 * through the V4L2 nodes, and the cost of validating a full (about 300 KB)
 * parameter state in the kernel and in user space.
 *
 * validate-user N: the user-space validation of the full state alone, on
 * any machine (no module needed), to compare with the figures above.
 *
 * syscalls-uapi N, syscalls-v4l2 N: N small frames through each interface
 * in its steady-state loop and nothing else, for strace -c to count the
 * system calls per frame (tests/vm/run.sh).
 *
 * Output: "ok ..." / "FAIL ..." lines and a final "RESULT pass|fail".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/cisp-isp.h>
#include <linux/dma-buf.h>
#include <linux/sync_file.h>
#include <linux/videodev2.h>

#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/stats.h>

#include "expect.h"

#define DEVICE "/dev/cisp-isp"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t rng = 12345;

static uint32_t rnd(uint32_t n)
{
	rng = rng * 1664525u + 1013904223u;
	return (uint32_t)(((uint64_t)(rng >> 8) * n) >> 24);
}

/* ---- the device ---------------------------------------------------------- */

/* A dma-buf of the device, mapped. */
struct kbuf {
	int fd;
	uint8_t *map;
	size_t size;
};

static int kbuf_alloc(int dev, size_t size, struct kbuf *b)
{
	struct cisp_isp_alloc a = { .size = size };

	if (ioctl(dev, CISP_IOC_ALLOC_BUFFER, &a))
		return -errno;
	b->fd = a.fd;
	b->size = (size + 4095) & ~(size_t)4095;
	b->map = mmap(NULL, b->size, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
	if (b->map == MAP_FAILED) {
		close(a.fd);
		return -errno;
	}
	return 0;
}

static void kbuf_free(struct kbuf *b)
{
	if (b->map && b->map != MAP_FAILED)
		munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

/* An image in a tightly packed dma-buf, with its descriptor for jobs. */
struct kimage {
	struct kbuf buf;
	struct cisp_image img;
	struct cisp_isp_buffer desc;
};

static int kimage_alloc(int dev, uint32_t format, uint32_t width, uint32_t height, struct kimage *k)
{
	size_t size = cisp_image_packed_size(format, width, height);
	int ret = kbuf_alloc(dev, size, &k->buf);

	if (ret)
		return ret;
	ret = cisp_image_wrap(&k->img, format, width, height, k->buf.map, size);
	if (ret)
		return ret;
	memset(&k->desc, 0, sizeof(k->desc));
	k->desc.fd = k->buf.fd;
	k->desc.num_planes = k->img.num_planes;
	for (unsigned p = 0; p < k->img.num_planes; p++) {
		k->desc.plane[p].offset = (uint32_t)(k->img.plane[p].data - k->buf.map);
		k->desc.plane[p].stride = (uint32_t)k->img.plane[p].stride;
	}
	return 0;
}

static void kimage_free(struct kimage *k)
{
	kbuf_free(&k->buf);
}

static char message[256];

static int create_context_flags(int dev, const struct cisp_isp_config *ic, int priority, uint32_t queue_limit,
				uint32_t flags, uint32_t *id)
{
	struct cisp_isp_context c = { 0 };

	c.input = (struct cisp_isp_format){ ic->input_format, ic->width, ic->height, 0 };
	for (int i = 0; i < CISP_MAX_OUTPUTS; i++)
		c.output[i] = (struct cisp_isp_format){ ic->output[i].format, ic->output[i].width,
							ic->output[i].height, 0 };
	c.priority = priority;
	c.queue_limit = queue_limit;
	c.flags = flags;
	c.message = (uintptr_t)message;
	c.message_size = sizeof(message);
	message[0] = '\0';
	if (ioctl(dev, CISP_IOC_CREATE_CONTEXT, &c))
		return -errno;
	*id = c.id;
	return 0;
}

static int create_context(int dev, const struct cisp_isp_config *ic, int priority, uint32_t queue_limit,
			  uint32_t *id)
{
	return create_context_flags(dev, ic, priority, queue_limit, 0, id);
}

static void destroy_context(int dev, uint32_t id)
{
	ioctl(dev, CISP_IOC_DESTROY_CONTEXT, &id);
}

/* A job description with no buffers: fds -1. */
static void job_init(struct cisp_isp_job *j, uint32_t ctx)
{
	memset(j, 0, sizeof(*j));
	j->context = ctx;
	j->num_inputs = 1;
	for (int i = 0; i < CISP_ISP_MAX_INPUTS; i++)
		j->input[i].fd = -1;
	for (int i = 0; i < CISP_ISP_MAX_OUTPUTS; i++)
		j->output[i].fd = -1;
	j->stats_fd = -1;
	j->in_fence_fd = -1;
	j->out_fence_fd = -1;
	j->message = (uintptr_t)message;
	j->message_size = sizeof(message);
}

static int submit(int dev, struct cisp_isp_job *j)
{
	message[0] = '\0';
	return ioctl(dev, CISP_IOC_SUBMIT, j) ? -errno : 0;
}

/* Wait for a sync_file; its status (1 ok, negative errno), or 0 if still pending after @timeout_ms. */
static int fence_wait(int fd, int timeout_ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	struct sync_file_info info = { 0 };

	if (poll(&p, 1, timeout_ms) <= 0)
		return 0;
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return -errno;
	return info.status;
}

/* The signal time of a signalled sync_file (its only fence's time stamp). */
static uint64_t fence_time(int fd)
{
	struct sync_fence_info fi = { 0 };
	struct sync_file_info info = { .num_fences = 1, .sync_fence_info = (uintptr_t)&fi };

	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return 0;
	return fi.timestamp_ns;
}

static int counters(int dev, uint32_t ctx, struct cisp_isp_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->context = ctx;
	return ioctl(dev, CISP_IOC_COUNTERS, c) ? -errno : 0;
}

/* ---- states and frames ------------------------------------------------- */

static uint16_t rnd_range(uint32_t lo, uint32_t hi)
{
	return (uint16_t)(lo + rnd(hi - lo + 1));
}

/* A random window of @w x @h (even, at least 8x8) lying in a @width x @height frame. */
static void random_window(uint32_t width, uint32_t height, uint16_t *x, uint16_t *y, uint16_t *w, uint16_t *h)
{
	*w = (uint16_t)(2 * rnd_range(4, width / 2));
	*h = (uint16_t)(2 * rnd_range(4, height / 2));
	*x = (uint16_t)(2 * rnd((width - *w) / 2 + 1));
	*y = (uint16_t)(2 * rnd((height - *h) / 2 + 1));
}

/* Change block @type of @s to random valid values for a @width x @height frame. */
static void vary_block(struct cisp_param_state *s, unsigned type, uint32_t width, uint32_t height)
{
	switch (type) {
	case CISP_BLOCK_BLC:
		s->blc.white = rnd_range(40000, 65535);
		for (int c = 0; c < 4; c++)
			s->blc.black[c] = rnd_range(0, 4096);
		break;
	case CISP_BLOCK_DPC:
		s->dpc.threshold = rnd_range(0, 8000);
		s->dpc.count = rnd_range(0, 40);
		for (unsigned i = 0, key = rnd(100); i < s->dpc.count; i++, key += 1 + rnd(60)) {
			s->dpc.pixels[i].x = (uint16_t)(key % width);
			s->dpc.pixels[i].y = (uint16_t)(key / width % height);
		}
		/* Keys past the last row wrapped: keep the sorted prefix. */
		for (unsigned i = 1; i < s->dpc.count; i++)
			if (s->dpc.pixels[i].y < s->dpc.pixels[i - 1].y)
				s->dpc.count = (uint16_t)i;
		break;
	case CISP_BLOCK_NOISE:
		for (int c = 0; c < 4; c++) {
			s->noise.a[c] = rnd(1u << 20);
			s->noise.b[c] = rnd(20000);
		}
		break;
	case CISP_BLOCK_BNR:
		s->bnr.strength = rnd_range(0, 1024);
		s->bnr.mode = rnd_range(0, 1);
		break;
	case CISP_BLOCK_LSC:
		s->lsc.grid_w = rnd_range(2, 17);
		s->lsc.grid_h = rnd_range(2, 13);
		memset(s->lsc.gain, 0, sizeof(s->lsc.gain));
		for (int i = 0; i < 4 * s->lsc.grid_w * s->lsc.grid_h; i++)
			s->lsc.gain[i] = rnd_range(3000, 12000);
		break;
	case CISP_BLOCK_WB:
		for (int c = 0; c < 4; c++)
			s->wb.gain[c] = rnd_range(3000, 12000);
		break;
	case CISP_BLOCK_DEMOSAIC:
		s->demosaic.algorithm = rnd_range(0, 1);
		s->demosaic.false_colour = rnd_range(0, 256);
		break;
	case CISP_BLOCK_CCM:
		for (int i = 0; i < 9; i++)
			s->ccm.coeff[i] = (int16_t)((int)rnd(2 * 8000 + 1) - 8000 + (i % 4 ? 0 : 4096));
		for (int i = 0; i < 3; i++)
			s->ccm.offset[i] = (int32_t)rnd(4001) - 2000;
		break;
	case CISP_BLOCK_TONE:
		s->tone.transfer = rnd_range(0, 2);
		for (int i = 0, v = 0; i < CISP_TONE_POINTS; i++, v += rnd(400))
			s->tone.curve[i] = (uint16_t)(v > 65535 ? 65535 : v);
		break;
	case CISP_BLOCK_LUT3D:
		memset(s->lut3d.table, 0, sizeof(s->lut3d.table));
		s->lut3d.size = rnd_range(2, 9);
		for (int i = 0; i < s->lut3d.size * s->lut3d.size * s->lut3d.size; i++)
			for (int c = 0; c < 3; c++)
				s->lut3d.table[i][c] = (uint16_t)rnd(65536);
		break;
	case CISP_BLOCK_SHARPEN:
		s->sharpen.strength = rnd_range(0, 2048);
		s->sharpen.coring = rnd_range(0, 2000);
		s->sharpen.limit = rnd_range(0, 65535);
		break;
	case CISP_BLOCK_CSC:
		s->csc.matrix = rnd_range(0, 2);
		s->csc.range = rnd_range(0, 1);
		break;
	case CISP_BLOCK_CROP:
		s->crop_enabled = rnd(4);
		for (int o = 0; o < CISP_MAX_OUTPUTS; o++)
			random_window(width, height, &s->crop[o].x, &s->crop[o].y, &s->crop[o].width,
				      &s->crop[o].height);
		break;
	case CISP_BLOCK_STATS:
		s->stats.zones_x = rnd_range(1, 32);
		s->stats.zones_y = rnd_range(1, 32);
		s->stats.saturation = rnd_range(30000, 65535);
		s->stats.af_count = rnd_range(0, CISP_STATS_MAX_AF);
		memset(s->stats.af, 0, sizeof(s->stats.af));
		for (int i = 0; i < s->stats.af_count; i++)
			random_window(width, height, &s->stats.af[i].x, &s->stats.af[i].y, &s->stats.af[i].width,
				      &s->stats.af[i].height);
		s->stats.row_group = rnd_range(0, 15);
		break;
	case CISP_BLOCK_CNR:
		s->cnr.strength = rnd_range(0, 4096);
		s->cnr.luma_strength = rnd_range(1, 4096);
		s->cnr.radius = rnd_range(1, CISP_CNR_MAX_RADIUS);
		break;
	}
	/* Stages that can be switched, on or off at random. */
	if (type != CISP_BLOCK_NOISE && type != CISP_BLOCK_CROP && type != CISP_BLOCK_DEMOSAIC &&
	    type != CISP_BLOCK_CSC) {
		if (rnd(4))
			s->enabled |= CISP_BLOCK_BIT(type);
		else
			s->enabled &= ~CISP_BLOCK_BIT(type);
	}
}

/* A raw frame: a smooth scene with edges and noise, different for each @seed. */
static void fill_raw(struct cisp_image *img, uint32_t seed)
{
	const struct cisp_format_info *f = cisp_format_info(img->format);
	const uint32_t max = (1u << f->bits) - 1;

	rng = seed * 2654435761u + 1;
	for (uint32_t y = 0; y < img->height; y++) {
		uint8_t *row8 = img->plane[0].data + y * img->plane[0].stride;
		uint16_t *row16 = (uint16_t *)row8;

		for (uint32_t x = 0; x < img->width; x++) {
			uint32_t v = (x * 7 + y * 3 + seed * 11) % (max + 1);

			if (((x / 8) + (y / 8) + seed) % 5 == 0)
				v = max - v / 2;
			v += rnd(max / 16 + 1);
			if (v > max)
				v = max;
			if (f->bits > 8)
				row16[x] = (uint16_t)v;
			else
				row8[x] = (uint8_t)v;
		}
	}
}

/* An image whose planes follow each other with no padding, as the dma-bufs hold them (free plane 0). */
static void packed_alloc(struct cisp_image *img, uint32_t format, uint32_t width, uint32_t height)
{
	size_t size = cisp_image_packed_size(format, width, height);

	cisp_image_wrap(img, format, width, height, malloc(size), size);
}

static size_t image_bytes(const struct cisp_image *img)
{
	size_t total = 0, row, rows;

	for (unsigned p = 0; p < img->num_planes; p++) {
		cisp_image_plane_size(img->format, img->width, img->height, p, &row, &rows);
		total += row * rows;
	}
	return total;
}

/* ---- checks ---------------------------------------------------------------- */

static void check_caps(int dev)
{
	const struct cisp_isp_config ic = { CISP_FMT_SRGGB10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL };
	struct cisp_params_limits limits;
	struct cisp_isp_caps caps;
	struct cisp_isp *isp;
	unsigned bayer = 0;

	EXPECT(ioctl(dev, CISP_IOC_QUERY_CAPS, &caps) == 0, "CISP_IOC_QUERY_CAPS");
	cisp_isp_create(&isp, &ic);
	cisp_isp_limits(isp, &limits);
	cisp_isp_destroy(isp);
	EXPECT(caps.version == CISP_ISP_VERSION && caps.params_version == CISP_PARAMS_VERSION &&
		       caps.stats_version == CISP_STATS_VERSION && caps.stats_size == sizeof(struct cisp_stats),
	       "caps: interface %u, params ABI %u, stats ABI %u of %u bytes", caps.version, caps.params_version,
	       caps.stats_version, caps.stats_size);
	EXPECT(caps.blocks == limits.blocks && caps.demosaic_algorithms == limits.demosaic_algorithms,
	       "caps: blocks 0x%x and demosaic algorithms 0x%x are the library's (0x%x, 0x%x)", caps.blocks,
	       caps.demosaic_algorithms, limits.blocks, limits.demosaic_algorithms);
	for (unsigned i = 0; i < caps.num_input_formats; i++)
		if (cisp_format_info(caps.input_formats[i]) &&
		    cisp_format_info(caps.input_formats[i])->kind == CISP_KIND_BAYER)
			bayer++;
	EXPECT(caps.num_input_formats == 28 && bayer == 28 && caps.num_output_formats == 5,
	       "caps: %u Bayer input formats, %u output formats", bayer, caps.num_output_formats);
	EXPECT(caps.job_modes == 7 && caps.pipes == 1 && caps.max_params_size == CISP_PARAMS_MAX_SIZE,
	       "caps: job modes 0x%x, %u pipe, params up to %u bytes", caps.job_modes, caps.pipes,
	       caps.max_params_size);
}

/* One configuration run @frames times through the kernel and the library, each job with a random delta. */
struct bitexact {
	struct cisp_isp_config ic;
	unsigned frames;
	uint32_t blocks;      /* the blocks the deltas may change */
	unsigned mode;        /* enum cisp_job_mode */
	unsigned num_inputs;
	const char *name;
};

/* @job as the device API's job on the CPU backend's context @cpu; waits for it. 0 or its error. */
static int cpu_job(struct cisp_context *cpu, const struct bitexact *t, const struct cisp_isp_job *job,
		   const struct kimage *in, struct cisp_image *const outs[CISP_MAX_OUTPUTS], struct cisp_stats *stats,
		   const void *delta, size_t size, struct cisp_job_result *result)
{
	struct cisp_job j = { .mode = t->mode, .num_inputs = t->num_inputs, .stats = stats, .params = delta,
			      .params_size = size, .result = result };
	struct cisp_fence *done;
	int ret;

	for (unsigned i = 0; i < t->num_inputs; i++) {
		j.input[i] = &in[i].img;
		j.exposure[i] = job->exposure[i];
	}
	for (int o = 0; o < CISP_MAX_OUTPUTS; o++)
		j.output[o] = outs[o];
	ret = cisp_job_submit(cpu, &j, &done);
	if (ret)
		return ret;
	ret = cisp_fence_wait(done, -1);
	cisp_fence_unref(done);
	return ret;
}

/* CISP_IOC_JOB_RESULT of job @sequence of context @ctx into @r: 0 or -errno. */
static int job_result(int dev, uint32_t ctx, uint64_t sequence, struct cisp_isp_job_result *r)
{
	memset(r, 0, sizeof(*r));
	r->context = ctx;
	r->sequence = sequence;
	return ioctl(dev, CISP_IOC_JOB_RESULT, r) ? -errno : 0;
}

/* Whether the kernel's choice and scores of a burst are the CPU backend's. */
static bool same_selection(const struct cisp_isp_job_result *k, const struct cisp_job_result *cpu, unsigned n)
{
	if (k->status || k->selected != cpu->selected)
		return false;
	for (unsigned i = 0; i < n; i++)
		if (k->sharpness[i] != cpu->sharpness[i])
			return false;
	return true;
}

static int run_bitexact(int dev, const struct bitexact *t)
{
	struct kimage in[CISP_JOB_MAX_INPUTS], out[CISP_MAX_OUTPUTS], cpu_out[CISP_MAX_OUTPUTS];
	struct cisp_param_state *state = malloc(sizeof(*state)), *prev = malloc(sizeof(*prev));
	struct cisp_stats *cpu_stats = malloc(sizeof(*cpu_stats));
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { NULL }, *cpu_outs[CISP_MAX_OUTPUTS] = { NULL };
	struct cisp_device *cpu_dev = NULL;
	struct cisp_context *cpu = NULL;
	struct kbuf stats = { .fd = -1 };
	unsigned mismatches = 0, failed = 0, with_delta = 0;
	uint32_t chosen = 0; /* bit i: a burst chose input i */
	size_t delta_bytes = 0;
	uint32_t ctx;
	int ret;

	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	memset(cpu_out, 0, sizeof(cpu_out));
	ret = create_context(dev, &t->ic, 0, 0, &ctx);
	if (ret) {
		EXPECT(0, "%s: context: %s (%s)", t->name, strerror(-ret), message);
		return ret;
	}
	/* The CPU backend: the device API on the software ISP, as a program uses it. */
	cisp_device_create(&cpu_dev, &(struct cisp_device_config){ .workers = 1 });
	cisp_context_create(&cpu, cpu_dev, &(struct cisp_context_config){ .name = "cpu", .isp = t->ic });
	cisp_param_state_init(state);
	*prev = *state;
	for (unsigned i = 0; i < t->num_inputs; i++)
		kimage_alloc(dev, t->ic.input_format, t->ic.width, t->ic.height, &in[i]);
	for (int o = 0; o < CISP_MAX_OUTPUTS; o++) {
		const struct cisp_output_config *oc = &t->ic.output[o];

		if (!oc->format)
			continue;
		kimage_alloc(dev, oc->format, oc->width, oc->height, &out[o]);
		packed_alloc(&cpu_out[o].img, oc->format, oc->width, oc->height);
		outs[o] = &out[o].img;
		cpu_outs[o] = &cpu_out[o].img;
	}
	kbuf_alloc(dev, sizeof(struct cisp_stats), &stats);

	for (unsigned n = 0; n < t->frames; n++) {
		struct cisp_isp_job job;
		struct cisp_job_result cpu_result;
		struct cisp_isp_job_result result;
		void *delta = NULL;
		size_t size = 0;
		uint32_t diff;
		int status;

		rng = n * 7919u + 17;
		for (unsigned k = 0; k < 3; k++) {
			unsigned type = 1 + rnd(CISP_BLOCK_TYPE_COUNT - 1);

			if (t->blocks & CISP_BLOCK_BIT(type))
				vary_block(state, type, t->ic.width, t->ic.height);
		}
		diff = cisp_params_diff(prev, state);
		if (diff) {
			cisp_params_encode(state, diff, NULL, 0, &size);
			delta = malloc(size);
			if (cisp_params_encode(state, diff, delta, size, &size)) {
				EXPECT(0, "%s: frame %u: delta: %s", t->name, n, cisp_last_error());
				free(delta);
				break;
			}
			with_delta++;
			delta_bytes += size;
		}
		*prev = *state;
		for (unsigned i = 0; i < t->num_inputs; i++)
			fill_raw(&in[i].img, n * CISP_JOB_MAX_INPUTS + i);

		job_init(&job, ctx);
		job.mode = t->mode;
		job.num_inputs = t->num_inputs;
		for (unsigned i = 0; i < t->num_inputs; i++) {
			job.input[i] = in[i].desc;
			if (t->mode == CISP_JOB_MERGE_HDR)
				job.exposure[i] = 1u << (2 * i);
		}
		for (int o = 0; o < CISP_MAX_OUTPUTS; o++)
			if (outs[o])
				job.output[o] = out[o].desc;
		job.stats_fd = stats.fd;
		job.params = (uintptr_t)delta;
		job.params_size = (uint32_t)size;
		ret = submit(dev, &job);
		if (ret) {
			EXPECT(0, "%s: frame %u: submit: %s (%s)", t->name, n, strerror(-ret), message);
			free(delta);
			break;
		}
		/* The same job on the CPU backend, which works while the kernel does. */
		ret = cpu_job(cpu, t, &job, in, cpu_outs, cpu_stats, delta, size, &cpu_result);
		free(delta);
		status = fence_wait(job.out_fence_fd, 60000);
		close(job.out_fence_fd);
		if (status != 1 || ret) {
			if (failed++ < 3)
				EXPECT(0, "%s: frame %u: kernel status %d, library %d (%s)", t->name, n, status, ret,
				       cisp_last_error());
			continue;
		}
		if (t->mode == CISP_JOB_SELECT_SHARPEST) {
			ret = job_result(dev, ctx, job.sequence, &result);
			if (ret || !same_selection(&result, &cpu_result, t->num_inputs)) {
				if (mismatches++ < 3)
					EXPECT(0, "%s: frame %u: kernel chose input %u (%s), the library %u", t->name, n,
					       result.selected, ret ? strerror(-ret) : "read", cpu_result.selected);
			}
			chosen |= 1u << cpu_result.selected;
		}
		for (int o = 0; o < CISP_MAX_OUTPUTS; o++) {
			if (outs[o] && memcmp(out[o].buf.map, cpu_out[o].img.plane[0].data, image_bytes(outs[o]))) {
				if (mismatches++ < 3)
					EXPECT(0, "%s: frame %u: output %d differs from the library's", t->name, n, o);
			}
		}
		if (memcmp(stats.map, cpu_stats, sizeof(*cpu_stats)) && mismatches++ < 3)
			EXPECT(0, "%s: frame %u: statistics differ from the library's", t->name, n);
	}
	EXPECT(!mismatches && !failed,
	       "%s: %u jobs (%u with a params delta, %zu bytes of deltas) bit-exact with the CPU backend",
	       t->name, t->frames, with_delta, delta_bytes);
	/* A burst test in which one input always wins would not show the choice is read back. */
	if (t->mode == CISP_JOB_SELECT_SHARPEST)
		EXPECT(__builtin_popcount(chosen) >= 2,
		       "%s: the kernel's choice (CISP_IOC_JOB_RESULT) is the library's; inputs chosen: mask 0x%x",
		       t->name, chosen);
	for (unsigned i = 0; i < t->num_inputs; i++)
		kimage_free(&in[i]);
	for (int o = 0; o < CISP_MAX_OUTPUTS; o++) {
		kimage_free(&out[o]);
		free(cpu_out[o].img.plane[0].data);
	}
	kbuf_free(&stats);
	cisp_device_destroy(cpu_dev);
	destroy_context(dev, ctx);
	free(state);
	free(prev);
	free(cpu_stats);
	return mismatches || failed ? -1 : 0;
}

static void check_bitexact(int dev, unsigned frames)
{
	const uint32_t all = ((1u << CISP_BLOCK_TYPE_COUNT) - 2);
	const struct bitexact runs[] = {
		{ { CISP_FMT_SGRBG12, 32, 32, { { CISP_FMT_NV12, 32, 32 }, { CISP_FMT_RGB888, 16, 16 } }, NULL },
		  frames, all, CISP_JOB_SINGLE, 1, "32x32 SGRBG12 -> NV12 + RGB888 16x16" },
		{ { CISP_FMT_SRGGB10P, 320, 240, { { CISP_FMT_I420, 320, 240 }, { CISP_FMT_XBGR32, 160, 120 } }, NULL },
		  6, all, CISP_JOB_SINGLE, 1, "320x240 SRGGB10P -> I420 + XBGR32" },
		{ { CISP_FMT_SBGGR16, 96, 64, { { CISP_FMT_RGB48, 96, 64 } }, NULL }, 8, all, CISP_JOB_MERGE_HDR, 3,
		  "96x64 SBGGR16 bracket of 3 -> RGB48" },
		{ { CISP_FMT_SGBRG10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL }, 8, all, CISP_JOB_SELECT_SHARPEST, 4,
		  "64x48 SGBRG10 sharpest of a burst of 4 -> NV12" },
	};

	for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		run_bitexact(dev, &runs[i]);
}

/* The same expensive state for the stages with the largest working memory, at 320x240 and in every mode. */
static void check_heavy(int dev)
{
	const struct cisp_isp_config ic = { CISP_FMT_SGBRG10, 320, 240, { { CISP_FMT_NV12, 320, 240 } }, NULL };
	struct cisp_param_state *s = malloc(sizeof(*s));
	struct kimage in, out;
	struct cisp_image ref;
	struct cisp_isp *cpu;
	struct cisp_isp_job job;
	uint32_t ctx;
	void *buf;
	size_t size;
	int status;

	cisp_param_state_init(s);
	s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_CNR) |
		      CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN) | CISP_BLOCK_BIT(CISP_BLOCK_LSC) |
		      CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	s->bnr.mode = CISP_BNR_QUALITY;
	s->bnr.strength = 400;
	s->cnr.radius = CISP_CNR_MAX_RADIUS;
	s->cnr.strength = 2000;
	s->demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
	s->dpc.threshold = 2000;
	cisp_params_encode(s, ~0u, NULL, 0, &size);
	buf = malloc(size);
	cisp_params_encode(s, ~0u, buf, size, &size);
	if (create_context(dev, &ic, 0, 0, &ctx)) {
		EXPECT(0, "heavy: context: %s", message);
		return;
	}
	kimage_alloc(dev, ic.input_format, ic.width, ic.height, &in);
	kimage_alloc(dev, CISP_FMT_NV12, 320, 240, &out);
	fill_raw(&in.img, 99);
	job_init(&job, ctx);
	job.input[0] = in.desc;
	job.output[0] = out.desc;
	job.params = (uintptr_t)buf;
	job.params_size = (uint32_t)size;
	EXPECT(submit(dev, &job) == 0, "heavy: submit a frame with quality BNR and demosaic, CNR radius 8");
	status = fence_wait(job.out_fence_fd, 120000);
	close(job.out_fence_fd);
	cisp_isp_create(&cpu, &ic);
	cisp_isp_set_params(cpu, buf, size);
	packed_alloc(&ref, CISP_FMT_NV12, 320, 240);
	cisp_isp_process(cpu, &in.img, (struct cisp_image *[]){ &ref, NULL }, NULL, NULL);
	EXPECT(status == 1 && !memcmp(out.buf.map, ref.plane[0].data, image_bytes(&ref)),
	       "heavy: status %d, output bit-exact with the library", status);
	free(ref.plane[0].data);
	cisp_isp_destroy(cpu);
	kimage_free(&in);
	kimage_free(&out);
	destroy_context(dev, ctx);
	free(buf);
	free(s);
}

/*
 * A job that keeps the pipe busy for a while (about a second under the
 * VM's emulation): a VGA frame through the most expensive stages. Jobs
 * that must be waiting together wait for its fence.
 */
struct gate {
	uint32_t ctx;
	struct kimage in, out;
	void *params;
	size_t size;
};

static int gate_open(int dev, struct gate *g)
{
	const struct cisp_isp_config ic = { CISP_FMT_SRGGB12, 640, 480, { { CISP_FMT_NV12, 640, 480 } }, NULL };
	struct cisp_param_state *s = malloc(sizeof(*s));
	int ret;

	cisp_param_state_init(s);
	s->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BNR) | CISP_BLOCK_BIT(CISP_BLOCK_CNR);
	s->bnr.mode = CISP_BNR_QUALITY;
	s->demosaic.algorithm = CISP_DEMOSAIC_QUALITY;
	cisp_params_encode(s, ~0u, NULL, 0, &g->size);
	g->params = malloc(g->size);
	cisp_params_encode(s, ~0u, g->params, g->size, &g->size);
	free(s);
	ret = create_context(dev, &ic, 0, 0, &g->ctx);
	if (!ret)
		ret = kimage_alloc(dev, ic.input_format, 640, 480, &g->in);
	if (!ret)
		ret = kimage_alloc(dev, CISP_FMT_NV12, 640, 480, &g->out);
	if (!ret)
		fill_raw(&g->in.img, 5);
	return ret;
}

/* Submit the gate's job; its out-fence, or -1. */
static int gate_fence(int dev, struct gate *g)
{
	struct cisp_isp_job job;

	job_init(&job, g->ctx);
	job.input[0] = g->in.desc;
	job.output[0] = g->out.desc;
	job.params = (uintptr_t)g->params;
	job.params_size = (uint32_t)g->size;
	return submit(dev, &job) ? -1 : job.out_fence_fd;
}

static void gate_close(int dev, struct gate *g)
{
	destroy_context(dev, g->ctx);
	kimage_free(&g->in);
	kimage_free(&g->out);
	free(g->params);
}

/* A small context and its buffers, for the tests that only look at fences and errors. */
struct small {
	uint32_t ctx;
	struct kimage in, out;
	struct kbuf stats; /* for the measurements, which compare with V4L2 frames that have statistics */
};

static const struct cisp_isp_config small_config = { CISP_FMT_SRGGB8, 32, 32, { { CISP_FMT_RGB888, 32, 32 } }, NULL };

static int small_open(int dev, struct small *s, int priority, uint32_t queue_limit)
{
	int ret = create_context(dev, &small_config, priority, queue_limit, &s->ctx);

	if (!ret)
		ret = kimage_alloc(dev, small_config.input_format, 32, 32, &s->in);
	if (!ret)
		ret = kimage_alloc(dev, small_config.output[0].format, 32, 32, &s->out);
	s->stats.fd = -1;
	return ret;
}

static void small_job(struct cisp_isp_job *j, const struct small *s)
{
	job_init(j, s->ctx);
	j->input[0] = s->in.desc;
	j->output[0] = s->out.desc;
}

static void small_close(int dev, struct small *s)
{
	destroy_context(dev, s->ctx);
	kimage_free(&s->in);
	kimage_free(&s->out);
	if (s->stats.fd >= 0)
		kbuf_free(&s->stats);
}

/* A submission that must fail with @err and a message containing @needle. */
static void expect_refused(int dev, struct cisp_isp_job *j, int err, const char *needle, const char *what)
{
	int ret = submit(dev, j);

	EXPECT(ret == -err && (!needle || strstr(message, needle)), "refused: %s: %s (%s)", what,
	       ret ? strerror(-ret) : "accepted", message);
	if (!ret && j->out_fence_fd >= 0)
		close(j->out_fence_fd);
}

/* A params buffer of one block of @size bytes with @type and @flags, the rest zero. */
static void *one_block(unsigned type, unsigned flags, uint32_t block_size, uint32_t *total)
{
	uint8_t *buf = calloc(1, 16 + block_size);
	struct cisp_params_header *h = (struct cisp_params_header *)buf;
	struct cisp_block_header *b = (struct cisp_block_header *)(buf + 16);

	h->magic = CISP_PARAMS_MAGIC;
	h->version = CISP_PARAMS_VERSION;
	h->total_size = 16 + block_size;
	b->type = (uint16_t)type;
	b->flags = (uint16_t)flags;
	b->size = block_size;
	*total = 16 + block_size;
	return buf;
}

/* One refused job: the small context's job with @change made, which must fail with @err. */
#define REFUSED(change, err, needle, what)                       \
	do {                                                     \
		small_job(&j, &s);                               \
		change;                                          \
		expect_refused(dev, &j, err, needle, what);      \
	} while (0)

static void check_hostile(int dev)
{
	struct cisp_isp_config bad = small_config;
	struct cisp_isp_job j;
	struct small s;
	struct kbuf tiny;
	uint32_t id, total;
	int pipefd[2], fence, ret;
	void *p;

	if (small_open(dev, &s, 0, 0)) {
		EXPECT(0, "hostile: small context");
		return;
	}
	EXPECT(ioctl(dev, _IO(0xC5, 0x7f)) == -1 && errno == ENOTTY, "refused: unknown ioctl: ENOTTY");
	EXPECT(ioctl(dev, CISP_IOC_SUBMIT, NULL) == -1 && errno == EFAULT,
	       "refused: SUBMIT with a NULL argument: EFAULT");
	EXPECT(ioctl(dev, CISP_IOC_SUBMIT, (void *)16) == -1 && errno == EFAULT,
	       "refused: SUBMIT at address 16: EFAULT");
	id = 999;
	EXPECT(ioctl(dev, CISP_IOC_DESTROY_CONTEXT, &id) == -1 && errno == ENOENT,
	       "refused: destroy context 999: ENOENT");

	REFUSED(j.context = 77;, ENOENT, "context 77", "unknown context");
	REFUSED(j.flags = 0x80;, EINVAL, "unknown bits", "unknown flag");
	REFUSED(j.reserved[3] = 1;, EINVAL, "reserved", "reserved field set");
	REFUSED(j.mode = 9;, EINVAL, "mode 9", "unknown mode");
	REFUSED(j.num_inputs = 0;, EINVAL, "inputs, not 0", "no input");
	REFUSED(j.mode = CISP_JOB_MERGE_HDR; j.num_inputs = 9;, EINVAL, "not 9", "9 inputs");
	REFUSED(j.mode = CISP_JOB_MERGE_HDR; j.num_inputs = 2; j.input[1] = s.in.desc; j.exposure[0] = 1;
		j.exposure[1] = 1000;, EINVAL, "ratio", "exposures 1 and 1000");
	REFUSED(j.exposure[0] = 5;, EINVAL, "exposure 0", "an exposure on a single job");

	REFUSED(j.input[0].fd = -1;, EBADF, "input 0", "input fd -1");
	REFUSED(j.input[0].fd = 4000;, EBADF, "descriptor 4000", "input fd not open");
	if (pipe(pipefd) == 0) {
		REFUSED(j.input[0].fd = pipefd[0];, EINVAL, "not a dma-buf", "input fd a pipe");
		REFUSED(j.in_fence_fd = pipefd[0];, EINVAL, "not a sync_file", "in-fence a pipe");
		close(pipefd[0]);
		close(pipefd[1]);
	}
	REFUSED(j.in_fence_fd = s.in.buf.fd;, EINVAL, "not a sync_file", "in-fence a dma-buf");
	REFUSED(j.input[0].num_planes = 2;, EINVAL, "2 planes given", "input with 2 planes");
	REFUSED(j.input[0].plane[0].stride = 31;, EINVAL, "stride 31", "input stride under the row");
	REFUSED(j.input[0].plane[0].offset = 4000;, EINVAL, "ends at byte", "input past its dma-buf");
	REFUSED(j.input[0].plane[0].offset = 0xffffffffu; j.input[0].plane[0].stride = 0xffffffffu;, EINVAL,
		"ends at byte", "offset and stride at 2^32 - 1");
	REFUSED(j.input[0].plane[2].offset = 8;, EINVAL, "plane 2 is set", "a plane the format lacks");
	REFUSED(j.output[0].fd = -1;, EINVAL, "output 0 is missing", "main output missing");
	REFUSED(j.output[1] = s.out.desc;, EINVAL, "no output 1", "output the context lacks");
	REFUSED(j.stats_fd = s.in.buf.fd;, EINVAL, "do not fit", "statistics in a 4 KiB dma-buf");
	if (kbuf_alloc(dev, 2 * sizeof(struct cisp_stats), &tiny) == 0) {
		REFUSED(j.stats_fd = tiny.fd; j.stats_offset = 4;, EINVAL, "multiple of 8", "statistics offset 4");
		kbuf_free(&tiny);
	}

	REFUSED(j.params_size = 64;, EINVAL, "params is 0", "params size without a pointer");
	REFUSED(j.params = 4096; j.params_size = 64;, EFAULT, "cannot be read", "params at an unmapped address");
	REFUSED(j.params = (uintptr_t)&j; j.params_size = 2u << 20;, EMSGSIZE, "over", "params of 2 MiB");
	p = one_block(CISP_BLOCK_WB, 0, 16, &total);
	((struct cisp_params_header *)p)->magic = 0x12345678;
	REFUSED(j.params = (uintptr_t)p; j.params_size = total;, EPROTO, "magic", "params with a wrong magic");
	((struct cisp_params_header *)p)->magic = CISP_PARAMS_MAGIC;
	REFUSED(j.params = (uintptr_t)p; j.params_size = total - 8;, EMSGSIZE, NULL, "params truncated by 8 bytes");
	free(p);
	p = one_block(29, 0, 16, &total);
	REFUSED(j.params = (uintptr_t)p; j.params_size = total;, EINVAL, "block 0", "params with block type 29");
	free(p);
	p = one_block(CISP_BLOCK_VENDOR, CISP_BLOCK_FL_ENABLE, 24, &total);
	((uint32_t *)p)[6] = 0x1234; /* vendor id */
	((uint16_t *)p)[14] = 1;     /* type */
	((uint16_t *)p)[15] = 1;     /* version */
	REFUSED(j.params = (uintptr_t)p; j.params_size = total;, ENOTSUP, "vendor",
		"a vendor block (the module runs no vendor stage)");
	free(p);
	p = one_block(CISP_BLOCK_CROP, CISP_BLOCK_FL_ENABLE, 24, &total);
	((uint16_t *)p)[12 + 2] = 16; /* x */
	((uint16_t *)p)[12 + 4] = 32; /* width */
	((uint16_t *)p)[12 + 5] = 32; /* height */
	REFUSED(j.params = (uintptr_t)p; j.params_size = total;, EINVAL, "block 0 (crop)",
		"a crop outside the 32x32 frame");
	free(p);

	/* A refused job changed nothing: the next good one runs with the default state. */
	small_job(&j, &s);
	ret = submit(dev, &j);
	fence = ret ? -1 : j.out_fence_fd;
	EXPECT(ret == 0 && fence_wait(fence, 30000) == 1 && j.sequence == 0,
	       "after %s refusals a job is accepted as the context's first (sequence %llu) and succeeds", "the",
	       (unsigned long long)j.sequence);
	if (fence >= 0)
		close(fence);

	bad.input_format = CISP_FMT_NV12;
	EXPECT(create_context(dev, &bad, 0, 0, &id) == -EINVAL && strstr(message, "not a Bayer format"),
	       "refused: a context with an NV12 input: %s", message);
	bad = small_config;
	bad.width = 33;
	EXPECT(create_context(dev, &bad, 0, 0, &id) == -EINVAL && strstr(message, "even"),
	       "refused: a context 33 pixels wide: %s", message);
	EXPECT(create_context(dev, &small_config, 0, 17, &id) == -EINVAL && strstr(message, "queue limit"),
	       "refused: a queue limit of 17: %s", message);
	{
		uint32_t ids[CISP_ISP_MAX_FORMATS];
		unsigned n = 0;

		while (n < 20 && create_context(dev, &small_config, 0, 0, &ids[n]) == 0)
			n++;
		EXPECT(n == 15 && strstr(message, "16 contexts"), "refused: a 17th context of one file: %s", message);
		while (n--)
			destroy_context(dev, ids[n]);
	}
	{
		struct cisp_isp_alloc a = { .size = 0 };

		EXPECT(ioctl(dev, CISP_IOC_ALLOC_BUFFER, &a) == -1 && errno == EINVAL, "refused: a buffer of 0 bytes");
		a.size = 3ull << 30;
		EXPECT(ioctl(dev, CISP_IOC_ALLOC_BUFFER, &a) == -1 && errno == EINVAL, "refused: a buffer of 3 GiB");
	}
	small_close(dev, &s);
}

static void check_fences(int dev)
{
	struct small a, b;
	struct gate g;
	struct cisp_isp_job j;
	struct cisp_isp_counters c;
	int f1, f2, f3, fg, fb;
	struct sync_merge_data merge = { .name = "both" };

	if (small_open(dev, &a, 0, 0) || small_open(dev, &b, 0, 2) || gate_open(dev, &g)) {
		EXPECT(0, "fences: contexts");
		return;
	}
	/* A chain: job 2 waits for job 1, job 3 for the merge of both. */
	small_job(&j, &a);
	submit(dev, &j);
	f1 = j.out_fence_fd;
	small_job(&j, &a);
	j.in_fence_fd = f1;
	submit(dev, &j);
	f2 = j.out_fence_fd;
	merge.fd2 = f2;
	EXPECT(ioctl(f1, SYNC_IOC_MERGE, &merge) == 0, "SYNC_IOC_MERGE of two out-fences");
	small_job(&j, &b);
	j.in_fence_fd = merge.fence;
	EXPECT(submit(dev, &j) == 0, "a job of another context waits for the merged fence");
	f3 = j.out_fence_fd;
	EXPECT(fence_wait(f3, 30000) == 1 && fence_wait(f1, 0) == 1 && fence_wait(f2, 0) == 1 &&
		       fence_time(f1) <= fence_time(f2) && fence_time(f2) <= fence_time(f3),
	       "the chain completes in order: %llu <= %llu <= %llu ns", (unsigned long long)fence_time(f1),
	       (unsigned long long)fence_time(f2), (unsigned long long)fence_time(f3));
	close(f1);
	close(f2);
	close(f3);
	close(merge.fence);

	/* Cancellation runs down a chain: jobs of b wait for a's job, which waits for the gate; a is destroyed. */
	fg = gate_fence(dev, &g);
	small_job(&j, &a);
	j.in_fence_fd = fg;
	submit(dev, &j);
	f1 = j.out_fence_fd;
	small_job(&j, &b);
	j.in_fence_fd = f1;
	submit(dev, &j);
	fb = j.out_fence_fd;
	/* b's queue limit is 2: a second waiting job fits, a third does not. */
	small_job(&j, &b);
	j.in_fence_fd = f1;
	submit(dev, &j);
	f2 = j.out_fence_fd;
	small_job(&j, &b);
	j.in_fence_fd = f1;
	EXPECT(submit(dev, &j) == -EAGAIN && strstr(message,
	       "queue limit"), "a third waiting job over the queue limit of 2: EAGAIN (%s)",
	       message);
	destroy_context(dev, a.ctx);
	EXPECT(fence_wait(f1, 0) == -ECANCELED, "destroying a context cancels its waiting job: status %d",
	       fence_wait(f1, 0));
	EXPECT(fence_wait(fb, 30000) == -ECANCELED && fence_wait(f2, 30000) == -ECANCELED,
	       "jobs waiting for a cancelled fence fail with its error (%d, %d)", fence_wait(fb, 0), fence_wait(f2, 0));
	EXPECT(fence_wait(fg, 120000) == 1, "the gate job itself succeeds");
	counters(dev, b.ctx, &c);
	EXPECT(c.submitted == 3 && c.failed == 2 && c.completed == 1 && c.queued == 0,
	       "counters of the second context: %llu submitted, %llu completed, %llu failed, %llu queued",
	       (unsigned long long)c.submitted, (unsigned long long)c.completed, (unsigned long long)c.failed,
	       (unsigned long long)c.queued);
	close(f1);
	close(f2);
	close(fb);
	close(fg);
	kimage_free(&a.in);
	kimage_free(&a.out);
	small_close(dev, &b);
	gate_close(dev, &g);
}

/* CISP_IOC_JOB_RESULT: a job's result read back by its sequence; every bad argument refused with its errno. */
static void check_job_result(int dev)
{
	struct cisp_isp_job_result r;
	struct cisp_isp_job j;
	struct small s;
	struct gate g;
	uint32_t late;
	uint64_t first;
	int fg, ret;

	if (small_open(dev, &s, 0, 0) || gate_open(dev, &g) ||
	    create_context_flags(dev, &small_config, 0, 0, CISP_ISP_CTX_SKIP_LATE, &late)) {
		EXPECT(0, "job result: contexts");
		return;
	}
	small_job(&j, &s);
	submit(dev, &j);
	first = j.sequence;
	fence_wait(j.out_fence_fd, 30000);
	close(j.out_fence_fd);
	ret = job_result(dev, s.ctx, first, &r);
	EXPECT(ret == 0 && r.status == 0 && r.selected == 0 && r.sharpness[0] == 0,
	       "job result: a single job's: %s, status %d, input %u", ret ? strerror(-ret) : "read", r.status,
	       r.selected);

	/* A job that waits for the gate: not finished, then readable once its fence signalled. */
	fg = gate_fence(dev, &g);
	small_job(&j, &s);
	j.in_fence_fd = fg;
	submit(dev, &j);
	ret = job_result(dev, s.ctx, j.sequence, &r);
	EXPECT(ret == -EBUSY, "job result: a job not finished yet: %s", ret ? strerror(-ret) : "read");
	ret = job_result(dev, s.ctx, j.sequence + 1, &r);
	EXPECT(ret == -EINVAL, "job result: a sequence not submitted yet: %s", ret ? strerror(-ret) : "read");
	ret = job_result(dev, s.ctx, UINT64_MAX, &r);
	EXPECT(ret == -EINVAL, "job result: sequence 2^64-1: %s", ret ? strerror(-ret) : "read");
	EXPECT(fence_wait(j.out_fence_fd, 120000) == 1 && job_result(dev, s.ctx, j.sequence, &r) == 0 && r.status == 0,
	       "job result: readable once the job's fence signalled");
	close(j.out_fence_fd);
	close(fg);

	/* A job that failed: its error. */
	small_job(&j, &s);
	j.context = late;
	j.deadline_ns = 1;
	submit(dev, &j);
	fence_wait(j.out_fence_fd, 30000);
	close(j.out_fence_fd);
	ret = job_result(dev, late, j.sequence, &r);
	EXPECT(ret == 0 && r.status == -ETIME, "job result: a job skipped as late: status %d (%s)", r.status,
	       ret ? strerror(-ret) : "read");

	/* Hostile arguments. */
	ret = job_result(dev, 99, first, &r);
	EXPECT(ret == -ENOENT, "job result: context 99: %s", ret ? strerror(-ret) : "read");
	memset(&r, 0, sizeof(r));
	r.context = s.ctx;
	r.reserved0 = 1;
	EXPECT(ioctl(dev, CISP_IOC_JOB_RESULT, &r) && errno == EINVAL, "job result: reserved0 set: EINVAL");
	r.reserved0 = 0;
	r.reserved[7] = 1;
	EXPECT(ioctl(dev, CISP_IOC_JOB_RESULT, &r) && errno == EINVAL, "job result: reserved[7] set: EINVAL");
	EXPECT(ioctl(dev, CISP_IOC_JOB_RESULT, (void *)16) && errno == EFAULT, "job result: a bad address: EFAULT");

	/* Only the last CISP_ISP_RESULTS results are kept. */
	for (unsigned k = 0; k < CISP_ISP_RESULTS; k++) {
		small_job(&j, &s);
		submit(dev, &j);
		fence_wait(j.out_fence_fd, 30000);
		close(j.out_fence_fd);
	}
	ret = job_result(dev, s.ctx, first, &r);
	EXPECT(ret == -ENODATA, "job result: job %llu, %d jobs later: %s", (unsigned long long)first,
	       CISP_ISP_RESULTS + 1, ret ? strerror(-ret) : "read");
	ret = job_result(dev, s.ctx, j.sequence - (CISP_ISP_RESULTS - 1), &r);
	EXPECT(ret == 0 && job_result(dev, s.ctx, j.sequence, &r) == 0,
	       "job result: the last %d jobs' results are kept: %s", CISP_ISP_RESULTS,
	       ret ? strerror(-ret) : "read");
	destroy_context(dev, late);
	small_close(dev, &s);
	gate_close(dev, &g);
}

/*
 * Bursts through the device API as a program uses it, on the kernel backend
 * (CISP_ISP, as cisp run --isp sets it) and on the software ISP: the same
 * input chosen, the same scores, image and statistics.
 */
static void check_burst_backend(void)
{
	const struct cisp_isp_config ic = { CISP_FMT_SGRBG10, 64, 48, { { CISP_FMT_NV12, 64, 48 } }, NULL };
	static const unsigned sizes[] = { 2, 3, 5, 8, 4, 6 };
	const unsigned bursts = sizeof(sizes) / sizeof(sizes[0]);
	struct cisp_device *devs[2] = { NULL, NULL };
	struct cisp_context *ctxs[2] = { NULL, NULL };
	struct cisp_image in[CISP_JOB_MAX_INPUTS], out[2];
	struct cisp_stats *stats = calloc(2, sizeof(*stats));
	unsigned same = 0, chosen = 0;
	int ret;

	setenv("CISP_ISP", DEVICE, 1);
	ret = cisp_device_create(&devs[0], &(struct cisp_device_config){ .workers = 1 });
	unsetenv("CISP_ISP");
	if (!ret)
		ret = cisp_device_create(&devs[1], &(struct cisp_device_config){ .workers = 1 });
	for (int k = 0; k < 2 && !ret; k++)
		ret = cisp_context_create(&ctxs[k], devs[k],
					  &(struct cisp_context_config){ .name = k ? "cpu" : "kernel", .isp = ic });
	if (ret) {
		EXPECT(0, "bursts on the kernel backend: %s", cisp_last_error());
		goto out;
	}
	for (unsigned i = 0; i < CISP_JOB_MAX_INPUTS; i++)
		packed_alloc(&in[i], ic.input_format, ic.width, ic.height);
	for (int k = 0; k < 2; k++)
		packed_alloc(&out[k], ic.output[0].format, ic.width, ic.height);
	for (unsigned b = 0; b < bursts; b++) {
		struct cisp_job_result res[2];

		for (unsigned i = 0; i < sizes[b]; i++)
			fill_raw(&in[i], 1000 + b * CISP_JOB_MAX_INPUTS + i);
		for (int k = 0; k < 2 && !ret; k++) {
			struct cisp_job j = { .mode = CISP_JOB_SELECT_SHARPEST, .num_inputs = sizes[b],
					      .stats = &stats[k], .result = &res[k] };
			struct cisp_fence *f;

			for (unsigned i = 0; i < sizes[b]; i++)
				j.input[i] = &in[i];
			j.output[0] = &out[k];
			ret = cisp_job_submit(ctxs[k], &j, &f);
			if (!ret) {
				ret = cisp_fence_wait(f, -1);
				cisp_fence_unref(f);
			}
		}
		if (ret) {
			EXPECT(0, "burst %u of %u frames: %s", b, sizes[b], cisp_last_error());
			break;
		}
		if (res[0].selected == res[1].selected &&
		    !memcmp(res[0].sharpness, res[1].sharpness, sizes[b] * sizeof(res[0].sharpness[0])) &&
		    !memcmp(out[0].plane[0].data, out[1].plane[0].data, image_bytes(&out[0])) &&
		    !memcmp(&stats[0], &stats[1], sizeof(stats[0])))
			same++;
		chosen |= 1u << res[1].selected;
	}
	EXPECT(same == bursts && __builtin_popcount(chosen) >= 2,
	       "%u of %u bursts of 2..8 frames through the device API on the kernel backend: the input chosen "
	       "(inputs chosen: mask 0x%x), its scores, image and statistics are the software ISP's",
	       same, bursts, chosen);
	for (unsigned i = 0; i < CISP_JOB_MAX_INPUTS; i++)
		free(in[i].plane[0].data);
	for (int k = 0; k < 2; k++)
		free(out[k].plane[0].data);
out:
	cisp_device_destroy(devs[0]);
	cisp_device_destroy(devs[1]);
	free(stats);
}

/* Jobs of four contexts, all ready at the same moment: they run by deadline, then priority. */
static void check_deadlines(int dev)
{
	struct small ctx[4];
	struct gate g;
	struct cisp_isp_job j;
	struct cisp_isp_counters c;
	int fences[4][3], fg;
	uint64_t t0 = now_ns(), last_b = 0, first_a = UINT64_MAX, c_end = 0, d_start = UINT64_MAX;
	int ok = 1;

	for (int i = 0; i < 4; i++)
		if (small_open(dev, &ctx[i], i == 2 ? 1 : 0, 4)) {
			EXPECT(0, "deadlines: contexts");
			return;
		}
	if (gate_open(dev, &g)) {
		EXPECT(0, "deadlines: gate");
		return;
	}
	fg = gate_fence(dev, &g);
	/* a: deadline in 60 s; b: in 30 s, submitted after a; c and d: the same deadline, c at priority 1. */
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++) {
			small_job(&j, &ctx[i]);
			j.in_fence_fd = fg;
			/* a and b's jobs get later deadlines one after the other; c and d's all the same one. */
			j.deadline_ns = t0 + (i == 0 ? 60 : i == 1 ? 30 : 90) * 1000000000ull +
					(i < 2 ? (uint64_t)k : 0);
			ok &= submit(dev, &j) == 0;
			fences[i][k] = j.out_fence_fd;
		}
	EXPECT(ok, "12 jobs of 4 contexts waiting for one fence");
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++)
			ok &= fence_wait(fences[i][k], 120000) == 1;
	for (int k = 0; k < 3; k++) {
		uint64_t ta = fence_time(fences[0][k]), tb = fence_time(fences[1][k]);
		uint64_t tc = fence_time(fences[2][k]), td = fence_time(fences[3][k]);

		first_a = ta < first_a ? ta : first_a;
		last_b = tb > last_b ? tb : last_b;
		c_end = tc > c_end ? tc : c_end;
		d_start = td < d_start ? td : d_start;
	}
	EXPECT(ok && last_b < first_a,
	       "earliest deadline first: the later-submitted 30 s jobs all ended before the 60 s ones");
	EXPECT(ok && c_end < d_start,
	       "equal deadlines: the priority-1 context's jobs all ended before the priority-0 one's");
	counters(dev, ctx[1].ctx, &c);
	EXPECT(c.completed == 3 && c.deadline_misses == 0, "counters: 3 completed, %llu deadline misses",
	       (unsigned long long)c.deadline_misses);
	/* A deadline in the past is missed, and counted. */
	small_job(&j, &ctx[0]);
	j.deadline_ns = 1;
	submit(dev, &j);
	fence_wait(j.out_fence_fd, 30000);
	close(j.out_fence_fd);
	counters(dev, ctx[0].ctx, &c);
	EXPECT(c.deadline_misses == 1, "a job with a deadline in the past counts as a deadline miss (%llu)",
	       (unsigned long long)c.deadline_misses);
	for (int i = 0; i < 4; i++) {
		for (int k = 0; k < 3; k++)
			close(fences[i][k]);
		small_close(dev, &ctx[i]);
	}
	close(fg);
	gate_close(dev, &g);
}

/*
 * CISP_ISP_CTX_SKIP_LATE: a job whose deadline has passed when its turn comes is skipped with
 * -ETIME and counted as skipped; a job with a deadline it can meet runs.
 */
static void check_skip_late(int dev)
{
	struct small s;
	struct cisp_isp_job j;
	struct cisp_isp_counters c;
	int late, in_time;

	if (create_context_flags(dev, &small_config, 0, 0, CISP_ISP_CTX_SKIP_LATE, &s.ctx) ||
	    kimage_alloc(dev, small_config.input_format, 32, 32, &s.in) ||
	    kimage_alloc(dev, small_config.output[0].format, 32, 32, &s.out)) {
		EXPECT(0, "skip late: context (%s)", message);
		return;
	}
	s.stats.fd = -1;
	small_job(&j, &s);
	j.deadline_ns = 1;
	EXPECT(submit(dev, &j) == 0, "skip late: a job with a deadline in the past is accepted (%s)", message);
	late = fence_wait(j.out_fence_fd, 30000);
	close(j.out_fence_fd);
	small_job(&j, &s);
	j.deadline_ns = now_ns() + 60 * 1000000000ull;
	EXPECT(submit(dev, &j) == 0, "skip late: a job with a deadline in 60 s is accepted (%s)", message);
	in_time = fence_wait(j.out_fence_fd, 30000);
	close(j.out_fence_fd);
	counters(dev, s.ctx, &c);
	EXPECT(late == -ETIME, "skip late: the late job's fence signals -ETIME (%d)", late);
	EXPECT(in_time == 1, "skip late: the job with time left runs (%d)", in_time);
	EXPECT(c.skipped == 1 && c.completed == 1 && c.failed == 0 && c.deadline_misses == 0,
	       "skip late: counters 1 skipped, 1 completed (%llu, %llu, %llu failed, %llu misses)",
	       (unsigned long long)c.skipped, (unsigned long long)c.completed, (unsigned long long)c.failed,
	       (unsigned long long)c.deadline_misses);
	small_close(dev, &s);
}

/* ---- another driver's fences: vgem, whose fences the test signals or leaves to time out ---- */

/* The few DRM and vgem uAPI definitions needed (include/uapi/drm/drm.h, vgem_drm.h), spelled out
 * because Debian's linux-libc-dev does not ship the DRM headers. */
struct vgem_create_dumb {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};
struct vgem_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};
struct vgem_fence_attach {
	uint32_t handle, flags, out_fence, pad;
};
struct vgem_fence_signal {
	uint32_t fence, flags;
};
#define VGEM_IOCTL_CREATE_DUMB _IOWR('d', 0xb2, struct vgem_create_dumb)
#define VGEM_IOCTL_PRIME_HANDLE_TO_FD _IOWR('d', 0x2d, struct vgem_prime_handle)
#define VGEM_IOCTL_FENCE_ATTACH _IOWR('d', 0x40 + 1, struct vgem_fence_attach)
#define VGEM_IOCTL_FENCE_SIGNAL _IOW('d', 0x40 + 2, struct vgem_fence_signal)
#define VGEM_FENCE_WRITE 1

struct vgem {
	int fd, dmabuf;
	uint32_t handle;
};

/* A vgem buffer exported as a dma-buf; 0 or -errno. */
static int vgem_open(struct vgem *v)
{
	struct vgem_create_dumb c = { .height = 16, .width = 16, .bpp = 32 };
	struct vgem_prime_handle h = { 0 };

	v->fd = open("/dev/dri/card0", O_RDWR | O_CLOEXEC);
	if (v->fd < 0)
		return -errno;
	if (ioctl(v->fd, VGEM_IOCTL_CREATE_DUMB, &c))
		return -errno;
	h.handle = v->handle = c.handle;
	h.flags = O_CLOEXEC | O_RDWR;
	if (ioctl(v->fd, VGEM_IOCTL_PRIME_HANDLE_TO_FD, &h))
		return -errno;
	v->dmabuf = h.fd;
	return 0;
}

/* A new unsignalled vgem fence as a sync_file (*@id: its vgem number), or -errno. */
static int vgem_fence(struct vgem *v, uint32_t *id)
{
	struct vgem_fence_attach a = { .handle = v->handle, .flags = VGEM_FENCE_WRITE };
	struct dma_buf_export_sync_file e = { .flags = DMA_BUF_SYNC_READ, .fd = -1 };

	if (ioctl(v->fd, VGEM_IOCTL_FENCE_ATTACH, &a))
		return -errno;
	*id = a.out_fence;
	/* Readers wait for the writer: the sync_file holds the vgem fence. */
	if (ioctl(v->dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &e))
		return -errno;
	return e.fd;
}

static int vgem_signal(struct vgem *v, uint32_t id)
{
	struct vgem_fence_signal sig = { .fence = id };

	return ioctl(v->fd, VGEM_IOCTL_FENCE_SIGNAL, &sig) ? -errno : 0;
}

/*
 * A job waits for another driver's fence and runs when that driver signals
 * it; one whose fence does not signal within the module's fence timeout
 * (tests/vm/run.sh loads it with fence_timeout_ms=1500) fails with
 * -ETIMEDOUT, as the uAPI says.
 */
static void check_foreign_fences(int dev)
{
	struct cisp_isp_counters c;
	struct cisp_isp_job j;
	struct small s;
	struct vgem v;
	uint32_t id1, id2;
	int sync, ret, st;
	uint64_t t0;

	ret = vgem_open(&v);
	if (ret || small_open(dev, &s, 0, 0)) {
		EXPECT(0, "vgem: a buffer on /dev/dri/card0 exported as a dma-buf (%s)", strerror(-ret));
		return;
	}
	sync = vgem_fence(&v, &id1);
	small_job(&j, &s);
	j.in_fence_fd = sync;
	EXPECT(sync >= 0 && submit(dev, &j) == 0, "a job waits for a vgem fence (%s)", message);
	close(sync);
	EXPECT(fence_wait(j.out_fence_fd, 300) == 0, "it has not run 300 ms later");
	vgem_signal(&v, id1);
	EXPECT(fence_wait(j.out_fence_fd, 30000) == 1, "it runs and succeeds once vgem signals its fence");
	close(j.out_fence_fd);

	sync = vgem_fence(&v, &id2);
	small_job(&j, &s);
	j.in_fence_fd = sync;
	submit(dev, &j);
	close(sync);
	t0 = now_ns();
	st = fence_wait(j.out_fence_fd, 30000);
	EXPECT(st == -ETIMEDOUT && now_ns() - t0 > 1400000000ull && now_ns() - t0 < 9000000000ull,
	       "a vgem fence left unsignalled fails its job with -ETIMEDOUT after the fence timeout (%d after %.2f s)",
	       st, (now_ns() - t0) / 1e9);
	close(j.out_fence_fd);
	counters(dev, s.ctx, &c);
	EXPECT(c.timed_out == 1 && c.failed == 1 && c.completed == 1,
	       "counters: %llu completed, %llu failed, %llu timed out", (unsigned long long)c.completed,
	       (unsigned long long)c.failed, (unsigned long long)c.timed_out);
	/* The late signal finds no callback of the module's (it was removed). */
	EXPECT(vgem_signal(&v, id2) == 0, "vgem signals the timed-out fence afterwards");

	/* vgem's buffer as the input, while vgem writes it: the pipe does not wait for implicit fences. */
	sync = vgem_fence(&v, &id1);
	small_job(&j, &s);
	j.input[0] = (struct cisp_isp_buffer){ v.dmabuf, 1, { { 0, 32 } } };
	EXPECT(submit(dev, &j) == 0 && fence_wait(j.out_fence_fd, 30000) == -EBUSY,
	       "a job whose input another driver is still writing (an implicit vgem fence) fails with -EBUSY");
	counters(dev, s.ctx, &c);
	EXPECT(strstr(c.last_error, "job input 0: another device") != NULL, "and says why: %s", c.last_error);
	close(j.out_fence_fd);
	small_job(&j, &s);
	j.input[0] = (struct cisp_isp_buffer){ v.dmabuf, 1, { { 0, 32 } } };
	j.in_fence_fd = sync;
	submit(dev, &j);
	close(sync);
	vgem_signal(&v, id1);
	EXPECT(fence_wait(j.out_fence_fd, 30000) == 1,
	       "with that fence as its in-fence, the same job waits for vgem and succeeds");
	close(j.out_fence_fd);
	small_close(dev, &s);
	close(v.dmabuf);
	close(v.fd);
}

/* Send descriptor @fd over the socket @sock. */
static int send_fd(int sock, int fd)
{
	char byte = 'f';
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int receive_fd(int sock)
{
	char byte;
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof(control)
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1 || !(cm = CMSG_FIRSTHDR(&msg)))
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* A process killed with jobs in flight: a gate job running, four chained behind it. */
static void check_killed(int dev)
{
	int sv[2], fence, status = 0;
	pid_t pid;

	(void)dev;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return;
	pid = fork();
	if (pid == 0) {
		int d = open(DEVICE, O_RDWR);
		struct gate g;
		struct small s;
		struct cisp_isp_job j;
		int f;

		if (d < 0 || gate_open(d, &g) || small_open(d, &s, 0, 8))
			_exit(1);
		f = gate_fence(d, &g);
		for (int k = 0; k < 4; k++) {
			small_job(&j, &s);
			j.in_fence_fd = f;
			submit(d, &j);
			f = j.out_fence_fd;
		}
		send_fd(sv[1], f);
		pause();
		_exit(0);
	}
	close(sv[1]);
	fence = receive_fd(sv[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	EXPECT(fence >= 0 && WIFSIGNALED(status),
	       "a child submitted a chain of 5 jobs, passed the last fence, and was killed");
	if (fence >= 0) {
		int st = fence_wait(fence, 120000);

		EXPECT(st == -ECANCELED,
		       "the killed process's last job is cancelled when its file goes: status %d", st);
		close(fence);
	}
	close(sv[0]);
}

/* Kernel log lines at warning level or above since the last call (reading /dev/kmsg). */
static int kmsg_fd = -1;

static unsigned kmsg_warnings(const char *print_prefix)
{
	char line[1024];
	unsigned n = 0;
	ssize_t r;

	if (kmsg_fd < 0) {
		kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (kmsg_fd < 0)
			return 0;
		lseek(kmsg_fd, 0, SEEK_END);
		return 0;
	}
	while ((r = read(kmsg_fd, line, sizeof(line) - 1)) > 0 || (r < 0 && errno == EPIPE)) {
		int prio;

		if (r <= 0)
			continue;
		line[r] = '\0';
		prio = atoi(line) & 7;
		if (prio > 4)
			continue;
		/* The emulated CPU's timing, not a driver: qemu's TCG is slow to run timer interrupts. */
		if (strstr(line, "hrtimer: interrupt took") || strstr(line, "clocksource")) {
			if (print_prefix)
				printf("%s(emulation timing, not counted) %s", print_prefix, line);
			continue;
		}
		n++;
		if (print_prefix)
			printf("%s%s", print_prefix, line);
	}
	return n;
}

/* ---- figures --------------------------------------------------------------- */

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(uint64_t), compare_u64);
	return v[n / 2];
}

/* A full parameter state: every block at its largest (DPC 16384 pixels, LSC 64x64, LUT 33^3). */
static void *full_state(uint32_t width, uint32_t height, size_t *size)
{
	struct cisp_param_state *s = malloc(sizeof(*s));
	void *buf;

	cisp_param_state_init(s);
	rng = 4;
	for (unsigned t = 1; t < CISP_BLOCK_TYPE_COUNT; t++)
		vary_block(s, t, width, height);
	s->dpc.count = CISP_DPC_MAX_PIXELS;
	for (unsigned i = 0; i < CISP_DPC_MAX_PIXELS; i++) {
		s->dpc.pixels[i].x = (uint16_t)(i * 3 % width);
		s->dpc.pixels[i].y = (uint16_t)(i * 3 / width);
	}
	s->lsc.grid_w = s->lsc.grid_h = CISP_LSC_MAX_GRID;
	for (int i = 0; i < 4 * CISP_LSC_MAX_GRID * CISP_LSC_MAX_GRID; i++)
		s->lsc.gain[i] = (uint16_t)(4096 + i % 4000);
	s->lut3d.size = CISP_LUT3D_MAX_SIZE;
	for (int i = 0; i < CISP_LUT3D_MAX_SIZE * CISP_LUT3D_MAX_SIZE * CISP_LUT3D_MAX_SIZE; i++)
		for (int c = 0; c < 3; c++)
			s->lut3d.table[i][c] = (uint16_t)(i * 7 + c);
	s->enabled = ((1u << CISP_BLOCK_TYPE_COUNT) - 2) & ~CISP_BLOCK_BIT(CISP_BLOCK_NOISE);
	s->crop_enabled = 3;
	cisp_params_encode(s, ~0u, NULL, 0, size);
	buf = malloc(*size);
	if (cisp_params_encode(s, ~0u, buf, *size, size)) {
		fprintf(stderr, "full state: %s\n", cisp_last_error());
		free(buf);
		buf = NULL;
	}
	free(s);
	return buf;
}

/*
 * Validating a full state: a check-only submission carrying it (the kernel's
 * copy and validation, by the module's own clock, and the whole ioctl), and
 * cisp_params_validate() in this process, one after the other @n times.
 */
static void measure_validation(int dev, unsigned n)
{
	const struct cisp_isp_config ic = { CISP_FMT_SRGGB10, 640, 480, { { CISP_FMT_NV12, 640, 480 } }, NULL };
	uint64_t *k_ioctl = calloc(n, sizeof(uint64_t)), *user = calloc(n, sizeof(uint64_t));
	struct cisp_isp_counters before, after;
	struct cisp_params_limits limits;
	struct cisp_isp *cpu;
	struct cisp_isp_job j;
	struct kimage in, out;
	uint64_t t0, empty;
	size_t size;
	void *buf = full_state(640, 480, &size);
	uint32_t ctx;

	if (!buf || create_context(dev, &ic, 0, 0, &ctx))
		return;
	kimage_alloc(dev, ic.input_format, 640, 480, &in);
	kimage_alloc(dev, CISP_FMT_NV12, 640, 480, &out);
	cisp_isp_create(&cpu, &ic);
	cisp_isp_limits(cpu, &limits);
	job_init(&j, ctx);
	j.input[0] = in.desc;
	j.output[0] = out.desc;
	j.flags = CISP_ISP_JOB_CHECK_ONLY;
	t0 = now_ns();
	submit(dev, &j);
	empty = now_ns() - t0;
	j.params = (uintptr_t)buf;
	j.params_size = (uint32_t)size;
	EXPECT(submit(dev, &j) == 0 && j.out_fence_fd == -1, "a full state of %zu bytes passes a check-only submission (%s)",
	       size, message);
	counters(dev, ctx, &before);
	for (unsigned i = 0; i < n; i++) {
		t0 = now_ns();
		submit(dev, &j);
		k_ioctl[i] = now_ns() - t0;
		t0 = now_ns();
		cisp_params_validate(buf, size, &limits);
		user[i] = now_ns() - t0;
	}
	counters(dev, ctx, &after);
	printf("@@ figure full state (%zu bytes), %u times alternating: kernel copy + validation %.1f us on average,"
	       " of which the copy %.1f us (the module's clock); the check-only SUBMIT %.1f us (median; %.1f us"
	       " without params); user-space cisp_params_validate() %.1f us (median); kernel/user %.2f\n",
	       size, n, (after.params_check_ns - before.params_check_ns) / 1e3 / n,
	       (after.params_copy_ns - before.params_copy_ns) / 1e3 / n, median(k_ioctl, n) / 1e3, empty / 1e3,
	       median(user, n) / 1e3, (double)median(k_ioctl, n) / (double)median(user, n));
	cisp_isp_destroy(cpu);
	kimage_free(&in);
	kimage_free(&out);
	destroy_context(dev, ctx);
	free(buf);
	free(k_ioctl);
	free(user);
}

/* ---- the V4L2 front-end ------------------------------------------------------ */

enum { V_INPUT, V_PARAMS, V_MAIN, V_STATS, V_NODES };

static const char *const v_names[V_NODES] = { "cisp-isp input", "cisp-isp params", "cisp-isp main", "cisp-isp stats" };
static const uint32_t v_types[V_NODES] = { V4L2_BUF_TYPE_VIDEO_OUTPUT, V4L2_BUF_TYPE_META_OUTPUT,
					   V4L2_BUF_TYPE_VIDEO_CAPTURE, V4L2_BUF_TYPE_META_CAPTURE };

struct v4l2_isp {
	int fd[V_NODES];
	unsigned count;          /* buffers per node */
	void *map[V_NODES][4];
	size_t length[V_NODES][4];
};

/* Open the four nodes by their names; 0 or -1. */
static int v4l2_open(struct v4l2_isp *v)
{
	for (int i = 0; i < V_NODES; i++) {
		v->fd[i] = -1;
		for (int n = 0; n < 64 && v->fd[i] < 0; n++) {
			char path[64], name[64] = "";
			FILE *f;

			snprintf(path, sizeof(path), "/sys/class/video4linux/video%d/name", n);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
			if (!strcmp(name, v_names[i])) {
				snprintf(path, sizeof(path), "/dev/video%d", n);
				v->fd[i] = open(path, O_RDWR | O_CLOEXEC);
			}
		}
		if (v->fd[i] < 0)
			return -1;
	}
	return 0;
}

static void v4l2_close(struct v4l2_isp *v)
{
	for (int i = 0; i < V_NODES; i++) {
		for (unsigned b = 0; b < v->count; b++)
			if (v->map[i][b])
				munmap(v->map[i][b], v->length[i][b]);
		if (v->fd[i] >= 0)
			close(v->fd[i]);
	}
}

/* Formats, @count mmap buffers a node, and every node streaming; 0 or -errno. */
static int v4l2_start(struct v4l2_isp *v, const struct cisp_isp_config *ic, unsigned count)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };

	f.fmt.pix.pixelformat = ic->input_format;
	f.fmt.pix.width = ic->width;
	f.fmt.pix.height = ic->height;
	if (ioctl(v->fd[V_INPUT], VIDIOC_S_FMT, &f))
		return -errno;
	f.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	f.fmt.pix.pixelformat = ic->output[0].format;
	f.fmt.pix.width = ic->output[0].width;
	f.fmt.pix.height = ic->output[0].height;
	if (ioctl(v->fd[V_MAIN], VIDIOC_S_FMT, &f))
		return -errno;
	v->count = count;
	for (int i = 0; i < V_NODES; i++) {
		struct v4l2_requestbuffers rb = { .count = count, .type = v_types[i], .memory = V4L2_MEMORY_MMAP };
		int type = (int)v_types[i];

		if (ioctl(v->fd[i], VIDIOC_REQBUFS, &rb) || rb.count != count)
			return -EIO;
		for (unsigned b = 0; b < count; b++) {
			struct v4l2_buffer qb = { .index = b, .type = v_types[i], .memory = V4L2_MEMORY_MMAP };

			if (ioctl(v->fd[i], VIDIOC_QUERYBUF, &qb))
				return -errno;
			v->length[i][b] = qb.length;
			v->map[i][b] = mmap(NULL, qb.length, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd[i], qb.m.offset);
			if (v->map[i][b] == MAP_FAILED) {
				v->map[i][b] = NULL;
				return -errno;
			}
		}
		if (ioctl(v->fd[i], VIDIOC_STREAMON, &type))
			return -errno;
	}
	return 0;
}

static int v4l2_qbuf(struct v4l2_isp *v, int node, unsigned index, uint32_t bytesused)
{
	struct v4l2_buffer qb = { .index = index, .type = v_types[node], .memory = V4L2_MEMORY_MMAP,
				  .bytesused = bytesused, .field = V4L2_FIELD_NONE };

	return ioctl(v->fd[node], VIDIOC_QBUF, &qb) ? -errno : 0;
}

/* Dequeue one buffer of @node; its index, or -errno. *@flags: its flags. */
static int v4l2_dqbuf(struct v4l2_isp *v, int node, uint32_t *flags)
{
	struct v4l2_buffer qb = { .type = v_types[node], .memory = V4L2_MEMORY_MMAP };

	if (ioctl(v->fd[node], VIDIOC_DQBUF, &qb))
		return -errno;
	if (flags)
		*flags = qb.flags;
	return (int)qb.index;
}

/* One frame through the four nodes: queue, wait for the main node, dequeue all. 0 or -errno. */
static int v4l2_frame(struct v4l2_isp *v, unsigned index, uint32_t input_bytes, uint32_t params_bytes)
{
	struct pollfd p = { v->fd[V_MAIN], POLLIN, 0 };
	uint32_t flags = 0;
	int ret;

	if ((ret = v4l2_qbuf(v, V_INPUT, index, input_bytes)) || (ret = v4l2_qbuf(v, V_PARAMS, index, params_bytes)) ||
	    (ret = v4l2_qbuf(v, V_MAIN, index, 0)) || (ret = v4l2_qbuf(v, V_STATS, index, 0)))
		return ret;
	if (poll(&p, 1, 60000) != 1)
		return -ETIMEDOUT;
	for (int i = 0; i < V_NODES; i++) {
		ret = v4l2_dqbuf(v, i, i == V_MAIN ? &flags : NULL);
		if (ret < 0)
			return ret;
	}
	return flags & V4L2_BUF_FLAG_ERROR ? -EIO : 0;
}

/* Frames through the V4L2 nodes are the library's, bit for bit; a bad params buffer is refused at QBUF. */
static void check_v4l2(void)
{
	const struct cisp_isp_config ic = { CISP_FMT_SGRBG10, 64, 48, { { CISP_FMT_I420, 64, 48 } }, NULL };
	struct cisp_param_state *state = malloc(sizeof(*state));
	struct cisp_stats *stats = malloc(sizeof(*stats));
	struct cisp_image in, ref;
	struct cisp_isp *cpu;
	struct v4l2_isp v;
	unsigned same = 0, frames = 8;
	int ret;

	if (v4l2_open(&v)) {
		EXPECT(0, "V4L2: the four cisp-isp nodes");
		return;
	}
	ret = v4l2_start(&v, &ic, 2);
	EXPECT(ret == 0, "V4L2: formats, 2 mmap buffers a node, all four streaming (%s)", strerror(-ret));
	cisp_isp_create(&cpu, &ic);
	packed_alloc(&ref, CISP_FMT_I420, 64, 48);
	cisp_param_state_init(state);
	for (unsigned n = 0; !ret && n < frames; n++) {
		unsigned b = n % 2;
		size_t size = 0;

		cisp_image_wrap(&in, ic.input_format, 64, 48, v.map[V_INPUT][b],
				cisp_image_packed_size(ic.input_format, 64, 48));
		fill_raw(&in, n);
		rng = n + 1000;
		vary_block(state, 1 + rnd(CISP_BLOCK_TYPE_COUNT - 1), 64, 48);
		cisp_params_encode(state, ~0u, v.map[V_PARAMS][b], v.length[V_PARAMS][b], &size);
		ret = v4l2_frame(&v, b, (uint32_t)image_bytes(&in), (uint32_t)size);
		cisp_isp_set_params(cpu, v.map[V_PARAMS][b], size);
		cisp_isp_process(cpu, &in, (struct cisp_image *[]){ &ref, NULL }, stats, NULL);
		stats->sequence = n; /* the job's number on the stream's context */
		same += !ret && !memcmp(v.map[V_MAIN][b], ref.plane[0].data, image_bytes(&ref)) &&
			!memcmp(v.map[V_STATS][b], stats, sizeof(*stats));
	}
	EXPECT(same == frames,
	       "V4L2: %u of %u frames (with a full params state each) and their statistics bit-exact with the library",
	       same, frames);
	if (!ret) {
		memset(v.map[V_PARAMS][0], 0, 64);
		EXPECT(v4l2_qbuf(&v, V_PARAMS, 0, 64) == -EINVAL,
		       "V4L2: a params buffer of 64 zero bytes is refused at QBUF: EINVAL");
	}
	free(ref.plane[0].data);
	cisp_isp_destroy(cpu);
	v4l2_close(&v);
	free(state);
	free(stats);
}

/* The steady-state loop of each interface, for strace -c: @n small frames. */
static int syscalls_uapi(int dev, unsigned n)
{
	struct small s;
	struct cisp_isp_job j;

	if (small_open(dev, &s, 0, 0) || kbuf_alloc(dev, sizeof(struct cisp_stats), &s.stats))
		return 1;
	for (unsigned i = 0; i < n; i++) {
		struct pollfd p;

		small_job(&j, &s);
		j.stats_fd = s.stats.fd;
		if (submit(dev, &j))
			return 1;
		p = (struct pollfd){ j.out_fence_fd, POLLIN, 0 };
		poll(&p, 1, -1);
		close(j.out_fence_fd);
	}
	small_close(dev, &s);
	return 0;
}

static int syscalls_v4l2(unsigned n)
{
	struct v4l2_isp v;

	if (v4l2_open(&v) || v4l2_start(&v, &small_config, 2))
		return 1;
	for (unsigned i = 0; i < n; i++)
		if (v4l2_frame(&v, i % 2, 32 * 32, 0))
			return 1;
	v4l2_close(&v);
	return 0;
}

/*
 * The same small frame (32x32 RGGB8 -> RGB888 with statistics) through the
 * job ioctl and through the V4L2 nodes, one after the other @n times, so
 * that both see the same machine: the time of the submitting call(s) and
 * from the first call until poll() says the frame is done.
 */
static void measure_frames(int dev, unsigned n)
{
	uint64_t *u_call = calloc(n, sizeof(uint64_t)), *u_done = calloc(n, sizeof(uint64_t));
	uint64_t *v_call = calloc(n, sizeof(uint64_t)), *v_done = calloc(n, sizeof(uint64_t));
	struct cisp_isp_job j;
	struct v4l2_isp v;
	struct small s;

	if (small_open(dev, &s, 0, 0) || kbuf_alloc(dev, sizeof(struct cisp_stats), &s.stats) || v4l2_open(&v) ||
	    v4l2_start(&v, &small_config, 2))
		return;
	for (unsigned i = 0; i < n; i++) {
		struct pollfd pv = { v.fd[V_MAIN], POLLIN, 0 }, pu;
		uint64_t t0 = now_ns(), t1;

		small_job(&j, &s);
		j.stats_fd = s.stats.fd;
		submit(dev, &j);
		t1 = now_ns();
		pu = (struct pollfd){ j.out_fence_fd, POLLIN, 0 };
		poll(&pu, 1, 60000);
		u_call[i] = t1 - t0;
		u_done[i] = now_ns() - t0;
		close(j.out_fence_fd);

		t0 = now_ns();
		v4l2_qbuf(&v, V_INPUT, i % 2, 32 * 32);
		v4l2_qbuf(&v, V_PARAMS, i % 2, 0);
		v4l2_qbuf(&v, V_MAIN, i % 2, 0);
		v4l2_qbuf(&v, V_STATS, i % 2, 0);
		t1 = now_ns();
		poll(&pv, 1, 60000);
		v_call[i] = t1 - t0;
		v_done[i] = now_ns() - t0;
		for (int k = 0; k < V_NODES; k++)
			v4l2_dqbuf(&v, k, NULL);
	}
	printf("@@ figure %u frames of 32x32 RGGB8 -> RGB888 with statistics, alternating:"
	       " submitting: SUBMIT %.1f us, 4 x QBUF %.1f us (medians)\n",
	       n, median(u_call, n) / 1e3, median(v_call, n) / 1e3);
	printf("@@ figure first call to done (poll): job ioctl %.1f us, V4L2 %.1f us (medians; V4L2/ioctl %.2f)\n",
	       median(u_done, n) / 1e3, median(v_done, n) / 1e3, (double)median(v_done, n) / (double)median(u_done, n));
	v4l2_close(&v);
	small_close(dev, &s);
	free(u_call);
	free(u_done);
	free(v_call);
	free(v_done);
}

/* The user-space half of measure_validation() alone, for a machine without the module. */
static void measure_user_validation(unsigned n)
{
	const struct cisp_isp_config ic = { CISP_FMT_SRGGB10, 640, 480, { { CISP_FMT_NV12, 640, 480 } }, NULL };
	struct cisp_params_limits limits;
	struct cisp_isp *cpu;
	size_t size;
	void *buf = full_state(640, 480, &size), *copy = malloc(size);
	uint64_t t0, copy_ns, check_ns;

	cisp_isp_create(&cpu, &ic);
	cisp_isp_limits(cpu, &limits);
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++) {
		memcpy(copy, buf, size);
		__asm__ volatile("" ::"r"(copy) : "memory");
	}
	copy_ns = (now_ns() - t0) / n;
	t0 = now_ns();
	for (unsigned i = 0; i < n; i++)
		cisp_params_validate(buf, size, &limits);
	check_ns = (now_ns() - t0) / n;
	printf("@@ figure full state (%zu bytes) in user space: memcpy %.1f us,"
	       " cisp_params_validate() %.1f us (%u runs)\n",
	       size, copy_ns / 1e3, check_ns / 1e3, n);
	cisp_isp_destroy(cpu);
	free(buf);
	free(copy);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "check";
	int dev;

	if (!strcmp(what, "validate-user")) {
		measure_user_validation(argc > 2 ? (unsigned)atoi(argv[2]) : 200);
		return 0;
	}
	dev = open(DEVICE, O_RDWR | O_CLOEXEC);

	if (dev < 0) {
		printf("FAIL cannot open %s: %s (is cisp_isp.ko loaded?)\nRESULT fail\n", DEVICE, strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(what, "measure")) {
		measure_frames(dev, argc > 2 ? (unsigned)atoi(argv[2]) : 200);
		measure_validation(dev, 20);
	} else if (!strcmp(what, "syscalls-uapi")) {
		failures = syscalls_uapi(dev, argc > 2 ? (unsigned)atoi(argv[2]) : 100);
	} else if (!strcmp(what, "syscalls-v4l2")) {
		failures = syscalls_v4l2(argc > 2 ? (unsigned)atoi(argv[2]) : 100);
	} else {
		unsigned frames = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
		uint64_t t = now_ns();

		kmsg_warnings(NULL);
#define TIMED(call)                                                                  \
	do {                                                                         \
		call;                                                                \
		printf("# %s: %.1f s\n", #call, (now_ns() - t) / 1e9);               \
		t = now_ns();                                                        \
	} while (0)
		TIMED(check_caps(dev));
		TIMED(check_bitexact(dev, frames));
		TIMED(check_heavy(dev));
		TIMED(check_hostile(dev));
		TIMED(check_fences(dev));
		TIMED(check_job_result(dev));
		TIMED(check_burst_backend());
		TIMED(check_deadlines(dev));
		TIMED(check_skip_late(dev));
		TIMED(check_foreign_fences(dev));
		TIMED(check_killed(dev));
		TIMED(check_v4l2());
		EXPECT(kmsg_warnings("     kernel: ") == 0, "nothing in the kernel log at warning level or above");
	}
	close(dev);
	printf("RESULT %s\n", failures ? "fail" : "pass");
	return failures ? 1 : 0;
}
