/* SPDX-License-Identifier: MIT */
/*
 * The V4L2 sensor backend: raw Bayer cameras of Linux. A camera is a video
 * capture node that offers Bayer formats: either one fed by a sensor subdev
 * through the media controller (CSI-2 receivers on boards, vimc), whose
 * pipeline cisp configures, or a standalone node (vivid, USB bridges).
 * Frames come through mmap buffers (exported as dmabufs when the driver
 * allows) and are copied into the caller's image, or lent as they are; an
 * exported buffer's mapping is listed with its dmabuf (core/buffer_fd.h), so
 * that a consumer that imports dmabufs (the Vulkan backend) takes a lent
 * frame by its fd. Controls go to the sensor subdev. See docs/v4l2.md.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/v4l2-subdev.h>
#include <linux/videodev2.h>

#include <cisp/buffer.h>

#include "core/buffer_fd.h"
#include "core/error_internal.h"
#include "sensor/sensor_internal.h"
#include "v4l2.h"

#define MAX_BUFFERS 8
#define MAX_SIZES 16

struct cam_mode {
	const struct v4l2_bayer *dev; /* what the video node delivers */
	uint32_t mbus;                /* what the sensor's pad carries (MC cameras) */
};

struct v4l2cam {
	struct cisp_sensor *s;
	char video[256];     /* the node's path (/dev/v4l/by-id/ links are long) */
	int fd;               /* the video node */
	int ctrl_fd;          /* controls: the sensor subdev, or the video node */
	int lens_fd;          /* the focus lens subdev, or -1 */
	uint32_t type;        /* V4L2_BUF_TYPE_VIDEO_CAPTURE or _MPLANE (one plane) */
	bool has_chain;
	struct media_chain chain;

	struct cisp_sensor_mode *modes;
	struct cam_mode *cm;
	unsigned num_modes, mode;

	/* options */
	bool pipeline_auto;
	int timeout_ms;
	unsigned num_buffers;
	int32_t gain_unity[2]; /* driver codes meaning x1: analogue, digital */
	int pattern_menu[4];   /* V4L2 menu index of each cisp pattern, -1 if none */
	uint32_t black_level;

	/* streaming */
	bool streaming, unplugged;
	uint32_t bytesperline;
	void *mem[MAX_BUFFERS];
	size_t len[MAX_BUFFERS];
	int dmabuf[MAX_BUFFERS];
	struct cisp_buffer *exported[MAX_BUFFERS]; /* mem[i] listed with dmabuf[i] (NULL: not exported) */
	unsigned num_mem;
	bool lent[MAX_BUFFERS]; /* given to the caller by cisp_sensor_acquire(), not queued */
	bool dmabuf_ok;
	bool have_seq0;
	uint32_t seq0;
};

static const struct sensor_ops cam_ops;

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

/* ---- finding cameras ---- */

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* The numbers N of /dev/videoN, sorted (from sysfs, so nothing is opened). */
static unsigned list_video_nodes(unsigned *nums, unsigned max)
{
	DIR *d = opendir("/sys/class/video4linux");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max)
		if (!strncmp(e->d_name, "video", 5) && isdigit((unsigned char)e->d_name[5]))
			nums[n++] = (unsigned)atoi(e->d_name + 5);
	closedir(d);
	qsort(nums, n, sizeof(*nums), cmp_uint);
	return n;
}

