/* SPDX-License-Identifier: MIT */
/*
 * cispisp: a GstBaseTransform that develops video/x-bayer into video/x-raw
 * with the canonical ISP (docs/gstreamer.md).
 *
 * The parameter state the ISP runs with is built from the properties, then
 * the params property and file on top; only the white-balance block is the
 * element's own, rewritten every frame from the automatic (or manual) gains.
 * Each frame the difference between that state and the ISP's is encoded as a
 * params buffer and applied, so a steady stream applies nothing.
 *
 * No copies: the ISP reads the mapped input buffer in place (any row stride,
 * from a video meta or the plugins-bad layout) and writes straight into the
 * output buffer, whose pool is negotiated with downstream.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cisp/checked.h>
#include <cisp/device.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/isp.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/stats.h>
#include <cisp/tuning.h>

#include "caps.h"
#include "cispisp.h"
#include "isp_loop.h"

GST_DEBUG_CATEGORY_STATIC(cisp_isp_debug);
#define GST_CAT_DEFAULT cisp_isp_debug

enum {
	PROP_0,
	PROP_THREADS,
	PROP_DEMOSAIC,
	PROP_BLACK_LEVEL,
	PROP_WHITE_LEVEL,
	PROP_DEFECT_THRESHOLD,
	PROP_AWB,
	PROP_RED_GAIN,
	PROP_BLUE_GAIN,
	PROP_AE,
	PROP_EV,
	PROP_DIGITAL_GAIN,
	PROP_MAX_GAIN,
	PROP_TRANSFER,
	PROP_SHARPEN,
	PROP_PARAMS,
	PROP_PARAMS_FILE,
	PROP_TUNING,
	PROP_ISP,
};

#define DEFAULT_THREADS 0
#define DEFAULT_DEMOSAIC CISP_DEMOSAIC_FAST
#define DEFAULT_DEFECT_THRESHOLD 4096
#define DEFAULT_MAX_GAIN 8.0
#define DEFAULT_TRANSFER CISP_TRANSFER_SRGB
#define DEFAULT_SHARPEN 0.5

/* What the properties hold; guarded by the object lock. */
struct settings {
	guint threads;
	gint demosaic;
	guint black_level;
	guint white_level;
	guint defect_threshold;
	gboolean awb;
	gdouble red_gain;
	gdouble blue_gain;
	gboolean ae;
	gdouble ev;
	gdouble digital_gain;
	gdouble max_gain;
	gint transfer;
	gdouble sharpen;
	gchar *params;
	gchar *params_file;
	gchar *tuning;
	gint isp; /* enum gst_cisp_isp_kind, read when caps are set */
};

struct _GstCispIsp {
	GstBaseTransform parent;

	struct settings set; /* object lock */
	gboolean dirty;      /* object lock: settings changed since the state was built */

	/* Streaming thread only. */
	struct settings cur;             /* the settings the state was built from */
	guint32 in_format;               /* CISP_FMT_* Bayer */
	guint in_width, in_height;
	GstVideoInfo out_info;
	struct cisp_isp *isp;
	struct cisp_pool *pool;
	struct cisp_param_state *state; /* what the next frame runs with */
	struct cisp_stats *stats;
	struct isp_loop *loop;    /* the 3A: a tuning file's loop that sets the state, or grey world's gains */
	gchar *loop_path;         /* the tuning file it was made from */
	gdouble fps;              /* of the input caps (0: not given) */
	/* isp=vulkan: the frames go as jobs to a context on the Vulkan backend, with the whole state each. */
	struct cisp_device *device;
	struct cisp_context *context;
	void *job_params;
	size_t job_params_size;
};

G_DEFINE_TYPE(GstCispIsp, gst_cisp_isp, GST_TYPE_BASE_TRANSFORM)

GType gst_cisp_demosaic_get_type(void)
{
	static GType type;
	static const GEnumValue values[] = {
		{ CISP_DEMOSAIC_FAST, "Directional, 5x5 support", "fast" },
		{ CISP_DEMOSAIC_QUALITY, "Edge-aware, high quality", "quality" },
		{ 0, NULL, NULL },
	};

	if (g_once_init_enter(&type))
		g_once_init_leave(&type, g_enum_register_static("GstCispDemosaic", values));
	return type;
}

GType gst_cisp_isp_kind_get_type(void)
{
	static GType type;
	static const GEnumValue values[] = {
		{ GST_CISP_ISP_SOFTWARE, "The software ISP on the CPU", "software" },
		{ GST_CISP_ISP_VULKAN, "A device context on the Vulkan backend (docs/gpu.md), bit-exact with it",
		  "vulkan" },
		{ 0, NULL, NULL },
	};

	if (g_once_init_enter(&type))
		g_once_init_leave(&type, g_enum_register_static("GstCispIspKind", values));
	return type;
}

GType gst_cisp_transfer_get_type(void)
{
	static GType type;
	static const GEnumValue values[] = {
		{ CISP_TRANSFER_LINEAR, "Linear light (no transfer function)", "linear" },
		{ CISP_TRANSFER_SRGB, "sRGB (IEC 61966-2-1)", "srgb" },
		{ CISP_TRANSFER_BT709, "ITU-R BT.709", "bt709" },
		{ 0, NULL, NULL },
	};

	if (g_once_init_enter(&type))
		g_once_init_leave(&type, g_enum_register_static("GstCispTransfer", values));
	return type;
}

static void settings_copy(struct settings *dst, const struct settings *src)
{
	g_free(dst->params);
	g_free(dst->params_file);
	g_free(dst->tuning);
	*dst = *src;
	dst->params = g_strdup(src->params);
	dst->params_file = g_strdup(src->params_file);
	dst->tuning = g_strdup(src->tuning);
}

static void settings_clear(struct settings *s)
{
	g_clear_pointer(&s->params, g_free);
	g_clear_pointer(&s->params_file, g_free);
	g_clear_pointer(&s->tuning, g_free);
}

/* ---- the parameter state ---- */

/* Apply a params buffer given as YAML or binary text (@what names it in messages). */
static gboolean apply_params(struct cisp_param_state *st, const gchar *data, gsize size, const gchar *what,
			     const struct cisp_params_limits *limits, GError **error)
{
	void *yaml_buf = NULL;
	const void *buf = data;
	int ret = 0;

	if (size < 4 || memcmp(data, "CISP", 4)) { /* not the binary magic: YAML */
		ret = cisp_params_from_yaml(data, size, &yaml_buf, &size);
		buf = yaml_buf;
	}
	if (!ret)
		ret = cisp_param_state_apply(st, buf, size, limits);
	free(yaml_buf);
	if (ret)
		g_set_error(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, "%s: %s", what, cisp_last_error());
	return !ret;
}

