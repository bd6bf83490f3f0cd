/* SPDX-License-Identifier: MIT */
/*
 * cispsrc: a live GstPushSrc for a cisp camera (docs/gstreamer.md).
 *
 * The element opens the camera in start() (READY -> PAUSED) and offers the
 * sizes, formats and frame rates of its sensor modes as caps; negotiation
 * picks a mode and configures the camera's main stream (video/x-raw, scaled
 * by the ISP) or its raw stream (video/x-bayer at the mode's size). A ring
 * of SLOTS requests is kept queued on the camera, each filling a GstBuffer
 * in place, so frames flow without copies; create() takes the oldest
 * completed one, puts the frame's metadata on it and queues a new request
 * carrying any property changes as controls for the 3A loop.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cisp/burst.h>
#include <cisp/camera.h>
#include <cisp/device.h>
#include <cisp/eis.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/sensor.h>

#include "caps.h"
#include "cispisp.h"
#include "cispsrc.h"
#include "meta.h"

GST_DEBUG_CATEGORY_STATIC(cisp_src_debug);
#define GST_CAT_DEFAULT cisp_src_debug

/* Requests kept in flight: one being filled, one waiting, one spare for the 3A loop's latency. */
#define SLOTS 3
/* How long create() waits at a time, so that flushing is noticed. */
#define WAIT_STEP_NS (100 * 1000 * 1000)
/* A frame later than this is an error (a stuck sensor), not a slow one. */
#define FRAME_TIMEOUT_NS (10ll * 1000 * 1000 * 1000)
/* A camera's name as messages show it: names come from devices and users, escapes are written out. */
#define SHOWN(s) cisp_printable((s), (char[256]){ 0 }, 256)

enum {
	PROP_0,
	PROP_CAMERA,
	PROP_SENSOR_OPTIONS,
	PROP_TUNING,
	PROP_AE,
	PROP_EXPOSURE_TIME,
	PROP_ANALOGUE_GAIN,
	PROP_EV,
	PROP_AWB,
	PROP_COLOUR_TEMPERATURE,
	PROP_RED_GAIN,
	PROP_BLUE_GAIN,
	PROP_AF_MODE,
	PROP_AF_TRIGGER,
	PROP_LENS_POSITION,
	PROP_HDR,
	PROP_BURST,
	PROP_FACES,
	PROP_EIS,
	PROP_ISP,
};

struct slot {
	struct cisp_camera_request req;
	struct cisp_image img;
	GstBuffer *buffer;
	GstVideoFrame frame; /* processed streams */
	GstMapInfo map;      /* the raw stream */
	gboolean mapped;
	gboolean raw_map;    /* mapped as the raw stream (map) rather than as a frame */
	gboolean queued;
};

struct _GstCispSrc {
	GstPushSrc parent;

	/* Properties, guarded by the object lock. */
	gchar *camera_name;
	gchar *sensor_options;
	gchar *tuning;
	struct cisp_control_request controls; /* every control property's value */
	guint32 changed;                      /* CISP_REQ_* bits set since the last request */
	gboolean hdr;                         /* each buffer a merged exposure bracket */
	guint burst;                          /* frames merged into each output frame (0: one) */
	gdouble faces;                        /* face detections a second at most (0: off) */
	gboolean eis;                         /* stabilise the processed stream (docs/eis.md) */
	gint isp;                             /* enum gst_cisp_isp_kind: what the cameras' contexts run on */

	/* Streaming thread state. */
	struct cisp_camera_manager *manager;
	struct cisp_device *device; /* the manager's, made here for isp=vulkan (else the manager makes one) */
	struct cisp_camera *camera;
	gboolean configured, started, flushing;
	gboolean raw;
	GstVideoInfo info;        /* the processed stream's layout */
	guint32 raw_format;       /* the raw stream's format */
	guint raw_width, raw_height;
	gsize raw_stride, raw_size;
	GstClockTime frame_duration;
	struct slot slot[SLOTS];
	guint oldest;
};

G_DEFINE_TYPE(GstCispSrc, gst_cisp_src, GST_TYPE_PUSH_SRC)

GType gst_cisp_af_mode_get_type(void)
{
	static GType type;
	static const GEnumValue values[] = {
		{ CISP_AF_MANUAL, "Lens at lens-position", "manual" },
		{ CISP_AF_AUTO, "One scan when af-trigger is set", "auto" },
		{ CISP_AF_CONTINUOUS, "Scan at start and whenever the scene changes", "continuous" },
		{ 0, NULL, NULL },
	};

	if (!type)
		type = g_enum_register_static("GstCispAfMode", values);
	return type;
}

/* The camera `cisp run` uses when none is named. */
#define DEFAULT_VIRTUAL_CAMERA "virtual:cisp-8m10"

gchar *cisp_gst_default_camera(void)
{
	struct cisp_sensor_desc list[64];
	int n = cisp_sensor_enumerate(list, G_N_ELEMENTS(list));

	/* A real camera that opens now (not busy, not forbidden); else the default virtual one; else the first. */
	for (int i = 0; i < n && i < (int)G_N_ELEMENTS(list); i++) {
		struct cisp_sensor *s;

		if (!strcmp(list[i].backend, "virtual") || cisp_sensor_open(&s, list[i].name, NULL))
			continue;
		cisp_sensor_close(s);
		return g_strdup(list[i].name);
	}
	for (int i = 0; i < n && i < (int)G_N_ELEMENTS(list); i++)
		if (!strcmp(list[i].name, DEFAULT_VIRTUAL_CAMERA))
			return g_strdup(list[i].name);
	return n > 0 ? g_strdup(list[0].name) : NULL;
}

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
	"src", GST_PAD_SRC, GST_PAD_ALWAYS,
	GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE("{ NV12, I420, RGB, BGRx }") "; video/x-bayer, format = (string) { rggb, grbg, "
								   "gbrg, bggr, rggb10le, grbg10le, gbrg10le, bggr10le, "
								   "rggb12le, grbg12le, gbrg12le, bggr12le, rggb14le, "
								   "grbg14le, gbrg14le, bggr14le, rggb16le, grbg16le, "
								   "gbrg16le, bggr16le }, width = (int) [ 1, max ], "
								   "height = (int) [ 1, max ], framerate = (fraction) "
								   "[ 0/1, max ]"));

