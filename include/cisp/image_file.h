/* SPDX-License-Identifier: MIT */
/**
 * @file image_file.h
 * @brief Writing ISP output images to files chosen by extension.
 *
 * RGB outputs go to JPEG (.jpg, .jpeg; 8 bits), PNG (.png; 8 or 16 bits),
 * TIFF (.tif, .tiff; 8 or 16 bits) or PPM (.ppm); YUV outputs to raw planes
 * or Y4M. cisp_image_write_file_opts() embeds an ICC profile of the output
 * colour space in JPEG, PNG and TIFF, turns the image upright from an EXIF
 * orientation and carries a raw frame's camera and exposure metadata into
 * EXIF (JPEG and PNG) or TIFF tags.
 */
#ifndef CISP_IMAGE_FILE_H
#define CISP_IMAGE_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include <cisp/api.h>
#include <cisp/image.h>
#include <cisp/output_file.h>
#include <cisp/raw_frame.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_output_format_for_path() - the ISP output format a file name calls for:
 * .png, .ppm, .tif and .tiff give RGB24 (RGB48 when @sixteen_bit), .jpg and
 * .jpeg RGB24, .nv12 NV12, .i420, .yuv and .y4m YUV420.
 * @path: the file name.
 * @sixteen_bit: prefer 16 bits per channel where the file type allows it.
 *
 * Return: the format, or 0 with a message when the extension is unknown
 * (or cannot hold 16 bits when @sixteen_bit is set).
 */
CISP_API uint32_t cisp_output_format_for_path(const char *path, bool sixteen_bit);

/**
 * cisp_image_write_file() - write an output image: RGB24/RGB48 as PNG or PPM,
 * NV12/YUV420 as raw planes (.nv12, .i420, .yuv) or a one-frame .y4m.
 * @path: the file; its extension picks the type. It is replaced if it
 *        exists, and written as an output file (output_file.h): nothing
 *        appears there on failure, and a symbolic link there is replaced,
 *        not followed.
 * @img: the image.
 * @full_range: for .y4m, whether the YCbCr range is full.
 *
 * Return: 0 or a negative errno with a message.
 */
CISP_API int cisp_image_write_file(const char *path, const struct cisp_image *img, bool full_range);

/**
 * struct cisp_file_options - how cisp_image_write_file_opts() writes a file.
 * @quality: JPEG quality 1..100; 0 takes 92.
 * @linear: the pixels are linear light (--linear output): the embedded
 *          profile is linear sRGB instead of sRGB.
 * @no_icc: embed no ICC profile.
 * @orientation: EXIF orientation (1..8) of the pixels: RGB images are turned
 *               upright before writing (cisp_image_orient()); 0 or 1 leaves
 *               them as they are. YUV outputs are never turned.
 * @full_range: for .y4m, whether the YCbCr range is full.
 * @meta: a raw frame whose make, model, exposure, f-number, ISO, focal
 *        length and capture time go into the file's EXIF (JPEG, PNG) or
 *        TIFF tags (make, model, date), or NULL.
 */
struct cisp_file_options {
	int quality;
	bool linear;
	bool no_icc;
	int orientation;
	bool full_range;
	const struct cisp_raw_frame *meta;
};

/**
 * cisp_image_write_file_opts() - write an output image with colour and
 * camera metadata: RGB888 as JPEG, RGB888/RGB48 as PNG, TIFF or PPM (no
 * metadata in PPM), YUV as cisp_image_write_file() does.
 * @path: the file; its extension picks the type. Replaced if it exists, as
 *        by cisp_image_write_file().
 * @img: the image.
 * @opts: options, or NULL for the defaults (all zero).
 *
 * Return: 0 or a negative errno with a message naming the file.
 */
CISP_API int cisp_image_write_file_opts(const char *path, const struct cisp_image *img,
					const struct cisp_file_options *opts);

/**
 * cisp_image_write_to() - cisp_image_write_file_opts() into an output file
 * the caller created (choosing whether it may replace a file) and then
 * commits or discards.
 * @out: the output file; its final name's extension picks the type.
 * @img: the image.
 * @opts: options, or NULL for the defaults (all zero).
 *
 * Return: 0 or a negative errno with a message naming the final name.
 */
CISP_API int cisp_image_write_to(struct cisp_output_file *out, const struct cisp_image *img,
				 const struct cisp_file_options *opts);

#ifdef __cplusplus
}
#endif

#endif /* CISP_IMAGE_FILE_H */