/*
 * The state for @s and a Bayer input of @format: documented defaults (or
 * @base, the tuning loop's parameters, when not NULL), then the properties,
 * then the params property and file. @format 0 checks the settings for an
 * input not known yet; @limits may be NULL (no checks against the frame).
 */
static gboolean build_state(struct cisp_param_state *st, const struct settings *s, guint32 format,
			    const struct cisp_params_limits *limits, const struct cisp_param_state *base,
			    GError **error)
{
	const unsigned bits = format ? cisp_format_info(format)->bits : 16, shift = 16 - bits;
	const guint max = (1u << bits) - 1, white = s->white_level ? s->white_level : max;

	if (base)
		*st = *base;
	else
		cisp_param_state_init(st);
	if (!format && s->black_level >= white) {
		g_set_error(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
			    "black-level %u and white-level %u: the black level must be below the white level",
			    s->black_level, white);
		return FALSE;
	}
	if (white > max || s->black_level >= white) {
		g_set_error(error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
			    "black-level %u and white-level %u do not fit %u-bit input (need black < white <= %u)",
			    s->black_level, white, bits, max);
		return FALSE;
	}
	/* Black level always runs: it also rescales the white level to full scale. The tuning's unless set here. */
	if (!base || s->black_level || s->white_level) {
		for (int c = 0; c < 4; c++)
			st->blc.black[c] = (uint16_t)(s->black_level << shift);
		st->blc.white = (uint16_t)(white << shift);
	}
	st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_BLC);
	/* With a tuning, defect correction and sharpening follow it (its threshold, its denoise table by gain). */
	if (!base) {
		st->dpc.threshold = (uint16_t)s->defect_threshold;
		if (s->defect_threshold)
			st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_DPC);
	}
	st->demosaic.algorithm = (uint16_t)s->demosaic;
	st->tone.transfer = (uint16_t)s->transfer;
	if (!base && s->sharpen > 0) {
		st->sharpen.strength = (uint16_t)lround(s->sharpen * 256);
		st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_SHARPEN);
	}
	if (s->params && !apply_params(st, s->params, strlen(s->params), "params", limits, error))
		return FALSE;
	if (s->params_file) {
		gchar *data, *what = g_strdup_printf("params-file '%s'", s->params_file);
		gsize size;
		gboolean ok = g_file_get_contents(s->params_file, &data, &size, error);

		if (ok) {
			ok = apply_params(st, data, size, what, limits, error);
			g_free(data);
		} else {
			g_prefix_error(error, "%s: ", what);
		}
		g_free(what);
		if (!ok)
			return FALSE;
	}
	st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_WB);
	return TRUE;
}

static const struct {
	GstVideoColorMatrix gst;
	enum cisp_csc_matrix cisp;
} matrices[] = {
	{ GST_VIDEO_COLOR_MATRIX_BT601, CISP_CSC_BT601 },
	{ GST_VIDEO_COLOR_MATRIX_BT709, CISP_CSC_BT709 },
	{ GST_VIDEO_COLOR_MATRIX_BT2020, CISP_CSC_BT2020 },
};

static const struct {
	GstVideoTransferFunction gst;
	enum cisp_transfer cisp;
} transfers[] = {
	{ GST_VIDEO_TRANSFER_GAMMA10, CISP_TRANSFER_LINEAR },
	{ GST_VIDEO_TRANSFER_SRGB, CISP_TRANSFER_SRGB },
	{ GST_VIDEO_TRANSFER_BT709, CISP_TRANSFER_BT709 },
};

/* The colorimetry of what the state produces (primaries: the CCM's target, BT.709). */
static void state_colorimetry(const struct cisp_param_state *st, gboolean yuv, GstVideoColorimetry *c)
{
	c->primaries = GST_VIDEO_COLOR_PRIMARIES_BT709;
	c->transfer = GST_VIDEO_TRANSFER_GAMMA10;
	for (guint i = 0; i < G_N_ELEMENTS(transfers); i++)
		if (st->enabled & CISP_BLOCK_BIT(CISP_BLOCK_TONE) && transfers[i].cisp == st->tone.transfer)
			c->transfer = transfers[i].gst;
	c->matrix = GST_VIDEO_COLOR_MATRIX_RGB;
	c->range = GST_VIDEO_COLOR_RANGE_0_255;
	if (!yuv)
		return;
	for (guint i = 0; i < G_N_ELEMENTS(matrices); i++)
		if (matrices[i].cisp == st->csc.matrix)
			c->matrix = matrices[i].gst;
	c->range = st->csc.range == CISP_RANGE_FULL ? GST_VIDEO_COLOR_RANGE_0_255 : GST_VIDEO_COLOR_RANGE_16_235;
}

/* Make the state produce colorimetry @c where it says what to produce. */
static gboolean apply_colorimetry(struct cisp_param_state *st, const GstVideoInfo *info, GError **error)
{
	const GstVideoColorimetry *c = &info->colorimetry;
	gboolean found = FALSE;

	for (guint i = 0; i < G_N_ELEMENTS(transfers); i++) {
		if (transfers[i].gst != c->transfer)
			continue;
		if (transfers[i].cisp == CISP_TRANSFER_LINEAR) {
			st->enabled &= ~CISP_BLOCK_BIT(CISP_BLOCK_TONE);
		} else {
			st->tone.transfer = (uint16_t)transfers[i].cisp;
			st->enabled |= CISP_BLOCK_BIT(CISP_BLOCK_TONE);
		}
	}
	if (!GST_VIDEO_INFO_IS_YUV(info))
		return TRUE;
	if (c->range == GST_VIDEO_COLOR_RANGE_0_255)
		st->csc.range = CISP_RANGE_FULL;
	else if (c->range == GST_VIDEO_COLOR_RANGE_16_235)
		st->csc.range = CISP_RANGE_LIMITED;
	for (guint i = 0; i < G_N_ELEMENTS(matrices); i++) {
		if (matrices[i].gst == c->matrix) {
			st->csc.matrix = (uint16_t)matrices[i].cisp;
			found = TRUE;
		}
	}
	if (!found && c->matrix != GST_VIDEO_COLOR_MATRIX_UNKNOWN) {
		gchar *str = gst_video_colorimetry_to_string(c);

		g_set_error(error, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
			    "colorimetry %s: its matrix is not one the ISP converts to (BT.601, BT.709, BT.2020)", str);
		g_free(str);
		return FALSE;
	}
	return TRUE;
}

