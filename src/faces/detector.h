/* SPDX-License-Identifier: MIT */
/*
 * Face detection on an 8-bit luma image (docs/faces.md): OpenCV's cascade
 * classifier in a module of its own (detector_opencv.cpp, built as
 * cisp-faces-opencv.so), which detector.c loads on the first
 * face_detector_create(), so that processes that never detect faces map
 * no OpenCV. In a build without it the functions fail saying so. The
 * camera runs the detector on its own thread (camera/faces.c).
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

/*
 * The module's entry points, found with dlsym(). Each returns 0 (create),
 * the number of faces (find) or a negative errno with a message in @msg
 * (@len bytes); the module links OpenCV only, not the library.
 */
#define FACES_MODULE_CREATE "cisp_faces_module_create"
#define FACES_MODULE_FIND "cisp_faces_module_find"
#define FACES_MODULE_DESTROY "cisp_faces_module_destroy"
typedef int (*faces_module_create_fn)(void **impl, const char *cascade, char *msg, size_t len);
typedef int (*faces_module_find_fn)(void *impl, const uint8_t *luma, unsigned width, unsigned height,
				    size_t stride, unsigned min_size, struct face_box *boxes, unsigned max, char *msg,
				    size_t len);
typedef void (*faces_module_destroy_fn)(void *impl);

#ifdef __cplusplus
}
#endif

#endif /* CISP_FACES_DETECTOR_H */
