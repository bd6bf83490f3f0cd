/* SPDX-License-Identifier: MIT */
/*
 * A V4L2 video output device fed with write(): docs/webcam.md.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <cisp/format.h>
#include <cisp/v4l2_output.h>

#include "core/error_internal.h"

#define MAX_SIDE 8192

struct cisp_v4l2_output {
	int fd;
	char path[64];
	struct cisp_v4l2_output_config config;
	uint8_t *frame; /* the packed frame */
	size_t size;
};

static const char *fourcc_text(uint32_t f, char out[5])
{
	for (int i = 0; i < 4; i++) {
		char c = (char)((f >> (8 * i)) & 0xff);
		out[i] = c >= 32 && c < 127 ? c : '?';
	}
	out[4] = 0;
	return out;
}

size_t cisp_v4l2_output_frame_size(const struct cisp_v4l2_output_config *c)
{
	size_t pixels = (size_t)c->width * c->height;

	if (c->width < 2 || c->height < 2 || c->width > MAX_SIDE || c->height > MAX_SIDE || c->width % 2 ||
	    c->height % 2)
		return 0;
	if (c->pixelformat == CISP_V4L2_OUTPUT_YUYV)
		return pixels * 2;
	if (c->pixelformat == CISP_V4L2_OUTPUT_NV12)
		return pixels + pixels / 2;
	return 0;
}

static int check_config(const struct cisp_v4l2_output_config *c, const char *path)
{
	char f[5];

	if (c->pixelformat != CISP_V4L2_OUTPUT_YUYV && c->pixelformat != CISP_V4L2_OUTPUT_NV12)
		return cisp_error(-EINVAL, "%s: format %s: the webcam output writes YUYV or NV12", path,
				  fourcc_text(c->pixelformat, f));
	if (!cisp_v4l2_output_frame_size(c))
		return cisp_error(-EINVAL, "%s: size %ux%u: width and height must be even, 2..%d", path, c->width,
				  c->height, MAX_SIDE);
	if (!c->fps_num || !c->fps_den)
		return cisp_error(-EINVAL, "%s: frame rate %u/%u: both must be positive", path, c->fps_num,
				  c->fps_den);
	return 0;
}

int cisp_v4l2_output_pack(const struct cisp_v4l2_output_config *c, const struct cisp_image *f, uint8_t *dst,
			  size_t size)
{
	size_t need = cisp_v4l2_output_frame_size(c);
	uint32_t w = c->width, h = c->height;

	if (!need || f->format != CISP_FMT_NV12 || f->width != w || f->height != h)
		return cisp_error(-EINVAL, "webcam output: frame is %ux%u %s, the device carries %ux%u", f->width,
				  f->height, cisp_format_name(f->format), w, h);
	if (size < need)
		return cisp_error(-EINVAL, "webcam output: %zu bytes of room for a %zu-byte frame", size, need);
	const uint8_t *y0 = f->plane[0].data, *uv0 = f->plane[1].data;
	size_t ys = f->plane[0].stride, uvs = f->plane[1].stride;

	if (c->pixelformat == CISP_V4L2_OUTPUT_NV12) {
		for (uint32_t y = 0; y < h; y++)
			memcpy(dst + (size_t)y * w, y0 + y * ys, w);
		for (uint32_t y = 0; y < h / 2; y++)
			memcpy(dst + (size_t)w * h + (size_t)y * w, uv0 + y * uvs, w);
		return 0;
	}
	/* YUYV: each 4:2:0 chroma row serves the two luma rows it was taken from. */
	for (uint32_t y = 0; y < h; y++) {
		const uint8_t *luma = y0 + y * ys, *uv = uv0 + (y / 2) * uvs;
		uint8_t *o = dst + (size_t)y * w * 2;

		for (uint32_t x = 0; x < w; x += 2) {
			o[2 * x] = luma[x];
			o[2 * x + 1] = uv[x];
			o[2 * x + 2] = luma[x + 1];
			o[2 * x + 3] = uv[x + 1];
		}
	}
	return 0;
}

/* The device's capabilities (0 for a file that is no V4L2 device); its description in @cap. */
static uint32_t device_caps(int fd, struct v4l2_capability *cap)
{
	memset(cap, 0, sizeof(*cap));
	if (ioctl(fd, VIDIOC_QUERYCAP, cap) < 0)
		return 0;
	return cap->capabilities & V4L2_CAP_DEVICE_CAPS ? cap->device_caps : cap->capabilities;
}

/* Whether @fd is a V4L2 device with video output and write(). */
static bool is_output(int fd, struct v4l2_capability *cap)
{
	uint32_t caps = device_caps(fd, cap);

	return (caps & V4L2_CAP_VIDEO_OUTPUT) && (caps & V4L2_CAP_READWRITE);
}