/* The name of a video node (/sys/class/video4linux/videoN/name), or its card name. */
static void node_name(const char *path, const struct v4l2_capability *cap, char *out, size_t n)
{
	char p[96];
	FILE *f;

	snprintf(out, n, "%s", (const char *)cap->card);
	snprintf(p, sizeof(p), "/sys/class/video4linux/%s/name", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	f = fopen(p, "r");
	if (f) {
		if (fgets(out, (int)n, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

/*
 * The chain of a video node over every media device (-ENOENT if none has
 * the node). A media device that does not open (another device's, without
 * permission) is skipped: the node's own may come later.
 */
static int find_chain(int fd, struct media_chain *chain)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	for (int i = 0; i < 64; i++) {
		char path[32];
		int r;

		snprintf(path, sizeof(path), "/dev/media%d", i);
		if (access(path, F_OK) < 0)
			continue;
		r = media_find_chain(path, major(st.st_rdev), minor(st.st_rdev), chain);
		if (r >= 0)
			return r;
	}
	return -ENOENT;
}

/* A streaming capture node: its buffer type (single- or multi-planar), or an error with a message. */
static int check_caps(int fd, const char *path, struct v4l2_capability *cap)
{
	uint32_t caps;

	if (xioctl(fd, VIDIOC_QUERYCAP, cap) < 0)
		return cisp_error(errno == ENOTTY ? -ENODEV : -errno, "v4l2: %s is not a V4L2 device (%s)", path,
				  strerror(errno));
	caps = cap->capabilities & V4L2_CAP_DEVICE_CAPS ? cap->device_caps : cap->capabilities;
	if (!(caps & (V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE)))
		return cisp_error(-ENODEV, "v4l2: %s is not a video capture node", path);
	if (!(caps & V4L2_CAP_STREAMING))
		return cisp_error(-ENOTSUP, "v4l2: %s cannot stream (no V4L2_CAP_STREAMING)", path);
	/* Many CSI-2 receivers are multi-planar nodes; Bayer frames use one plane of them. */
	return caps & V4L2_CAP_VIDEO_CAPTURE ? V4L2_BUF_TYPE_VIDEO_CAPTURE : V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
}

/* Does the node list @fourcc? */
static bool node_offers(int fd, uint32_t type, uint32_t fourcc)
{
	for (uint32_t i = 0;; i++) {
		struct v4l2_fmtdesc f = { .index = i, .type = type };

		if (xioctl(fd, VIDIOC_ENUM_FMT, &f) < 0)
			return false;
		if (f.pixelformat == fourcc)
			return true;
	}
}

static unsigned count_bayer(int fd, uint32_t type)
{
	unsigned n = 0;

	for (uint32_t i = 0;; i++) {
		struct v4l2_fmtdesc f = { .index = i, .type = type };

		if (xioctl(fd, VIDIOC_ENUM_FMT, &f) < 0)
			return n;
		n += v4l2_bayer_by_fourcc(f.pixelformat) != NULL;
	}
}

static int cam_enumerate(struct cisp_sensor_desc *list, unsigned max)
{
	unsigned nums[64], n = list_video_nodes(nums, 64), found = 0;

	for (unsigned i = 0; i < n; i++) {
		struct v4l2_capability cap = { 0 };
		struct media_chain chain;
		char path[32];
		unsigned bayer;
		int fd, kind, type;

		snprintf(path, sizeof(path), "/dev/video%u", nums[i]);
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 && (errno == EACCES || errno == EPERM)) {
			/* Maybe a camera: say why it cannot be used rather than hide it. */
			if (found < max) {
				snprintf(list[found].name, sizeof(list[found].name), "v4l2:%s", path);
				snprintf(list[found].backend, sizeof(list[found].backend), "v4l2");
				snprintf(list[found].description, sizeof(list[found].description),
					 "no permission to open (add the user to the group owning it, usually 'video')");
			}
			found++;
			continue;
		}
		if (fd < 0)
			continue; /* gone meanwhile */
		if ((type = check_caps(fd, path, &cap)) < 0 || (bayer = count_bayer(fd, (uint32_t)type)) == 0) {
			close(fd);
			continue;
		}
		kind = find_chain(fd, &chain);
		close(fd);
		if (kind == MEDIA_CHAIN_PROCESSED)
			continue; /* Bayer after a scaler or debayer is not the sensor's data */
		if (found < max) {
			struct cisp_sensor_desc *d = &list[found];

			snprintf(d->name, sizeof(d->name), "v4l2:%s", path);
			snprintf(d->backend, sizeof(d->backend), "v4l2");
			if (kind == MEDIA_CHAIN_SENSOR)
				snprintf(d->description, sizeof(d->description), "%.16s: '%.36s' -> '%.36s', %u Bayer formats",
					 chain.driver, chain.hops[0].name, chain.hops[chain.num_hops - 1].name, bayer);
			else {
				char name[64];

				node_name(path, &cap, name, sizeof(name));
				snprintf(d->description, sizeof(d->description), "%.20s: '%.60s'%s, %u Bayer formats",
					 (const char *)cap.driver, name,
					 type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE ? " (multi-planar)" : "", bayer);
			}
		}
		found++;
	}
	return (int)found;
}

/* ---- modes ---- */

static int add_mode(struct v4l2cam *c, const struct v4l2_bayer *dev, uint32_t mbus, uint32_t w, uint32_t h)
{
	struct cisp_sensor_mode *m;
	const struct v4l2_bayer *plain = v4l2_bayer_by_mbus(dev->mbus);

	if (w < 16 || h < 16 || (w & 1) || (h & 1) || w > CISP_MAX_DIMENSION || h > CISP_MAX_DIMENSION ||
	    (dev->packed && w % 4))
		return 0;
	for (unsigned i = 0; i < c->num_modes; i++)
		if (c->cm[i].mbus == mbus && c->modes[i].width == w && c->modes[i].height == h)
			return 0; /* packed and unpacked offers of one format: keep the first */
	m = realloc(c->modes, (c->num_modes + 1) * sizeof(*m));
	if (m)
		c->modes = m;
	struct cam_mode *cm = realloc(c->cm, (c->num_modes + 1) * sizeof(*cm));
	if (cm)
		c->cm = cm;
	if (!m || !cm)
		return cisp_error(-ENOMEM, "v4l2: out of memory");
	m = &c->modes[c->num_modes];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%s %ux%u", cisp_format_name(dev->fourcc), w, h);
	m->width = w;
	m->height = h;
	m->format = plain->fourcc;
	m->cfa = dev->cfa;
	m->bits = dev->bits;
	m->crop_width = w;
	m->crop_height = h;
	m->binning = 1;
	m->white_level = (1u << dev->bits) - 1;
	c->cm[c->num_modes].dev = dev;
	c->cm[c->num_modes].mbus = mbus;
	c->num_modes++;
	return 0;
}

static unsigned node_sizes(int fd, uint32_t fourcc, uint32_t *w, uint32_t *h)
{
	struct v4l2_frmsizeenum fs = { .index = 0, .pixel_format = fourcc };
	unsigned n = 0;

	if (xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &fs) < 0)
		return 0;
	if (fs.type != V4L2_FRMSIZE_TYPE_DISCRETE)
		return v4l2_range_sizes(fs.stepwise.min_width, fs.stepwise.max_width, fs.stepwise.step_width,
					fs.stepwise.min_height, fs.stepwise.max_height, fs.stepwise.step_height, w, h,
					MAX_SIZES);
	do {
		w[n] = fs.discrete.width;
		h[n] = fs.discrete.height;
		n++;
		fs.index++;
	} while (n < MAX_SIZES && xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &fs) == 0);
	return n;
}

/* Modes of a standalone node: its Bayer formats and frame sizes. */
static int node_modes(struct v4l2cam *c)
{
	int ret = 0;

	for (uint32_t i = 0; ret == 0; i++) {
		struct v4l2_fmtdesc f = { .index = i, .type = c->type };
		const struct v4l2_bayer *b;
		uint32_t w[MAX_SIZES], h[MAX_SIZES];
		unsigned n;

		if (xioctl(c->fd, VIDIOC_ENUM_FMT, &f) < 0)
			break;
		b = v4l2_bayer_by_fourcc(f.pixelformat);
		if (!b)
			continue;
		n = node_sizes(c->fd, b->fourcc, w, h);
		for (unsigned k = 0; k < n && ret == 0; k++)
			ret = add_mode(c, b, b->mbus, w[k], h[k]);
	}
	return ret;
}

/* Modes of an MC camera: the sensor's Bayer bus codes the node can store, at the sensor's sizes. */
static int sensor_modes(struct v4l2cam *c)
{
	uint32_t padi = c->chain.hops[0].source_pad;
	int ret = 0;

	for (uint32_t i = 0; ret == 0; i++) {
		struct v4l2_subdev_mbus_code_enum ce = { .pad = padi, .index = i, .which = V4L2_SUBDEV_FORMAT_ACTIVE };
		const struct v4l2_bayer *b, *dev;

		if (xioctl(c->ctrl_fd, VIDIOC_SUBDEV_ENUM_MBUS_CODE, &ce) < 0)
			break;
		b = v4l2_bayer_by_mbus(ce.code);
		if (!b)
			continue;
		dev = node_offers(c->fd, c->type, b->fourcc) ? b : v4l2_bayer_packed(b);
		if (!dev || !node_offers(c->fd, c->type, dev->fourcc))
			continue;
		for (uint32_t k = 0; ret == 0; k++) {
			struct v4l2_subdev_frame_size_enum fe = { .index = k, .pad = padi, .code = ce.code,
								  .which = V4L2_SUBDEV_FORMAT_ACTIVE };
			uint32_t w[MAX_SIZES], h[MAX_SIZES];
			unsigned n;

			if (xioctl(c->ctrl_fd, VIDIOC_SUBDEV_ENUM_FRAME_SIZE, &fe) < 0)
				break;
			if (fe.min_width == fe.max_width && fe.min_height == fe.max_height) {
				ret = add_mode(c, dev, ce.code, fe.max_width, fe.max_height);
				continue;
			}
			n = v4l2_range_sizes(fe.min_width, fe.max_width, 1, fe.min_height, fe.max_height, 1, w, h,
					     MAX_SIZES);
			for (unsigned j = 0; j < n && ret == 0; j++)
				ret = add_mode(c, dev, ce.code, w[j], h[j]);
		}
	}
	return ret;
}

/* ---- controls ---- */

static bool query(int fd, uint32_t id, struct v4l2_query_ext_ctrl *q)
{
	memset(q, 0, sizeof(*q));
	q->id = id;
	return fd >= 0 && xioctl(fd, VIDIOC_QUERY_EXT_CTRL, q) == 0 && !(q->flags & V4L2_CTRL_FLAG_DISABLED);
}

static int64_t get_ctrl(int fd, uint32_t id, int64_t fallback)
{
	struct v4l2_ext_control ec = { .id = id };
	struct v4l2_ext_controls ecs = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &ec };

	if (fd < 0 || xioctl(fd, VIDIOC_G_EXT_CTRLS, &ecs) < 0)
		return fallback;
	return id == V4L2_CID_PIXEL_RATE ? ec.value64 : ec.value;
}