/* Apply to the ISP whatever differs between its state and ours. */
static int sync_params(GstCispIsp *self)
{
	uint32_t diff = cisp_params_diff(cisp_isp_params(self->isp), self->state);
	size_t size = 0;
	void *buf;
	int ret;

	if (!diff)
		return 0;
	ret = cisp_params_encode(self->state, diff, NULL, 0, &size);
	if (ret && ret != -ENOSPC)
		return ret;
	buf = g_malloc(size);
	ret = cisp_params_encode(self->state, diff, buf, size, &size);
	if (!ret)
		ret = cisp_isp_set_params(self->isp, buf, size);
	g_free(buf);
	return ret;
}

/* Rebuild the state from the current settings for the negotiated formats. */
static gboolean rebuild_state(GstCispIsp *self)
{
	struct cisp_params_limits limits;
	GError *error = NULL;

	cisp_isp_limits(self->isp, &limits);
	if (!build_state(self->state, &self->cur, self->in_format, &limits,
			 self->loop && isp_loop_has_tuning(self->loop) ? isp_loop_params(self->loop) : NULL, &error) ||
	    !apply_colorimetry(self->state, &self->out_info, &error)) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", error->message), (NULL));
		g_error_free(error);
		return FALSE;
	}
	if (sync_params(self)) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Invalid ISP parameters: %s", cisp_last_error()),
				  (NULL));
		return FALSE;
	}
	return TRUE;
}

/*
 * The 3A loop of the settings and caps, told the properties' requests: a
 * tuning file's, made once both are known and again when the file or the
 * caps change; without one grey world, kept from start to stop.
 */
static gboolean update_loop(GstCispIsp *self)
{
	const gchar *path = self->cur.tuning && *self->cur.tuning ? self->cur.tuning : NULL;
	const struct isp_loop_request req = { self->cur.awb, self->cur.red_gain, self->cur.blue_gain, self->cur.ae,
					      self->cur.ev, self->cur.digital_gain, self->cur.max_gain };

	if (self->loop && g_strcmp0(path, self->loop_path)) {
		isp_loop_destroy(self->loop);
		self->loop = NULL;
	}
	if (!self->loop)
		g_clear_pointer(&self->loop_path, g_free);
	if (!self->isp)
		return TRUE;
	if (!self->loop) {
		if (isp_loop_create(&self->loop, path, self->in_format, self->in_width, self->in_height, self->fps)) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s: %s", path ? "Tuning file" : "The 3A loop",
								     cisp_last_error()), (NULL));
			return FALSE;
		}
		self->loop_path = g_strdup(path);
	}
	if (isp_loop_request(self->loop, &req)) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("The 3A loop refused the settings: %s", cisp_last_error()),
				  (NULL));
		return FALSE;
	}
	return TRUE;
}

/* Take the latest settings if they changed; the pool follows the thread count. */
static gboolean update_settings(GstCispIsp *self)
{
	guint threads = self->cur.threads;
	gboolean dirty;

	GST_OBJECT_LOCK(self);
	dirty = self->dirty;
	if (dirty)
		settings_copy(&self->cur, &self->set);
	self->dirty = FALSE;
	GST_OBJECT_UNLOCK(self);
	if (!dirty)
		return TRUE;
	if (!self->pool || threads != self->cur.threads) {
		cisp_pool_destroy(self->pool);
		self->pool = NULL;
		if (cisp_pool_create(&self->pool, self->cur.threads)) {
			GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("Could not start %u worker threads: %s",
								    self->cur.threads, cisp_last_error()), (NULL));
			return FALSE;
		}
	}
	return update_loop(self) && (!self->isp || rebuild_state(self));
}

/* ---- caps ---- */

static GstCaps *gst_cisp_isp_transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
					    GstCaps *filter)
{
	/* Formats and sizes are free on both sides (the ISP scales); the framerate carries over. */
	gboolean to_src = direction == GST_PAD_SINK;
	GstCaps *other = gst_caps_new_empty(), *tmpl, *res;

	for (guint i = 0; i < gst_caps_get_size(caps); i++) {
		const GstStructure *in = gst_caps_get_structure(caps, i);
		GstStructure *s = gst_structure_new_empty(to_src ? "video/x-raw" : "video/x-bayer");
		const GValue *fr = gst_structure_get_value(in, "framerate");

		if (fr)
			gst_structure_set_value(s, "framerate", fr);
		other = gst_caps_merge_structure(other, s);
	}
	tmpl = to_src ? cisp_gst_output_caps() : cisp_gst_bayer_caps();
	res = gst_caps_intersect(other, tmpl);
	gst_caps_unref(other);
	gst_caps_unref(tmpl);
	if (filter) {
		GstCaps *f = gst_caps_intersect_full(filter, res, GST_CAPS_INTERSECT_FIRST);

		gst_caps_unref(res);
		res = f;
	}
	GST_DEBUG_OBJECT(trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, to_src ? "sink" : "src", caps, res);
	return res;
}

