/* SPDX-License-Identifier: MIT */
/* A small EXIF block (camera, exposure, capture time) for JPEG APP1 and PNG eXIf. */
#ifndef CISP_IO_EXIF_H
#define CISP_IO_EXIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cisp/raw_frame.h>

/* Largest block exif_build() makes. */
#define EXIF_MAX_SIZE 1024

/*
 * Write the TIFF-structured EXIF data (little-endian) of @meta for a
 * @width x @height image into @buf (EXIF_MAX_SIZE bytes): IFD0 with Make,
 * Model, Orientation 1 (the pixels are written upright), a resolution of
 * 72 dpi, Software, DateTime and the EXIF pointer; the EXIF IFD with
 * ExposureTime, FNumber, ISOSpeedRatings, ExifVersion 2.32, DateTimeOriginal,
 * FocalLength, FlashpixVersion, ColorSpace (sRGB) and the image's size. A
 * @jpeg file's EXIF also says how its YCbCr is laid out (YCbCrPositioning,
 * ComponentsConfiguration), which the EXIF standard requires of JPEG.
 * Fields @meta does not have are left out. Returns the size.
 */
size_t exif_build(const struct cisp_raw_frame *meta, uint32_t width, uint32_t height, bool jpeg, uint8_t *buf);

#endif
