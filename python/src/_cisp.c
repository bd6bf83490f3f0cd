/* SPDX-License-Identifier: MIT */
/*
 * cisp._cisp: the C half of the Python binding (docs/python.md). It calls
 * the shared library's public API and hands images to Python without
 * copying them: an Image owns a struct cisp_image, and each of its planes
 * is a buffer (PEP 3118) with the shape and strides of the pixels, which
 * numpy.asarray() turns into an array over the same memory. Long calls
 * release the GIL; every failure raises cisp.Error with cisp's message.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <cisp/camera.h>
#include <cisp/develop.h>
#include <cisp/error.h>
#include <cisp/format.h>
#include <cisp/iq_color.h>
#include <cisp/iq_image.h>
#include <cisp/iq_sfr.h>
#include <cisp/params_state.h>
#include <cisp/pool.h>
#include <cisp/raster.h>
#include <cisp/vendor.h>

static PyObject *CispError;

/* cisp.Error(errno, cisp's message) for a negative errno @ret; returns NULL. */
static PyObject *raise_cisp(int ret)
{
	PyObject *args = Py_BuildValue("(is)", ret < 0 ? -ret : EINVAL, cisp_last_error());

	if (args) {
		PyErr_SetObject(CispError, args);
		Py_DECREF(args);
	}
	return NULL;
}

/* ---- images and their planes ---- */

typedef struct {
	PyObject_HEAD
	struct cisp_image image;
} ImageObject;

typedef struct {
	PyObject_HEAD
	PyObject *owner; /* the Image whose memory this is */
	char *data;
	int ndim;
	Py_ssize_t shape[3], strides[3], itemsize, len;
	char format[2];
} PlaneObject;

static PyTypeObject ImageType, PlaneType;