static GstCaps *gst_cisp_isp_fixate_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
					 GstCaps *othercaps)
{
	GstCispIsp *self = GST_CISP_ISP(trans);
	const GstStructure *in = gst_caps_get_structure(caps, 0);
	GstStructure *s;
	gint w = 0, h = 0, n, d;

	othercaps = gst_caps_truncate(othercaps);
	othercaps = gst_caps_make_writable(othercaps);
	s = gst_caps_get_structure(othercaps, 0);
	/* Same size and framerate as the other side unless told otherwise. */
	if (gst_structure_get_int(in, "width", &w) && gst_structure_get_int(in, "height", &h)) {
		gst_structure_fixate_field_nearest_int(s, "width", w);
		gst_structure_fixate_field_nearest_int(s, "height", h);
	}
	if (gst_structure_get_fraction(in, "framerate", &n, &d))
		gst_structure_fixate_field_nearest_fraction(s, "framerate", n, d);

	if (direction == GST_PAD_SINK) {
		const gchar *bayer = gst_structure_get_string(in, "format");
		guint32 format = cisp_gst_bayer_format(bayer);
		struct cisp_param_state *st = g_new0(struct cisp_param_state, 1);
		struct settings set = { 0 };
		GstVideoColorimetry c;
		guint32 out;
		gboolean yuv;
		gchar *str;

		gst_structure_fixate_field(s, "format");
		out = cisp_gst_output_format(gst_video_format_from_string(gst_structure_get_string(s, "format")));
		yuv = out == CISP_FMT_NV12 || out == CISP_FMT_I420;
		GST_OBJECT_LOCK(self);
		settings_copy(&set, &self->set);
		GST_OBJECT_UNLOCK(self);
		/* Bad settings are reported when the caps are set; propose the defaults' colorimetry then. */
		if (!format || !build_state(st, &set, format, NULL, NULL, NULL))
			cisp_param_state_init(st);
		settings_clear(&set);
		state_colorimetry(st, yuv, &c);
		g_free(st);
		str = gst_video_colorimetry_to_string(&c);
		if (!gst_structure_has_field(s, "colorimetry"))
			gst_structure_set(s, "colorimetry", G_TYPE_STRING, str, NULL);
		else
			gst_structure_fixate_field_string(s, "colorimetry", str);
		g_free(str);
		/* 4:2:0 chroma is the mean of each 2x2 block: centred, as JPEG sites it. */
		if (yuv && !gst_structure_has_field(s, "chroma-site"))
			gst_structure_set(s, "chroma-site", G_TYPE_STRING, "jpeg", NULL);
		if (!gst_structure_has_field(s, "pixel-aspect-ratio"))
			gst_structure_set(s, "pixel-aspect-ratio", GST_TYPE_FRACTION, 1, 1, NULL);
		else
			gst_structure_fixate_field_nearest_fraction(s, "pixel-aspect-ratio", 1, 1);
	}
	othercaps = gst_caps_fixate(othercaps);
	GST_DEBUG_OBJECT(trans, "fixated to %" GST_PTR_FORMAT, othercaps);
	return othercaps;
}

static gboolean parse_bayer_caps(GstCaps *caps, guint32 *format, guint *width, guint *height)
{
	const GstStructure *s = gst_caps_get_structure(caps, 0);
	gint w, h;

	*format = cisp_gst_bayer_format(gst_structure_get_string(s, "format"));
	if (!*format || !gst_structure_get_int(s, "width", &w) || !gst_structure_get_int(s, "height", &h) || w <= 0 ||
	    h <= 0)
		return FALSE;
	*width = (guint)w;
	*height = (guint)h;
	return TRUE;
}

static void close_context(GstCispIsp *self)
{
	cisp_context_destroy(self->context);
	self->context = NULL;
	cisp_device_destroy(self->device);
	self->device = NULL;
	g_clear_pointer(&self->job_params, g_free);
}

/* With isp=vulkan, a context on the Vulkan backend for @config (the software ISP checked it). */
static gboolean open_context(GstCispIsp *self, const struct cisp_isp_config *config)
{
	const struct cisp_context_config cc = { .name = "cispisp", .isp = *config,
						.backend = cisp_device_vulkan_backend() };
	gint kind;

	GST_OBJECT_LOCK(self);
	kind = self->set.isp;
	GST_OBJECT_UNLOCK(self);
	close_context(self);
	if (kind != GST_CISP_ISP_VULKAN)
		return TRUE;
	if (cisp_device_create(&self->device, &(struct cisp_device_config){ .workers = 1 }) ||
	    cisp_context_create(&self->context, self->device, &cc)) {
		GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ_WRITE, ("isp=vulkan: %s", cisp_last_error()), (NULL));
		close_context(self);
		return FALSE;
	}
	return TRUE;
}

/* One frame with the state: through the software ISP, or as a job of the Vulkan context. */
static int run_isp(GstCispIsp *self, const struct cisp_image *in, struct cisp_image *const outs[CISP_MAX_OUTPUTS])
{
	struct cisp_job job = { .num_inputs = 1, .input = { in }, .stats = self->stats };
	struct cisp_fence *fence = NULL;
	size_t size = 0;
	int ret;

	if (!self->context)
		return cisp_isp_process(self->isp, in, outs, self->stats, self->pool);
	cisp_params_encode(self->state, ~0u, NULL, 0, &size);
	if (size > self->job_params_size) {
		g_free(self->job_params);
		self->job_params = g_malloc(size);
		self->job_params_size = size;
	}
	if ((ret = cisp_params_encode(self->state, ~0u, self->job_params, size, &size)))
		return ret;
	memcpy(job.output, outs, sizeof(job.output));
	job.params = self->job_params;
	job.params_size = size;
	if ((ret = cisp_job_submit(self->context, &job, &fence)))
		return ret;
	ret = cisp_fence_wait(fence, -1) ? -EIO : cisp_fence_error(fence);
	cisp_fence_unref(fence);
	return ret;
}

static gboolean gst_cisp_isp_set_caps(GstBaseTransform *trans, GstCaps *incaps, GstCaps *outcaps)
{
	GstCispIsp *self = GST_CISP_ISP(trans);
	struct cisp_isp_config config = { 0 };
	struct cisp_isp *isp;

	GST_DEBUG_OBJECT(self, "in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT, incaps, outcaps);
	if (!parse_bayer_caps(incaps, &self->in_format, &self->in_width, &self->in_height) ||
	    !gst_video_info_from_caps(&self->out_info, outcaps)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("Caps the ISP cannot take: %" GST_PTR_FORMAT " to %" GST_PTR_FORMAT,
							   incaps, outcaps), (NULL));
		return FALSE;
	}
	config.input_format = self->in_format;
	config.width = self->in_width;
	config.height = self->in_height;
	config.output[0].format = cisp_gst_output_format(GST_VIDEO_INFO_FORMAT(&self->out_info));
	config.output[0].width = (uint32_t)GST_VIDEO_INFO_WIDTH(&self->out_info);
	config.output[0].height = (uint32_t)GST_VIDEO_INFO_HEIGHT(&self->out_info);
	if (cisp_isp_create(&isp, &config)) {
		GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("The ISP cannot process %s %ux%u to %s %ux%u: %s",
							   cisp_gst_bayer_name(self->in_format), self->in_width,
							   self->in_height,
							   gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&self->out_info)),
							   config.output[0].width, config.output[0].height,
							   cisp_last_error()),
				  (NULL));
		return FALSE;
	}
	cisp_isp_destroy(self->isp);
	self->isp = isp;
	if (!open_context(self, &config))
		return FALSE;
	{
		gint n = 0, d = 1;

		self->fps = gst_structure_get_fraction(gst_caps_get_structure(incaps, 0), "framerate", &n, &d) && d > 0
				    ? (gdouble)n / d
				    : 0;
	}
	/* A tuning's loop is for one stream: made again for these caps. Grey world's goes on. */
	if (self->loop && isp_loop_has_tuning(self->loop)) {
		isp_loop_destroy(self->loop);
		self->loop = NULL;
	}
	/* A new ISP starts from the defaults: build the state for it from the settings. */
	GST_OBJECT_LOCK(self);
	self->dirty = TRUE;
	GST_OBJECT_UNLOCK(self);
	return update_settings(self);
}