/* ---- properties ---- */

static void set_control(GstCispSrc *self, guint prop_id, const GValue *value)
{
	struct cisp_control_request *c = &self->controls;

	switch (prop_id) {
	case PROP_AE:
		c->ae_enable = g_value_get_boolean(value);
		self->changed |= CISP_REQ_AE_ENABLE;
		break;
	case PROP_EXPOSURE_TIME:
		c->exposure_us = g_value_get_double(value);
		self->changed |= CISP_REQ_EXPOSURE;
		break;
	case PROP_ANALOGUE_GAIN:
		c->analogue_gain = g_value_get_double(value);
		self->changed |= CISP_REQ_ANALOGUE_GAIN;
		break;
	case PROP_EV:
		c->ev = g_value_get_double(value);
		self->changed |= CISP_REQ_EV;
		break;
	case PROP_AWB:
		c->awb_enable = g_value_get_boolean(value);
		self->changed |= CISP_REQ_AWB_ENABLE;
		break;
	case PROP_COLOUR_TEMPERATURE:
		c->colour_temperature = g_value_get_double(value);
		self->changed |= CISP_REQ_COLOUR_TEMPERATURE;
		self->changed &= ~CISP_REQ_COLOUR_GAINS;
		break;
	case PROP_RED_GAIN:
	case PROP_BLUE_GAIN:
		c->colour_gains[prop_id == PROP_BLUE_GAIN] = g_value_get_double(value);
		self->changed |= CISP_REQ_COLOUR_GAINS;
		break;
	case PROP_AF_MODE:
		c->af_mode = (enum cisp_af_mode)g_value_get_enum(value);
		self->changed |= CISP_REQ_AF_MODE;
		break;
	case PROP_AF_TRIGGER:
		if (g_value_get_boolean(value))
			self->changed |= CISP_REQ_AF_TRIGGER;
		break;
	case PROP_LENS_POSITION:
		c->lens_position = g_value_get_int(value);
		self->changed |= CISP_REQ_LENS_POSITION;
		break;
	}
}

static void gst_cisp_src_set_property(GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
	GstCispSrc *self = GST_CISP_SRC(object);
	gchar **str = NULL;

	if (prop_id >= PROP_AE && prop_id <= PROP_LENS_POSITION) {
		GST_OBJECT_LOCK(self);
		set_control(self, prop_id, value);
		GST_OBJECT_UNLOCK(self);
		return;
	}
	switch (prop_id) {
	case PROP_HDR:
		GST_OBJECT_LOCK(self);
		self->hdr = g_value_get_boolean(value);
		GST_OBJECT_UNLOCK(self);
		return;
	case PROP_CAMERA:
		str = &self->camera_name;
		break;
	case PROP_SENSOR_OPTIONS:
		str = &self->sensor_options;
		break;
	case PROP_TUNING:
		str = &self->tuning;
		break;
	case PROP_BURST:
		GST_OBJECT_LOCK(self);
		self->burst = g_value_get_uint(value);
		GST_OBJECT_UNLOCK(self);
		return;
	case PROP_ISP:
		GST_OBJECT_LOCK(self);
		self->isp = g_value_get_enum(value);
		GST_OBJECT_UNLOCK(self);
		return;
	case PROP_FACES:
		GST_OBJECT_LOCK(self);
		self->faces = g_value_get_double(value);
		GST_OBJECT_UNLOCK(self);
		return;
	case PROP_EIS: /* read when the caps are set */
		GST_OBJECT_LOCK(self);
		self->eis = g_value_get_boolean(value);
		GST_OBJECT_UNLOCK(self);
		return;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		return;
	}
	/* The camera, its options and tuning are read when the element starts. */
	GST_OBJECT_LOCK(self);
	if (self->camera)
		GST_WARNING_OBJECT(self, "%s changes only when the element restarts", pspec->name);
	g_free(*str);
	*str = g_value_dup_string(value);
	GST_OBJECT_UNLOCK(self);
}

static void gst_cisp_src_get_property(GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
	GstCispSrc *self = GST_CISP_SRC(object);
	const struct cisp_control_request *c = &self->controls;

	GST_OBJECT_LOCK(self);
	switch (prop_id) {
	case PROP_CAMERA:
		g_value_set_string(value, self->camera_name);
		break;
	case PROP_SENSOR_OPTIONS:
		g_value_set_string(value, self->sensor_options);
		break;
	case PROP_TUNING:
		g_value_set_string(value, self->tuning);
		break;
	case PROP_AE:
		g_value_set_boolean(value, c->ae_enable);
		break;
	case PROP_EXPOSURE_TIME:
		g_value_set_double(value, c->exposure_us);
		break;
	case PROP_ANALOGUE_GAIN:
		g_value_set_double(value, c->analogue_gain);
		break;
	case PROP_EV:
		g_value_set_double(value, c->ev);
		break;
	case PROP_AWB:
		g_value_set_boolean(value, c->awb_enable);
		break;
	case PROP_COLOUR_TEMPERATURE:
		g_value_set_double(value, c->colour_temperature);
		break;
	case PROP_RED_GAIN:
	case PROP_BLUE_GAIN:
		g_value_set_double(value, c->colour_gains[prop_id == PROP_BLUE_GAIN]);
		break;
	case PROP_AF_MODE:
		g_value_set_enum(value, (gint)c->af_mode);
		break;
	case PROP_AF_TRIGGER:
		g_value_set_boolean(value, FALSE);
		break;
	case PROP_LENS_POSITION:
		g_value_set_int(value, c->lens_position);
		break;
	case PROP_HDR:
		g_value_set_boolean(value, self->hdr);
		break;
	case PROP_BURST:
		g_value_set_uint(value, self->burst);
		break;
	case PROP_ISP:
		g_value_set_enum(value, self->isp);
		break;
	case PROP_FACES:
		g_value_set_double(value, self->faces);
		break;
	case PROP_EIS:
		g_value_set_boolean(value, self->eis);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
		break;
	}
	GST_OBJECT_UNLOCK(self);
}