static void image_dealloc(ImageObject *self)
{
	cisp_image_free(&self->image);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

/* An Image that takes over @img (which is cleared). */
static PyObject *image_take(struct cisp_image *img)
{
	ImageObject *self = PyObject_New(ImageObject, &ImageType);

	if (!self) {
		cisp_image_free(img);
		return NULL;
	}
	self->image = *img;
	memset(img, 0, sizeof(*img));
	return (PyObject *)self;
}

/* The element layout of plane @p of @img: ndim, shape, strides and type. */
static int plane_layout(const struct cisp_image *img, unsigned p, PlaneObject *pl)
{
	const struct cisp_format_info *info = cisp_format_info(img->format);
	size_t row_bytes, rows;
	int channels = 1;

	if (!info || cisp_image_plane_size(img->format, img->width, img->height, p, &row_bytes, &rows))
		return -1;
	pl->itemsize = 1;
	if (info->kind == CISP_KIND_RGB) {
		channels = img->format == CISP_FMT_XBGR32 ? 4 : 3;
		pl->itemsize = img->format == CISP_FMT_RGB48 ? 2 : 1;
	} else if (info->kind == CISP_KIND_YUV && p > 0 && img->format == CISP_FMT_NV12) {
		channels = 2; /* interleaved Cb, Cr */
	} else if (info->kind == CISP_KIND_BAYER && !info->packed && info->bits > 8) {
		pl->itemsize = 2;
	}
	/* Packed Bayer rows stay bytes: rows x row bytes. */
	pl->ndim = channels > 1 ? 3 : 2;
	pl->shape[0] = (Py_ssize_t)rows;
	pl->shape[1] = (Py_ssize_t)row_bytes / (channels * pl->itemsize);
	pl->shape[2] = channels;
	pl->strides[0] = (Py_ssize_t)img->plane[p].stride;
	pl->strides[1] = channels * pl->itemsize;
	pl->strides[2] = pl->itemsize;
	pl->format[0] = pl->itemsize == 2 ? 'H' : 'B';
	pl->format[1] = '\0';
	pl->len = (Py_ssize_t)(rows * row_bytes);
	pl->data = (char *)img->plane[p].data;
	return 0;
}

static PyObject *image_planes(ImageObject *self, void *closure)
{
	PyObject *tuple = PyTuple_New(self->image.num_planes);

	(void)closure;
	for (unsigned p = 0; tuple && p < self->image.num_planes; p++) {
		PlaneObject *pl = PyObject_New(PlaneObject, &PlaneType);

		if (!pl) {
			Py_CLEAR(tuple);
			break;
		}
		Py_INCREF(self);
		pl->owner = (PyObject *)self;
		if (plane_layout(&self->image, p, pl)) {
			Py_DECREF(pl);
			Py_CLEAR(tuple);
			PyErr_SetString(CispError, "unknown image format");
			break;
		}
		PyTuple_SET_ITEM(tuple, p, (PyObject *)pl);
	}
	return tuple;
}

static PyObject *image_format(ImageObject *self, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(cisp_format_name(self->image.format));
}

static PyObject *image_width(ImageObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLong(self->image.width);
}

static PyObject *image_height(ImageObject *self, void *closure)
{
	(void)closure;
	return PyLong_FromUnsignedLong(self->image.height);
}

static PyGetSetDef image_getset[] = {
	{ "planes", (getter)image_planes, NULL, "the planes, each a buffer numpy.asarray() takes without copying", NULL },
	{ "format", (getter)image_format, NULL, "the pixel format's name (RGB24, RGB48, NV12, ...)", NULL },
	{ "width", (getter)image_width, NULL, "pixels per row", NULL },
	{ "height", (getter)image_height, NULL, "rows", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyTypeObject ImageType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cisp._cisp.Image",
	.tp_basicsize = sizeof(ImageObject),
	.tp_dealloc = (destructor)image_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An image made by cisp (owned memory).",
	.tp_getset = image_getset,
};

static void plane_dealloc(PlaneObject *self)
{
	Py_XDECREF(self->owner);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int plane_getbuffer(PlaneObject *self, Py_buffer *view, int flags)
{
	if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && self->strides[0] != self->shape[1] * self->strides[1]) {
		PyErr_SetString(PyExc_BufferError, "the plane's rows are padded: ask for a strided buffer");
		return -1;
	}
	view->buf = self->data;
	view->obj = (PyObject *)self;
	Py_INCREF(self);
	view->len = self->len;
	view->readonly = 0;
	view->itemsize = self->itemsize;
	view->format = (flags & PyBUF_FORMAT) ? self->format : NULL;
	view->ndim = self->ndim;
	view->shape = self->shape;
	view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? self->strides : NULL;
	view->suboffsets = NULL;
	view->internal = NULL;
	return 0;
}

static PyBufferProcs plane_buffer = { (getbufferproc)plane_getbuffer, NULL };

static PyTypeObject PlaneType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cisp._cisp.Plane",
	.tp_basicsize = sizeof(PlaneObject),
	.tp_dealloc = (destructor)plane_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "One plane of an Image, as a buffer (shape rows x columns [x channels]).",
	.tp_as_buffer = &plane_buffer,
};

/* ---- develop ---- */

/* A raw frame from a 2D buffer of 8- or 16-bit samples (a mosaic): copied into a raster. */
static int frame_from_mosaic(PyObject *obj, const struct cisp_develop_source *src, struct cisp_raw_frame *frame)
{
	Py_buffer view;
	struct cisp_raster raster;
	int ret;

	if (PyObject_GetBuffer(obj, &view, PyBUF_RECORDS_RO))
		return -1;
	if (view.ndim != 2 || (view.itemsize != 1 && view.itemsize != 2) ||
	    (view.format && strcmp(view.format, "B") && strcmp(view.format, "H") && strcmp(view.format, "<H") &&
	     strcmp(view.format, "=H"))) {
		PyBuffer_Release(&view);
		PyErr_SetString(PyExc_TypeError, "a mosaic is a 2D array of uint8 or uint16 samples");
		return -1;
	}
	if (view.shape[0] < 1 || view.shape[1] < 1 || view.shape[0] > CISP_MAX_DIMENSION ||
	    view.shape[1] > CISP_MAX_DIMENSION) {
		PyBuffer_Release(&view);
		PyErr_SetString(PyExc_ValueError, "a mosaic's size must be 1..CISP_MAX_DIMENSION on each side");
		return -1;
	}
	ret = cisp_raster_alloc(&raster, (uint32_t)view.shape[1], (uint32_t)view.shape[0], 1,
				view.itemsize == 2 ? 65535 : 255);
	if (!ret) {
		for (Py_ssize_t y = 0; y < view.shape[0]; y++) {
			const char *row = (const char *)view.buf + y * view.strides[0];
			uint16_t *out = raster.data + (size_t)y * raster.width;

			for (Py_ssize_t x = 0; x < view.shape[1]; x++) {
				const char *s = row + x * view.strides[1];
				uint16_t v16;

				memcpy(&v16, s, sizeof(v16));
				out[x] = view.itemsize == 2 ? v16 : (uint8_t)*s;
			}
		}
		/* The largest sample is the white level unless told (as for a PGM). */
		Py_BEGIN_ALLOW_THREADS
		ret = cisp_raw_from_raster(&raster, src->cfa >= 0 ? (enum cisp_cfa)src->cfa : CISP_CFA_RGGB,
					   src->black >= 0 ? (unsigned)src->black : 0,
					   src->white >= 0 ? (unsigned)src->white : 0, frame);
		Py_END_ALLOW_THREADS
		cisp_raster_free(&raster);
	}
	PyBuffer_Release(&view);
	if (ret) {
		raise_cisp(ret);
		return -1;
	}
	return 0;
}

/* A vendor host with the plugins of two sequences of paths (sandboxed, trusted); NULL when none. */
static int vendor_host(PyObject *sandboxed, PyObject *trusted, struct cisp_vendor_host **host)
{
	PyObject *lists[2] = { sandboxed, trusted };
	int ret;

	*host = NULL;
	if ((!sandboxed || PySequence_Size(sandboxed) == 0) && (!trusted || PySequence_Size(trusted) == 0)) {
		PyErr_Clear();
		return 0;
	}
	if ((ret = cisp_vendor_host_create(host, NULL))) {
		raise_cisp(ret);
		return -1;
	}
	for (int l = 0; l < 2; l++) {
		Py_ssize_t n = lists[l] ? PySequence_Size(lists[l]) : 0;

		for (Py_ssize_t i = 0; i < n; i++) {
			PyObject *item = PySequence_GetItem(lists[l], i), *bytes = NULL;
			struct cisp_vendor_stage_config c = { NULL, l == 1, 0 };

			if (!item || !PyUnicode_FSConverter(item, &bytes)) {
				Py_XDECREF(item);
				goto fail;
			}
			c.path = PyBytes_AS_STRING(bytes);
			ret = cisp_vendor_host_add(*host, &c);
			Py_DECREF(bytes);
			Py_DECREF(item);
			if (ret) {
				raise_cisp(ret);
				goto fail;
			}
		}
	}
	return 0;
fail:
	cisp_vendor_host_destroy(*host);
	*host = NULL;
	return -1;
}

static PyObject *py_develop(PyObject *module, PyObject *args, PyObject *kw)
{
	static char *keywords[] = { "source", "dump_format", "width", "height", "cfa", "black", "white", "demosaic",
				    "awb", "ev", "linear", "full_frame", "highlights", "output_format", "output_width",
				    "output_height", "params", "params_name", "vendor", "trusted_vendor", "threads",
				    "tone", "manual_exposure", "output_stretch", "wb_kelvin", "wb_tint", "wb_gains", "wb_box",
				    "crop", NULL };
	PyObject *source, *params_obj = Py_None, *vendor = NULL, *trusted = NULL, *result = NULL;
	const char *dump_format = NULL, *cfa = NULL, *output_format = NULL, *params_name = NULL;
	unsigned width = 0, height = 0, demosaic = 0, awb = 0, highlights = 0, out_w = 0, out_h = 0, threads = 0;
	unsigned tone = 0;
	int black = -1, white = -1, linear = 0, full_frame = 0, manual_exposure = 0, stretch = 0;
	double ev = 0, kelvin = 0, tint = 0, gains[3] = { 1, 1, 1 };
	unsigned box[4] = { 0, 0, 0, 0 }, crop[4] = { 0, 0, 0, 0 };
	Py_buffer params = { 0 };
	struct cisp_develop_source src;
	struct cisp_develop_options opt = { 0 };
	struct cisp_raw_frame frame = { 0 };
	struct cisp_image out = { 0 };
	struct cisp_pool *pool = NULL;
	int ret;

	(void)module;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$zIIziiIIdppIzIIOzOOIIppdd(ddd)(IIII)(IIII)", keywords, &source,
					 &dump_format, &width, &height, &cfa, &black, &white, &demosaic, &awb, &ev, &linear,
					 &full_frame, &highlights, &output_format, &out_w, &out_h, &params_obj, &params_name,
					 &vendor, &trusted, &threads, &tone, &manual_exposure, &stretch, &kelvin, &tint,
					 &gains[0], &gains[1], &gains[2], &box[0], &box[1], &box[2], &box[3], &crop[0],
					 &crop[1], &crop[2], &crop[3]))
		return NULL;
	if (params_obj != Py_None && PyObject_GetBuffer(params_obj, &params, PyBUF_SIMPLE))
		return NULL;
	cisp_develop_source_init(&src);
	src.width = width;
	src.height = height;
	src.black = black;
	src.white = white;
	if (dump_format && !(src.dump_format = cisp_format_from_name(dump_format))) {
		raise_cisp(-EINVAL);
		goto out;
	}
	if (cfa) {
		enum cisp_cfa c;

		if ((ret = cisp_cfa_from_name(cfa, &c))) {
			raise_cisp(ret);
			goto out;
		}
		src.cfa = (int)c;
	}
	opt.demosaic = demosaic;
	opt.awb = awb;
	opt.ev = ev;
	opt.linear = linear;
	opt.full_frame = full_frame;
	if (highlights > UINT16_MAX) {
		raise_cisp(-EINVAL);
		goto out;
	}
	opt.highlights = (uint16_t)highlights;
	opt.tone = (uint16_t)(tone > UINT16_MAX ? UINT16_MAX : tone);
	opt.manual_exposure = manual_exposure;
	opt.output_stretch = stretch;
	opt.wb_kelvin = kelvin;
	opt.wb_tint = tint;
	memcpy(opt.wb_gains, gains, sizeof(gains));
	opt.wb_box = (struct cisp_develop_area){ box[0], box[1], box[2], box[3] };
	opt.crop = (struct cisp_develop_area){ crop[0], crop[1], crop[2], crop[3] };
	opt.output_width = out_w;
	opt.output_height = out_h;
	if (output_format && !(opt.output_format = cisp_format_from_name(output_format))) {
		raise_cisp(-EINVAL);
		goto out;
	}
	if (params.buf) {
		opt.params = params.buf;
		opt.params_size = (size_t)params.len;
		opt.params_name = params_name;
	}
	if (vendor_host(vendor, trusted, &opt.vendor))
		goto out;

	if (PyUnicode_Check(source) || PyBytes_Check(source) || PyObject_HasAttrString(source, "__fspath__")) {
		PyObject *path = NULL;

		if (!PyUnicode_FSConverter(source, &path))
			goto out;
		Py_BEGIN_ALLOW_THREADS
		ret = cisp_develop_read(PyBytes_AS_STRING(path), &src, &frame);
		Py_END_ALLOW_THREADS
		Py_DECREF(path);
		if (ret) {
			raise_cisp(ret);
			goto out;
		}
	} else if (frame_from_mosaic(source, &src, &frame)) {
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = cisp_pool_create(&pool, threads);
	if (!ret)
		ret = cisp_develop(&frame, &opt, &out, pool);
	Py_END_ALLOW_THREADS
	if (ret)
		raise_cisp(ret);
	else
		result = image_take(&out);
out:
	cisp_pool_destroy(pool);
	cisp_raw_frame_free(&frame);
	cisp_vendor_host_destroy(opt.vendor);
	if (params.buf)
		PyBuffer_Release(&params);
	return result;
}

