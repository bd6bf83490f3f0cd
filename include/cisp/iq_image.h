/* SPDX-License-Identifier: MIT */
/**
 * @file iq_image.h
 * @brief Images as the image-quality metrics see them: floating-point
 * samples, one (grey) or three (R, G, B) per pixel, usually linear light
 * with 1.0 at the white level.
 *
 * The metrics measure; they are not part of the bit-exact reference path, so
 * they work in floating point. Converters take processed ISP outputs, rasters
 * read from files and raw Bayer frames, undoing the transfer function so the
 * numbers are in linear light.
 */
#ifndef CISP_IQ_IMAGE_H
#define CISP_IQ_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/image.h>
#include <cisp/params.h>
#include <cisp/raster.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cisp_iq_image - a float image; either caller memory or allocated by
 * cisp_iq_image_alloc().
 * @data: sample 0 of the top-left pixel; pixel (x, y) channel c is
 *        data[y * stride + x * channels + c].
 * @width: pixels per row.
 * @height: rows.
 * @channels: 1 or 3.
 * @stride: floats from one row to the next (at least width * channels).
 */
struct cisp_iq_image {
	float *data;
	uint32_t width;
	uint32_t height;
	unsigned channels;
	size_t stride;
};

/**
 * struct cisp_iq_rect - a rectangle of pixels.
 * @x: left column.
 * @y: top row.
 * @width: columns.
 * @height: rows.
 */
struct cisp_iq_rect {
	int32_t x;
	int32_t y;
	int32_t width;
	int32_t height;
};

/**
 * cisp_iq_image_alloc() - allocate a zeroed float image (tightly packed).
 * @img: receives it; free with cisp_iq_image_free().
 * @width: 1..CISP_MAX_DIMENSION.
 * @height: 1..CISP_MAX_DIMENSION.
 * @channels: 1 or 3.
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_iq_image_alloc(struct cisp_iq_image *img, uint32_t width, uint32_t height, unsigned channels);

/**
 * cisp_iq_image_free() - free an image made by cisp_iq_image_alloc() or a
 * converter below, and zero the descriptor.
 * @img: the image (may be NULL).
 */
CISP_API void cisp_iq_image_free(struct cisp_iq_image *img);

/**
 * cisp_iq_rect_check() - check that a rectangle lies inside an image and is
 * at least @min_size pixels on each side.
 * @img: the image.
 * @r: the rectangle.
 * @min_size: smallest width and height.
 * @what: a name for the message ("edge ROI").
 * Return: 0 or -EINVAL with a message naming @what.
 */
CISP_API int cisp_iq_rect_check(const struct cisp_iq_image *img, const struct cisp_iq_rect *r, int32_t min_size,
				const char *what);

/**
 * cisp_iq_linearize() - undo a transfer function: code value in 0..1 to
 * linear light in 0..1.
 * @transfer: enum cisp_transfer.
 * @v: the encoded value.
 * Return: the linear value (values outside 0..1 are extended symmetrically).
 */
CISP_API double cisp_iq_linearize(enum cisp_transfer transfer, double v);

/**
 * cisp_iq_encode() - apply a transfer function (the inverse of
 * cisp_iq_linearize()).
 * @transfer: enum cisp_transfer.
 * @v: linear light in 0..1.
 * Return: the code value in 0..1.
 */
CISP_API double cisp_iq_encode(enum cisp_transfer transfer, double v);

/**
 * cisp_iq_image_from_cisp() - convert a processed ISP output to linear float RGB.
 * @out: receives a new 3-channel image.
 * @img: a CISP_FMT_RGB888 or CISP_FMT_RGB48 image.
 * @transfer: the transfer function the ISP applied (from its tone block),
 *            undone here.
 * Return: 0, or -EINVAL for another format.
 */
CISP_API int cisp_iq_image_from_cisp(struct cisp_iq_image *out, const struct cisp_image *img,
				     enum cisp_transfer transfer);

/**
 * cisp_iq_image_from_raster() - convert a raster (a developed image read from
 * a PNG or PNM file) to linear float samples.
 * @out: receives a new image with the raster's channel count.
 * @r: the raster; samples are divided by its maxval.
 * @transfer: the file's transfer function (CISP_TRANSFER_SRGB for ordinary
 *            8-bit images), undone here.
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_iq_image_from_raster(struct cisp_iq_image *out, const struct cisp_raster *r,
				       enum cisp_transfer transfer);

/**
 * cisp_iq_image_from_bayer() - take one colour plane of a raw Bayer frame,
 * as a half-size grey image in linear sensor units above black.
 * @out: receives a new 1-channel image of size width/2 x height/2.
 * @img: an unpacked Bayer image (8 bits, or 10..16 bits in 16-bit containers).
 * @channel: 0 R, 1 Gr (green on red rows), 2 Gb, 3 B.
 * @black: black level in the frame's own codes.
 * @white: white level in the frame's own codes; samples map to
 *         (v - black) / (white - black).
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_iq_image_from_bayer(struct cisp_iq_image *out, const struct cisp_image *img, unsigned channel,
				      double black, double white);

/**
 * cisp_iq_image_to_raster() - encode a float image for viewing or saving.
 * @r: receives a new raster with the image's channels and maxval 255.
 * @img: the image (linear).
 * @transfer: transfer function to apply.
 * @gain: multiplier applied before encoding (1.0 for none).
 * Return: 0, -EINVAL or -ENOMEM.
 */
CISP_API int cisp_iq_image_to_raster(struct cisp_raster *r, const struct cisp_iq_image *img,
				     enum cisp_transfer transfer,
				     double gain);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IQ_IMAGE_H */
