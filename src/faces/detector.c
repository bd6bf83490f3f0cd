/* SPDX-License-Identifier: MIT */
/*
 * The face detector's loader: the OpenCV module (cisp-faces-opencv.so) is
 * opened on the first face_detector_create() and stays loaded (OpenCV's
 * thread pool outlives any one detector); a build without it fails with
 * "face detection not built".
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include "core/error_internal.h"
#include "detector.h"
#include "faces/faces_paths.h"

struct face_detector {
	void *impl;
	faces_module_find_fn find;
	faces_module_destroy_fn destroy;
};

#ifdef CISP_FACES_MODULE_INSTALLED
int face_detector_create(struct face_detector **d, const char *cascade)
{
	const char *path = getenv("CISP_FACES_MODULE");
	char msg[256] = "";
	struct face_detector *fd;
	faces_module_create_fn create;
	void *lib;
	int r;

	*d = NULL;
	if (!path || !*path)
		path = CISP_FACES_MODULE_INSTALLED;
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return cisp_error(-ENOENT, "face detection: cannot load its module %s: %s", path, dlerror());
	create = (faces_module_create_fn)dlsym(lib, FACES_MODULE_CREATE);
	fd = calloc(1, sizeof(*fd));
	if (!fd) {
		dlclose(lib);
		return cisp_error(-ENOMEM, "out of memory for a face detector");
	}
	fd->find = (faces_module_find_fn)dlsym(lib, FACES_MODULE_FIND);
	fd->destroy = (faces_module_destroy_fn)dlsym(lib, FACES_MODULE_DESTROY);
	if (!create || !fd->find || !fd->destroy) {
		free(fd);
		dlclose(lib);
		return cisp_error(-EINVAL, "face detection: %s is not cisp's face detection module", path);
	}
	r = create(&fd->impl, cascade, msg, sizeof(msg));
	if (r) {
		free(fd);
		return cisp_error(r, "face detection: %s", msg);
	}
	*d = fd;
	return 0;
}

void face_detector_destroy(struct face_detector *d)
{
	if (!d)
		return;
	d->destroy(d->impl);
	free(d);
}

int face_detector_find(struct face_detector *d, const uint8_t *luma, unsigned width, unsigned height, size_t stride,
		       unsigned min_size, struct face_box *boxes, unsigned max)
{
	char msg[256] = "";
	int r;

	if (!d || !luma || width < 1 || height < 1 || width > 65535 || height > 65535 || stride < width)
		return cisp_error(-EINVAL, "face detection: no detector or a bad %ux%u image", width, height);
	r = d->find(d->impl, luma, width, height, stride, min_size, boxes, max, msg, sizeof(msg));
	return r < 0 ? cisp_error(r, "face detection: %s", msg) : r;
}
#else
static int not_built(void)
{
	return cisp_error(-ENOTSUP, "face detection not built (cisp was built without OpenCV's objdetect: "
				    "install libopencv-objdetect-dev and opencv-data, meson option faces)");
}

int face_detector_create(struct face_detector **d, const char *cascade)
{
	(void)cascade;
	*d = NULL;
	return not_built();
}

void face_detector_destroy(struct face_detector *d)
{
	(void)d;
}

int face_detector_find(struct face_detector *d, const uint8_t *luma, unsigned width, unsigned height, size_t stride,
		       unsigned min_size, struct face_box *boxes, unsigned max)
{
	(void)d, (void)luma, (void)width, (void)height, (void)stride, (void)min_size, (void)boxes, (void)max;
	return not_built();
}
#endif