/* ---- params ---- */

static PyObject *py_params_from_yaml(PyObject *module, PyObject *arg)
{
	Py_ssize_t length;
	const char *text = PyUnicode_AsUTF8AndSize(arg, &length);
	void *buf = NULL;
	size_t size;
	PyObject *bytes;
	int ret;

	(void)module;
	if (!text)
		return NULL;
	if ((ret = cisp_params_from_yaml(text, (size_t)length, &buf, &size)))
		return raise_cisp(ret);
	bytes = PyBytes_FromStringAndSize(buf, (Py_ssize_t)size);
	free(buf);
	return bytes;
}

static PyObject *py_params_to_yaml(PyObject *module, PyObject *arg)
{
	Py_buffer view;
	char *text = NULL;
	PyObject *str;
	int ret;

	(void)module;
	if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE))
		return NULL;
	ret = cisp_params_to_yaml(view.buf, (size_t)view.len, &text);
	PyBuffer_Release(&view);
	if (ret)
		return raise_cisp(ret);
	str = PyUnicode_FromString(text);
	free(text);
	return str;
}

/* ---- cameras ---- */

static PyObject *py_cameras(PyObject *module, PyObject *unused)
{
	struct cisp_camera_manager *m = NULL;
	struct cisp_camera_desc list[64];
	PyObject *result;
	int n;

	(void)module;
	(void)unused;
	if ((n = cisp_camera_manager_create(&m, NULL)) || (n = cisp_camera_list(m, list, 64)) < 0) {
		cisp_camera_manager_destroy(m);
		return raise_cisp(n);
	}
	cisp_camera_manager_destroy(m);
	result = PyList_New(0);
	for (int i = 0; result && i < n && i < 64; i++) {
		PyObject *d = Py_BuildValue("{s:s,s:s,s:s}", "name", list[i].name, "backend", list[i].backend,
					    "description", list[i].description);

		if (!d || PyList_Append(result, d))
			Py_CLEAR(result);
		Py_XDECREF(d);
	}
	return result;
}