/* ---- caps ---- */

static double mode_fps(const struct cisp_sensor_mode *m, uint32_t frame_length)
{
	return (double)m->pixel_rate / ((double)m->line_length * frame_length);
}

static void set_framerate_range(GstStructure *s, const struct cisp_sensor_mode *m)
{
	gint max_n, max_d, min_n, min_d;

	gst_util_double_to_fraction(mode_fps(m, m->frame_length_min), &max_n, &max_d);
	gst_util_double_to_fraction(mode_fps(m, m->frame_length_max), &min_n, &min_d);
	if (gst_util_fraction_compare(min_n, min_d, max_n, max_d) < 0)
		gst_structure_set(s, "framerate", GST_TYPE_FRACTION_RANGE, min_n, min_d, max_n, max_d, NULL);
	else
		gst_structure_set(s, "framerate", GST_TYPE_FRACTION, max_n, max_d, NULL);
}

/* Every mode's caps: processed at any size up to the mode's, and raw at the mode's size. */
static GstCaps *camera_caps(GstCispSrc *self)
{
	struct cisp_sensor *sensor = cisp_camera_sensor(self->camera);
	const struct cisp_sensor_info *info = cisp_sensor_info(sensor);
	GstCaps *caps = gst_caps_new_empty();
	unsigned order[64], n = 0;

	/* Smallest mode first: what fixation picks when downstream has no preference. */
	for (unsigned i = 0; i < info->num_modes && n < G_N_ELEMENTS(order); i++) {
		struct cisp_sensor_mode a, b;
		unsigned k = n++;

		cisp_sensor_get_mode(sensor, i, &a);
		for (; k > 0; k--) {
			cisp_sensor_get_mode(sensor, order[k - 1], &b);
			if ((uint64_t)b.width * b.height <= (uint64_t)a.width * a.height)
				break;
			order[k] = order[k - 1];
		}
		order[k] = i;
	}
	for (unsigned j = 0; j < n; j++) {
		unsigned i = order[j];
		struct cisp_sensor_mode m;
		GstStructure *s;
		GValue formats = G_VALUE_INIT, v = G_VALUE_INIT;
		static const char *const names[] = { "NV12", "I420", "RGB", "BGRx" };

		if (cisp_sensor_get_mode(sensor, i, &m))
			continue;
		gst_value_list_init(&formats, G_N_ELEMENTS(names));
		g_value_init(&v, G_TYPE_STRING);
		for (unsigned k = 0; k < G_N_ELEMENTS(names); k++) {
			g_value_set_static_string(&v, names[k]);
			gst_value_list_append_value(&formats, &v);
		}
		g_value_unset(&v);
		s = gst_structure_new("video/x-raw", "width", GST_TYPE_INT_RANGE, 16, (gint)m.width, "height",
				      GST_TYPE_INT_RANGE, 16, (gint)m.height, NULL);
		gst_structure_take_value(s, "format", &formats);
		set_framerate_range(s, &m);
		gst_caps_append_structure(caps, s);
		if (cisp_gst_bayer_name(m.format)) {
			s = gst_structure_new("video/x-bayer", "format", G_TYPE_STRING, cisp_gst_bayer_name(m.format),
					      "width", G_TYPE_INT, (gint)m.width, "height", G_TYPE_INT, (gint)m.height,
					      NULL);
			set_framerate_range(s, &m);
			gst_caps_append_structure(caps, s);
		}
	}
	return caps;
}

static GstCaps *gst_cisp_src_get_caps(GstBaseSrc *src, GstCaps *filter)
{
	GstCispSrc *self = GST_CISP_SRC(src);
	GstCaps *caps;

	/* Caps queries come from any thread: the lock keeps stop() from closing the camera meanwhile. */
	GST_OBJECT_LOCK(self);
	caps = self->camera ? camera_caps(self) : NULL;
	GST_OBJECT_UNLOCK(self);
	if (!caps)
		caps = gst_pad_get_pad_template_caps(GST_BASE_SRC_PAD(src));

	if (filter) {
		GstCaps *c = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);

		gst_caps_unref(caps);
		caps = c;
	}
	return caps;
}

/* Without a preference downstream: the smallest mode's full size, NV12, 30 fps or the nearest the mode allows. */
static GstCaps *gst_cisp_src_fixate(GstBaseSrc *src, GstCaps *caps)
{
	GstStructure *s;
	gint w = G_MAXINT, h = G_MAXINT;

	caps = gst_caps_make_writable(caps);
	caps = gst_caps_truncate(caps);
	s = gst_caps_get_structure(caps, 0);
	if (gst_structure_has_field(s, "width") && !gst_structure_get_int(s, "width", &w)) {
		const GValue *r = gst_structure_get_value(s, "width");

		w = gst_value_get_int_range_max(r);
	}
	if (gst_structure_has_field(s, "height") && !gst_structure_get_int(s, "height", &h)) {
		const GValue *r = gst_structure_get_value(s, "height");

		h = gst_value_get_int_range_max(r);
	}
	gst_structure_fixate_field_nearest_int(s, "width", w);
	gst_structure_fixate_field_nearest_int(s, "height", h);
	gst_structure_fixate_field_string(s, "format", "NV12");
	gst_structure_fixate_field_nearest_fraction(s, "framerate", 30, 1);
	return GST_BASE_SRC_CLASS(gst_cisp_src_parent_class)->fixate(src, caps);
}

