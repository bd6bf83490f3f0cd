/* SPDX-License-Identifier: MIT */
/**
 * @file orient.h
 * @brief Turning an image upright from its EXIF orientation.
 */
#ifndef CISP_ORIENT_H
#define CISP_ORIENT_H

#include <cisp/api.h>
#include <cisp/image.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_image_orient() - make the upright image an EXIF orientation
 * describes: 1 as stored, 2 mirrored left-right, 3 turned 180 degrees, 4
 * mirrored top-bottom, 5 transposed (mirrored about the main diagonal), 6
 * turned 90 degrees clockwise, 7 transversed (mirrored about the other
 * diagonal), 8 turned 90 degrees anticlockwise. For 5 to 8 width and height
 * swap. Pixel (x, y) of the result is pixel (sx, sy) of @src (W x H):
 * 1 (x, y); 2 (W-1-x, y); 3 (W-1-x, H-1-y); 4 (x, H-1-y); 5 (y, x);
 * 6 (y, H-1-x); 7 (W-1-y, H-1-x); 8 (W-1-y, x).
 * @src: an RGB888 or RGB48 image.
 * @orientation: 1..8.
 * @dst: receives a new image (cisp_image_alloc()); free with cisp_image_free().
 *
 * Return: 0, -EINVAL (other format, orientation out of range), -ENOMEM.
 */
CISP_API int cisp_image_orient(const struct cisp_image *src, int orientation, struct cisp_image *dst);

#ifdef __cplusplus
}
#endif

#endif /* CISP_ORIENT_H */