#define CAMERA_REQUESTS 4

typedef struct {
	PyObject_HEAD
	struct cisp_camera_manager *manager;
	struct cisp_camera *camera;
	struct cisp_camera_config config;
	struct cisp_camera_request request[CAMERA_REQUESTS];
	struct cisp_image image[CAMERA_REQUESTS];
	bool configured, started;
} CameraObject;

static void camera_release(CameraObject *self)
{
	Py_BEGIN_ALLOW_THREADS
	cisp_camera_close(self->camera);
	cisp_camera_manager_destroy(self->manager);
	Py_END_ALLOW_THREADS
	self->camera = NULL;
	self->manager = NULL;
	for (int i = 0; i < CAMERA_REQUESTS; i++)
		cisp_image_free(&self->image[i]);
	self->configured = self->started = false;
}

static void camera_dealloc(CameraObject *self)
{
	camera_release(self);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static int camera_init(CameraObject *self, PyObject *args, PyObject *kw)
{
	static char *keywords[] = { "name", "sensor_options", "tuning", NULL };
	const char *name, *sensor_options = NULL, *tuning = NULL;
	struct cisp_camera_options o = { 0 };
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|zz", keywords, &name, &sensor_options, &tuning))
		return -1;
	camera_release(self);
	o.sensor_options = sensor_options;
	o.tuning = tuning;
	Py_BEGIN_ALLOW_THREADS
	ret = cisp_camera_manager_create(&self->manager, NULL);
	if (!ret)
		ret = cisp_camera_open(&self->camera, self->manager, name, &o);
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_cisp(ret);
		camera_release(self);
		return -1;
	}
	return 0;
}