/* The smallest mode that holds @w x @h at @fps (raw: exactly its size and format), or -1. */
static int pick_mode(GstCispSrc *self, gboolean raw, guint32 raw_format, gint w, gint h, double fps)
{
	struct cisp_sensor *sensor = cisp_camera_sensor(self->camera);
	const struct cisp_sensor_info *info = cisp_sensor_info(sensor);
	int best = -1;
	double best_area = INFINITY;

	for (unsigned i = 0; i < info->num_modes; i++) {
		struct cisp_sensor_mode m;
		double area;

		if (cisp_sensor_get_mode(sensor, i, &m))
			continue;
		if (raw ? (m.format != raw_format || (gint)m.width != w || (gint)m.height != h)
			: ((gint)m.width < w || (gint)m.height < h))
			continue;
		if (fps > 0 && mode_fps(&m, m.frame_length_min) < fps * 0.999)
			continue;
		area = (double)m.width * m.height;
		if (area < best_area) {
			best_area = area;
			best = (int)i;
		}
	}
	return best;
}

static void release_slots(GstCispSrc *self);

/* Stop the camera and take back the requests the stop cancelled, so that none refers to a slot any more. */
static void stop_camera(GstCispSrc *self)
{
	struct cisp_camera_request *req;

	cisp_camera_stop(self->camera);
	while (cisp_camera_wait(self->camera, &req, 0) == 0)
		;
	self->started = FALSE;
}

static gboolean gst_cisp_src_set_caps(GstBaseSrc *src, GstCaps *caps)
{
	GstCispSrc *self = GST_CISP_SRC(src);
	GstStructure *s = gst_caps_get_structure(caps, 0);
	struct cisp_camera_config cfg;
	struct cisp_eis_config eis = { 0 };
	struct cisp_sensor_mode m;
	gint w = 0, h = 0, fn = 0, fd = 1;
	double fps = 0;
	int mode;

	if (!self->camera)
		return FALSE;
	gst_structure_get_int(s, "width", &w);
	gst_structure_get_int(s, "height", &h);
	if (gst_structure_get_fraction(s, "framerate", &fn, &fd) && fn > 0)
		fps = (double)fn / fd;
	self->raw = gst_structure_has_name(s, "video/x-bayer");
	if (self->raw) {
		self->raw_format = cisp_gst_bayer_format(gst_structure_get_string(s, "format"));
	} else if (!gst_video_info_from_caps(&self->info, caps)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Could not read the caps %" GST_PTR_FORMAT, caps), (NULL));
		return FALSE;
	}
	mode = pick_mode(self, self->raw, self->raw_format, w, h, fps);
	if (mode < 0) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
				  ("Camera '%s' has no mode for %dx%d at %.2f fps", SHOWN(self->camera_name), w, h, fps),
				  (NULL));
		return FALSE;
	}
	/* Renegotiation: stop, give every buffer back, then configure anew. */
	stop_camera(self);
	release_slots(self);
	if (cisp_camera_default_config(self->camera, (unsigned)mode, &cfg) ||
	    cisp_sensor_get_mode(cisp_camera_sensor(self->camera), (unsigned)mode, &m))
		goto fail;
	if (self->raw) {
		size_t row = 0, rows = 0;

		/* The main stream is what the ISP runs for the 3A statistics; requests carry only raw buffers. */
		cfg.stream[CISP_STREAM_MAIN].format = CISP_FMT_NV12;
		cfg.stream[CISP_STREAM_MAIN].width = m.width;
		cfg.stream[CISP_STREAM_MAIN].height = m.height;
		cfg.stream[CISP_STREAM_RAW].format = self->raw_format;
		cfg.stream[CISP_STREAM_RAW].width = m.width;
		cfg.stream[CISP_STREAM_RAW].height = m.height;
		/* The sensor's mode size, checked against cisp's limit before any size is computed from it. */
		if (cisp_image_plane_size(self->raw_format, m.width, m.height, 0, &row, &rows))
			goto fail;
		self->raw_width = m.width;
		self->raw_height = m.height;
		self->raw_stride = cisp_gst_bayer_stride(self->raw_format, m.width);
		self->raw_size = self->raw_stride * rows;
	} else {
		struct cisp_stream_config *st = &cfg.stream[CISP_STREAM_MAIN];
		/* The largest centred part of the frame with the output's aspect ratio, even-aligned. */
		double scale = fmin((double)m.width / w, (double)m.height / h);
		uint32_t cw = (uint32_t)(w * scale) & ~1u, ch = (uint32_t)(h * scale) & ~1u;

		st->format = cisp_gst_output_format(GST_VIDEO_INFO_FORMAT(&self->info));
		st->width = (uint32_t)w;
		st->height = (uint32_t)h;
		st->crop_width = cw;
		st->crop_height = ch;
		st->crop_x = ((m.width - cw) / 2) & ~1u;
		st->crop_y = ((m.height - ch) / 2) & ~1u;
	}
	GST_OBJECT_LOCK(self);
	eis.enable = self->eis && !self->raw;
	GST_OBJECT_UNLOCK(self);
	/* EIS first: on an unconfigured camera it only takes the setting, and the configuration makes its buffers. */
	if (cisp_camera_set_eis(self->camera, &eis) || cisp_camera_configure(self->camera, &cfg))
		goto fail;
	GST_OBJECT_LOCK(self);
	gdouble faces = self->faces;
	GST_OBJECT_UNLOCK(self);
	if (cisp_camera_detect_faces(self->camera, faces))
		goto fail;
	self->configured = TRUE;
	self->frame_duration = fps > 0 ? gst_util_uint64_scale_int(GST_SECOND, fd, fn) : GST_CLOCK_TIME_NONE;
	/* A fixed frame rate: AE keeps every frame's duration at 1/fps. */
	GST_OBJECT_LOCK(self);
	if (fps > 0) {
		self->controls.frame_duration_us[0] = self->controls.frame_duration_us[1] = 1e6 / fps;
		self->changed |= CISP_REQ_FRAME_DURATION;
	}
	GST_OBJECT_UNLOCK(self);
	GST_INFO_OBJECT(self, "camera %s mode %d (%s %ux%u) for %" GST_PTR_FORMAT, SHOWN(self->camera_name), mode, m.name,
			m.width, m.height, caps);
	return TRUE;