static int set_ctrl(struct v4l2cam *c, int fd, uint32_t id, int32_t value, const char *what)
{
	struct v4l2_ext_control ec = { .id = id, .value = value };
	struct v4l2_ext_controls ecs = { .which = V4L2_CTRL_WHICH_CUR_VAL, .count = 1, .controls = &ec };

	if (xioctl(fd, VIDIOC_S_EXT_CTRLS, &ecs) < 0)
		return cisp_error(errno == ENODEV ? -ENODEV : -errno, "v4l2: %s: cannot set %s to %d: %s", c->video, what,
				  value, strerror(errno));
	return 0;
}

/* Line and frame timing of a mode from the sensor's PIXEL_RATE, HBLANK and VBLANK, or from the frame rate. */
static void mode_timing(struct v4l2cam *c, struct cisp_sensor_mode *m)
{
	struct v4l2_query_ext_ctrl vb;
	int64_t rate = get_ctrl(c->ctrl_fd, V4L2_CID_PIXEL_RATE, 0);
	int64_t hblank = get_ctrl(c->ctrl_fd, V4L2_CID_HBLANK, 0);
	double fps = 30;

	if (rate <= 0) {
		struct v4l2_streamparm p = { .type = c->type };

		if (xioctl(c->fd, VIDIOC_G_PARM, &p) == 0 && p.parm.capture.timeperframe.numerator &&
		    p.parm.capture.timeperframe.denominator)
			fps = (double)p.parm.capture.timeperframe.denominator / p.parm.capture.timeperframe.numerator;
		rate = (int64_t)((double)m->width * m->height * fps);
		hblank = 0;
	}
	m->pixel_rate = (uint64_t)rate;
	m->line_length = m->width + (uint32_t)(hblank > 0 ? hblank : 0);
	if (query(c->ctrl_fd, V4L2_CID_VBLANK, &vb)) {
		m->frame_length_min = m->height + (uint32_t)vb.minimum;
		m->frame_length_max = m->height + (uint32_t)vb.maximum;
		m->frame_length_default = m->height + (uint32_t)get_ctrl(c->ctrl_fd, V4L2_CID_VBLANK, vb.default_value);
	} else {
		m->frame_length_min = m->frame_length_max = m->frame_length_default = m->height;
	}
	m->exposure_margin = c->s->controls[CISP_SENSOR_EXPOSURE].supported ? 4 : 0;
	m->black_level = c->black_level;
}

/* A menu item of control @id whose name contains one of @words (case-insensitive), or -1. */
static int menu_find(int fd, uint32_t id, const char *const *words)
{
	struct v4l2_query_ext_ctrl q;

	if (!query(fd, id, &q) || q.type != V4L2_CTRL_TYPE_MENU)
		return -1;
	for (const char *const *w = words; *w; w++)
		for (int64_t i = q.minimum; i <= q.maximum; i++) {
			struct v4l2_querymenu m = { .id = id, .index = (uint32_t)i };

			if (xioctl(fd, VIDIOC_QUERYMENU, &m) == 0 && strcasestr((const char *)m.name, *w))
				return (int)i;
		}
	return -1;
}

/* A driver's gain code in cisp's units; codes are clamped so that no driver value overflows. */
static int32_t gain_to_cisp(int64_t code, int32_t unity)
{
	int64_t v = (code < 0 ? 0 : code > INT32_MAX ? INT32_MAX : code) * CISP_SENSOR_GAIN_ONE / unity;

	return (int32_t)(v > INT32_MAX ? INT32_MAX : v);
}