static PyObject *camera_configure(CameraObject *self, PyObject *args, PyObject *kw)
{
	static char *keywords[] = { "format", "width", "height", "mode", NULL };
	const char *format = "RGB24";
	unsigned width = 0, height = 0, mode = 0;
	struct cisp_stream_config *s = &self->config.stream[CISP_STREAM_MAIN];
	int ret;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|sIII", keywords, &format, &width, &height, &mode))
		return NULL;
	if (!self->camera || self->started) {
		PyErr_SetString(CispError, self->camera ? "configure a stopped camera" : "the camera is closed");
		return NULL;
	}
	if ((ret = cisp_camera_default_config(self->camera, mode, &self->config)))
		return raise_cisp(ret);
	if (!(s->format = cisp_format_from_name(format)))
		return raise_cisp(-EINVAL);
	if (width)
		s->width = width;
	if (height)
		s->height = height;
	Py_BEGIN_ALLOW_THREADS
	ret = cisp_camera_configure(self->camera, &self->config);
	Py_END_ALLOW_THREADS
	if (ret)
		return raise_cisp(ret);
	for (int i = 0; i < CAMERA_REQUESTS; i++) {
		cisp_image_free(&self->image[i]);
		if ((ret = cisp_image_alloc(&self->image[i], s->format, s->width, s->height)))
			return raise_cisp(ret);
		memset(&self->request[i], 0, sizeof(self->request[i]));
		self->request[i].buffer[CISP_STREAM_MAIN] = &self->image[i];
	}
	self->configured = true;
	Py_RETURN_NONE;
}

static PyObject *camera_start(CameraObject *self, PyObject *unused)
{
	int ret = 0;

	(void)unused;
	if (!self->configured) {
		PyErr_SetString(CispError, "configure the camera first");
		return NULL;
	}
	if (self->started)
		Py_RETURN_NONE;
	for (int i = 0; !ret && i < CAMERA_REQUESTS; i++)
		ret = cisp_camera_queue(self->camera, &self->request[i]);
	Py_BEGIN_ALLOW_THREADS
	if (!ret)
		ret = cisp_camera_start(self->camera);
	Py_END_ALLOW_THREADS
	if (ret) {
		cisp_camera_stop(self->camera);
		return raise_cisp(ret);
	}
	self->started = true;
	Py_RETURN_NONE;
}

static PyObject *camera_stop(CameraObject *self, PyObject *unused)
{
	struct cisp_camera_request *req;

	(void)unused;
	if (self->started) {
		Py_BEGIN_ALLOW_THREADS
		cisp_camera_stop(self->camera);
		/* The cancelled requests come back; they are queued again at the next start. */
		while (cisp_camera_wait(self->camera, &req, 0) == 0)
			;
		Py_END_ALLOW_THREADS
		self->started = false;
	}
	Py_RETURN_NONE;
}