fail:
	GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Could not configure camera '%s' for %" GST_PTR_FORMAT,
						   SHOWN(self->camera_name), caps),
			  ("%s", cisp_last_error()));
	return FALSE;
}

/* ---- requests ---- */

/* Describe a buffer as the stream's cisp image and map it for the camera to write. */
static gboolean map_slot(GstCispSrc *self, struct slot *sl)
{
	memset(&sl->img, 0, sizeof(sl->img));
	if (self->raw) {
		sl->buffer = gst_buffer_new_allocate(NULL, self->raw_size, NULL);
		if (!sl->buffer || !gst_buffer_map(sl->buffer, &sl->map, GST_MAP_WRITE))
			return FALSE;
		sl->img.format = self->raw_format;
		sl->img.width = self->raw_width;
		sl->img.height = self->raw_height;
		sl->img.num_planes = 1;
		sl->img.plane[0].data = sl->map.data;
		sl->img.plane[0].stride = self->raw_stride;
		sl->raw_map = TRUE;
	} else {
		sl->buffer = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&self->info), NULL);
		if (!sl->buffer || !gst_video_frame_map(&sl->frame, &self->info, sl->buffer, GST_MAP_WRITE))
			return FALSE;
		sl->img.format = cisp_gst_output_format(GST_VIDEO_INFO_FORMAT(&self->info));
		sl->img.width = (uint32_t)GST_VIDEO_INFO_WIDTH(&self->info);
		sl->img.height = (uint32_t)GST_VIDEO_INFO_HEIGHT(&self->info);
		sl->img.num_planes = GST_VIDEO_FRAME_N_PLANES(&sl->frame);
		for (guint p = 0; p < sl->img.num_planes; p++) {
			sl->img.plane[p].data = GST_VIDEO_FRAME_PLANE_DATA(&sl->frame, p);
			sl->img.plane[p].stride = (size_t)GST_VIDEO_FRAME_PLANE_STRIDE(&sl->frame, p);
		}
	}
	sl->mapped = TRUE;
	return TRUE;
}

static void unmap_slot(struct slot *sl)
{
	if (sl->mapped) {
		/* Not self->raw: renegotiation changes it while the slots are still mapped. */
		if (sl->raw_map)
			gst_buffer_unmap(sl->buffer, &sl->map);
		else
			gst_video_frame_unmap(&sl->frame);
		sl->mapped = FALSE;
	}
}

/* Give every slot's buffer back; the camera must be stopped (no request in flight). */
static void release_slots(GstCispSrc *self)
{
	for (int i = 0; i < SLOTS; i++) {
		struct slot *sl = &self->slot[i];

		unmap_slot(sl);
		if (sl->buffer)
			gst_buffer_unref(sl->buffer);
		memset(sl, 0, sizeof(*sl));
	}
	self->oldest = 0;
}

/* Queue a slot with a fresh buffer and the controls changed since the last request. */
static gboolean queue_slot(GstCispSrc *self, struct slot *sl)
{
	if (!map_slot(self, sl)) {
		GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT, ("Could not allocate a buffer"), (NULL));
		return FALSE;
	}
	memset(&sl->req, 0, sizeof(sl->req));
	sl->req.buffer[self->raw ? CISP_STREAM_RAW : CISP_STREAM_MAIN] = &sl->img;
	GST_OBJECT_LOCK(self);
	sl->req.controls = self->controls;
	sl->req.controls.mask = self->changed;
	sl->req.burst = self->burst;
	self->changed = 0;
	if (self->hdr) /* docs/hdr.md: -2, 0 and +2 EV around AE's exposure */
		sl->req.bracket = (struct cisp_camera_bracket){ 3, { -2, 0, 2 } };
	GST_OBJECT_UNLOCK(self);
	if (cisp_camera_queue(self->camera, &sl->req)) {
		GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Could not queue a request on camera '%s'", SHOWN(self->camera_name)),
				  ("%s", cisp_last_error()));
		return FALSE;
	}
	sl->queued = TRUE;
	return TRUE;
}

/* The frame's faces as GstVideoRegionOfInterestMeta "face", each with a "detection" parameter. */
static void add_face_meta(GstCispSrc *self, GstBuffer *buf, const struct cisp_camera_request *req)
{
	struct cisp_camera_face f[CISP_CAMERA_MAX_FACES];
	int n = cisp_camera_request_faces(self->camera, req, f, CISP_CAMERA_MAX_FACES);

	for (int i = 0; i < n && i < CISP_CAMERA_MAX_FACES; i++) {
		GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta(
			buf, "face", (guint)MAX(f[i].x, 0), (guint)MAX(f[i].y, 0), (guint)MAX(f[i].width, 0),
			(guint)MAX(f[i].height, 0));
		gst_video_region_of_interest_meta_add_param(
			m, gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, f[i].confidence, "age",
					     G_TYPE_UINT, (guint)f[i].age, NULL));
	}
}