static void declare_controls(struct v4l2cam *c)
{
	struct cisp_sensor *s = c->s;
	struct v4l2_query_ext_ctrl q;
	static const char *const off[] = { "disabled", "off", NULL }, *const bars[] = { "bar", NULL },
				 *const solid[] = { "solid", NULL }, *const ramp[] = { "ramp", "gradient", "fade", NULL };

	if (query(c->ctrl_fd, V4L2_CID_EXPOSURE, &q)) {
		sensor_declare_control(s, CISP_SENSOR_EXPOSURE, 0, 0, 0, 2);
		s->exposure_min = (uint32_t)(q.minimum > 0 ? q.minimum : 1);
	}
	if (query(c->ctrl_fd, V4L2_CID_VBLANK, &q))
		sensor_declare_control(s, CISP_SENSOR_FRAME_LENGTH, 0, 0, 0, 2);
	if (query(c->ctrl_fd, V4L2_CID_ANALOGUE_GAIN, &q)) {
		/* A minimum beyond 32 bits would truncate to 0 and divide by it. */
		c->gain_unity[0] = q.minimum > 0 && q.minimum <= INT32_MAX ? (int32_t)q.minimum : CISP_SENSOR_GAIN_ONE;
		sensor_declare_control(s, CISP_SENSOR_ANALOGUE_GAIN, gain_to_cisp(q.minimum, c->gain_unity[0]),
			gain_to_cisp(q.maximum, c->gain_unity[0]), gain_to_cisp(q.default_value, c->gain_unity[0]), 1);
	}
	if (query(c->ctrl_fd, V4L2_CID_DIGITAL_GAIN, &q)) {
		c->gain_unity[1] = CISP_SENSOR_GAIN_ONE;
		sensor_declare_control(s, CISP_SENSOR_DIGITAL_GAIN, gain_to_cisp(q.minimum, c->gain_unity[1]),
			gain_to_cisp(q.maximum, c->gain_unity[1]), gain_to_cisp(q.default_value, c->gain_unity[1]), 1);
	}
	if (query(c->lens_fd, V4L2_CID_FOCUS_ABSOLUTE, &q))
		sensor_declare_control(s, CISP_SENSOR_LENS_POSITION, (int32_t)q.minimum, (int32_t)q.maximum, (int32_t)q.default_value, 1);
	c->pattern_menu[0] = menu_find(c->ctrl_fd, V4L2_CID_TEST_PATTERN, off);
	c->pattern_menu[1] = menu_find(c->ctrl_fd, V4L2_CID_TEST_PATTERN, bars);
	c->pattern_menu[2] = menu_find(c->ctrl_fd, V4L2_CID_TEST_PATTERN, solid);
	c->pattern_menu[3] = menu_find(c->ctrl_fd, V4L2_CID_TEST_PATTERN, ramp);
	/* cisp's patterns need an "off" entry; sensors without one are driven through the pattern= option. */
	if (c->pattern_menu[0] >= 0)
		sensor_declare_control(s, CISP_SENSOR_TEST_PATTERN, 0, CISP_SENSOR_PATTERN_RAMP, 0, 1);
	if (query(c->ctrl_fd, V4L2_CID_HFLIP, &q))
		sensor_declare_control(s, CISP_SENSOR_HFLIP, 0, 1, (int32_t)q.default_value, 1);
	if (query(c->ctrl_fd, V4L2_CID_VFLIP, &q))
		sensor_declare_control(s, CISP_SENSOR_VFLIP, 0, 1, (int32_t)q.default_value, 1);
}

/* The device latches controls by itself: the write point is the generic layer's bookkeeping. */
static int cam_write_controls(void *priv, uint64_t write_point, uint32_t mask, const int32_t v[CISP_SENSOR_NUM_CONTROLS])
{
	struct v4l2cam *c = priv;
	const struct cisp_sensor_mode *m = &c->modes[c->mode];
	int ret = 0;

	(void)write_point;
	if (c->unplugged)
		return cisp_error(-ENODEV, "v4l2: %s was unplugged", c->video);
	/* Frame length first: it bounds the exposure the driver accepts. */
	if (ret == 0 && (mask & (1u << CISP_SENSOR_FRAME_LENGTH)))
		ret = set_ctrl(c, c->ctrl_fd, V4L2_CID_VBLANK, v[CISP_SENSOR_FRAME_LENGTH] - (int32_t)m->height,
			       "vertical blanking");
	if (ret == 0 && (mask & (1u << CISP_SENSOR_EXPOSURE)))
		ret = set_ctrl(c, c->ctrl_fd, V4L2_CID_EXPOSURE, v[CISP_SENSOR_EXPOSURE], "exposure");
	if (ret == 0 && (mask & (1u << CISP_SENSOR_ANALOGUE_GAIN)))
		ret = set_ctrl(c, c->ctrl_fd, V4L2_CID_ANALOGUE_GAIN,
			       (int32_t)((int64_t)v[CISP_SENSOR_ANALOGUE_GAIN] * c->gain_unity[0] / CISP_SENSOR_GAIN_ONE),
			       "analogue gain");
	if (ret == 0 && (mask & (1u << CISP_SENSOR_DIGITAL_GAIN)))
		ret = set_ctrl(c, c->ctrl_fd, V4L2_CID_DIGITAL_GAIN,
			       (int32_t)((int64_t)v[CISP_SENSOR_DIGITAL_GAIN] * c->gain_unity[1] / CISP_SENSOR_GAIN_ONE),
			       "digital gain");
	if (ret == 0 && (mask & (1u << CISP_SENSOR_LENS_POSITION)))
		ret = set_ctrl(c, c->lens_fd, V4L2_CID_FOCUS_ABSOLUTE, v[CISP_SENSOR_LENS_POSITION], "lens position");
	if (ret == 0 && (mask & (1u << CISP_SENSOR_TEST_PATTERN))) {
		int item = c->pattern_menu[v[CISP_SENSOR_TEST_PATTERN]];

		if (item < 0)
			return cisp_error(-EINVAL, "v4l2: %s: the sensor has no test pattern like cisp's pattern %d",
					  c->video, v[CISP_SENSOR_TEST_PATTERN]);
		ret = set_ctrl(c, c->ctrl_fd, V4L2_CID_TEST_PATTERN, item, "test pattern");
	}
	if (ret == 0 && (mask & (1u << CISP_SENSOR_HFLIP)))
		ret = set_ctrl(c, c->ctrl_fd, V4L2_CID_HFLIP, v[CISP_SENSOR_HFLIP], "horizontal flip");
	if (ret == 0 && (mask & (1u << CISP_SENSOR_VFLIP)))
		ret = set_ctrl(c, c->ctrl_fd, V4L2_CID_VFLIP, v[CISP_SENSOR_VFLIP], "vertical flip");
	return ret;
}

/* A V4L2 control of the sensor by name ("Show Information", "show_information") or id. */
static int find_control(struct v4l2cam *c, const char *key, struct v4l2_query_ext_ctrl *out)
{
	char *end;
	unsigned long id = strtoul(key, &end, 0);
	struct v4l2_query_ext_ctrl q = { .id = V4L2_CTRL_FLAG_NEXT_CTRL };

	if (end != key && !*end)
		return query(c->ctrl_fd, (uint32_t)id, out) ? 0
							    : cisp_error(-ENOENT, "v4l2: %s has no control %s", c->video, key);
	while (xioctl(c->ctrl_fd, VIDIOC_QUERY_EXT_CTRL, &q) == 0) {
		const char *a = q.name, *b = key;

		while (*a && *b && (tolower((unsigned char)*a) == tolower((unsigned char)*b) || (*a == ' ' && *b == '_')))
			a++, b++;
		if (!*a && !*b) {
			*out = q;
			return 0;
		}
		q.id |= V4L2_CTRL_FLAG_NEXT_CTRL;
	}
	return cisp_error(-ENOENT, "v4l2: %s has no control named '%s'", c->video, key);
}