static gboolean gst_cisp_isp_transform_size(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
					    gsize size, GstCaps *othercaps, gsize *othersize)
{
	guint32 format;
	guint w, h;
	GstVideoInfo info;

	(void)trans;
	(void)caps;
	(void)size;
	if (direction == GST_PAD_SINK) {
		if (!gst_video_info_from_caps(&info, othercaps))
			return FALSE;
		*othersize = GST_VIDEO_INFO_SIZE(&info);
		return TRUE;
	}
	if (!parse_bayer_caps(othercaps, &format, &w, &h))
		return FALSE;
	return cisp_size_mul(cisp_gst_bayer_stride(format, w), h, othersize) && *othersize > 0;
}

/* ---- buffers ---- */

static gboolean gst_cisp_isp_decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
	GstCaps *outcaps;
	GstBufferPool *pool = NULL;
	GstStructure *config;
	GstVideoInfo info;
	guint size = 0, min = 0, max = 0;
	gboolean have_pool = gst_query_get_n_allocation_pools(query) > 0;

	gst_query_parse_allocation(query, &outcaps, NULL);
	if (!outcaps || !gst_video_info_from_caps(&info, outcaps))
		return FALSE;
	if (have_pool)
		gst_query_parse_nth_allocation_pool(query, 0, &pool, &size, &min, &max);
	if (!pool)
		pool = gst_video_buffer_pool_new();
	size = MAX(size, (guint)GST_VIDEO_INFO_SIZE(&info));
	config = gst_buffer_pool_get_config(pool);
	gst_buffer_pool_config_set_params(config, outcaps, size, min, max);
	/* With a video meta downstream follows any stride; the ISP writes every plane in place either way. */
	if (gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL))
		gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
	if (!gst_buffer_pool_set_config(pool, config)) {
		config = gst_buffer_pool_get_config(pool);
		if (!gst_buffer_pool_config_validate_params(config, outcaps, size, min, max) ||
		    !gst_buffer_pool_set_config(pool, config)) {
			gst_object_unref(pool);
			GST_ERROR_OBJECT(trans, "downstream's buffer pool refuses %" GST_PTR_FORMAT, outcaps);
			return FALSE;
		}
	}
	if (have_pool)
		gst_query_set_nth_allocation_pool(query, 0, pool, size, min, max);
	else
		gst_query_add_allocation_pool(query, pool, size, min, max);
	gst_object_unref(pool);
	return GST_BASE_TRANSFORM_CLASS(gst_cisp_isp_parent_class)->decide_allocation(trans, query);
}

static gboolean gst_cisp_isp_propose_allocation(GstBaseTransform *trans, GstQuery *decide_query, GstQuery *query)
{
	GstCaps *caps;
	guint32 format;
	guint w, h;

	if (!decide_query) /* passthrough: never, but the base class's default is right then */
		return GST_BASE_TRANSFORM_CLASS(gst_cisp_isp_parent_class)->propose_allocation(trans, decide_query, query);
	/* Upstream may give any stride through a video meta: the ISP reads it in place. */
	gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
	gst_query_parse_allocation(query, &caps, NULL);
	/* Sizes beyond cisp's limit are left to set_caps to refuse (the stride is 0 for them). */
	if (caps && gst_query_get_n_allocation_pools(query) == 0 && parse_bayer_caps(caps, &format, &w, &h) &&
	    h <= CISP_MAX_DIMENSION && cisp_gst_bayer_stride(format, w)) {
		GstBufferPool *pool = gst_buffer_pool_new();
		GstStructure *config = gst_buffer_pool_get_config(pool);
		guint size = (guint)(cisp_gst_bayer_stride(format, w) * h);

		gst_buffer_pool_config_set_params(config, caps, size, 0, 0);
		if (gst_buffer_pool_set_config(pool, config))
			gst_query_add_allocation_pool(query, pool, size, 0, 0);
		gst_object_unref(pool);
	}
	return TRUE;
}

/*
 * Describe the mapped input buffer as a cisp image: stride from a video meta,
 * else from its size. The meta's offset and stride come from upstream and may
 * be anything: the frame's last byte is computed with checked arithmetic, so
 * a huge offset cannot wrap round and pass.
 */
static gboolean wrap_input(GstCispIsp *self, GstBuffer *buf, const GstMapInfo *map, struct cisp_image *img)
{
	GstVideoMeta *meta = gst_buffer_get_video_meta(buf);
	size_t row = 0, rows = 0, offset = 0, stride;

	cisp_image_plane_size(self->in_format, self->in_width, self->in_height, 0, &row, &rows);
	if (meta) {
		if (meta->stride[0] < 0) {
			GST_ELEMENT_ERROR(self, STREAM, FORMAT,
					  ("Input buffer's video meta has stride %d: bottom-up rows are not supported",
					   meta->stride[0]),
					  (NULL));
			return FALSE;
		}
		offset = meta->offset[0];
		stride = (size_t)meta->stride[0];
	} else if (map->size == row * rows) {
		stride = row; /* tightly packed, as a raw file holds frames */
	} else {
		stride = GST_ROUND_UP_4(row); /* plugins-bad's layout */
	}
	if (stride < row || !cisp_rows_inside(offset, stride, rows, row, map->size)) {
		GST_ELEMENT_ERROR(self, STREAM, FORMAT,
				  ("Input buffer of %" G_GSIZE_FORMAT " bytes is too small for a %ux%u %s frame "
				   "(%zu bytes a row, stride %zu, from byte %zu)",
				   map->size, self->in_width, self->in_height, cisp_gst_bayer_name(self->in_format), row,
				   stride, offset),
				  (NULL));
		return FALSE;
	}
	memset(img, 0, sizeof(*img));
	img->format = self->in_format;
	img->width = self->in_width;
	img->height = self->in_height;
	img->num_planes = 1;
	img->plane[0].data = map->data + offset;
	img->plane[0].stride = stride;
	return TRUE;
}

