/* SPDX-License-Identifier: MIT */
/*
 * Face detection on an 8-bit luma image (docs/faces.md): OpenCV's cascade
 * classifier behind a small C interface (detector_opencv.cpp), or, in a
 * build without OpenCV's objdetect, functions that fail saying so
 * (detector_none.c). The camera runs it on its own thread (camera/faces.c).
 */
#ifndef CISP_FACES_DETECTOR_H
#define CISP_FACES_DETECTOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct face_detector;

/* One face, in pixels of the luma image it was found in. */
struct face_box {
	int x, y, width, height;
	double confidence; /* 1 - 2^(-hits / 3): 0.5 at the three raw hits a face needs, towards 1 with more */
};

/*
 * Load a cascade: @cascade is an OpenCV cascade file, or NULL for the one
 * the build chose (docs/faces.md). Return: 0; -ENOTSUP "face detection not
 * built"; -ENOENT or -EINVAL naming a file that is missing or not a cascade.
 */
int face_detector_create(struct face_detector **d, const char *cascade);
void face_detector_destroy(struct face_detector *d);
/*
 * Find faces of at least @min_size pixels in @luma (@width x @height, rows
 * @stride bytes apart). Fills up to @max boxes, largest first.
 * Return: the number filled, or a negative errno with a message.
 */
int face_detector_find(struct face_detector *d, const uint8_t *luma, unsigned width, unsigned height, size_t stride,
		       unsigned min_size, struct face_box *boxes, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* CISP_FACES_DETECTOR_H */