/* Set a V4L2 control to a number or, for menus, an item's name. */
static int set_named_control(struct v4l2cam *c, const char *key, const char *value)
{
	struct v4l2_query_ext_ctrl q;
	char *end;
	long v;
	int ret = find_control(c, key, &q);

	if (ret < 0)
		return ret;
	v = strtol(value, &end, 0);
	if (end == value || *end) {
		if (q.type != V4L2_CTRL_TYPE_MENU)
			return cisp_error(-EINVAL, "v4l2: control '%s' takes a number, not '%s'", q.name, value);
		for (v = (long)q.minimum; v <= (long)q.maximum; v++) {
			struct v4l2_querymenu m = { .id = q.id, .index = (uint32_t)v };

			if (xioctl(c->ctrl_fd, VIDIOC_QUERYMENU, &m) == 0 && !strcasecmp((const char *)m.name, value))
				break;
		}
		if (v > (long)q.maximum)
			return cisp_error(-EINVAL, "v4l2: control '%s' has no item '%s'", q.name, value);
	}
	if (v < q.minimum || v > q.maximum)
		return cisp_error(-EINVAL, "v4l2: control '%s' takes %lld..%lld, not %ld", q.name, (long long)q.minimum,
				  (long long)q.maximum, v);
	return set_ctrl(c, c->ctrl_fd, q.id, (int32_t)v, q.name);
}

static int parse_int(const char *key, const char *value, long min, long max, long *out)
{
	char *end;
	long v = strtol(value, &end, 0);

	if (end == value || *end || v < min || v > max)
		return cisp_error(-EINVAL, "v4l2 option %s=%s: expected an integer in %ld..%ld", key, value, min, max);
	*out = v;
	return 0;
}

static int cam_set_option(void *priv, const char *key, const char *value)
{
	static const char *const ctl_names[CISP_SENSOR_NUM_CONTROLS] = {
		"exposure", "analogue_gain", "digital_gain", "frame_length",
		"lens_position", "test_pattern", "hflip", "vflip",
	};
	struct v4l2cam *c = priv;
	long v = 0; /* parse_int() sets it when it returns 0; gcc -O3 cannot see that */
	int ret;

	if (!strcmp(key, "pipeline")) {
		if (strcmp(value, "auto") && strcmp(value, "manual"))
			return cisp_error(-EINVAL, "v4l2 option pipeline=%s: expected auto or manual", value);
		c->pipeline_auto = !strcmp(value, "auto");
		return 0;
	}
	if (!strcmp(key, "timeout_ms")) {
		ret = parse_int(key, value, 1, 600000, &v);
		if (ret == 0)
			c->timeout_ms = (int)v;
		return ret;
	}
	if (!strcmp(key, "buffers")) {
		ret = parse_int(key, value, 2, MAX_BUFFERS, &v);
		if (ret == 0)
			c->num_buffers = (unsigned)v;
		return ret;
	}
	if (!strcmp(key, "black_level")) {
		ret = parse_int(key, value, 0, 65535, &v);
		if (ret == 0) {
			c->black_level = (uint32_t)v;
			for (unsigned i = 0; i < c->num_modes; i++)
				c->modes[i].black_level = (uint32_t)v < c->modes[i].white_level ? (uint32_t)v : 0;
		}
		return ret;
	}
	if (!strcmp(key, "pattern"))
		return set_named_control(c, "test_pattern", value);
	if (!strncmp(key, "control.", 8))
		return set_named_control(c, key + 8, value);
	if (!strncmp(key, "delay.", 6)) {
		for (unsigned id = 0; id < CISP_SENSOR_NUM_CONTROLS; id++)
			if (!strcmp(key + 6, ctl_names[id])) {
				if (c->streaming)
					return cisp_error(-EBUSY, "v4l2 option %s: only while stopped", key);
				ret = parse_int(key, value, 0, CISP_SENSOR_MAX_DELAY, &v);
				if (ret == 0)
					c->s->controls[id].delay = (unsigned)v;
				return ret;
			}
		return cisp_error(-ENOENT, "v4l2 option %s: no such control", key);
	}
	return cisp_error(-ENOENT,
			  "v4l2 camera has no option '%s' (pipeline, timeout_ms, buffers, black_level, pattern, "
			  "control.<name>, delay.<control>)",
			  key);
}

/* ---- streaming ---- */

static void release_buffers(struct v4l2cam *c)
{
	struct v4l2_requestbuffers rb = { .count = 0, .type = c->type, .memory = V4L2_MEMORY_MMAP };

	for (unsigned i = 0; i < c->num_mem; i++) {
		cisp_buffer_free(c->exported[i]); /* unlisted before its mapping and fd go */
		c->exported[i] = NULL;
		if (c->mem[i])
			munmap(c->mem[i], c->len[i]);
		if (c->dmabuf[i] >= 0)
			close(c->dmabuf[i]);
		c->mem[i] = NULL;
		c->dmabuf[i] = -1;
	}
	c->num_mem = 0;
	/* Free the queue, or the next S_FMT (also from another program) fails with EBUSY. */
	xioctl(c->fd, VIDIOC_REQBUFS, &rb);
}

/* A buffer descriptor of the node's type; multi-planar ones point at @plane. */
static struct v4l2_buffer buffer_desc(const struct v4l2cam *c, uint32_t index, struct v4l2_plane *plane)
{
	struct v4l2_buffer vb = { .index = index, .type = c->type, .memory = V4L2_MEMORY_MMAP };

	memset(plane, 0, sizeof(*plane));
	if (c->type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE) {
		vb.m.planes = plane;
		vb.length = 1;
	}
	return vb;
}

static int busy_error(struct v4l2cam *c, const char *what)
{
	return cisp_error(-EBUSY, "v4l2: %s is busy (%s): another program is streaming from it or holds its buffers",
			  c->video, what);
}