static PyObject *camera_close(CameraObject *self, PyObject *unused)
{
	(void)unused;
	camera_release(self);
	Py_RETURN_NONE;
}

static PyObject *metadata_dict(const struct cisp_camera_metadata *md)
{
	return Py_BuildValue("{s:K,s:K,s:d,s:d,s:d,s:d,s:i,s:d,s:(dd),s:(ddddddddd),s:s,s:s,s:s,s:K}", "sequence",
			     (unsigned long long)md->sequence, "timestamp_ns", (unsigned long long)md->timestamp_ns,
			     "exposure_us", md->exposure_us, "analogue_gain", md->analogue_gain, "digital_gain",
			     md->digital_gain, "frame_duration_us", md->frame_duration_us, "lens_position",
			     (int)md->lens_position, "colour_temperature", md->colour_temperature, "colour_gains",
			     md->colour_gains[0], md->colour_gains[1], "ccm", md->ccm[0], md->ccm[1], md->ccm[2],
			     md->ccm[3], md->ccm[4], md->ccm[5], md->ccm[6], md->ccm[7], md->ccm[8], "ae_state",
			     cisp_ae_state_name(md->ae_state), "awb_state", cisp_awb_state_name(md->awb_state),
			     "af_state", cisp_af_state_name(md->af_state), "isp_ns", (unsigned long long)md->isp_ns);
}

/* The next frame: (Image, metadata); the request goes back with a new image. */
static PyObject *camera_capture(CameraObject *self, PyObject *args)
{
	double timeout = -1;
	struct cisp_camera_request *req;
	struct cisp_image fresh = { 0 }, *slot;
	PyObject *image, *md, *result;
	int ret;

	if (!PyArg_ParseTuple(args, "|d", &timeout))
		return NULL;
	if (!self->started) {
		PyErr_SetString(CispError, "start the camera first");
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = cisp_camera_wait(self->camera, &req, timeout < 0 ? -1 : (int64_t)(timeout * 1e9));
	Py_END_ALLOW_THREADS
	if (ret)
		return raise_cisp(ret);
	slot = req->buffer[CISP_STREAM_MAIN];
	if (req->status) {
		PyObject *err = Py_BuildValue("(is)", -req->status, req->message);

		cisp_camera_queue(self->camera, req);
		if (err) {
			PyErr_SetObject(CispError, err);
			Py_DECREF(err);
		}
		return NULL;
	}
	if ((ret = cisp_image_alloc(&fresh, slot->format, slot->width, slot->height)))
		return raise_cisp(ret);
	md = metadata_dict(&req->metadata);
	image = image_take(slot);
	*slot = fresh;
	ret = cisp_camera_queue(self->camera, req);
	if (!md || !image || ret) {
		Py_XDECREF(md);
		Py_XDECREF(image);
		return ret ? raise_cisp(ret) : NULL;
	}
	result = PyTuple_Pack(2, image, md);
	Py_DECREF(image);
	Py_DECREF(md);
	return result;
}

static PyMethodDef camera_methods[] = {
	{ "configure", (PyCFunction)(void (*)(void))camera_configure, METH_VARARGS | METH_KEYWORDS,
	  "configure(format='RGB24', width=0, height=0, mode=0): the main stream (0: the mode's size)" },
	{ "start", (PyCFunction)camera_start, METH_NOARGS, "start streaming" },
	{ "capture", (PyCFunction)camera_capture, METH_VARARGS,
	  "capture(timeout=-1) -> (Image, metadata dict): the next frame" },
	{ "stop", (PyCFunction)camera_stop, METH_NOARGS, "stop streaming" },
	{ "close", (PyCFunction)camera_close, METH_NOARGS, "close the camera" },
	{ NULL, NULL, 0, NULL },
};

static PyTypeObject CameraType = {
	PyVarObject_HEAD_INIT(NULL, 0).tp_name = "cisp._cisp.Camera",
	.tp_basicsize = sizeof(CameraObject),
	.tp_dealloc = (destructor)camera_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Camera(name, sensor_options=None, tuning=None): an open camera (camera.h).",
	.tp_methods = camera_methods,
	.tp_init = (initproc)camera_init,
	.tp_new = PyType_GenericNew,
};

/* ---- image quality ---- */

/* A C-contiguous buffer of doubles whose length is a multiple of @group. */
static int double_buffer(PyObject *obj, Py_buffer *view, int flags, Py_ssize_t group)
{
	if (PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT))
		return -1;
	if (strcmp(view->format, "d") || view->len % (group * (Py_ssize_t)sizeof(double))) {
		PyBuffer_Release(view);
		PyErr_SetString(PyExc_TypeError, "expected contiguous float64 values in groups of 3");
		return -1;
	}
	return 0;
}