static GstFlowReturn gst_cisp_src_create(GstPushSrc *src, GstBuffer **out)
{
	GstCispSrc *self = GST_CISP_SRC(src);
	struct cisp_camera_request *req = NULL;
	struct slot *sl;
	gint64 waited = 0;
	int ret;

	if (!self->configured) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("No caps were negotiated"), (NULL));
		return GST_FLOW_NOT_NEGOTIATED;
	}
	if (!self->started) {
		gboolean ok = TRUE;

		for (int i = 0; i < SLOTS && ok; i++)
			ok = queue_slot(self, &self->slot[i]);
		if (ok && cisp_camera_start(self->camera)) {
			GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Could not start camera '%s'", SHOWN(self->camera_name)),
					  ("%s", cisp_last_error()));
			ok = FALSE;
		}
		if (!ok) {
			/* Nothing stays queued: a later create() (after a flushing seek) starts from empty slots. */
			stop_camera(self);
			release_slots(self);
			return GST_FLOW_ERROR;
		}
		self->started = TRUE;
		self->oldest = 0;
	}
	do {
		if (g_atomic_int_get(&self->flushing))
			return GST_FLOW_FLUSHING;
		ret = cisp_camera_wait(self->camera, &req, WAIT_STEP_NS);
		waited += WAIT_STEP_NS;
	} while (ret == -ETIMEDOUT && waited < FRAME_TIMEOUT_NS);
	if (ret) {
		GST_ELEMENT_ERROR(self, RESOURCE, READ, ("Camera '%s' delivered no frame", SHOWN(self->camera_name)),
				  ("%s", ret == -ETIMEDOUT ? "no frame within 10 seconds" : cisp_last_error()));
		return GST_FLOW_ERROR;
	}
	sl = &self->slot[self->oldest];
	if (req != &sl->req) {
		GST_ELEMENT_ERROR(self, CORE, FAILED, ("Camera '%s' completed requests out of order", SHOWN(self->camera_name)),
				  (NULL));
		return GST_FLOW_ERROR;
	}
	self->oldest = (self->oldest + 1) % SLOTS;
	sl->queued = FALSE;
	unmap_slot(sl);
	if (req->status) {
		GST_ELEMENT_ERROR(self, RESOURCE, READ, ("Camera '%s' failed on a frame", SHOWN(self->camera_name)),
				  ("%s", req->message[0] ? req->message : g_strerror(-req->status)));
		return GST_FLOW_ERROR;
	}
	*out = sl->buffer;
	sl->buffer = NULL;
	GST_BUFFER_OFFSET(*out) = req->metadata.sequence;
	GST_BUFFER_OFFSET_END(*out) = req->metadata.sequence + 1;
	/* The frame's own duration, as the sensor ran it; the caps' when it is not known. */
	GST_BUFFER_DURATION(*out) = req->metadata.frame_duration_us > 0
					    ? (GstClockTime)llround(req->metadata.frame_duration_us * 1000)
					    : self->frame_duration;
	cisp_gst_meta_add(*out, &req->metadata);
	add_face_meta(self, *out, req); /* none while face detection is off */
	if (!self->raw)
		gst_buffer_add_video_meta_full(*out, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&self->info),
					       GST_VIDEO_INFO_WIDTH(&self->info), GST_VIDEO_INFO_HEIGHT(&self->info),
					       GST_VIDEO_INFO_N_PLANES(&self->info), self->info.offset,
					       self->info.stride);
	if (!queue_slot(self, sl)) {
		gst_buffer_unref(*out);
		*out = NULL;
		return GST_FLOW_ERROR;
	}
	return GST_FLOW_OK;
}

/* ---- state ---- */

static gboolean open_camera(GstCispSrc *self, const gchar *name, const struct cisp_camera_options *opt);

static gboolean gst_cisp_src_start(GstBaseSrc *src)
{
	GstCispSrc *self = GST_CISP_SRC(src);
	struct cisp_camera_options opt = { 0 };
	gchar *name, *options, *tuning;
	gboolean ok;

	/* Copies: another thread may set the properties meanwhile. */
	GST_OBJECT_LOCK(self);
	if (!self->camera_name)
		self->camera_name = cisp_gst_default_camera();
	name = g_strdup(self->camera_name);
	options = g_strdup(self->sensor_options);
	tuning = g_strdup(self->tuning);
	GST_OBJECT_UNLOCK(self);
	opt.sensor_options = options;
	opt.tuning = tuning;
	ok = open_camera(self, name, &opt);
	g_free(name);
	g_free(options);
	g_free(tuning);
	return ok;
}

static void close_manager(GstCispSrc *self)
{
	cisp_camera_manager_destroy(self->manager);
	self->manager = NULL;
	cisp_device_destroy(self->device);
	self->device = NULL;
}

/* The camera manager; with isp=vulkan on a device of our own whose contexts run on the Vulkan backend. */
static gboolean open_manager(GstCispSrc *self)
{
	struct cisp_camera_manager_config config = { 0 };
	gint isp;

	GST_OBJECT_LOCK(self);
	isp = self->isp;
	GST_OBJECT_UNLOCK(self);
	if (isp == GST_CISP_ISP_VULKAN) {
		if (cisp_device_create(&self->device, NULL))
			return FALSE;
		cisp_device_set_backend(self->device, cisp_device_vulkan_backend());
		config.device = self->device;
	}
	return !cisp_camera_manager_create(&self->manager, &config);
}

