/* SPDX-License-Identifier: MIT */
/**
 * @file image_file.h
 * @brief Writing ISP output images to files chosen by extension.
 */
#ifndef CISP_IMAGE_FILE_H
#define CISP_IMAGE_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/image.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_output_format_for_path() - the ISP output format a file name calls for:
 * .png and .ppm give RGB24 (RGB48 when @sixteen_bit), .nv12 NV12, .i420,
 * .yuv and .y4m YUV420.
 * @path: the file name.
 * @sixteen_bit: prefer 16 bits per channel where the file type allows it.
 *
 * Return: the format, or 0 with a message when the extension is unknown
 * (or cannot hold 16 bits when @sixteen_bit is set).
 */
uint32_t cisp_output_format_for_path(const char *path, bool sixteen_bit);

/**
 * cisp_image_write_file() - write an output image: RGB24/RGB48 as PNG or PPM,
 * NV12/YUV420 as raw planes (.nv12, .i420, .yuv) or a one-frame .y4m.
 * @path: the file; its extension picks the type.
 * @img: the image.
 * @full_range: for .y4m, whether the YCbCr range is full.
 *
 * Return: 0 or a negative errno with a message.
 */
int cisp_image_write_file(const char *path, const struct cisp_image *img, bool full_range);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IMAGE_FILE_H */