/* delta_e2000(lab1, lab2, out): out[i] = CIEDE2000 between the i-th L*a*b* triplets. */
static PyObject *py_delta_e2000(PyObject *module, PyObject *args)
{
	PyObject *a, *b, *o;
	Py_buffer va, vb, vo;

	(void)module;
	if (!PyArg_ParseTuple(args, "OOO", &a, &b, &o))
		return NULL;
	if (double_buffer(a, &va, PyBUF_SIMPLE, 3))
		return NULL;
	if (double_buffer(b, &vb, PyBUF_SIMPLE, 3)) {
		PyBuffer_Release(&va);
		return NULL;
	}
	if (double_buffer(o, &vo, PyBUF_WRITABLE, 1)) {
		PyBuffer_Release(&va);
		PyBuffer_Release(&vb);
		return NULL;
	}
	if (va.len != vb.len || vo.len * 3 != va.len) {
		PyErr_SetString(PyExc_ValueError, "lab1, lab2 and out hold different numbers of colours");
	} else {
		const double *x = va.buf, *y = vb.buf;
		double *d = vo.buf;

		for (Py_ssize_t i = 0; i < vo.len / (Py_ssize_t)sizeof(double); i++)
			d[i] = cisp_iq_delta_e2000(x + 3 * i, y + 3 * i);
	}
	PyBuffer_Release(&va);
	PyBuffer_Release(&vb);
	PyBuffer_Release(&vo);
	if (PyErr_Occurred())
		return NULL;
	Py_RETURN_NONE;
}