/*
 * Describe the mapped output frame as a cisp image. Its planes come from
 * downstream's buffer pool, through a video meta when downstream takes one:
 * each plane must lie inside the memory it was mapped from (checked
 * arithmetic again), so a pool with a bad stride or offset cannot make the
 * ISP write past its buffer.
 */
static gboolean wrap_output(GstCispIsp *self, GstVideoFrame *frame, struct cisp_image *img)
{
	memset(img, 0, sizeof(*img));
	img->format = cisp_gst_output_format(GST_VIDEO_FRAME_FORMAT(frame));
	img->width = (uint32_t)GST_VIDEO_INFO_WIDTH(&self->out_info);
	img->height = (uint32_t)GST_VIDEO_INFO_HEIGHT(&self->out_info);
	img->num_planes = GST_VIDEO_FRAME_N_PLANES(frame);
	for (guint p = 0; p < img->num_planes; p++) {
		const GstMapInfo *m = frame->meta ? &frame->map[p] : &frame->map[0];
		guint8 *data = GST_VIDEO_FRAME_PLANE_DATA(frame, p);
		gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, p);
		uintptr_t base = (uintptr_t)m->data, at = (uintptr_t)data;
		size_t row = 0, rows = 0;

		cisp_image_plane_size(img->format, img->width, img->height, p, &row, &rows);
		if (stride < 0 || (size_t)stride < row || at < base ||
		    !cisp_rows_inside(at - base, (size_t)stride, rows, row, m->size)) {
			GST_ELEMENT_ERROR(self, STREAM, FORMAT,
					  ("Output buffer's plane %u (stride %d, from byte %zd of %" G_GSIZE_FORMAT
					   ") cannot hold %zu rows of %zu bytes",
					   p, stride, (ssize_t)(at - base), m->size, rows, row),
					  (NULL));
			return FALSE;
		}
		img->plane[p].data = data;
		img->plane[p].stride = (size_t)stride;
	}
	return TRUE;
}

static GstFlowReturn process(GstCispIsp *self, const struct cisp_image *in, struct cisp_image *out)
{
	struct cisp_image *outs[CISP_MAX_OUTPUTS] = { out, NULL };

	if (isp_loop_has_tuning(self->loop)) {
		/* The loop's parameters for this frame, the properties and params over them; its statistics back. */
		if (!rebuild_state(self))
			return GST_FLOW_ERROR;
		if (run_isp(self, in, outs) || isp_loop_frame(self->loop, self->stats)) {
			GST_ELEMENT_ERROR(self, STREAM, FAILED, ("The ISP or its 3A loop failed on a frame: %s",
								 cisp_last_error()), (NULL));
			return GST_FLOW_ERROR;
		}
		return GST_FLOW_OK;
	}
	/* Grey world's gains for this frame (the WB block is the element's); its estimate from the statistics. */
	memcpy(self->state->wb.gain, isp_loop_params(self->loop)->wb.gain, sizeof(self->state->wb.gain));
	if (sync_params(self) || run_isp(self, in, outs)) {
		GST_ELEMENT_ERROR(self, STREAM, FAILED, ("The ISP failed on a frame: %s", cisp_last_error()), (NULL));
		return GST_FLOW_ERROR;
	}
	if ((self->cur.awb || self->cur.ae) && isp_loop_frame(self->loop, self->stats)) {
		GST_ELEMENT_ERROR(self, STREAM, FAILED, ("The 3A loop failed on a frame: %s", cisp_last_error()), (NULL));
		return GST_FLOW_ERROR;
	}
	return GST_FLOW_OK;
}

static GstFlowReturn gst_cisp_isp_transform(GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
	GstCispIsp *self = GST_CISP_ISP(trans);
	GstFlowReturn ret = GST_FLOW_ERROR;
	GstMapInfo map;
	GstVideoFrame frame;
	struct cisp_image in, out;

	if (!self->isp) {
		GST_ELEMENT_ERROR(self, CORE, NOT_IMPLEMENTED, ("No caps were negotiated before the first buffer"),
				  (NULL));
		return GST_FLOW_NOT_NEGOTIATED;
	}
	if (!update_settings(self))
		return GST_FLOW_ERROR;
	if (!gst_buffer_map(inbuf, &map, GST_MAP_READ)) {
		GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the input buffer"), (NULL));
		return GST_FLOW_ERROR;
	}
	if (!gst_video_frame_map(&frame, &self->out_info, outbuf, GST_MAP_WRITE)) {
		gst_buffer_unmap(inbuf, &map);
		GST_ELEMENT_ERROR(self, STREAM, FAILED, ("Could not map the output buffer"), (NULL));
		return GST_FLOW_ERROR;
	}
	if (wrap_input(self, inbuf, &map, &in) && wrap_output(self, &frame, &out)) {
		ret = GST_FLOW_OK;
		/* Grey world takes its first estimate whole: measure this frame first so that it is already balanced. */
		if (!isp_loop_has_tuning(self->loop) && (self->cur.awb || self->cur.ae) && !isp_loop_primed(self->loop))
			ret = process(self, &in, &out);
		if (ret == GST_FLOW_OK)
			ret = process(self, &in, &out);
	}
	gst_video_frame_unmap(&frame);
	gst_buffer_unmap(inbuf, &map);
	return ret;
}

/* ---- life cycle ---- */

static gboolean gst_cisp_isp_stop(GstBaseTransform *trans);