/* start()'s work: the manager and the camera @name, and every control for the first request. */
static gboolean open_camera(GstCispSrc *self, const gchar *name, const struct cisp_camera_options *opt)
{
	struct cisp_camera *camera;

	if (!name) {
		GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("No cisp camera found"),
				  ("cisp lists no sensor (virtual sensor models or V4L2 cameras)"));
		return FALSE;
	}
	if (!open_manager(self)) {
		GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Could not create the cisp ISP device"),
				  ("%s", cisp_last_error()));
		close_manager(self);
		return FALSE;
	}
	if (cisp_camera_open(&camera, self->manager, name, opt)) {
		GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Could not open camera '%s'", SHOWN(name)),
				  ("%s", cisp_last_error()));
		close_manager(self);
		return FALSE;
	}
	GST_OBJECT_LOCK(self);
	self->camera = camera;
	GST_OBJECT_UNLOCK(self);
	/* A live source runs at the camera's pace: a virtual sensor is paced on the clock unless told otherwise. */
	{
		struct cisp_sensor *sensor = cisp_camera_sensor(self->camera);

		if (!strcmp(cisp_sensor_info(sensor)->backend, "virtual") &&
		    !(opt->sensor_options && strstr(opt->sensor_options, "realtime")) &&
		    cisp_sensor_set_option(sensor, "realtime", "1"))
			GST_WARNING_OBJECT(self, "cannot pace the virtual sensor: %s", cisp_last_error());
	}
	GST_INFO_OBJECT(self, "opened camera %s, tuning %s", name, cisp_camera_tuning_name(self->camera));
	/* Every control the properties hold goes with the first request. */
	GST_OBJECT_LOCK(self);
	self->changed |= CISP_REQ_AE_ENABLE | CISP_REQ_EV | CISP_REQ_AWB_ENABLE | CISP_REQ_AF_MODE;
	if (!self->controls.ae_enable)
		self->changed |= CISP_REQ_EXPOSURE | CISP_REQ_ANALOGUE_GAIN;
	if (!self->controls.af_mode)
		self->changed |= CISP_REQ_LENS_POSITION;
	GST_OBJECT_UNLOCK(self);
	return TRUE;
}

static gboolean gst_cisp_src_stop(GstBaseSrc *src)
{
	GstCispSrc *self = GST_CISP_SRC(src);

	if (self->camera) {
		/* Take back the cancelled requests before their buffers go. */
		struct cisp_camera *camera = self->camera;

		stop_camera(self);
		release_slots(self);
		GST_OBJECT_LOCK(self);
		self->camera = NULL;
		GST_OBJECT_UNLOCK(self);
		cisp_camera_close(camera);
	}
	close_manager(self);
	self->configured = self->started = FALSE;
	return TRUE;
}

static gboolean gst_cisp_src_unlock(GstBaseSrc *src)
{
	g_atomic_int_set(&GST_CISP_SRC(src)->flushing, TRUE);
	return TRUE;
}

static gboolean gst_cisp_src_unlock_stop(GstBaseSrc *src)
{
	g_atomic_int_set(&GST_CISP_SRC(src)->flushing, FALSE);
	return TRUE;
}

static gboolean gst_cisp_src_query(GstBaseSrc *src, GstQuery *query)
{
	GstCispSrc *self = GST_CISP_SRC(src);

	if (GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && self->configured &&
	    GST_CLOCK_TIME_IS_VALID(self->frame_duration)) {
		/* A frame is out one frame time after its exposure started; up to SLOTS wait in the ring. */
		gst_query_set_latency(query, TRUE, self->frame_duration, self->frame_duration * SLOTS);
		return TRUE;
	}
	return GST_BASE_SRC_CLASS(gst_cisp_src_parent_class)->query(src, query);
}

static void gst_cisp_src_finalize(GObject *object)
{
	GstCispSrc *self = GST_CISP_SRC(object);

	g_free(self->camera_name);
	g_free(self->sensor_options);
	g_free(self->tuning);
	G_OBJECT_CLASS(gst_cisp_src_parent_class)->finalize(object);
}

static void gst_cisp_src_init(GstCispSrc *self)
{
	gst_base_src_set_live(GST_BASE_SRC(self), TRUE);
	gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_TIME);
	gst_base_src_set_do_timestamp(GST_BASE_SRC(self), TRUE);
	self->controls.ae_enable = TRUE;
	self->controls.awb_enable = TRUE;
	self->controls.exposure_us = 10000;
	self->controls.analogue_gain = 1.0;
	self->controls.colour_temperature = 5000;
	self->controls.colour_gains[0] = self->controls.colour_gains[1] = 1.0;
	self->controls.af_mode = CISP_AF_CONTINUOUS;
}

