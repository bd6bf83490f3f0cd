/* SPDX-License-Identifier: MIT */
/*
 * The face detector of a build without OpenCV's objdetect (meson option
 * faces): every call fails with -ENOTSUP and says so.
 */
#include <errno.h>

#include "core/error_internal.h"
#include "detector.h"

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