static int cam_start(void *priv)
{
	struct v4l2cam *c = priv;
	const struct cisp_sensor_mode *m = &c->modes[c->mode];
	const struct cam_mode *cm = &c->cm[c->mode];
	struct v4l2_format f = { .type = c->type };
	struct v4l2_requestbuffers rb = { .count = c->num_buffers, .type = c->type, .memory = V4L2_MEMORY_MMAP };
	bool mp = c->type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE;
	int type = (int)c->type, ret;
	uint32_t got_fourcc, got_w, got_h;
	char a[8], b[8];

	if (c->unplugged)
		return cisp_error(-ENODEV, "v4l2: %s was unplugged", c->video);
	if (c->has_chain && c->pipeline_auto) {
		ret = media_configure(&c->chain, cm->mbus, m->width, m->height);
		if (ret < 0)
			return ret;
	}
	if (mp) {
		f.fmt.pix_mp.pixelformat = cm->dev->fourcc;
		f.fmt.pix_mp.width = m->width;
		f.fmt.pix_mp.height = m->height;
		f.fmt.pix_mp.field = V4L2_FIELD_NONE;
		f.fmt.pix_mp.num_planes = 1;
	} else {
		f.fmt.pix.pixelformat = cm->dev->fourcc;
		f.fmt.pix.width = m->width;
		f.fmt.pix.height = m->height;
		f.fmt.pix.field = V4L2_FIELD_NONE;
	}
	if (xioctl(c->fd, VIDIOC_S_FMT, &f) < 0)
		return errno == EBUSY ? busy_error(c, "setting the format")
				      : cisp_error(-errno, "v4l2: %s: cannot set %s %ux%u: %s", c->video,
						   v4l2_fourcc_str(cm->dev->fourcc, a), m->width, m->height, strerror(errno));
	got_fourcc = mp ? f.fmt.pix_mp.pixelformat : f.fmt.pix.pixelformat;
	got_w = mp ? f.fmt.pix_mp.width : f.fmt.pix.width;
	got_h = mp ? f.fmt.pix_mp.height : f.fmt.pix.height;
	if (got_fourcc != cm->dev->fourcc || got_w != m->width || got_h != m->height)
		return cisp_error(-ENOTSUP, "v4l2: %s does not support %s %ux%u (the driver offered %s %ux%u)", c->video,
				  v4l2_fourcc_str(cm->dev->fourcc, a), m->width, m->height, v4l2_fourcc_str(got_fourcc, b),
				  got_w, got_h);
	if (mp && f.fmt.pix_mp.num_planes != 1)
		return cisp_error(-ENOTSUP, "v4l2: %s stores %s in %u planes; cisp reads one", c->video,
				  v4l2_fourcc_str(got_fourcc, a), f.fmt.pix_mp.num_planes);
	c->bytesperline = mp ? f.fmt.pix_mp.plane_fmt[0].bytesperline : f.fmt.pix.bytesperline;
	if (xioctl(c->fd, VIDIOC_REQBUFS, &rb) < 0)
		return errno == EBUSY ? busy_error(c, "allocating buffers")
				      : cisp_error(-errno, "v4l2: %s: cannot allocate buffers: %s", c->video, strerror(errno));
	if (rb.count < 2) {
		release_buffers(c);
		return cisp_error(-ENOMEM, "v4l2: %s: the driver gave %u buffers, at least 2 are needed", c->video,
				  rb.count);
	}
	c->num_mem = rb.count < MAX_BUFFERS ? rb.count : MAX_BUFFERS;
	c->dmabuf_ok = true;
	for (unsigned i = 0; i < c->num_mem; i++) {
		struct v4l2_plane plane;
		struct v4l2_buffer vb = buffer_desc(c, i, &plane);
		/* Read and write: an importer may map the dmabuf writable (lavapipe does, and refuses a read-only one). */
		struct v4l2_exportbuffer eb = { .type = rb.type, .index = i, .flags = O_RDWR | O_CLOEXEC };
		size_t length;
		uint32_t offset;

		c->mem[i] = NULL;
		c->dmabuf[i] = -1;
		if (xioctl(c->fd, VIDIOC_QUERYBUF, &vb) < 0) {
			ret = cisp_error(-errno, "v4l2: %s: QUERYBUF: %s", c->video, strerror(errno));
			goto fail;
		}
		length = mp ? plane.length : vb.length;
		offset = mp ? plane.m.mem_offset : vb.m.offset;
		c->mem[i] = mmap(NULL, length, PROT_READ, MAP_SHARED, c->fd, offset);
		if (c->mem[i] == MAP_FAILED) {
			c->mem[i] = NULL;
			ret = cisp_error(-errno, "v4l2: %s: cannot map buffer %u: %s", c->video, i, strerror(errno));
			goto fail;
		}
		c->len[i] = length;
		/*
		 * A dmabuf lets the frame reach another device without a copy; not
		 * every driver exports. Listed, a lent frame is found by its fd; a
		 * listing that fails leaves it read by its address.
		 */
		if (xioctl(c->fd, VIDIOC_EXPBUF, &eb) == 0) {
			c->dmabuf[i] = eb.fd;
			if (cisp_buffer_fd_view(&c->exported[i], c->mem[i], length, eb.fd))
				cisp_clear_error();
		} else {
			c->dmabuf_ok = false;
		}
		if (xioctl(c->fd, VIDIOC_QBUF, &vb) < 0) {
			ret = cisp_error(-errno, "v4l2: %s: QBUF: %s", c->video, strerror(errno));
			goto fail;
		}
	}
	if (xioctl(c->fd, VIDIOC_STREAMON, &type) < 0) {
		int err = errno;

		release_buffers(c);
		if (err == EPIPE && c->has_chain)
			return media_explain_epipe(&c->chain, c->video, cm->mbus, m->width, m->height);
		if (err == EPIPE)
			return cisp_error(-EPIPE, "v4l2: %s: the driver refused to start (EPIPE: pipeline formats disagree)",
					  c->video);
		if (err == EBUSY)
			return busy_error(c, "starting the stream");
		if (err == ENOLINK)
			return cisp_error(-ENOLINK, "v4l2: %s: the pipeline has a broken or missing link (ENOLINK)",
					  c->video);
		return cisp_error(-err, "v4l2: %s: cannot start streaming: %s", c->video, strerror(err));
	}
	c->streaming = true;
	c->have_seq0 = false;
	memset(c->lent, 0, sizeof(c->lent));
	return 0;
fail:
	release_buffers(c);
	return ret;
}

static int cam_stop(void *priv)
{
	struct v4l2cam *c = priv;
	int type = (int)c->type;

	if (c->streaming)
		xioctl(c->fd, VIDIOC_STREAMOFF, &type); /* gives every buffer back */
	release_buffers(c);
	c->streaming = false;
	return 0;
}

/* The device went away: stop, give every buffer back, and say so. */
static int unplugged(struct v4l2cam *c)
{
	cam_stop(c);
	c->unplugged = true;
	return cisp_error(-ENODEV, "v4l2: %s was unplugged while streaming; the stream stopped and its buffers "
			  "were released",
			  c->video);
}

/*
 * Dequeue the next good frame: its buffer in @vb (multi-planar: @plane), its
 * payload in @data and @used, its sequence and timestamp in @md.
 */
