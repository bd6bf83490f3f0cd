/* SPDX-License-Identifier: MIT */
/**
 * @file dng.h
 * @brief Writing a raw frame as a DNG (Adobe Digital Negative) file.
 *
 * The DNG holds the frame's mosaic unchanged (8-bit frames as 8-bit
 * samples, deeper ones as 16-bit samples, packed formats unpacked) with
 * the metadata the frame carries: CFA pattern, black level per channel
 * (BlackLevelRepeatDim 2x2), white level, ColorMatrix1 (with
 * CalibrationIlluminant1 D65), AsShotNeutral, orientation, default crop,
 * make and model, and an EXIF directory with exposure time, f-number, ISO,
 * focal length and capture time. A value the frame does not have (no colour
 * matrix, no white balance, a level marked CISP_RAW_DEFAULT_*) is left out,
 * so reading the file back gives the same frame, defaults and all.
 */
#ifndef CISP_DNG_H
#define CISP_DNG_H

#include <cisp/api.h>
#include <cisp/output_file.h>
#include <cisp/raw_frame.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * cisp_dng_write() - write a raw frame as a DNG.
 * @path: the file to create, replaced if it exists; written as an output
 *        file (output_file.h): nothing appears there on failure, and a
 *        symbolic link there is replaced, not followed.
 * @frame: a Bayer frame with its metadata.
 *
 * Return: 0, or a negative errno with a message naming the file (-EINVAL
 * for a frame that is not Bayer or has inconsistent levels, -EIO for a
 * write failure, with libtiff's message, or cisp_output_file_create()'s
 * and cisp_output_file_commit()'s errors).
 */
CISP_API int cisp_dng_write(const char *path, const struct cisp_raw_frame *frame);

/**
 * cisp_dng_write_to() - cisp_dng_write() into an output file the caller
 * created (choosing whether it may replace a file) and then commits or
 * discards.
 * @out: the output file; messages name its final name.
 * @frame: a Bayer frame with its metadata.
 *
 * Return: as cisp_dng_write(), without the output file's own errors.
 */
CISP_API int cisp_dng_write_to(struct cisp_output_file *out, const struct cisp_raw_frame *frame);

#ifdef __cplusplus
}
#endif

#endif /* CISP_DNG_H */
