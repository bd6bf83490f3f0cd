/* SPDX-License-Identifier: MIT */
/**
 * @file image.h
 * @brief Image descriptors: format, size and up to three planes with strides.
 *
 * A struct cisp_image describes pixels in memory; it does not own them unless
 * it was made by cisp_image_alloc(). Plane layouts:
 *  - Bayer: one plane; 8-bit formats one byte per sample, 10..16-bit formats
 *    one 16-bit little-endian container per sample, packed formats as in
 *    format.h (a row holds width*5/4 or width*3/2 bytes).
 *  - NV12: plane 0 luma (width bytes a row), plane 1 interleaved Cb,Cr at half
 *    width and half height (rounded up).
 *  - I420: planes 0, 1, 2 are Y, Cb, Cr; chroma at half width and height.
 *  - RGB888: R,G,B bytes; RGB48: R,G,B 16-bit little-endian words; XBGR32:
 *    B,G,R,255 bytes.
 */
#ifndef CISP_IMAGE_H
#define CISP_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest width or height cisp accepts, so sizes never overflow. */
#define CISP_MAX_DIMENSION 16384

/** One plane of an image. */
struct cisp_plane {
	uint8_t *data; /**< first byte of the top row */
	size_t stride; /**< bytes from one row to the next; at least the row's size */
};

/** An image in memory. */
struct cisp_image {
	uint32_t format;             /**< CISP_FMT_* */
	uint32_t width;              /**< pixels per row */
	uint32_t height;             /**< rows */
	unsigned num_planes;         /**< planes in use (from the format) */
	struct cisp_plane plane[3];  /**< the planes */
	void *owned;                 /**< memory to free, set by cisp_image_alloc() */
};

/**
 * cisp_image_plane_size() - geometry of one plane of a format.
 * @format: CISP_FMT_*.
 * @width: image width in pixels.
 * @height: image height in rows.
 * @plane: plane index.
 * @row_bytes: receives the bytes a row of the plane needs (no padding).
 * @rows: receives the number of rows of the plane.
 *
 * Return: 0, or -EINVAL (unknown format, bad plane, size the format does
 * not allow such as an odd Bayer width, or over CISP_MAX_DIMENSION).
 */
CISP_API int cisp_image_plane_size(uint32_t format, uint32_t width, uint32_t height, unsigned plane,
				   size_t *row_bytes, size_t *rows);

/**
 * cisp_image_alloc() - allocate an image with 64-byte aligned rows.
 * @img: receives the descriptor; free with cisp_image_free().
 * @format: CISP_FMT_*.
 * @width: pixels.
 * @height: rows.
 *
 * Return: 0, -EINVAL for a size the format does not allow, -ENOMEM.
 */
CISP_API int cisp_image_alloc(struct cisp_image *img, uint32_t format, uint32_t width, uint32_t height);

/**
 * cisp_image_wrap() - describe caller memory holding a tightly packed image
 * (planes one after another, each row exactly its size, no padding).
 * @img: receives the descriptor; it does not own the memory.
 * @format: CISP_FMT_*.
 * @width: pixels.
 * @height: rows.
 * @data: the first byte.
 * @size: bytes available at @data.
 *
 * Return: 0, -EINVAL for a bad size, or -EMSGSIZE when @size is not exactly
 * the size the image needs (the message gives both sizes).
 */
CISP_API int cisp_image_wrap(struct cisp_image *img, uint32_t format, uint32_t width, uint32_t height,
			     void *data, size_t size);

/**
 * cisp_image_packed_size() - bytes of a tightly packed image.
 * @format: CISP_FMT_*.
 * @width: pixels.
 * @height: rows.
 *
 * Return: the size, or 0 for a size the format does not allow.
 */
CISP_API size_t cisp_image_packed_size(uint32_t format, uint32_t width, uint32_t height);

/**
 * cisp_image_check() - check that a descriptor is usable: known format,
 * allowed size, non-NULL planes, strides at least the row size.
 * @img: the image.
 * @what: a name for the message ("input", "output 0").
 *
 * Return: 0 or -EINVAL with a message naming @what and the problem.
 */
CISP_API int cisp_image_check(const struct cisp_image *img, const char *what);

/**
 * cisp_image_free() - free an image made by cisp_image_alloc(); a no-op for
 * wrapped images. The descriptor is zeroed.
 * @img: the image (may be NULL).
 */
CISP_API void cisp_image_free(struct cisp_image *img);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IMAGE_H */