static int dequeue(struct v4l2cam *c, unsigned flags, struct v4l2_buffer *vb, struct v4l2_plane *plane,
		   const uint8_t **data, size_t *used, struct cisp_sensor_metadata *md)
{
	if (c->unplugged || !c->streaming)
		return cisp_error(-ENODEV, "v4l2: %s was unplugged", c->video);
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		size_t offset;
		int r = poll(&p, 1, (flags & CISP_SENSOR_NONBLOCK) ? 0 : c->timeout_ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return cisp_error(-errno, "v4l2: %s: poll: %s", c->video, strerror(errno));
		if (r == 0)
			return (flags & CISP_SENSOR_NONBLOCK)
				       ? -EAGAIN
				       : cisp_error(-ETIMEDOUT, "v4l2: %s: no frame within %d ms", c->video, c->timeout_ms);
		*vb = buffer_desc(c, 0, plane);
		if (xioctl(c->fd, VIDIOC_DQBUF, vb) < 0) {
			if (errno == EAGAIN)
				continue;
			if (errno == ENODEV || errno == EPIPE || (p.revents & POLLERR))
				return unplugged(c);
			return cisp_error(-errno, "v4l2: %s: DQBUF: %s", c->video, strerror(errno));
		}
		if (vb->index >= c->num_mem)
			return cisp_error(-EIO, "v4l2: %s: the driver returned buffer %u of %u", c->video, vb->index,
					  c->num_mem);
		if (vb->flags & V4L2_BUF_FLAG_ERROR) {
			/* A corrupt frame: give it back and wait for the next. */
			if (xioctl(c->fd, VIDIOC_QBUF, vb) < 0)
				return errno == ENODEV ? unplugged(c) : cisp_error(-errno, "v4l2: QBUF: %s", strerror(errno));
			continue;
		}
		/* The plane's payload starts data_offset bytes in. */
		if (c->type == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE)
			*used = v4l2_payload(c->len[vb->index], plane->bytesused, plane->data_offset, &offset);
		else
			*used = v4l2_payload(c->len[vb->index], vb->bytesused, 0, &offset);
		*data = (const uint8_t *)c->mem[vb->index] + offset;
		if (!c->have_seq0) {
			c->seq0 = vb->sequence;
			c->have_seq0 = true;
		}
		md->sequence = (uint64_t)(vb->sequence - c->seq0);
		md->timestamp_ns = (uint64_t)vb->timestamp.tv_sec * 1000000000ull + (uint64_t)vb->timestamp.tv_usec * 1000ull;
		/* cisp stamps the start of readout; most drivers stamp the end of the frame. */
		if ((vb->flags & V4L2_BUF_FLAG_TSTAMP_SRC_MASK) != V4L2_BUF_FLAG_TSTAMP_SRC_SOE) {
			const struct cisp_sensor_mode *m = &c->modes[c->mode];
			/* Compared as doubles: a driver's tiny pixel rate makes it too long for 64 bits. */
			double readout = (double)m->height * cisp_sensor_line_ns(m);

			md->timestamp_ns = (double)md->timestamp_ns > readout ? md->timestamp_ns - (uint64_t)readout : 0;
		}
		return 0;
	}
}

/* Give buffer @vb back to the driver. */
static int requeue(struct v4l2cam *c, struct v4l2_buffer *vb)
{
	if (xioctl(c->fd, VIDIOC_QBUF, vb) < 0)
		return errno == ENODEV ? unplugged(c) : cisp_error(-errno, "v4l2: QBUF: %s", strerror(errno));
	return 0;
}

static int cam_capture(void *priv, struct cisp_image *img, struct cisp_sensor_metadata *md, unsigned flags)
{
	struct v4l2cam *c = priv;
	struct v4l2_plane plane;
	struct v4l2_buffer vb;
	const uint8_t *data;
	size_t used;
	int ret = dequeue(c, flags, &vb, &plane, &data, &used, md), r;

	if (ret < 0)
		return ret;
	ret = v4l2_copy_frame(c->cm[c->mode].dev, data, c->bytesperline, used, img);
	md->flags |= CISP_SENSOR_MD_COPIED;
	r = requeue(c, &vb);
	return ret < 0 ? ret : r;
}

static int cam_acquire(void *priv, uint32_t format, struct cisp_image *img, struct cisp_sensor_metadata *md,
		       unsigned flags)
{
	struct v4l2cam *c = priv;
	const struct v4l2_bayer *b = c->cm[c->mode].dev;
	const struct cisp_sensor_mode *m = &c->modes[c->mode];
	struct v4l2_plane plane;
	struct v4l2_buffer vb;
	const uint8_t *data;
	size_t used;
	int ret;

	if (format != b->fourcc)
		return cisp_error(-ENOTSUP, "v4l2: %s delivers %s, not %s: the frame must be converted", c->video,
				  cisp_format_name(b->fourcc), cisp_format_name(format));
	ret = dequeue(c, flags, &vb, &plane, &data, &used, md);
	if (ret < 0)
		return ret;
	/* The driver's stride and payload are not trusted: the view must lie inside the mapping. */
	ret = v4l2_check_payload(b, c->bytesperline, used, m->width, m->height);
	if (ret < 0) {
		requeue(c, &vb);
		return ret;
	}
	memset(img, 0, sizeof(*img));
	img->format = format;
	img->width = m->width;
	img->height = m->height;
	img->num_planes = 1;
	img->plane[0].data = (uint8_t *)data;
	img->plane[0].stride = c->bytesperline;
	c->lent[vb.index] = true;
	return 0;
}

static int cam_release(void *priv, const struct cisp_image *img)
{
	struct v4l2cam *c = priv;

	for (unsigned i = 0; i < c->num_mem; i++) {
		const uint8_t *start = c->mem[i];
		struct v4l2_plane plane;
		struct v4l2_buffer vb;

		if (!c->lent[i] || img->plane[0].data < start || img->plane[0].data >= start + c->len[i])
			continue;
		c->lent[i] = false;
		if (!c->streaming || c->unplugged)
			return 0;
		vb = buffer_desc(c, i, &plane);
		return requeue(c, &vb);
	}
	return cisp_error(-EINVAL, "v4l2: %s: release of a buffer it did not lend", c->video);
}

static int cam_fd(void *priv)
{
	return ((struct v4l2cam *)priv)->fd;
}

