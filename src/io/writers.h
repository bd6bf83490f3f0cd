/* SPDX-License-Identifier: MIT */
/*
 * RGB image files with an embedded ICC profile and EXIF (used by image_file.c),
 * written into an output file that the caller commits or discards.
 */
#ifndef CISP_IO_WRITERS_H
#define CISP_IO_WRITERS_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/image.h>
#include <cisp/output_file.h>
#include <cisp/raw_frame.h>

/* Colour metadata of an output file: ICC profile and EXIF (either may be absent: NULL, 0). */
struct file_meta {
	const uint8_t *icc;
	size_t icc_size;
	const uint8_t *exif; /* TIFF-structured EXIF (exif_build()) */
	size_t exif_size;
	const struct cisp_raw_frame *frame; /* for TIFF's own tags */
};

/* RGB888 as baseline JPEG, quality 1..100 (4:2:0 chroma; 4:4:4 above quality 90). */
int io_write_jpeg(struct cisp_output_file *out, const struct cisp_image *img, int quality,
		  const struct file_meta *meta);
/* RGB888 or RGB48 as PNG (8 or 16 bits). */
int io_write_png(struct cisp_output_file *out, const struct cisp_image *img, const struct file_meta *meta);
/* RGB888 or RGB48 as an uncompressed TIFF (8 or 16 bits). */
int io_write_tiff(struct cisp_output_file *out, const struct cisp_image *img, const struct file_meta *meta);

#endif
