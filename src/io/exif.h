/* SPDX-License-Identifier: MIT */
/* A small EXIF block (camera, exposure, capture time) for JPEG APP1 and PNG eXIf. */
#ifndef CISP_IO_EXIF_H
#define CISP_IO_EXIF_H

#include <stddef.h>
#include <stdint.h>

#include <cisp/raw_frame.h>

/* Largest block exif_build() makes. */
#define EXIF_MAX_SIZE 1024

/*
 * Write the TIFF-structured EXIF data (little-endian) of @meta into @buf
 * (EXIF_MAX_SIZE bytes): IFD0 with Make, Model, Orientation 1 (the pixels
 * are written upright), Software, DateTime and the EXIF pointer; the EXIF
 * IFD with ExposureTime, FNumber, ISOSpeedRatings, DateTimeOriginal,
 * FocalLength and ColorSpace (sRGB). Fields @meta does not have are left
 * out. Returns the size.
 */
size_t exif_build(const struct cisp_raw_frame *meta, uint8_t *buf);

#endif