static gboolean gst_cisp_isp_start(GstBaseTransform *trans)
{
	GstCispIsp *self = GST_CISP_ISP(trans);
	GError *error = NULL;

	self->state = g_new0(struct cisp_param_state, 1);
	self->stats = g_new0(struct cisp_stats, 1);
	GST_OBJECT_LOCK(self);
	self->dirty = TRUE;
	GST_OBJECT_UNLOCK(self);
	/* Check the settings now, so that a bad value stops the pipeline before any data flows. */
	if (!update_settings(self))
		goto fail;
	if (!build_state(self->state, &self->cur, 0, NULL, NULL, &error)) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("%s", error->message), (NULL));
		g_error_free(error);
		goto fail;
	}
	if (self->cur.tuning && *self->cur.tuning) {
		struct cisp_tuning *t;

		if (cisp_tuning_open(&t, self->cur.tuning)) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Tuning file: %s", cisp_last_error()), (NULL));
			goto fail;
		}
		cisp_tuning_free(t);
	}
	return TRUE;
fail:
	gst_cisp_isp_stop(trans); /* the base class does not call stop() after a failed start() */
	return FALSE;
}

static gboolean gst_cisp_isp_stop(GstBaseTransform *trans)
{
	GstCispIsp *self = GST_CISP_ISP(trans);

	close_context(self);
	cisp_isp_destroy(self->isp);
	self->isp = NULL;
	cisp_pool_destroy(self->pool);
	self->pool = NULL;
	isp_loop_destroy(self->loop);
	self->loop = NULL;
	g_clear_pointer(&self->loop_path, g_free);
	g_clear_pointer(&self->state, g_free);
	g_clear_pointer(&self->stats, g_free);
	settings_clear(&self->cur);
	self->cur.threads = 0;
	return TRUE;
}

/* ---- properties ---- */

static void gst_cisp_isp_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
	GstCispIsp *self = GST_CISP_ISP(object);
	struct settings *s = &self->set;

	GST_OBJECT_LOCK(self);
	switch (id) {
	case PROP_THREADS:
		s->threads = g_value_get_uint(value);
		break;
	case PROP_DEMOSAIC:
		s->demosaic = g_value_get_enum(value);
		break;
	case PROP_BLACK_LEVEL:
		s->black_level = g_value_get_uint(value);
		break;
	case PROP_WHITE_LEVEL:
		s->white_level = g_value_get_uint(value);
		break;
	case PROP_DEFECT_THRESHOLD:
		s->defect_threshold = g_value_get_uint(value);
		break;
	case PROP_AWB:
		s->awb = g_value_get_boolean(value);
		break;
	case PROP_RED_GAIN:
		s->red_gain = g_value_get_double(value);
		break;
	case PROP_BLUE_GAIN:
		s->blue_gain = g_value_get_double(value);
		break;
	case PROP_AE:
		s->ae = g_value_get_boolean(value);
		break;
	case PROP_EV:
		s->ev = g_value_get_double(value);
		break;
	case PROP_DIGITAL_GAIN:
		s->digital_gain = g_value_get_double(value);
		break;
	case PROP_MAX_GAIN:
		s->max_gain = g_value_get_double(value);
		break;
	case PROP_TRANSFER:
		s->transfer = g_value_get_enum(value);
		break;
	case PROP_SHARPEN:
		s->sharpen = g_value_get_double(value);
		break;
	case PROP_PARAMS:
		g_free(s->params);
		s->params = g_value_dup_string(value);
		break;
	case PROP_PARAMS_FILE:
		g_free(s->params_file);
		s->params_file = g_value_dup_string(value);
		break;
	case PROP_TUNING:
		g_free(s->tuning);
		s->tuning = g_value_dup_string(value);
		break;
	case PROP_ISP:
		s->isp = g_value_get_enum(value);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
		break;
	}
	self->dirty = TRUE;
	GST_OBJECT_UNLOCK(self);
}