/* srgb_to_lab(rgb, out, encoded): sRGB triplets (0..1; encoded or linear) to CIELAB under D65. */
static PyObject *py_srgb_to_lab(PyObject *module, PyObject *args)
{
	PyObject *a, *o;
	int encoded;
	Py_buffer va, vo;

	(void)module;
	if (!PyArg_ParseTuple(args, "OOp", &a, &o, &encoded))
		return NULL;
	if (double_buffer(a, &va, PyBUF_SIMPLE, 3))
		return NULL;
	if (double_buffer(o, &vo, PyBUF_WRITABLE, 3)) {
		PyBuffer_Release(&va);
		return NULL;
	}
	if (va.len != vo.len) {
		PyErr_SetString(PyExc_ValueError, "rgb and out hold different numbers of colours");
	} else {
		const double *rgb = va.buf;
		double *lab = vo.buf;

		for (Py_ssize_t i = 0; i < va.len / (Py_ssize_t)(3 * sizeof(double)); i++) {
			double lin[3], xyz[3];

			for (int c = 0; c < 3; c++)
				lin[c] = encoded ? cisp_iq_linearize(CISP_TRANSFER_SRGB, rgb[3 * i + c]) : rgb[3 * i + c];
			cisp_iq_srgb_to_xyz(lin, xyz);
			cisp_iq_xyz_to_lab(xyz, cisp_iq_white_d65, lab + 3 * i);
		}
	}
	PyBuffer_Release(&va);
	PyBuffer_Release(&vo);
	if (PyErr_Occurred())
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *list_of(const double *v, int n)
{
	PyObject *list = PyList_New(n);

	for (int i = 0; list && i < n; i++) {
		PyObject *f = PyFloat_FromDouble(v[i]);

		if (!f) {
			Py_CLEAR(list);
			break;
		}
		PyList_SET_ITEM(list, i, f);
	}
	return list;
}

/* sfr(image, x, y, width, height, channel, frequencies): the slanted-edge response of a float32 image. */
static PyObject *py_sfr(PyObject *module, PyObject *args)
{
	PyObject *img, *freqs, *result = NULL, *at = NULL;
	struct cisp_iq_rect roi;
	int channel;
	Py_buffer v;
	struct cisp_iq_image image;
	struct cisp_iq_sfr_result r;
	int ret;

	(void)module;
	if (!PyArg_ParseTuple(args, "OiiiiiO", &img, &roi.x, &roi.y, &roi.width, &roi.height, &channel, &freqs))
		return NULL;
	if (PyObject_GetBuffer(img, &v, PyBUF_RECORDS_RO))
		return NULL;
	if (strcmp(v.format, "f") || (v.ndim != 2 && !(v.ndim == 3 && v.shape[2] == 3)) ||
	    v.strides[v.ndim - 1] != (Py_ssize_t)sizeof(float) ||
	    (v.ndim == 3 && v.strides[1] != 3 * (Py_ssize_t)sizeof(float)) || v.strides[0] % sizeof(float)) {
		PyBuffer_Release(&v);
		PyErr_SetString(PyExc_TypeError, "an image is a float32 array, rows x columns [x 3], with contiguous rows");
		return NULL;
	}
	/* The array's memory as it is: cisp_iq_sfr() only reads it. */
	image.data = v.buf;
	image.height = (uint32_t)v.shape[0];
	image.width = (uint32_t)v.shape[1];
	image.channels = v.ndim == 3 ? 3 : 1;
	image.stride = (size_t)v.strides[0] / sizeof(float);
	Py_BEGIN_ALLOW_THREADS
	ret = cisp_iq_sfr(&image, &roi, channel, &r);
	Py_END_ALLOW_THREADS
	PyBuffer_Release(&v);
	if (ret)
		return raise_cisp(ret);
	at = PyList_New(0);
	for (Py_ssize_t i = 0; at && i < PySequence_Size(freqs); i++) {
		PyObject *f = PySequence_GetItem(freqs, i), *m = NULL;
		double freq = f ? PyFloat_AsDouble(f) : -1;

		Py_XDECREF(f);
		if (!PyErr_Occurred())
			m = PyFloat_FromDouble(cisp_iq_sfr_at(&r, freq));
		if (!m || PyList_Append(at, m))
			Py_CLEAR(at);
		Py_XDECREF(m);
	}
	if (!at)
		return NULL;
	result = Py_BuildValue("{s:O,s:d,s:N,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:d,s:N,s:N}", "vertical",
			       r.vertical ? Py_True : Py_False, "angle_deg", r.angle_deg, "mtf",
			       list_of(r.mtf, CISP_IQ_SFR_POINTS), "mtf50", r.mtf50, "mtf_nyq2", r.mtf_nyq2, "mtf_nyq",
			       r.mtf_nyq, "low", r.low, "high", r.high, "overshoot_pct", r.overshoot_pct,
			       "undershoot_pct", r.undershoot_pct, "rise_10_90", r.rise_10_90, "esf",
			       list_of(r.esf, CISP_IQ_ESF_POINTS), "mtf_at", at);
	return result;
}

/* ---- the module ---- */

static PyMethodDef module_methods[] = {
	{ "develop", (PyCFunction)(void (*)(void))py_develop, METH_VARARGS | METH_KEYWORDS,
	  "develop(source, **options) -> Image: cisp_develop_read() and cisp_develop() (develop.h)" },
	{ "params_from_yaml", py_params_from_yaml, METH_O, "params_from_yaml(text) -> bytes: a params buffer" },
	{ "params_to_yaml", py_params_to_yaml, METH_O, "params_to_yaml(buffer) -> str: its YAML form" },
	{ "cameras", py_cameras, METH_NOARGS, "cameras() -> list of {name, backend, description}" },
	{ "delta_e2000", py_delta_e2000, METH_VARARGS, "delta_e2000(lab1, lab2, out): CIEDE2000 per colour" },
	{ "srgb_to_lab", py_srgb_to_lab, METH_VARARGS, "srgb_to_lab(rgb, out, encoded): sRGB to CIELAB (D65)" },
	{ "sfr", py_sfr, METH_VARARGS, "sfr(image, x, y, width, height, channel, frequencies) -> dict" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "cisp._cisp", "The C half of the cisp binding (docs/python.md).", -1, module_methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cisp(void)
{
	PyObject *m;

	if (PyType_Ready(&ImageType) || PyType_Ready(&PlaneType) || PyType_Ready(&CameraType))
		return NULL;
	m = PyModule_Create(&module_def);
	if (!m)
		return NULL;
	CispError = PyErr_NewExceptionWithDoc("cisp.Error",
					      "A cisp call failed: errno and cisp's message (cisp_last_error()).",
					      PyExc_OSError, NULL);
	Py_INCREF(&ImageType);
	Py_INCREF(&PlaneType);
	Py_INCREF(&CameraType);
	if (!CispError || PyModule_AddObject(m, "Error", CispError) ||
	    PyModule_AddObject(m, "Image", (PyObject *)&ImageType) ||
	    PyModule_AddObject(m, "Plane", (PyObject *)&PlaneType) ||
	    PyModule_AddObject(m, "Camera", (PyObject *)&CameraType) ||
	    PyModule_AddStringConstant(m, "version", CISP_VERSION)) {
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(CispError);
	return m;
}