static int cam_set_mode(void *priv, unsigned index)
{
	struct v4l2cam *c = priv;

	c->mode = index;
	/* Blanking limits follow the sensor's format: set it now and read them back. */
	if (c->has_chain && c->pipeline_auto && c->s->controls[CISP_SENSOR_FRAME_LENGTH].supported) {
		struct v4l2_subdev_format f = { .which = V4L2_SUBDEV_FORMAT_ACTIVE, .pad = c->chain.hops[0].source_pad };

		f.format.code = c->cm[index].mbus;
		f.format.width = c->modes[index].width;
		f.format.height = c->modes[index].height;
		f.format.field = V4L2_FIELD_NONE;
		xioctl(c->ctrl_fd, VIDIOC_SUBDEV_S_FMT, &f);
		mode_timing(c, &c->modes[index]);
	}
	return 0;
}

static void cam_close(void *priv)
{
	struct v4l2cam *c = priv;

	if (!c)
		return;
	if (c->fd >= 0) {
		cam_stop(c);
		close(c->fd);
	}
	if (c->ctrl_fd >= 0 && c->ctrl_fd != c->fd)
		close(c->ctrl_fd);
	if (c->lens_fd >= 0)
		close(c->lens_fd);
	free(c->modes);
	free(c->cm);
	free(c);
}

/* "/dev/videoN", or the name of a video node as in /sys/class/video4linux/ * /name. */
static int resolve(const char *id, char *path, size_t n)
{
	unsigned nums[64], k = list_video_nodes(nums, 64);

	if (id[0] == '/') {
		/* A cut path would open another file, or none. */
		if ((size_t)snprintf(path, n, "%s", id) >= n)
			return cisp_error(-ENAMETOOLONG, "v4l2: the path %.40s... is longer than %zu bytes", id, n - 1);
		return 0;
	}
	for (unsigned i = 0; i < k; i++) {
		char p[96], name[128] = "";
		FILE *f;

		snprintf(p, sizeof(p), "/sys/class/video4linux/video%u/name", nums[i]);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fgets(name, sizeof(name), f))
			name[strcspn(name, "\n")] = '\0';
		fclose(f);
		if (!strcmp(name, id)) {
			snprintf(path, n, "/dev/video%u", nums[i]);
			return 0;
		}
	}
	return cisp_error(-ENOENT, "v4l2: no video node named '%s' (give /dev/videoN or a name from "
			  "/sys/class/video4linux/*/name)",
			  id);
}

static int cam_open(struct cisp_sensor *s, const char *id)
{
	struct v4l2cam *c = calloc(1, sizeof(*c));
	struct v4l2_capability cap = { 0 };
	uint32_t max_w = 0, max_h = 0;
	int ret, kind;

	if (!c)
		return cisp_error(-ENOMEM, "v4l2: out of memory");
	c->s = s;
	c->fd = c->ctrl_fd = c->lens_fd = -1;
	c->pipeline_auto = true;
	c->timeout_ms = 5000;
	c->num_buffers = 4;
	c->gain_unity[0] = c->gain_unity[1] = CISP_SENSOR_GAIN_ONE;
	for (unsigned i = 0; i < MAX_BUFFERS; i++)
		c->dmabuf[i] = -1;
	ret = resolve(id, c->video, sizeof(c->video));
	if (ret < 0)
		goto fail;
	c->fd = open(c->video, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		ret = v4l2_open_error(c->video, errno);
		goto fail;
	}
	ret = check_caps(c->fd, c->video, &cap);
	if (ret < 0)
		goto fail;
	c->type = (uint32_t)ret;
	ret = 0;
	kind = find_chain(c->fd, &c->chain);
	if (kind == MEDIA_CHAIN_PROCESSED) {
		ret = cisp_error(-ENODEV, "v4l2: %s is not a raw capture node: a processing entity sits between it and "
				 "the sensor",
				 c->video);
		goto fail;
	}
	c->has_chain = kind == MEDIA_CHAIN_SENSOR;
	if (c->has_chain) {
		c->ctrl_fd = open(c->chain.hops[0].devnode, O_RDWR | O_CLOEXEC);
		if (c->ctrl_fd < 0) {
			ret = v4l2_open_error(c->chain.hops[0].devnode[0] ? c->chain.hops[0].devnode : "the sensor subdev",
					      errno);
			goto fail;
		}
		if (c->chain.lens_devnode[0])
			c->lens_fd = open(c->chain.lens_devnode, O_RDWR | O_CLOEXEC);
		ret = sensor_modes(c);
		snprintf(s->info.model, sizeof(s->info.model), "%s", c->chain.hops[0].name);
		snprintf(s->info.description, sizeof(s->info.description), "%.16s: '%.36s' -> '%.36s' (%.24s)", c->chain.driver,
			 c->chain.hops[0].name, c->chain.hops[c->chain.num_hops - 1].name, c->video);
	} else {
		char name[64];

		c->ctrl_fd = c->fd;
		ret = node_modes(c);
		node_name(c->video, &cap, name, sizeof(name));
		snprintf(s->info.model, sizeof(s->info.model), "%s", name);
		snprintf(s->info.description, sizeof(s->info.description), "%.20s: '%.60s' (%.30s)", (const char *)cap.driver,
			 name, c->video);
	}
	if (ret == 0 && c->num_modes == 0)
		ret = cisp_error(-ENOTSUP, "v4l2: %s offers no raw Bayer format cisp reads (8 to 16 bits, CSI-2 packed 10 "
				 "and 12)",
				 c->video);
	if (ret < 0)
		goto fail;
	declare_controls(c);
	for (unsigned i = 0; i < c->num_modes; i++) {
		mode_timing(c, &c->modes[i]);
		if (c->modes[i].width * c->modes[i].height >= max_w * max_h) {
			max_w = c->modes[i].width;
			max_h = c->modes[i].height;
		}
	}
	s->info.array_width = max_w;
	s->info.array_height = max_h;
	s->info.num_modes = c->num_modes;
	s->modes = c->modes;
	s->mode = 0;
	s->ops = &cam_ops;
	s->priv = c;
	return 0;
fail:
	cam_close(c);
	return ret;
}

static const struct sensor_ops cam_ops = {
	.close = cam_close,
	.set_mode = cam_set_mode,
	.start = cam_start,
	.stop = cam_stop,
	.write_controls = cam_write_controls,
	.capture = cam_capture,
	.acquire = cam_acquire,
	.release = cam_release,
	.fd = cam_fd,
	.set_option = cam_set_option,
};

const struct sensor_backend v4l2_sensor_backend = {
	.prefix = "v4l2",
	.enumerate = cam_enumerate,
	.open = cam_open,
};

bool v4l2_dmabuf_exported(const struct cisp_sensor *s)
{
	return s && s->ops == &cam_ops && ((const struct v4l2cam *)s->priv)->dmabuf_ok;
}