static void gst_cisp_isp_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	GstCispIsp *self = GST_CISP_ISP(object);
	const struct settings *s = &self->set;

	GST_OBJECT_LOCK(self);
	switch (id) {
	case PROP_THREADS:
		g_value_set_uint(value, s->threads);
		break;
	case PROP_DEMOSAIC:
		g_value_set_enum(value, s->demosaic);
		break;
	case PROP_BLACK_LEVEL:
		g_value_set_uint(value, s->black_level);
		break;
	case PROP_WHITE_LEVEL:
		g_value_set_uint(value, s->white_level);
		break;
	case PROP_DEFECT_THRESHOLD:
		g_value_set_uint(value, s->defect_threshold);
		break;
	case PROP_AWB:
		g_value_set_boolean(value, s->awb);
		break;
	case PROP_RED_GAIN:
		g_value_set_double(value, s->red_gain);
		break;
	case PROP_BLUE_GAIN:
		g_value_set_double(value, s->blue_gain);
		break;
	case PROP_AE:
		g_value_set_boolean(value, s->ae);
		break;
	case PROP_EV:
		g_value_set_double(value, s->ev);
		break;
	case PROP_DIGITAL_GAIN:
		g_value_set_double(value, s->digital_gain);
		break;
	case PROP_MAX_GAIN:
		g_value_set_double(value, s->max_gain);
		break;
	case PROP_TRANSFER:
		g_value_set_enum(value, s->transfer);
		break;
	case PROP_SHARPEN:
		g_value_set_double(value, s->sharpen);
		break;
	case PROP_PARAMS:
		g_value_set_string(value, s->params);
		break;
	case PROP_PARAMS_FILE:
		g_value_set_string(value, s->params_file);
		break;
	case PROP_TUNING:
		g_value_set_string(value, s->tuning);
		break;
	case PROP_ISP:
		g_value_set_enum(value, s->isp);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
		break;
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_cisp_isp_finalize(GObject *object)
{
	GstCispIsp *self = GST_CISP_ISP(object);

	settings_clear(&self->set);
	settings_clear(&self->cur);
	G_OBJECT_CLASS(gst_cisp_isp_parent_class)->finalize(object);
}

static void gst_cisp_isp_init(GstCispIsp *self)
{
	struct settings *s = &self->set;

	s->threads = DEFAULT_THREADS;
	s->demosaic = DEFAULT_DEMOSAIC;
	s->defect_threshold = DEFAULT_DEFECT_THRESHOLD;
	s->awb = TRUE;
	s->red_gain = s->blue_gain = 1.0;
	s->ae = TRUE;
	s->digital_gain = 1.0;
	s->max_gain = DEFAULT_MAX_GAIN;
	s->transfer = DEFAULT_TRANSFER;
	s->sharpen = DEFAULT_SHARPEN;
	self->dirty = TRUE;
}

#define PARAM_FLAGS (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)

static void gst_cisp_isp_class_init(GstCispIspClass *klass)
{
	GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
	GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
	GstBaseTransformClass *bt_class = GST_BASE_TRANSFORM_CLASS(klass);
	GstCaps *caps;

	GST_DEBUG_CATEGORY_INIT(cisp_isp_debug, "cispisp", 0, "cisp ISP filter");

	gobject_class->set_property = gst_cisp_isp_set_property;
	gobject_class->get_property = gst_cisp_isp_get_property;
	gobject_class->finalize = gst_cisp_isp_finalize;

	g_object_class_install_property(gobject_class, PROP_THREADS,
		g_param_spec_uint("threads", "Threads", "Worker threads of the ISP (0: one per CPU)", 0, 256,
				  DEFAULT_THREADS, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_DEMOSAIC,
		g_param_spec_enum("demosaic", "Demosaic", "Demosaic algorithm", GST_TYPE_CISP_DEMOSAIC,
				  DEFAULT_DEMOSAIC, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_BLACK_LEVEL,
		g_param_spec_uint("black-level", "Black level", "Sensor black level, in the input's units (a 10-bit "
				  "sensor's 64 is 64)", 0, 65535, 0, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_WHITE_LEVEL,
		g_param_spec_uint("white-level", "White level", "Sensor white (saturation) level in the input's units; "
				  "0: the largest value of the input's bit depth", 0, 65535, 0, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_DEFECT_THRESHOLD,
		g_param_spec_uint("defect-threshold", "Defect threshold", "Dynamic defective pixel detection "
				  "threshold in 16-bit units (0: off)", 0, 65535, DEFAULT_DEFECT_THRESHOLD, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_AWB,
		g_param_spec_boolean("awb", "Auto white balance", "Grey-world white balance from the ISP's statistics "
				     "(false: red-gain and blue-gain)", TRUE, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_RED_GAIN,
		g_param_spec_double("red-gain", "Red gain", "Manual white balance: gain of red against green "
				    "(used when awb=false)", 0.0, 15.99, 1.0, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_BLUE_GAIN,
		g_param_spec_double("blue-gain", "Blue gain", "Manual white balance: gain of blue against green "
				    "(used when awb=false)", 0.0, 15.99, 1.0, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_AE,
		g_param_spec_boolean("ae", "Auto exposure", "Digital gain that brings the mean linear luma to 18% grey "
				     "(times 2^ev), from the ISP's statistics (false: digital-gain)", TRUE, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_EV,
		g_param_spec_double("ev", "Exposure compensation", "Exposure compensation in stops (with ae=true)",
				    -4.0, 4.0, 0.0, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_DIGITAL_GAIN,
		g_param_spec_double("digital-gain", "Digital gain", "Manual digital gain (used when ae=false)", 0.0,
				    15.99, 1.0, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_MAX_GAIN,
		g_param_spec_double("max-gain", "Maximum gain", "Largest digital gain auto exposure applies", 1.0,
				    15.99, DEFAULT_MAX_GAIN, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_TRANSFER,
		g_param_spec_enum("transfer", "Transfer function", "Transfer function of the output (linear: the "
				  "input's light, for measurement)", GST_TYPE_CISP_TRANSFER, DEFAULT_TRANSFER,
				  PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_SHARPEN,
		g_param_spec_double("sharpen", "Sharpening", "Luma sharpening strength (0: off)", 0.0, 8.0,
				    DEFAULT_SHARPEN, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_PARAMS,
		g_param_spec_string("params", "ISP parameters", "ISP parameters in the YAML form of docs/abi.md, "
				    "applied over the properties (flow style fits on a line: "
				    "\"{ccm: {coeff: [[...]], offset: [0, 0, 0]}}\")", NULL, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_PARAMS_FILE,
		g_param_spec_string("params-file", "ISP parameters file", "File of ISP parameters, YAML or binary "
				    "(docs/abi.md), applied over the properties and params", NULL, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_TUNING,
		g_param_spec_string("tuning", "Tuning file", "Tuning file of the sensor and lens (docs/tuning.md), or a "
				    "sensor model whose file is found as cispsrc finds it (cisp-8m10): "
				    "the camera's 3A loop then runs on the statistics and sets black level, white balance "
				    "(on the tuning's colour-temperature curve), digital gain, colour, lens shading, "
				    "denoise, sharpening, defect correction and tone from it; awb, ae, ev, red-gain, "
				    "blue-gain and digital-gain go to the loop; black-level and white-level (when set), "
				    "demosaic, transfer, params and params-file apply over it",
				    NULL, PARAM_FLAGS));
	g_object_class_install_property(gobject_class, PROP_ISP,
		g_param_spec_enum("isp", "ISP", "What runs the ISP: the software ISP, or a device context on the Vulkan "
				  "backend (docs/gpu.md), which gives the same bytes; taken when the caps are set",
				  GST_TYPE_CISP_ISP_KIND, GST_CISP_ISP_SOFTWARE,
				  G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));

	gst_element_class_set_static_metadata(element_class, "cisp ISP", "Filter/Converter/Video",
		"Develops raw Bayer video with the cisp canonical ISP: black level, defective pixels, white balance "
		"and digital gain from its own statistics, fast or high-quality demosaic, colour, tone, sharpening, "
		"YUV or RGB output, scaling",
		"The cisp authors");
	caps = cisp_gst_bayer_caps();
	gst_element_class_add_pad_template(element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
	gst_caps_unref(caps);
	caps = cisp_gst_output_caps();
	gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
	gst_caps_unref(caps);

	bt_class->transform_caps = gst_cisp_isp_transform_caps;
	bt_class->fixate_caps = gst_cisp_isp_fixate_caps;
	bt_class->set_caps = gst_cisp_isp_set_caps;
	bt_class->transform_size = gst_cisp_isp_transform_size;
	bt_class->decide_allocation = gst_cisp_isp_decide_allocation;
	bt_class->propose_allocation = gst_cisp_isp_propose_allocation;
	bt_class->transform = gst_cisp_isp_transform;
	bt_class->start = gst_cisp_isp_start;
	bt_class->stop = gst_cisp_isp_stop;

	gst_type_mark_as_plugin_api(GST_TYPE_CISP_DEMOSAIC, 0);
	gst_type_mark_as_plugin_api(GST_TYPE_CISP_TRANSFER, 0);
	gst_type_mark_as_plugin_api(GST_TYPE_CISP_ISP_KIND, 0);
}