int cisp_v4l2_output_find(char *path, size_t size)
{
	DIR *d = opendir("/sys/class/video4linux");
	struct dirent *e;
	int best = -1;

	while (d && (e = readdir(d))) {
		struct v4l2_capability cap;
		char dev[64];
		int n, fd;

		if (sscanf(e->d_name, "video%d", &n) != 1 || (best >= 0 && n >= best))
			continue;
		snprintf(dev, sizeof(dev), "/dev/video%d", n);
		fd = open(dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (is_output(fd, &cap) && !strcmp((const char *)cap.driver, "v4l2 loopback"))
			best = n;
		close(fd);
	}
	if (d)
		closedir(d);
	if (best < 0)
		return cisp_error(-ENOENT, "no v4l2loopback device: load the module (modprobe v4l2loopback "
					   "exclusive_caps=1 card_label=cisp) or give --device");
	snprintf(path, size, "/dev/video%d", best);
	return 0;
}

int cisp_v4l2_output_open(struct cisp_v4l2_output **out, const char *path,
			  const struct cisp_v4l2_output_config *config)
{
	struct cisp_v4l2_output *o;
	struct v4l2_capability cap;
	struct stat st;
	struct v4l2_format fmt = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	struct v4l2_streamparm parm = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	char want[5], got[5];
	int ret, fd;

	*out = NULL;
	ret = check_config(config, path);
	if (ret)
		return ret;
	/* Links are followed (/dev/v4l/by-path/...), but nothing is written to what is not a V4L2 output. */
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return cisp_error(-errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode)) {
		close(fd);
		return cisp_error(-ENOTTY, "%s: not a device", path);
	}
	if (!is_output(fd, &cap)) {
		/* v4l2loopback with exclusive_caps=1 offers capture only, while a writer feeds it. */
		bool fed = !strcmp((const char *)cap.driver, "v4l2 loopback") &&
			   (device_caps(fd, &cap) & V4L2_CAP_VIDEO_CAPTURE);

		close(fd);
		if (fed)
			return cisp_error(-EBUSY, "%s: another writer feeds this v4l2loopback device", path);
		return cisp_error(-ENOTTY, "%s: not a V4L2 video output with write() (is it a v4l2loopback device?)",
				  path);
	}
	fmt.fmt.pix.pixelformat = config->pixelformat;
	fmt.fmt.pix.width = config->width;
	fmt.fmt.pix.height = config->height;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	fmt.fmt.pix.colorspace = V4L2_COLORSPACE_SRGB;
	if (ioctl(fd, VIDIOC_S_FMT, &fmt) < 0) {
		ret = -errno;
		close(fd);
		return cisp_error(ret, "%s: setting %s %ux%u: %s", path, fourcc_text(config->pixelformat, want),
				  config->width, config->height, strerror(-ret));
	}
	/* v4l2loopback keeps the format it carries while a reader holds it. */
	if (fmt.fmt.pix.pixelformat != config->pixelformat || fmt.fmt.pix.width != config->width ||
	    fmt.fmt.pix.height != config->height) {
		close(fd);
		return cisp_error(-EBUSY, "%s: carries %s %ux%u (a reader holds that format), not %s %ux%u", path,
				  fourcc_text(fmt.fmt.pix.pixelformat, got), fmt.fmt.pix.width, fmt.fmt.pix.height,
				  fourcc_text(config->pixelformat, want), config->width, config->height);
	}
	/* The frame interval readers see (VIDIOC_G_PARM); a device without it still works. */
	parm.parm.output.timeperframe.numerator = config->fps_den;
	parm.parm.output.timeperframe.denominator = config->fps_num;
	(void)ioctl(fd, VIDIOC_S_PARM, &parm);

	o = calloc(1, sizeof(*o));
	if (o) {
		o->size = cisp_v4l2_output_frame_size(config);
		o->frame = malloc(o->size);
	}
	if (!o || !o->frame) {
		free(o);
		close(fd);
		return cisp_error(-ENOMEM, "%s: out of memory", path);
	}
	o->fd = fd;
	o->config = *config;
	snprintf(o->path, sizeof(o->path), "%s", path);
	*out = o;
	return 0;
}

int cisp_v4l2_output_write(struct cisp_v4l2_output *o, const struct cisp_image *frame)
{
	int ret = cisp_v4l2_output_pack(&o->config, frame, o->frame, o->size);
	ssize_t n;

	if (ret)
		return ret;
	while ((n = write(o->fd, o->frame, o->size)) < 0 && errno == EINTR)
		;
	if (n < 0)
		return cisp_error(-errno, "%s: write: %s", o->path, strerror(errno));
	if ((size_t)n != o->size)
		return cisp_error(-EIO, "%s: the device took %zd of a frame's %zu bytes", o->path, n, o->size);
	return 0;
}

void cisp_v4l2_output_close(struct cisp_v4l2_output *o)
{
	if (!o)
		return;
	close(o->fd);
	free(o->frame);
	free(o);
}