static void gst_cisp_src_class_init(GstCispSrcClass *klass)
{
	GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstBaseSrcClass *base_class = GST_BASE_SRC_CLASS(klass);
	GstPushSrcClass *push_class = GST_PUSH_SRC_CLASS(klass);
	const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;
	const GParamFlags live = rw | GST_PARAM_MUTABLE_PLAYING;

	GST_DEBUG_CATEGORY_INIT(cisp_src_debug, "cispsrc", 0, "cisp camera source");
	cisp_gst_meta_register();
	gobject_class->set_property = gst_cisp_src_set_property;
	gobject_class->get_property = gst_cisp_src_get_property;
	gobject_class->finalize = gst_cisp_src_finalize;

	g_object_class_install_property(
		gobject_class, PROP_CAMERA,
		g_param_spec_string("camera", "Camera",
				    "The camera to open, as `cisp list` names it (default: the first V4L2 camera listed that opens, "
				    "else virtual:cisp-8m10)",
				    NULL,
				    rw | GST_PARAM_MUTABLE_READY));
	g_object_class_install_property(
		gobject_class, PROP_SENSOR_OPTIONS,
		g_param_spec_string("sensor-options", "Sensor options",
				    "key=value,... options of the sensor backend (virtual sensor: scene, "
				    "illuminant, lux, seed, flicker, ...)",
				    NULL, rw | GST_PARAM_MUTABLE_READY));
	g_object_class_install_property(
		gobject_class, PROP_TUNING,
		g_param_spec_string("tuning", "Tuning file",
				    "Tuning file to use instead of the one found for the sensor model", NULL,
				    rw | GST_PARAM_MUTABLE_READY));
	g_object_class_install_property(gobject_class, PROP_AE,
					g_param_spec_boolean("ae", "Auto exposure",
							     "Automatic exposure and gain; off: exposure-time and "
							     "analogue-gain are used",
							     TRUE, live));
	g_object_class_install_property(gobject_class, PROP_EXPOSURE_TIME,
					g_param_spec_double("exposure-time", "Exposure time",
							    "Manual exposure time in microseconds (ae=false)", 1,
							    10e6, 10000, live));
	g_object_class_install_property(gobject_class, PROP_ANALOGUE_GAIN,
					g_param_spec_double("analogue-gain", "Analogue gain",
							    "Manual analogue gain, 1.0 = x1 (ae=false)", 1, 256, 1,
							    live));
	g_object_class_install_property(gobject_class, PROP_EV,
					g_param_spec_double("ev", "Exposure compensation",
							    "Exposure compensation in stops (ae=true)", -4, 4, 0, live));
	g_object_class_install_property(gobject_class, PROP_AWB,
					g_param_spec_boolean("awb", "Auto white balance",
							     "Automatic white balance; off: colour-temperature, or "
							     "red-gain and blue-gain when set",
							     TRUE, live));
	g_object_class_install_property(gobject_class, PROP_COLOUR_TEMPERATURE,
					g_param_spec_double("colour-temperature", "Colour temperature",
							    "Manual colour temperature in kelvin (awb=false)", 2000,
							    12000, 5000, live));
	g_object_class_install_property(gobject_class, PROP_RED_GAIN,
					g_param_spec_double("red-gain", "Red gain",
							    "Manual red white-balance gain relative to green "
							    "(awb=false; wins over colour-temperature)",
							    0.125, 16, 1, live));
	g_object_class_install_property(gobject_class, PROP_BLUE_GAIN,
					g_param_spec_double("blue-gain", "Blue gain",
							    "Manual blue white-balance gain relative to green "
							    "(awb=false; wins over colour-temperature)",
							    0.125, 16, 1, live));
	g_object_class_install_property(gobject_class, PROP_AF_MODE,
					g_param_spec_enum("af-mode", "AF mode", "Focus mode", GST_TYPE_CISP_AF_MODE,
							  CISP_AF_CONTINUOUS, live));
	g_object_class_install_property(gobject_class, PROP_AF_TRIGGER,
					g_param_spec_boolean("af-trigger", "AF trigger",
							     "Set to start one focus scan (af-mode=auto)", FALSE, live));
	g_object_class_install_property(gobject_class, PROP_LENS_POSITION,
					g_param_spec_int("lens-position", "Lens position",
							 "Manual lens position, focus motor code (af-mode=manual)", 0,
							 65535, 0, live));
	g_object_class_install_property(gobject_class, PROP_BURST,
					g_param_spec_uint("burst", "Burst",
							  "Frames captured, aligned and merged into each output frame "
							  "for low light (2..8; 0 or 1: one; docs/burst.md)",
							  0, CISP_BURST_MAX_FRAMES, 0, live));

	g_object_class_install_property(gobject_class, PROP_FACES,
					g_param_spec_double("faces", "Faces",
							    "Face detections a second at most (0: off): faces as "
							    "GstVideoRegionOfInterestMeta \"face\" on the buffers, "
							    "metered by AE, focused by AF (docs/faces.md)",
							    0, 1000, 0, rw));
	g_object_class_install_property(gobject_class, PROP_ISP,
					g_param_spec_enum("isp", "ISP",
							  "What runs the camera's ISP: the software ISP, or the Vulkan "
							  "backend (docs/gpu.md), which gives the same bytes",
							  GST_TYPE_CISP_ISP_KIND, GST_CISP_ISP_SOFTWARE,
							  rw | GST_PARAM_MUTABLE_READY));
	g_object_class_install_property(gobject_class, PROP_EIS,
					g_param_spec_boolean("eis", "EIS",
							     "Stabilise the video from the sensor's gyroscope, a 10% "
							     "margin cropped on each side (docs/eis.md); not for raw caps",
							     FALSE, rw));

	g_object_class_install_property(gobject_class, PROP_HDR,
					g_param_spec_boolean("hdr", "HDR",
							     "Each frame merged from an exposure bracket of -2, 0 and "
							     "+2 EV, locally tone-mapped (docs/hdr.md); with raw caps "
							     "the merged linear frame (16-bit Bayer only)",
							     FALSE, live));

	gst_element_class_set_static_metadata(element_class, "cisp camera source", "Source/Video",
					      "Frames from a cisp camera (virtual or V4L2 sensor) through the "
					      "canonical ISP, with the 3A control loop running inside",
					      "cisp");
	gst_element_class_add_static_pad_template(element_class, &src_template);
	base_class->start = GST_DEBUG_FUNCPTR(gst_cisp_src_start);
	base_class->stop = GST_DEBUG_FUNCPTR(gst_cisp_src_stop);
	base_class->get_caps = GST_DEBUG_FUNCPTR(gst_cisp_src_get_caps);
	base_class->fixate = GST_DEBUG_FUNCPTR(gst_cisp_src_fixate);
	base_class->set_caps = GST_DEBUG_FUNCPTR(gst_cisp_src_set_caps);
	base_class->unlock = GST_DEBUG_FUNCPTR(gst_cisp_src_unlock);
	base_class->unlock_stop = GST_DEBUG_FUNCPTR(gst_cisp_src_unlock_stop);
	base_class->query = GST_DEBUG_FUNCPTR(gst_cisp_src_query);
	push_class->create = GST_DEBUG_FUNCPTR(gst_cisp_src_create);
	gst_type_mark_as_plugin_api(GST_TYPE_CISP_AF_MODE, 0);
}
